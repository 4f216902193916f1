"""Errors raised by the wire codecs."""

from __future__ import annotations


class DecodeError(ValueError):
    """A malformed payload.

    ``field`` is the dotted path of the field being read when decoding failed
    (e.g. ``"OwnedPartitions[0].Partitions"``), ``offset`` the byte offset at
    which the failing read started, ``remaining`` the bytes left from there.
    ``str(err)`` always starts with ``field``.
    """

    def __init__(self, field: str, offset: int, reason: str, remaining: int | None = None) -> None:
        self.field = field
        self.offset = offset
        self.reason = reason
        self.remaining = remaining
        where = f"offset {offset}" if remaining is None else f"offset {offset}, {remaining} bytes left"
        super().__init__(f"{field}: {reason} ({where})")

    def __reduce__(self):  # keep pickling (e.g. pytest-xdist) working with the custom __init__
        return (type(self), (self.field, self.offset, self.reason, self.remaining))
