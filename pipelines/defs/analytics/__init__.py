"""Stage 4: trend analytics over entities and themes (docs/design.md §7)."""
