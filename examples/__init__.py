"""Examples of groupcheck used from outside the package: your own assignors."""
