"""Search quality: hit rate, recall and nDCG on judged queries; contextual indexing; whole
sources."""
