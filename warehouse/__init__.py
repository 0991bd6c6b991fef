"""warehouse package."""
