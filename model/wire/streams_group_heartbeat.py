"""Byte-exact codecs for StreamsGroupHeartbeatRequest / StreamsGroupHeartbeatResponse (apiKey 88,
KIP-1071), message bodies without the request/response header.

Layout follows ``clients/src/main/resources/common/message/StreamsGroupHeartbeat{Request,
Response}.json`` as Kafka 4.1 ships them (``"validVersions": "0"``, ``"flexibleVersions": "0+"``).
The tables below (``REQUEST``, ``RESPONSE`` and their structs) list every field in wire order with
its schema name; a field's error path uses those names (``Topology.Subtopologies[0].SourceTopics``).
Request version 1 (KIP-1331, newer trunk) "is the same as version 0", so the request codec accepts
it with the same layout; response version 1 changes the layout and is not supported.

Flexible versions (KIP-482, Kafka's ``MessageDataGenerator``)::

    string            unsigned varint (length + 1) + UTF-8 bytes; nullable: 0 is null
    array             unsigned varint (count + 1) + elements;     nullable: 0 is null
    struct            its fields, then its tagged-field buffer
    nullable struct   int8 marker (-1 null, 1 present), then the struct
    tagged fields     unsigned varint count, then per field: varint tag, varint size, size bytes
    bool int8 int16 uint16 int32 int64    1, 1, 2, 2, 4, 8 bytes big-endian

Every struct, the message included, ends with a tagged-field buffer. These messages declare no
tagged fields, so the encoder writes an empty buffer (one 0 byte) and the decoder skips any tagged
field it finds, as Kafka keeps them only as unknown fields.

Decoding is deliberately stricter than Kafka's generated Java readers, so that every accepted
message is the one canonical encoding of its value: a varint must be in its shortest form and fit a
non-negative int32 (Kafka accepts padded varints and wraps large ones), a bool must be 0 or 1
(Kafka: any non-zero is true), a nullable struct's marker must be -1 or 1 (Kafka: any negative is
null, anything else present), strings must be valid UTF-8 (Java substitutes U+FFFD), and bytes
after the message are an error (``TrailingBytes``). As in Kafka, a string longer than 0x7fff UTF-8
bytes is an error both ways. Unknown tagged fields are the one thing decoding drops.
"""

from __future__ import annotations

import struct
from typing import Any, NamedTuple

from groupcheck.model.streams_group.state import (
    CopartitionGroup,
    Endpoint,
    EndpointToPartitions,
    KeyValue,
    Status,
    StreamsGroupHeartbeat,
    StreamsGroupHeartbeatResponse,
    Subtopology,
    TaskIds,
    TaskOffset,
    TopicInfo,
    TopicPartitions,
    Topology,
)

from .errors import DecodeError
from .reader import Reader

API_KEY = 88
REQUEST_VERSIONS = (0, 1)
"""Request versions this codec reads and writes (v1 = v0's layout, KIP-1331)."""
RESPONSE_VERSIONS = (0,)
"""Response versions this codec reads and writes (v1, KIP-1331, changes the layout)."""

_MAX_STRING = 0x7FFF

# ---------------------------------------------------------------------------------- the schema

# Primitive types: name -> (struct format, smallest value, largest value)
_FIXED = {
    "int8": (struct.Struct(">b"), -(1 << 7), (1 << 7) - 1),
    "int16": (struct.Struct(">h"), -(1 << 15), (1 << 15) - 1),
    "uint16": (struct.Struct(">H"), 0, (1 << 16) - 1),
    "int32": (struct.Struct(">i"), -(1 << 31), (1 << 31) - 1),
    "int64": (struct.Struct(">q"), -(1 << 63), (1 << 63) - 1),
}


class Array(NamedTuple):
    """``[]element`` in the schema; ``nullable`` for ``"nullableVersions": "0+"``."""

    element: Any
    nullable: bool = False


class Nullable(NamedTuple):
    """A string or struct field with ``"nullableVersions": "0+"``."""

    inner: Any


