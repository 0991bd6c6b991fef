"""API speed: requests/s and latency under wrk against a bare FastAPI app, and opening and
swapping a snapshot."""
