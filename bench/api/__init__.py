"""The served API: throughput and latency (speed/), and every answer written out so a refactor
can be shown to change none (answers.py)."""
