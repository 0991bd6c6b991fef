"""The source fetcher: the sources an operator follows (feeds, sites, sitemaps, podcast
transcripts), fetched politely into the inbox as the files ``aimi ingest`` reads
(docs/sources.md)."""
