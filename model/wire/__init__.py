"""Byte-exact wire codecs for Kafka group-protocol payloads (pure Python, no I/O)."""