class Struct(NamedTuple):
    """A schema struct: the NamedTuple it decodes to and its fields (schema name, attribute, type)
    in wire order."""

    name: str
    cls: type
    fields: tuple[tuple[str, str, Any], ...]


KEY_VALUE = Struct("KeyValue", KeyValue, (("Key", "key", "string"), ("Value", "value", "string")))
TOPIC_INFO = Struct("TopicInfo", TopicInfo, (
    ("Name", "name", "string"),
    ("Partitions", "partitions", "int32"),
    ("ReplicationFactor", "replication_factor", "int16"),
    ("TopicConfigs", "topic_configs", Array(KEY_VALUE)),
))
COPARTITION_GROUP = Struct("CopartitionGroup", CopartitionGroup, (
    ("SourceTopics", "source_topics", Array("int16")),
    ("SourceTopicRegex", "source_topic_regex", Array("int16")),
    ("RepartitionSourceTopics", "repartition_source_topics", Array("int16")),
))
SUBTOPOLOGY = Struct("Subtopology", Subtopology, (
    ("SubtopologyId", "subtopology_id", "string"),
    ("SourceTopics", "source_topics", Array("string")),
    ("SourceTopicRegex", "source_topic_regex", Array("string")),
    ("StateChangelogTopics", "state_changelog_topics", Array(TOPIC_INFO)),
    ("RepartitionSinkTopics", "repartition_sink_topics", Array("string")),
    ("RepartitionSourceTopics", "repartition_source_topics", Array(TOPIC_INFO)),
    ("CopartitionGroups", "copartition_groups", Array(COPARTITION_GROUP)),
))
TOPOLOGY = Struct("Topology", Topology, (
    ("Epoch", "epoch", "int32"),
    ("Subtopologies", "subtopologies", Array(SUBTOPOLOGY)),
))
TASK_IDS = Struct("TaskIds", TaskIds, (
    ("SubtopologyId", "subtopology_id", "string"),
    ("Partitions", "partitions", Array("int32")),
))
ENDPOINT = Struct("Endpoint", Endpoint, (("Host", "host", "string"), ("Port", "port", "uint16")))
TASK_OFFSET = Struct("TaskOffset", TaskOffset, (
    ("SubtopologyId", "subtopology_id", "string"),
    ("Partition", "partition", "int32"),
    ("Offset", "offset", "int64"),
))

REQUEST = Struct("StreamsGroupHeartbeatRequest", StreamsGroupHeartbeat, (
    ("GroupId", "group_id", "string"),
    ("MemberId", "member_id", "string"),
    ("MemberEpoch", "member_epoch", "int32"),
    ("EndpointInformationEpoch", "endpoint_information_epoch", "int32"),  # shipped Kafka, not the KIP
    ("InstanceId", "instance_id", Nullable("string")),
    ("RackId", "rack_id", Nullable("string")),
    ("RebalanceTimeoutMs", "rebalance_timeout_ms", "int32"),
    ("Topology", "topology", Nullable(TOPOLOGY)),
    ("ActiveTasks", "active_tasks", Array(TASK_IDS, nullable=True)),
    ("StandbyTasks", "standby_tasks", Array(TASK_IDS, nullable=True)),
    ("WarmupTasks", "warmup_tasks", Array(TASK_IDS, nullable=True)),
    ("ProcessId", "process_id", Nullable("string")),
    ("UserEndpoint", "user_endpoint", Nullable(ENDPOINT)),
    ("ClientTags", "client_tags", Array(KEY_VALUE, nullable=True)),
    ("TaskOffsets", "task_offsets", Array(TASK_OFFSET, nullable=True)),
    ("TaskEndOffsets", "task_end_offsets", Array(TASK_OFFSET, nullable=True)),
    ("ShutdownApplication", "shutdown_application", "bool"),
))

