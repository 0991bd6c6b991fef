"""Entity quality: linking precision and recall, discovery labels, new models on trending,
profile counts against the served cards."""
