"""Conformance: judge real implementations with the model's properties (see PROTOCOL.md)."""
