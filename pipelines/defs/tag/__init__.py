"""Stage 3: entities and themes on signals and units."""
