"""Each protocol's model state as its TLA+ spec's variables (``specs/<package>/``)."""
