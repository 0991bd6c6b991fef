"""When the asset graph runs by itself: the daily schedule and the inbox sensor."""
