"""The sources group: the followed feeds, sites and sitemaps fetched into the inbox."""
