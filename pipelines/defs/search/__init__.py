"""Stage 5: search: unit embeddings (the indexes are built into each snapshot)."""
