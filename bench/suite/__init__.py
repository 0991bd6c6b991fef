"""The test suite's CPU and the share of it ONNX Runtime takes (sitecustomize.py, put on
PYTHONPATH; ort_share.py sums what it recorded)."""