STATUS = Struct("Status", Status, (("StatusCode", "status_code", "int8"), ("StatusDetail", "status_detail", "string")))
TOPIC_PARTITION = Struct("TopicPartition", TopicPartitions, (
    ("Topic", "topic", "string"),
    ("Partitions", "partitions", Array("int32")),
))
ENDPOINT_TO_PARTITIONS = Struct("EndpointToPartitions", EndpointToPartitions, (
    ("UserEndpoint", "user_endpoint", ENDPOINT),
    ("ActivePartitions", "active_partitions", Array(TOPIC_PARTITION)),    # shipped Kafka; the KIP
    ("StandbyPartitions", "standby_partitions", Array(TOPIC_PARTITION)),  # has one "Partitions"
))

RESPONSE = Struct("StreamsGroupHeartbeatResponse", StreamsGroupHeartbeatResponse, (
    ("ThrottleTimeMs", "throttle_time_ms", "int32"),
    ("ErrorCode", "error_code", "int16"),
    ("ErrorMessage", "error_message", Nullable("string")),
    ("MemberId", "member_id", "string"),
    ("MemberEpoch", "member_epoch", "int32"),
    ("HeartbeatIntervalMs", "heartbeat_interval_ms", "int32"),
    ("AcceptableRecoveryLag", "acceptable_recovery_lag", "int32"),
    ("TaskOffsetIntervalMs", "task_offset_interval_ms", "int32"),
    ("Status", "status", Array(STATUS, nullable=True)),
    ("ActiveTasks", "active_tasks", Array(TASK_IDS, nullable=True)),
    ("StandbyTasks", "standby_tasks", Array(TASK_IDS, nullable=True)),
    ("WarmupTasks", "warmup_tasks", Array(TASK_IDS, nullable=True)),
    ("EndpointInformationEpoch", "endpoint_information_epoch", "int32"),  # shipped Kafka, not the KIP
    ("PartitionsByUserEndpoint", "partitions_by_user_endpoint", Array(ENDPOINT_TO_PARTITIONS, nullable=True)),
))


def _min_size(typ: Any) -> int:
    """The fewest bytes a value of ``typ`` can take (bounds an array count before looping)."""
    if isinstance(typ, Struct):
        return sum(_min_size(t) for _, _, t in typ.fields) + 1  # + empty tagged-field buffer
    if isinstance(typ, (Array, Nullable)) or typ in ("string", "bool"):
        return 1
    return _FIXED[typ][0].size


# ---------------------------------------------------------------------------------- encoding

def unsigned_varint(value: int) -> bytes:
    """Kafka's ``ByteUtils.writeUnsignedVarint``: 7 bits a byte, least significant group first."""
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _write(value: Any, typ: Any, path: str, out: list[bytes]) -> None:
    if isinstance(typ, Nullable):
        if value is None:
            out.append(b"\x00" if typ.inner == "string" else b"\xff")  # string: length+1 = 0; struct: int8 -1
            return
        if isinstance(typ.inner, Struct):
            out.append(b"\x01")
        _write(value, typ.inner, path, out)
    elif value is None:
        nullable = isinstance(typ, Array) and typ.nullable
        if not nullable:
            raise ValueError(f"{path}: null is not allowed for a non-nullable field")
        out.append(b"\x00")
    elif isinstance(typ, Struct):
        if not isinstance(value, typ.cls):
            raise TypeError(f"{path}: expected a {typ.cls.__name__}, got {value!r}")
        for name, attr, field_type in typ.fields:
            _write(getattr(value, attr), field_type, f"{path}.{name}" if path else name, out)
        out.append(b"\x00")  # no tagged fields
    elif isinstance(typ, Array):
        if not isinstance(value, (tuple, list)) or hasattr(value, "_fields"):  # a NamedTuple is a struct
            raise TypeError(f"{path}: expected a tuple, got {value!r}")
        out.append(unsigned_varint(len(value) + 1))
        for i, element in enumerate(value):
            _write(element, typ.element, f"{path}[{i}]", out)
    elif typ == "string":
        if not isinstance(value, str):
            raise TypeError(f"{path}: expected a str, got {value!r}")
        try:
            raw = value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError(f"{path}: not encodable as UTF-8 ({e.reason})") from None
        if len(raw) > _MAX_STRING:
            raise ValueError(f"{path}: {len(raw)} UTF-8 bytes exceed the string limit of {_MAX_STRING}")
        out.append(unsigned_varint(len(raw) + 1) + raw)
    elif typ == "bool":
        if not isinstance(value, bool):
            raise TypeError(f"{path}: expected a bool, got {value!r}")
        out.append(b"\x01" if value else b"\x00")
    else:
        packer, lo, hi = _FIXED[typ]
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{path}: expected an int, got {value!r}")
        if not lo <= value <= hi:
            raise ValueError(f"{path}: {value} does not fit in {typ}")
        out.append(packer.pack(value))


