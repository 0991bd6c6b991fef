"""Benchmarks and quality measurements, by subject (bench/README.md says what to run for which
question). Not part of the product and not run by the test suite; run each module from the
repository root with ``python -m bench.<subject>.<kind>.<module>``."""
