"""The ``aimi`` command line: one module per command group, the one package allowed to import
every other (``tests/test_import_boundaries.py``)."""
