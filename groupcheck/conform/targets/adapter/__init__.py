"""Adapter programs: any program speaking PROTOCOL.md over its stdin and stdout."""
