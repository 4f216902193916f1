"""Byte-exact codecs for Kafka's ConsumerProtocolSubscription / ConsumerProtocolAssignment.

Layout follows ``clients/src/main/resources/common/message/ConsumerProtocol{Subscription,
Assignment}.json`` (``"validVersions": "0-3"``, ``"flexibleVersions": "none"``): a big-endian
int16 version header, then the fields of that version, without tagged fields.

* string: int16 length + UTF-8 bytes; nullable string: length -1 is null.
* bytes: int32 length + bytes; nullable bytes: length -1 is null.
* array: int32 count + elements (non-nullable here, so a negative count is malformed).

Subscription fields::

    Topics           []string          v0+
    UserData         bytes, nullable   v0+   default null
    OwnedPartitions  []TopicPartition  v1+   ignorable   (TopicPartition = Topic string, Partitions []int32)
    GenerationId     int32             v2+   ignorable, default -1
    RackId           string, nullable  v3+   ignorable, default null

Assignment fields (identical in v0-3; "Version 2 is to support a new field "GenerationId" in
ConsumerProtocolSubscription. Version 3 adds rack id to ConsumerProtocolSubscription.")::

    AssignedPartitions  []TopicPartition  v0+
    UserData            bytes, nullable   v0+   default null

Encoding at a version that cannot carry a field: every such field of the Subscription is
``"ignorable": true`` in Kafka's schema, and Kafka's generated writer (like kafka-python's)
silently drops ignorable fields.  We mirror that by default; ``drop_ignorable=False`` instead
raises ``ValueError`` for a non-default value the version cannot carry.  No Subscription or
Assignment field is both version-limited and non-ignorable, so nothing else is ever dropped.

Decoding: "The current implementation assumes that future versions will not break
compatibility. When it encounters a newer version, it parses it using the current format."
So a version > 3 is read with the v3 layout and trailing bytes are ignored; a negative version
is malformed.  For versions 0-3, ``strict=True`` rejects trailing bytes, ``strict=False``
ignores them as Kafka does.  Deliberately stricter than Kafka's Java reader in two places:
invalid UTF-8 is an error (Java substitutes U+FFFD) and a nullable length < -1 is an error
(Java reads any negative length as null).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Iterable

from .reader import INT16, INT32, Reader

HIGHEST_VERSION = 3
"""Highest ConsumerProtocolSubscription / ConsumerProtocolAssignment version Kafka defines."""

TopicPartitions = tuple[tuple[str, tuple[int, ...]], ...]

_MAX_STRING = 0x7FFF
_MAX_BYTES = 0x7FFFFFFF


def _topic_partitions(value: Iterable[tuple[str, Iterable[int]]]) -> TopicPartitions:
    return tuple((topic, tuple(partitions)) for topic, partitions in value)


@dataclass(frozen=True)
class Subscription:
    """A consumer's JoinGroup metadata (``ConsumerProtocolSubscription``)."""

    topics: tuple[str, ...]
    user_data: bytes | None
    owned_partitions: TopicPartitions = ()
    generation_id: int = -1
    rack_id: str | None = None

    def __post_init__(self) -> None:  # accept lists, store tuples (hashable, comparable)
        object.__setattr__(self, "topics", tuple(self.topics))
        object.__setattr__(self, "owned_partitions", _topic_partitions(self.owned_partitions))


@dataclass(frozen=True)
class Assignment:
    """A member's SyncGroup assignment (``ConsumerProtocolAssignment``)."""

    assigned_partitions: TopicPartitions
    user_data: bytes | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "assigned_partitions", _topic_partitions(self.assigned_partitions))


# ---------------------------------------------------------------------------------- encoding

def _int16(value: int, field: str) -> bytes:
    if not -0x8000 <= value <= 0x7FFF:
        raise ValueError(f"{field}: {value} does not fit in an int16")
    return INT16.pack(value)


def _int32(value: int, field: str) -> bytes:
    if not -0x80000000 <= value <= 0x7FFFFFFF:
        raise ValueError(f"{field}: {value} does not fit in an int32")
    return INT32.pack(value)


def _string(value: str | None, field: str, nullable: bool = False) -> bytes:
    if value is None:
        if not nullable:
            raise ValueError(f"{field}: null is not allowed for a non-nullable string")
        return INT16.pack(-1)
    try:
        raw = value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{field}: not encodable as UTF-8 ({e.reason})") from None
    if len(raw) > _MAX_STRING:
        raise ValueError(f"{field}: {len(raw)} UTF-8 bytes exceed the string limit of {_MAX_STRING}")
    return INT16.pack(len(raw)) + raw


def _nullable_bytes(value: bytes | None, field: str) -> bytes:
    if value is None:
        return INT32.pack(-1)
    if len(value) > _MAX_BYTES:
        raise ValueError(f"{field}: {len(value)} bytes exceed the bytes limit of {_MAX_BYTES}")
    return INT32.pack(len(value)) + bytes(value)


def _encode_topic_partitions(value: TopicPartitions, field: str) -> bytes:
    out = [_int32(len(value), field)]
    for i, (topic, partitions) in enumerate(value):
        out.append(_string(topic, f"{field}[{i}].Topic"))
        out.append(_int32(len(partitions), f"{field}[{i}].Partitions"))
        out.extend(_int32(p, f"{field}[{i}].Partitions[{j}]") for j, p in enumerate(partitions))
    return b"".join(out)


