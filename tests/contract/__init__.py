"""Contract tests: the interface spec (../shared/spec/interface-spec.md) walked section by
section against the API serving the pipeline-built demo snapshot."""
