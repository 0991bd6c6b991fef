"""Publishing: the static site, feeds, export and webhook delivery."""
