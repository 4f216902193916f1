"""The targets: one package per family of implementations (effects live only here)."""
