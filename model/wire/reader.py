"""The byte cursor every decoder here builds on: each length is checked against the
bytes left before anything is read, so a malformed message fails with a DecodeError
naming the field, never an IndexError, a struct.error or a huge allocation."""
from __future__ import annotations

import struct

from .errors import DecodeError

INT8 = struct.Struct(">b")
INT16 = struct.Struct(">h")
INT32 = struct.Struct(">i")
INT64 = struct.Struct(">q")


class Reader:
    """A cursor over ``data`` that checks every length against the bytes left before using it."""

    def __init__(self, data: bytes) -> None:
        self.data = bytes(data)
        self.pos = 0

    @property
    def remaining(self) -> int:
        return len(self.data) - self.pos

    def error(self, field: str, reason: str, at: int | None = None) -> DecodeError:
        at = self.pos if at is None else at
        return DecodeError(field, at, reason, len(self.data) - at)

    def take(self, n: int, field: str, what: str) -> bytes:
        if n > self.remaining:
            raise self.error(field, f"{what} runs past the end of the buffer")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def int8(self, field: str) -> int:
        return INT8.unpack(self.take(1, field, "int8"))[0]

    def int16(self, field: str) -> int:
        return INT16.unpack(self.take(2, field, "int16"))[0]

    def int32(self, field: str) -> int:
        return INT32.unpack(self.take(4, field, "int32"))[0]

    def int64(self, field: str) -> int:
        return INT64.unpack(self.take(8, field, "int64"))[0]

    def count(self, field: str, min_element_size: int) -> int:
        """Read a non-nullable int32 array count; reject it unless its smallest encoding fits."""
        start = self.pos
        n = self.int32(field)
        if n < 0:
            raise self.error(field, f"negative count {n} for a non-nullable array", at=start)
        if n * min_element_size > self.remaining:
            raise self.error(field, f"array count {n} needs at least {n * min_element_size} bytes, "
                                    "which runs past the end of the buffer")
        return n

    def unsigned_varint(self, field: str) -> int:
        """Read a Kafka unsigned varint (``ByteUtils.readUnsignedVarint``: 7 bits a byte, least
        significant group first, at most 5 bytes). Stricter than Kafka: the value must fit a
        non-negative Java int (Kafka's wraps to a negative one) and use its shortest encoding."""
        start, value = self.pos, 0
        for i in range(5):
            b = self.take(1, field, "unsigned varint")[0]
            value |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                if b == 0 and i > 0:
                    raise self.error(field, "unsigned varint is not in its shortest encoding", at=start)
                if value > 0x7FFFFFFF:
                    raise self.error(field, f"unsigned varint {value} does not fit in a non-negative int32",
                                     at=start)
                return value
        raise self.error(field, "unsigned varint longer than 5 bytes", at=start)
