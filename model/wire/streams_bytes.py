"""Wire primitives shared by the SubscriptionInfo and AssignmentInfo codecs.

Big-endian struct packers, range-checked encoders (``int32``, ``utf8``, ``java_utf`` = Java's
``DataOutputStream.writeUTF``, ``java_chars`` = ``writeChars`` with an int32 count, ...), the
version and TaskId checks both encoders apply, and ``Reader``: a bounds-checked cursor that
raises ``DecodeError`` naming the field.  See ``streams_metadata.py`` for the overview.
"""

from __future__ import annotations

import struct
import uuid

from .reader import INT8, INT16, INT32, INT64, Reader as BaseReader
from .streams_values import LATEST_SUPPORTED_VERSION, MIN_NAMED_TOPOLOGY_VERSION, TaskId

UINT16 = struct.Struct(">H")


# ---------------------------------------------------------------------------------- encoding

def _check_range(value: int, bits: int, field_: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{field_}: expected an int, got {value!r}")
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise ValueError(f"{field_}: {value} does not fit in an int{bits}")


def int8(value: int, field_: str) -> bytes:
    _check_range(value, 8, field_)
    return INT8.pack(value)


def int32(value: int, field_: str) -> bytes:
    _check_range(value, 32, field_)
    return INT32.pack(value)


def int64(value: int, field_: str) -> bytes:
    _check_range(value, 64, field_)
    return INT64.pack(value)


def utf8(value: str, field_: str) -> bytes:
    if not isinstance(value, str):
        raise TypeError(f"{field_}: expected a str, got {value!r}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{field_}: not encodable as UTF-8 ({e.reason})") from None


def bytes32(raw: bytes, field_: str) -> bytes:
    return int32(len(raw), field_) + raw


def nullable_string16(value: str | None, field_: str) -> bytes:
    if value is None:
        return INT16.pack(-1)
    raw = utf8(value, field_)
    if len(raw) > 0x7FFF:
        raise ValueError(f"{field_}: {len(raw)} UTF-8 bytes exceed the string limit of 32767")
    return INT16.pack(len(raw)) + raw


def java_utf(value: str, field_: str) -> bytes:
    """``DataOutputStream.writeUTF``: unsigned int16 length + modified UTF-8 of the UTF-16 units."""
    if not isinstance(value, str):
        raise TypeError(f"{field_}: expected a str, got {value!r}")
    if value.isascii() and "\x00" not in value:
        raw = value.encode("ascii")
    else:
        units = value.encode("utf-16-be", "surrogatepass")
        out = bytearray()
        for i in range(0, len(units), 2):
            u = (units[i] << 8) | units[i + 1]
            if 0x0001 <= u <= 0x007F:
                out.append(u)
            elif u <= 0x07FF:
                out += bytes((0xC0 | (u >> 6), 0x80 | (u & 0x3F)))
            else:
                out += bytes((0xE0 | (u >> 12), 0x80 | ((u >> 6) & 0x3F), 0x80 | (u & 0x3F)))
        raw = bytes(out)
    if len(raw) > 0xFFFF:
        raise ValueError(f"{field_}: {len(raw)} modified UTF-8 bytes exceed writeUTF's limit of 65535")
    return UINT16.pack(len(raw)) + raw


def java_chars(value: str | None, field_: str) -> bytes:
    """``ConsumerProtocolUtils.writeTaskIdTo`` (v10+): int32 char count + ``writeChars`` (UTF-16BE)."""
    if value is None:
        return INT32.pack(0)
    if not isinstance(value, str):
        raise TypeError(f"{field_}: expected a str, got {value!r}")
    raw = value.encode("utf-16-be", "surrogatepass")
    return int32(len(raw) // 2, field_) + raw


def check_encode_version(version: int, message: str) -> None:
    if not isinstance(version, int) or not 1 <= version <= LATEST_SUPPORTED_VERSION:
        raise ValueError(f"version: {message} version {version!r} is not implemented "
                         f"(implemented: 1-{LATEST_SUPPORTED_VERSION})")


def no_named_topology(task: TaskId, version: int, field_: str) -> None:
    if len(task) == 3:
        raise ValueError(f"{field_}: named topology {task[2]!r} cannot be encoded at version {version} "
                         f"(named topologies need version {MIN_NAMED_TOPOLOGY_VERSION}+)")


def plain_task(task: TaskId, version: int, field_: str) -> bytes:
    no_named_topology(task, version, field_)
    return int32(task[0], f"{field_}.topicGroupId") + int32(task[1], f"{field_}.partition")


# ---------------------------------------------------------------------------------- decoding

class Reader(BaseReader):
    """Streams' UUIDs and string encodings on top of ``reader.Reader``."""

    def uuid(self, field_: str) -> uuid.UUID:
        return uuid.UUID(bytes=self.take(16, field_, "uuid"))

    def _decode_utf8(self, raw: bytes, field_: str, start: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.error(field_, f"invalid UTF-8: {e.reason}", at=start + e.start) from None

    def utf8_bytes32(self, field_: str) -> str:
        """Non-nullable ``bytes`` (int32 length) holding UTF-8 text."""
        start = self.pos
        n = self.int32(field_)
        if n < 0:
            raise self.error(field_, f"negative length {n} for non-nullable bytes", at=start)
        return self._decode_utf8(self.take(n, field_, f"bytes length {n}"), field_, start + 4)

    def nullable_string16(self, field_: str) -> str | None:
        start = self.pos
        n = INT16.unpack(self.take(2, field_, "int16 string length"))[0]
        if n == -1:
            return None
        if n < 0:
            raise self.error(field_, f"negative length {n} for a nullable string (only -1 means null)", at=start)
        return self._decode_utf8(self.take(n, field_, f"string length {n}"), field_, start + 2)

    def java_utf(self, field_: str) -> str:
        """``DataInputStream.readUTF``, rejecting the non-canonical forms ``writeUTF`` never writes."""
        n = UINT16.unpack(self.take(2, field_, "writeUTF length"))[0]
        base = self.pos
        raw = self.take(n, field_, f"writeUTF length {n}")
        if raw.isascii() and 0 not in raw:
            return raw.decode("ascii")
        units = bytearray()
        i = 0
        while i < n:
            c = raw[i]
            if c < 0x80:
                if c == 0:
                    raise self.error(field_, "raw 0x00 byte (writeUTF encodes U+0000 as C0 80)", at=base + i)
                u, size = c, 1
            elif c >> 5 == 0b110 or c >> 4 == 0b1110:
                size = 2 if c >> 5 == 0b110 else 3
                if i + size > n or any(b >> 6 != 0b10 for b in raw[i + 1:i + size]):
                    raise self.error(field_, "malformed modified UTF-8 sequence", at=base + i)
                if size == 2:
                    u = ((c & 0x1F) << 6) | (raw[i + 1] & 0x3F)
                    overlong = 0 < u < 0x80
                else:
                    u = ((c & 0x0F) << 12) | ((raw[i + 1] & 0x3F) << 6) | (raw[i + 2] & 0x3F)
                    overlong = u < 0x800
                if overlong:
                    raise self.error(field_, "overlong modified UTF-8 sequence", at=base + i)
            else:
                raise self.error(field_, f"byte 0x{c:02x} cannot start a modified UTF-8 sequence", at=base + i)
            units += u.to_bytes(2, "big")
            i += size
        return units.decode("utf-16-be", "surrogatepass")

    def java_chars(self, field_: str) -> str | None:
        """int32 char count + UTF-16BE chars (``writeChars``); 0 chars means no named topology."""
        start = self.pos
        n = self.int32(field_)
        if n < 0:
            raise self.error(field_, f"negative char count {n}", at=start)
        if 2 * n > self.remaining:
            raise self.error(field_, f"{n} UTF-16 chars run past the end of the buffer")
        return self.take(2 * n, field_, "chars").decode("utf-16-be", "surrogatepass") or None

    def finish(self, strict: bool) -> None:
        if strict and self.remaining:
            raise self.error("TrailingBytes", f"{self.remaining} unexpected bytes after a complete message")


def read_version(r: Reader) -> int:
    version = r.int32("version")
    if version < 1:
        raise r.error("version", f"version {version} is not a valid version (versions start at 1)", at=0)
    return version