def _encode(msg: Any, spec: Struct, version: int, versions: tuple[int, ...]) -> bytes:
    _check_version(spec, version, versions)
    out: list[bytes] = []
    _write(msg, spec, "", out)
    return b"".join(out)


def _check_version(spec: Struct, version: int, versions: tuple[int, ...]) -> None:
    if version not in versions:
        raise ValueError(f"Version: {spec.name} version {version} is not supported "
                         f"(this codec knows versions {', '.join(map(str, versions))})")


def encode_request(msg: StreamsGroupHeartbeat, version: int = 0) -> bytes:
    """The StreamsGroupHeartbeatRequest body (no request header) of ``msg`` at ``version``.

    Raises ``ValueError`` (or ``TypeError`` for a wrong type) naming the field that cannot be encoded.
    """
    return _encode(msg, REQUEST, version, REQUEST_VERSIONS)


def encode_response(msg: StreamsGroupHeartbeatResponse, version: int = 0) -> bytes:
    """The StreamsGroupHeartbeatResponse body (no response header) of ``msg`` at ``version``."""
    return _encode(msg, RESPONSE, version, RESPONSE_VERSIONS)


# ---------------------------------------------------------------------------------- decoding

def _length(r: Reader, path: str, nullable: bool, what: str) -> int | None:
    """A compact length: unsigned varint N, N - 1 items, 0 meaning null."""
    start = r.pos
    n = r.unsigned_varint(path)
    if n == 0:
        if nullable:
            return None
        raise r.error(path, f"null (length 0) for a non-nullable {what}", at=start)
    return n - 1


def _skip_tagged_fields(r: Reader, path: str) -> None:
    field = f"{path}.TaggedFields" if path else "TaggedFields"
    for i in range(r.unsigned_varint(field)):
        r.unsigned_varint(f"{field}[{i}].Tag")
        size = r.unsigned_varint(f"{field}[{i}].Size")
        r.take(size, f"{field}[{i}]", f"tagged field of {size} bytes")


def _read(r: Reader, typ: Any, path: str) -> Any:
    if isinstance(typ, Nullable):
        if typ.inner == "string":
            return _read_string(r, path, nullable=True)
        start = r.pos
        marker = r.take(1, path, "nullable struct marker")[0]
        if marker == 0xFF:
            return None
        if marker != 1:
            raise r.error(path, f"nullable struct marker {marker - 256 if marker > 127 else marker} "
                                "is neither -1 (null) nor 1 (present)", at=start)
        return _read(r, typ.inner, path)
    if isinstance(typ, Struct):
        values = {attr: _read(r, field_type, f"{path}.{name}" if path else name)
                  for name, attr, field_type in typ.fields}
        _skip_tagged_fields(r, path)
        return typ.cls(**values)
    if isinstance(typ, Array):
        start = r.pos
        count = _length(r, path, typ.nullable, "array")
        if count is None:
            return None
        need = count * _min_size(typ.element)
        if need > r.remaining:
            raise r.error(path, f"array count {count} needs at least {need} bytes, "
                                "which runs past the end of the buffer", at=start)
        return tuple(_read(r, typ.element, f"{path}[{i}]") for i in range(count))
    if typ == "string":
        return _read_string(r, path, nullable=False)
    if typ == "bool":
        start = r.pos
        b = r.take(1, path, "bool")[0]
        if b > 1:
            raise r.error(path, f"bool byte {b} is neither 0 nor 1", at=start)
        return b == 1
    packer = _FIXED[typ][0]
    return packer.unpack(r.take(packer.size, path, typ))[0]


