"""Search: retrieval speed (speed/) and ranking quality (quality/)."""
