"""Theme tagging and unit extraction quality on the shared corpora and the demo corpus."""