def _check_encode_version(version: int, message: str) -> None:
    if not 0 <= version <= HIGHEST_VERSION:
        raise ValueError(f"Version: {message} version {version} cannot be encoded (known versions 0-{HIGHEST_VERSION})")


# (schema name, attribute, first version carrying it, default) -- all "ignorable": true in Kafka.
_SUBSCRIPTION_IGNORABLE = (
    ("OwnedPartitions", "owned_partitions", 1, ()),
    ("GenerationId", "generation_id", 2, -1),
    ("RackId", "rack_id", 3, None),
)


def encode_subscription(sub: Subscription, version: int, *, drop_ignorable: bool = True) -> bytes:
    """Encode ``sub`` as a version-prefixed ConsumerProtocolSubscription.

    Fields the version cannot carry are dropped (Kafka's behaviour for ignorable fields) unless
    ``drop_ignorable=False``, in which case a non-default value raises ``ValueError``.
    """
    _check_encode_version(version, "ConsumerProtocolSubscription")
    if not drop_ignorable:
        for name, attr, since, default in _SUBSCRIPTION_IGNORABLE:
            value = getattr(sub, attr)
            if version < since and value != default:
                raise ValueError(f"{name}: {value!r} cannot be encoded at subscription version {version} "
                                 f"(the field exists from version {since})")
    out = [_int16(version, "Version"), _int32(len(sub.topics), "Topics")]
    out.extend(_string(t, f"Topics[{i}]") for i, t in enumerate(sub.topics))
    out.append(_nullable_bytes(sub.user_data, "UserData"))
    if version >= 1:
        out.append(_encode_topic_partitions(sub.owned_partitions, "OwnedPartitions"))
    if version >= 2:
        out.append(_int32(sub.generation_id, "GenerationId"))
    if version >= 3:
        out.append(_string(sub.rack_id, "RackId", nullable=True))
    return b"".join(out)


def encode_assignment(assignment: Assignment, version: int) -> bytes:
    """Encode ``assignment`` as a version-prefixed ConsumerProtocolAssignment (same layout in v0-3)."""
    _check_encode_version(version, "ConsumerProtocolAssignment")
    return b"".join((
        _int16(version, "Version"),
        _encode_topic_partitions(assignment.assigned_partitions, "AssignedPartitions"),
        _nullable_bytes(assignment.user_data, "UserData"),
    ))


# ---------------------------------------------------------------------------------- decoding

class _Reader(Reader):
    """The consumer protocol's strings, bytes and arrays on top of ``reader.Reader``."""

    def string(self, field: str, nullable: bool = False) -> str | None:
        start = self.pos
        n = self.int16(field)
        if n == -1 and nullable:
            return None
        if n < 0:
            kind = "nullable string (only -1 means null)" if nullable else "non-nullable string"
            raise self.error(field, f"negative length {n} for a {kind}", at=start)
        raw = self.take(n, field, f"string length {n}")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.error(field, f"invalid UTF-8 in string: {e.reason}", at=start + 2 + e.start) from None

    def nullable_bytes(self, field: str) -> bytes | None:
        start = self.pos
        n = self.int32(field)
        if n == -1:
            return None
        if n < 0:
            raise self.error(field, f"negative length {n} for nullable bytes (only -1 means null)", at=start)
        return self.take(n, field, f"bytes length {n}")

    def topic_partitions(self, field: str) -> TopicPartitions:
        out = []
        for i in range(self.count(field, 2 + 4)):  # smallest TopicPartition: "" and no partitions
            topic = self.string(f"{field}[{i}].Topic")
            n = self.count(f"{field}[{i}].Partitions", 4)
            out.append((topic, struct.unpack_from(f">{n}i", self.data, self.pos)))
            self.pos += 4 * n
        return tuple(out)

    def version(self) -> int:
        version = self.int16("Version")
        if version < 0:
            raise self.error("Version", f"negative version {version}", at=0)
        return version

    def finish(self, version: int, strict: bool) -> None:
        if strict and version <= HIGHEST_VERSION and self.remaining:
            raise self.error("TrailingBytes", f"{self.remaining} unexpected bytes after a complete "
                                              f"version {version} message")


def decode_subscription(data: bytes, strict: bool = True) -> tuple[int, Subscription]:
    """Decode a version-prefixed ConsumerProtocolSubscription; return (header version, value).

    A version above 3 is read with the v3 layout, ignoring whatever follows it.
    """
    r = _Reader(data)
    version = r.version()
    layout = min(version, HIGHEST_VERSION)
    topics = tuple(r.string(f"Topics[{i}]") for i in range(r.count("Topics", 2)))
    user_data = r.nullable_bytes("UserData")
    owned = r.topic_partitions("OwnedPartitions") if layout >= 1 else ()
    generation_id = r.int32("GenerationId") if layout >= 2 else -1
    rack_id = r.string("RackId", nullable=True) if layout >= 3 else None
    r.finish(version, strict)
    return version, Subscription(topics, user_data, owned, generation_id, rack_id)


def decode_assignment(data: bytes, strict: bool = True) -> tuple[int, Assignment]:
    """Decode a version-prefixed ConsumerProtocolAssignment; return (header version, value)."""
    r = _Reader(data)
    version = r.version()
    assigned = r.topic_partitions("AssignedPartitions")
    user_data = r.nullable_bytes("UserData")
    r.finish(version, strict)
    return version, Assignment(assigned, user_data)
