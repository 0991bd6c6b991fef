"""The read model: the loaded snapshot and the answers that every transport serves."""