def _read_string(r: Reader, path: str, nullable: bool) -> str | None:
    start = r.pos
    n = _length(r, path, nullable, "string")
    if n is None:
        return None
    if n > _MAX_STRING:
        raise r.error(path, f"string length {n} exceeds the limit of {_MAX_STRING}", at=start)
    body = r.pos
    raw = r.take(n, path, f"string length {n}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise r.error(path, f"invalid UTF-8 in string: {e.reason}", at=body + e.start) from None


def _decode(data: bytes, spec: Struct, version: int, versions: tuple[int, ...]) -> Any:
    _check_version(spec, version, versions)
    r = Reader(data)
    msg = _read(r, spec, "")
    if r.remaining:
        raise r.error("TrailingBytes", f"{r.remaining} unexpected bytes after a complete {spec.name}")
    return msg


def decode_request(data: bytes, version: int = 0) -> StreamsGroupHeartbeat:
    """Read a StreamsGroupHeartbeatRequest body; ``DecodeError`` names the field and byte offset."""
    return _decode(data, REQUEST, version, REQUEST_VERSIONS)


def decode_response(data: bytes, version: int = 0) -> StreamsGroupHeartbeatResponse:
    """Read a StreamsGroupHeartbeatResponse body; ``DecodeError`` names the field and byte offset."""
    return _decode(data, RESPONSE, version, RESPONSE_VERSIONS)


# ---------------------------------------------------------------------------------- framing
# A flexible request travels with request header v2 (RequestApiKey int16, RequestApiVersion
# int16, CorrelationId int32, ClientId as a *non-compact* nullable string, tagged fields), its
# response with response header v1 (CorrelationId int32, tagged fields); each frame is
# prefixed by its int32 size (RequestHeader.json, ResponseHeader.json, KIP-482).

def encode_request_frame(msg: StreamsGroupHeartbeat, correlation_id: int, client_id: str = "groupcheck",
                         version: int = 0) -> bytes:
    """The size-prefixed request: header v2, then ``encode_request(msg, version)``."""
    raw_id = client_id.encode("utf-8")
    header = struct.pack(">hhih", API_KEY, version, correlation_id, len(raw_id)) + raw_id + b"\x00"
    frame = header + encode_request(msg, version)
    return struct.pack(">i", len(frame)) + frame


def decode_request_frame(data: bytes) -> tuple[int, int, StreamsGroupHeartbeat]:
    """(version, correlation id, request) from a request frame without its size prefix."""
    r = Reader(data)
    api_key, version, corr = (r.int16("RequestApiKey"), r.int16("RequestApiVersion"), r.int32("CorrelationId"))
    if api_key != API_KEY:
        raise r.error("RequestApiKey", f"api key {api_key} is not StreamsGroupHeartbeat ({API_KEY})", at=0)
    n = r.int16("ClientId")
    if n > 0:
        r.take(n, "ClientId", f"string length {n}")
    _skip_tagged_fields(r, "RequestHeader")
    return version, corr, decode_request(data[r.pos:], version)


def encode_response_frame(msg: StreamsGroupHeartbeatResponse, correlation_id: int, version: int = 0) -> bytes:
    """The size-prefixed response: header v1, then ``encode_response(msg, version)``."""
    frame = struct.pack(">i", correlation_id) + b"\x00" + encode_response(msg, version)
    return struct.pack(">i", len(frame)) + frame


def decode_response_frame(data: bytes, version: int = 0) -> tuple[int, StreamsGroupHeartbeatResponse]:
    """(correlation id, response) from a response frame without its size prefix."""
    r = Reader(data)
    corr = r.int32("CorrelationId")
    _skip_tagged_fields(r, "ResponseHeader")
    return corr, decode_response(data[r.pos:], version)


__all__ = [
    "API_KEY", "REQUEST_VERSIONS", "RESPONSE_VERSIONS", "DecodeError",
    "encode_request", "decode_request", "encode_response", "decode_response", "unsigned_varint",
    "encode_request_frame", "decode_request_frame", "encode_response_frame", "decode_response_frame",
]
