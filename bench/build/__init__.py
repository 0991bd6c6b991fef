"""The build: where its time goes, its encoder passes, its executors and ingest."""
