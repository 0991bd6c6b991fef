"""Stories (quality): event-level precision and recall from judged pairs, story ids across
rebuilds, corroboration, and how far the evidence goes."""
