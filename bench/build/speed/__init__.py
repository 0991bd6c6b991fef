"""Build speed: time per asset, MiniLM passes on torch and ONNX Runtime, in-process against
multiprocess, ingest throughput."""
