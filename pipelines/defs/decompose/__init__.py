"""Stage 2: signals and their verified units."""
