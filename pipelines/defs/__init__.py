"""Dagster definitions, one folder per pipeline stage."""
