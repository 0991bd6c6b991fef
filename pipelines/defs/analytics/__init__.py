"""Stage 4: trend analytics over entities and themes (DESIGN §7)."""
