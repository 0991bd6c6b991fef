"""The static half of the publishing layer (docs/design.md §10): a JSON tree byte-identical to the
API's answers and the market-pulse site, written into a snapshot before it is published."""
