"""Stage 3: the immutable snapshot the API serves."""
