"""One module per groupcheck command; ``groupcheck.cli`` wires them into one app."""
