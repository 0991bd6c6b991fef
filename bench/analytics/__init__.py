"""Analytics: the trend and co-occurrence stage's speed (speed/); theme tagging and unit
extraction quality (quality/)."""
