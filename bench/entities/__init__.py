"""Entities: mention linking, discovery, trending's new list and the profiles' counts."""
