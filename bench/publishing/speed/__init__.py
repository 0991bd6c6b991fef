"""Publishing speed: static site renders, feeds, bulk export and webhook batches."""
