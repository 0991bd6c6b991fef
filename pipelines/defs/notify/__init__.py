"""The notify group: webhook deliveries after each publish."""
