"""In-process targets: the model's own implementations and Python classes called directly."""
