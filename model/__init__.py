"""groupcheck's executable reference models: pure, deterministic, no I/O."""
