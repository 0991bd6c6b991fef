"""Stage 1: sources from the inbox into the warehouse."""
