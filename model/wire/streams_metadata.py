"""Byte-exact codecs for Kafka Streams' rebalance metadata: ``SubscriptionInfo`` / ``AssignmentInfo``.

These are the ``userData`` payloads Kafka Streams' ``StreamsPartitionAssignor`` puts inside the
consumer protocol's Subscription / Assignment (see ``consumer_protocol.py``).  Everything is
big-endian; there is no int16 header as in the consumer protocol: both messages start with an
int32 *used version*.

Sources (read from the apache/kafka git history; paths under
``streams/src/main/java/org/apache/kafka/streams/processor/internals/assignment/`` unless noted):

* ``SubscriptionInfo.java`` at tags 0.10.0.0 (v1), 1.1.0 / 1.1.1 (v2), 2.3.0 (v1-4, hand-written
  ``ByteBuffer`` code), 2.4.0 (v5, same layout as v3/v4) and, from 2.5.0 on, the generated
  serializer of ``streams/src/main/resources/common/message/SubscriptionInfo.json`` (2.5, versions
  1-6) / ``SubscriptionInfoData.json`` (2.6.0 v7, 2.6.1 v8, 2.8.0 v9, 3.0.0 v10, 3.2.0+ v11; the
  3.2.0 file is unchanged up to trunk of 2024-10, commit 1eb7644349c).  The generated serializer
  is "flexibleVersions": "none": no tagged fields, ``uuid`` = two int64 (most, least significant),
  ``bytes`` = int32 length + bytes, nullable ``string`` = int16 length (-1 = null) + UTF-8,
  ``[]T`` = int32 count + elements, ``int8`` = one signed byte.
* ``AssignmentInfo.java`` (``DataOutputStream`` code throughout) at 0.10.0.0 (v1), 1.1.1 (v2),
  2.3.0 (v1-4), 2.4.0 (v5), 2.5.0 (v6), 2.6.0 (v7), 2.6.1 (v8), 2.8.0 (v9), 3.0.0 (v10, TaskIds
  through ``ConsumerProtocolUtils.writeTaskIdTo``), 3.2.0 / trunk (v11).
* ``StreamsAssignmentProtocolVersions.java`` (2.4+) or the ``LATEST_SUPPORTED_VERSION`` /
  ``CURRENT_VERSION`` constants before it: latest version by release 0.10.0=1; 0.10.1-1.1=2;
  2.0=3; 2.1-2.3=4; 2.4=5; 2.5=6; 2.6.0=7; 2.6.1-2.7=8; 2.8=9; 3.0-3.1=10; 3.2-3.9 and trunk=11.

Implemented, all byte-exact per those sources: **SubscriptionInfo v1-11, AssignmentInfo v1-11**
(``LATEST_SUPPORTED_VERSION`` = 11, the newest version any Kafka release defines).  Encoding any
other version raises ``ValueError`` (there is nothing to follow for it; we do not guess).

SubscriptionInfo layout (field names as in SubscriptionInfoData.json)::

    version                 int32                  v1+
    latestSupportedVersion  int32                  v3+   (-1 = UNKNOWN, not on the wire, in v1/v2)
    processId               uuid (2 x int64)       v1+
    prevTasks               []TaskId               v1-6  TaskId = int32 topicGroupId, int32 partition
    standbyTasks            []TaskId               v1-6
    userEndPoint            bytes (UTF-8)          v2+   empty = null ("host:port" or none)
    taskOffsetSums          []TaskOffsetSum        v7+
        v7-9:  int32 topicGroupId, [] (int32 partition, int64 offsetSum)   (grouped by subtopology)
        v10+:  int32 topicGroupId, int32 partition, int64 offsetSum, nullable string namedTopology
    uniqueField             int8                   v8+
    errorCode               int32                  v9+
    clientTags              [] (bytes key, bytes value)  v11+  (UTF-8 strings)

Decoding a version above 11 reads only ``version`` and ``latestSupportedVersion`` and returns a
``SubscriptionInfo`` with just those two fields set (Kafka's version probing, 2.0+); whatever
follows is ignored, also with ``strict=True``.

AssignmentInfo layout (names as in AssignmentInfo.java; ``writeUTF`` = Java *modified* UTF-8 with
an unsigned int16 length, ``TopicPartition`` = writeUTF topic + int32 partition)::

    version                   int32                                  v1+
    commonlySupportedVersion  int32                                  v3+  (called latestSupportedVersion
                                                                           and set to the sender's latest
                                                                           version in 2.0-2.3)
    activeTasks               int32 n, n x TaskId                    v1+
    standbyTasks              int32 n, n x (TaskId, int32 m, m x TopicPartition)   v1+
    partitionsByHost          int32 n, n x (writeUTF host, int32 port, int32 m, m x TopicPartition)  v2-4
    topic dictionary          int32 n, n x (int32 index, writeUTF topic)            v5+
    partitionsByHost          int32 n, n x (host, port, int32 m, m x (int32 topicIndex, int32 partition))  v5+
    standbyPartitionsByHost   same dictionary form                   v6+
    errCode                   int32                                  v4+
    nextRebalanceMs           int64                                  v7+  (default Long.MAX_VALUE)

    TaskId: int32 topicGroupId, int32 partition; from v10 also int32 n + n UTF-16 chars (writeChars)
    of the named topology, n = 0 for none.

Kafka's ``AssignmentInfo.decode`` throws ``TaskAssignmentException`` for any version it does not
know (it has no version-probing special case), so ``decode_assignment_info`` raises a
``DecodeError`` for a version above 11 unless ``allow_future=True``, which returns just
``version`` and ``commonlySupportedVersion`` (the int32 after it, as in every version >= 3).

Data model: tasks are ``(topic_group_id, partition)`` tuples, or ``(topic_group_id, partition,
named_topology)`` for a named topology (v10+; ``None`` or ``""`` as third element normalises to
the 2-tuple, as Kafka's ``TaskId`` downgrades an empty name to null).  Java's sets and maps are
tuples here, in wire order (duplicates kept), so decoding then encoding reproduces the bytes.

Encoding a value the version cannot carry:

* ``SubscriptionInfo``: ``ValueError`` naming the field (the generated serializer throws
  ``UnsupportedVersionException`` for a non-default field its version lacks).  This includes
  ``latest_supported_version`` other than -1 below v3 and ``latest_supported_version`` below the
  used version from v3 (Kafka's ``SubscriptionInfo.validateVersions``).
* ``AssignmentInfo``: dropped silently by default, as ``AssignmentInfo.encode`` writes only its
  version's fields; ``drop_unsupported=False`` raises ``ValueError`` instead.
* A named-topology TaskId below v10 always raises (Kafka throws ``TaskAssignmentException``).

Deliberate differences from Kafka's readers (all raise ``DecodeError`` naming the field):
invalid UTF-8 (Java substitutes U+FFFD); non-canonical modified UTF-8 (a raw 0x00 byte or an
overlong form, which ``DataInputStream.readUTF`` accepts but ``writeUTF`` never writes); a
negative count or length (Java loops zero times or reads a negative nullable length as null);
an AssignmentInfo topic dictionary with a repeated index or topic, or a reference to an index
it lacks (Java overwrites, or builds a TopicPartition with a null topic); a SubscriptionInfo
whose versions fail ``validateVersions`` (checked by Kafka 2.6+, not by older releases).
With ``strict=True`` (the default) trailing bytes are rejected, and so are encodings Kafka's
writers never produce: a repeated or empty topicGroupId group in v7-9 ``taskOffsetSums`` and an
empty (not null) v10+ ``namedTopology``; ``strict=False`` accepts them as Kafka does.  Note that
Kafka 0.10.1-1.1, writing a *v1* message (``upgrade.from=0.10.0``), appends the v2 fields
(``userEndPoint`` / ``partitionsByHost``) that 0.10.0 readers ignore: decode those with
``strict=False``.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import DecodeError

LATEST_SUPPORTED_VERSION = 11
"""Highest SubscriptionInfo / AssignmentInfo version of any Kafka release (3.2 - trunk 2024-10)."""

UNKNOWN = -1
"""``latestSupportedVersion`` / ``commonlySupportedVersion`` of v1/v2 messages (not on the wire)."""

EARLIEST_PROBEABLE_VERSION = 3
MIN_VERSION_OFFSET_SUM_SUBSCRIPTION = 7
MIN_NAMED_TOPOLOGY_VERSION = 10
NO_NEXT_REBALANCE = 2**63 - 1
"""Kafka's default ``nextRebalanceMs`` (``Long.MAX_VALUE``)."""
ZERO_UUID = uuid.UUID(int=0)
"""Default ``processId`` (``Uuid.ZERO_UUID`` in SubscriptionInfoData)."""

TaskId = tuple[int, int] | tuple[int, int, str]
TopicPartition = tuple[str, int]
HostInfo = tuple[str, int]
HostPartitions = tuple[tuple[HostInfo, tuple[TopicPartition, ...]], ...]

_INT8 = struct.Struct(">b")
_INT16 = struct.Struct(">h")
_UINT16 = struct.Struct(">H")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")


# ---------------------------------------------------------------------------------- values

def _task(value: Iterable[Any]) -> TaskId:
    t = tuple(value)
    if len(t) == 2 or (len(t) == 3 and t[2] in (None, "")):
        return (t[0], t[1])
    if len(t) == 3:
        return (t[0], t[1], t[2])
    raise ValueError(f"a TaskId is (topic_group_id, partition[, named_topology]), got {value!r}")


def _pairs(value: Any) -> tuple:
    return tuple(value.items()) if isinstance(value, Mapping) else tuple(value)


def _topic_partitions(value: Iterable[Iterable[Any]]) -> tuple[TopicPartition, ...]:
    return tuple((topic, partition) for topic, partition in value)


def _host_partitions(value: Any) -> HostPartitions:
    return tuple((tuple(host), _topic_partitions(tps)) for host, tps in _pairs(value))


@dataclass(frozen=True)
class SubscriptionInfo:
    """Kafka Streams' ``SubscriptionInfo`` (the consumer Subscription's userData).

    Fields beyond ``used_version`` hold their Kafka defaults unless the version carries them.
    ``task_offset_sums`` (v7+) is a tuple of ``(task, offset_sum)``; a dict is accepted too.
    ``client_tags`` (v11+) is a tuple of ``(key, value)`` strings; a dict is accepted too.
    ``user_endpoint`` ``""`` is normalised to ``None`` (both are written as empty bytes).
    """

    used_version: int
    latest_supported_version: int = UNKNOWN
    process_id: uuid.UUID = ZERO_UUID
    prev_tasks: tuple[TaskId, ...] = ()
    standby_tasks: tuple[TaskId, ...] = ()
    user_endpoint: str | None = None
    task_offset_sums: tuple[tuple[TaskId, int], ...] = ()
    unique_field: int = 0
    error_code: int = 0
    client_tags: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "prev_tasks", tuple(_task(t) for t in self.prev_tasks))
        set_(self, "standby_tasks", tuple(_task(t) for t in self.standby_tasks))
        set_(self, "task_offset_sums", tuple((_task(t), s) for t, s in _pairs(self.task_offset_sums)))
        set_(self, "client_tags", tuple((k, v) for k, v in _pairs(self.client_tags)))
        if self.user_endpoint == "":
            set_(self, "user_endpoint", None)


@dataclass(frozen=True)
class AssignmentInfo:
    """Kafka Streams' ``AssignmentInfo`` (the consumer Assignment's userData).

    ``standby_tasks`` is a tuple of ``(task, ((topic, partition), ...))``; ``partitions_by_host``
    and ``standby_partitions_by_host`` are tuples of ``((host, port), ((topic, partition), ...))``;
    dicts are accepted for all three.  ``topic_dictionary`` is an encoding hint for v5+ only
    (``(index, topic)`` pairs in wire order, as decoded); ``None`` lets the encoder number topics
    0, 1, ... in order of first use.  It takes no part in equality.
    """

    used_version: int
    commonly_supported_version: int = UNKNOWN
    active_tasks: tuple[TaskId, ...] = ()
    standby_tasks: tuple[tuple[TaskId, tuple[TopicPartition, ...]], ...] = ()
    partitions_by_host: HostPartitions = ()
    standby_partitions_by_host: HostPartitions = ()
    error_code: int = 0
    next_rebalance_ms: int = NO_NEXT_REBALANCE
    topic_dictionary: tuple[tuple[int, str], ...] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "active_tasks", tuple(_task(t) for t in self.active_tasks))
        set_(self, "standby_tasks",
             tuple((_task(t), _topic_partitions(tps)) for t, tps in _pairs(self.standby_tasks)))
        set_(self, "partitions_by_host", _host_partitions(self.partitions_by_host))
        set_(self, "standby_partitions_by_host", _host_partitions(self.standby_partitions_by_host))
        if self.topic_dictionary is not None:
            set_(self, "topic_dictionary", tuple((i, t) for i, t in _pairs(self.topic_dictionary)))


# ---------------------------------------------------------------------------------- encoding

def _check_range(value: int, bits: int, field_: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{field_}: expected an int, got {value!r}")
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise ValueError(f"{field_}: {value} does not fit in an int{bits}")


def _int8(value: int, field_: str) -> bytes:
    _check_range(value, 8, field_)
    return _INT8.pack(value)


def _int32(value: int, field_: str) -> bytes:
    _check_range(value, 32, field_)
    return _INT32.pack(value)


def _int64(value: int, field_: str) -> bytes:
    _check_range(value, 64, field_)
    return _INT64.pack(value)


def _utf8(value: str, field_: str) -> bytes:
    if not isinstance(value, str):
        raise TypeError(f"{field_}: expected a str, got {value!r}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{field_}: not encodable as UTF-8 ({e.reason})") from None


def _bytes32(raw: bytes, field_: str) -> bytes:
    return _int32(len(raw), field_) + raw


def _nullable_string16(value: str | None, field_: str) -> bytes:
    if value is None:
        return _INT16.pack(-1)
    raw = _utf8(value, field_)
    if len(raw) > 0x7FFF:
        raise ValueError(f"{field_}: {len(raw)} UTF-8 bytes exceed the string limit of 32767")
    return _INT16.pack(len(raw)) + raw


def _java_utf(value: str, field_: str) -> bytes:
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
    return _UINT16.pack(len(raw)) + raw


def _java_chars(value: str | None, field_: str) -> bytes:
    """``ConsumerProtocolUtils.writeTaskIdTo`` (v10+): int32 char count + ``writeChars`` (UTF-16BE)."""
    if value is None:
        return _INT32.pack(0)
    if not isinstance(value, str):
        raise TypeError(f"{field_}: expected a str, got {value!r}")
    raw = value.encode("utf-16-be", "surrogatepass")
    return _int32(len(raw) // 2, field_) + raw


def _check_encode_version(version: int, message: str) -> None:
    if not isinstance(version, int) or not 1 <= version <= LATEST_SUPPORTED_VERSION:
        raise ValueError(f"version: {message} version {version!r} is not implemented "
                         f"(implemented: 1-{LATEST_SUPPORTED_VERSION})")


def _no_named_topology(task: TaskId, version: int, field_: str) -> None:
    if len(task) == 3:
        raise ValueError(f"{field_}: named topology {task[2]!r} cannot be encoded at version {version} "
                         f"(named topologies need version {MIN_NAMED_TOPOLOGY_VERSION}+)")


def _plain_task(task: TaskId, version: int, field_: str) -> bytes:
    _no_named_topology(task, version, field_)
    return _int32(task[0], f"{field_}.topicGroupId") + _int32(task[1], f"{field_}.partition")


# (field name, attribute, first version, last version, default)
_SUBSCRIPTION_FIELDS = (
    ("latestSupportedVersion", "latest_supported_version", 3, None, UNKNOWN),
    ("prevTasks", "prev_tasks", 1, 6, ()),
    ("standbyTasks", "standby_tasks", 1, 6, ()),
    ("userEndPoint", "user_endpoint", 2, None, None),
    ("taskOffsetSums", "task_offset_sums", 7, None, ()),
    ("uniqueField", "unique_field", 8, None, 0),
    ("errorCode", "error_code", 9, None, 0),
    ("clientTags", "client_tags", 11, None, ()),
)


def _version_range(since: int, until: int | None) -> str:
    return f"versions {since}-{until}" if until else f"version {since}+"


def encode_subscription_info(info: SubscriptionInfo) -> bytes:
    """Encode ``info`` at ``info.used_version`` (1-11).

    Follows ``SubscriptionInfo.java`` at 2.3.0 (v1-4) / 2.4.0 (v5) and, for v6-11, the generated
    serializer of ``streams/src/main/resources/common/message/SubscriptionInfoData.json``
    (3.2.0 - trunk), which writes v1-5 identically.  ``taskOffsetSums`` v7-9 are grouped by
    topic_group_id in order of first appearance (Kafka groups through a HashMap, so any group
    order is valid Kafka output).  Raises ``ValueError`` naming the field for anything the
    version cannot carry or that does not fit its wire type (``TypeError`` for a wrong type).
    """
    v = info.used_version
    _check_encode_version(v, "SubscriptionInfo")
    for name, attr, since, until, default in _SUBSCRIPTION_FIELDS:
        value = getattr(info, attr)
        if (v < since or (until is not None and v > until)) and value != default:
            raise ValueError(f"{name}: {value!r} cannot be encoded at SubscriptionInfo version {v} "
                             f"(the field exists in {_version_range(since, until)})")
    latest = info.latest_supported_version
    if v >= 3 and latest < v:  # SubscriptionInfo.validateVersions
        raise ValueError(f"latestSupportedVersion: {latest} is below the used version {v}")
    if not isinstance(info.process_id, uuid.UUID):
        raise TypeError(f"processId: expected a uuid.UUID, got {info.process_id!r}")
    out = [_int32(v, "version")]
    if v >= 3:
        out.append(_int32(latest, "latestSupportedVersion"))
    out.append(info.process_id.bytes)  # most then least significant bits, big-endian
    if v <= 6:
        for name, tasks in (("prevTasks", info.prev_tasks), ("standbyTasks", info.standby_tasks)):
            out.append(_int32(len(tasks), name))
            out.extend(_plain_task(t, v, f"{name}[{i}]") for i, t in enumerate(tasks))
    if v >= 2:
        out.append(_bytes32(_utf8(info.user_endpoint or "", "userEndPoint"), "userEndPoint"))
    if 7 <= v < MIN_NAMED_TOPOLOGY_VERSION:
        groups: dict[int, list[tuple[int, TaskId, int]]] = {}
        for i, (task, offset_sum) in enumerate(info.task_offset_sums):
            _no_named_topology(task, v, f"taskOffsetSums[{i}]")
            groups.setdefault(task[0], []).append((i, task, offset_sum))
        out.append(_int32(len(groups), "taskOffsetSums"))
        for group_id, entries in groups.items():
            out.append(_int32(group_id, f"taskOffsetSums[{entries[0][0]}].topicGroupId"))
            out.append(_int32(len(entries), "taskOffsetSums.partitionToOffsetSum"))
            for i, task, offset_sum in entries:
                out.append(_int32(task[1], f"taskOffsetSums[{i}].partition"))
                out.append(_int64(offset_sum, f"taskOffsetSums[{i}].offsetSum"))
    elif v >= MIN_NAMED_TOPOLOGY_VERSION:
        out.append(_int32(len(info.task_offset_sums), "taskOffsetSums"))
        for i, (task, offset_sum) in enumerate(info.task_offset_sums):
            f = f"taskOffsetSums[{i}]"
            out.append(_int32(task[0], f"{f}.topicGroupId") + _int32(task[1], f"{f}.partition"))
            out.append(_int64(offset_sum, f"{f}.offsetSum"))
            out.append(_nullable_string16(task[2] if len(task) == 3 else None, f"{f}.namedTopology"))
    if v >= 8:
        out.append(_int8(info.unique_field, "uniqueField"))
    if v >= 9:
        out.append(_int32(info.error_code, "errorCode"))
    if v >= 11:
        out.append(_int32(len(info.client_tags), "clientTags"))
        for i, (key, value) in enumerate(info.client_tags):
            out.append(_bytes32(_utf8(key, f"clientTags[{i}].key"), f"clientTags[{i}].key"))
            out.append(_bytes32(_utf8(value, f"clientTags[{i}].value"), f"clientTags[{i}].value"))
    return b"".join(out)


# (field name, attribute, first version, default) -- AssignmentInfo.encode writes only its version's
_ASSIGNMENT_FIELDS = (
    ("commonlySupportedVersion", "commonly_supported_version", 3, UNKNOWN),
    ("partitionsByHost", "partitions_by_host", 2, ()),
    ("standbyPartitionsByHost", "standby_partitions_by_host", 6, ()),
    ("errCode", "error_code", 4, 0),
    ("nextRebalanceMs", "next_rebalance_ms", 7, NO_NEXT_REBALANCE),
)


def _assignment_task(task: TaskId, version: int, field_: str) -> bytes:
    """``TaskId.writeTo`` (v1-9) / ``ConsumerProtocolUtils.writeTaskIdTo`` (v10+)."""
    if version < MIN_NAMED_TOPOLOGY_VERSION:
        return _plain_task(task, version, field_)
    return (_int32(task[0], f"{field_}.topicGroupId") + _int32(task[1], f"{field_}.partition")
            + _java_chars(task[2] if len(task) == 3 else None, f"{field_}.namedTopology"))


def _write_topic_partitions(tps: tuple[TopicPartition, ...], field_: str) -> list[bytes]:
    out = [_int32(len(tps), field_)]
    for j, (topic, partition) in enumerate(tps):
        out.append(_java_utf(topic, f"{field_}[{j}].topic"))
        out.append(_int32(partition, f"{field_}[{j}].partition"))
    return out


def _write_host(host: HostInfo, field_: str) -> list[bytes]:
    if len(host) != 2:
        raise ValueError(f"{field_}: a HostInfo is (host, port), got {host!r}")
    return [_java_utf(host[0], f"{field_}.host"), _int32(host[1], f"{field_}.port")]


def _topic_dictionary(info: AssignmentInfo, maps: tuple[tuple[str, HostPartitions], ...]) -> dict[str, int]:
    used = [tp[0] for _, host_map in maps for _, tps in host_map for tp in tps]
    if info.topic_dictionary is None:
        return {topic: i for i, topic in enumerate(dict.fromkeys(used))}
    indices = [i for i, _ in info.topic_dictionary]
    topics = [t for _, t in info.topic_dictionary]
    if len(set(indices)) != len(indices) or len(set(topics)) != len(topics):
        raise ValueError("topicDictionary: indices and topics must each be unique")
    dictionary = {topic: index for index, topic in info.topic_dictionary}
    missing = [t for t in dict.fromkeys(used) if t not in dictionary]
    if missing:
        raise ValueError(f"topicDictionary: lacks topic(s) {missing!r}")
    return dictionary


def encode_assignment_info(info: AssignmentInfo, *, drop_unsupported: bool = True) -> bytes:
    """Encode ``info`` at ``info.used_version`` (1-11).

    Follows ``AssignmentInfo.java`` at 2.3.0 (v1-4) and 3.2.0 - trunk (v1-11; v5 as at 2.4.0,
    v6 as at 2.5.0, v7 as at 2.6.0) with ``ConsumerProtocolUtils.writeTaskIdTo`` for v10+ TaskIds.
    Like Kafka, fields the version cannot carry are dropped unless ``drop_unsupported=False``
    (then a non-default one raises ``ValueError``); a named-topology task below v10 always raises.
    v5+ topic dictionaries are written in ``info.topic_dictionary`` order if given, else numbered
    0, 1, ... by first use (Kafka numbers them in HashSet order; any numbering decodes the same).
    """
    v = info.used_version
    _check_encode_version(v, "AssignmentInfo")
    if not drop_unsupported:
        for name, attr, since, default in _ASSIGNMENT_FIELDS:
            value = getattr(info, attr)
            if v < since and value != default:
                raise ValueError(f"{name}: {value!r} cannot be encoded at AssignmentInfo version {v} "
                                 f"(the field exists from version {since})")
    out = [_int32(v, "version")]
    if v >= 3:
        out.append(_int32(info.commonly_supported_version, "commonlySupportedVersion"))
    out.append(_int32(len(info.active_tasks), "activeTasks"))
    out.extend(_assignment_task(t, v, f"activeTasks[{i}]") for i, t in enumerate(info.active_tasks))
    out.append(_int32(len(info.standby_tasks), "standbyTasks"))
    for i, (task, tps) in enumerate(info.standby_tasks):
        out.append(_assignment_task(task, v, f"standbyTasks[{i}]"))
        out.extend(_write_topic_partitions(tps, f"standbyTasks[{i}].partitions"))
    if 2 <= v <= 4:
        out.append(_int32(len(info.partitions_by_host), "partitionsByHost"))
        for i, (host, tps) in enumerate(info.partitions_by_host):
            out.extend(_write_host(host, f"partitionsByHost[{i}]"))
            out.extend(_write_topic_partitions(tps, f"partitionsByHost[{i}].partitions"))
    elif v >= 5:
        maps: tuple[tuple[str, HostPartitions], ...] = (("partitionsByHost", info.partitions_by_host),)
        if v >= 6:
            maps += (("standbyPartitionsByHost", info.standby_partitions_by_host),)
        dictionary = _topic_dictionary(info, maps)
        out.append(_int32(len(dictionary), "topicDictionary"))
        for topic, index in dictionary.items():
            out.append(_int32(index, "topicDictionary.index") + _java_utf(topic, "topicDictionary.topic"))
        for name, host_map in maps:
            out.append(_int32(len(host_map), name))
            for i, (host, tps) in enumerate(host_map):
                out.extend(_write_host(host, f"{name}[{i}]"))
                out.append(_int32(len(tps), f"{name}[{i}].partitions"))
                for j, (topic, partition) in enumerate(tps):
                    out.append(_INT32.pack(dictionary[topic]))
                    out.append(_int32(partition, f"{name}[{i}].partitions[{j}].partition"))
    if v >= 4:
        out.append(_int32(info.error_code, "errCode"))
    if v >= 7:
        out.append(_int64(info.next_rebalance_ms, "nextRebalanceMs"))
    return b"".join(out)


# ---------------------------------------------------------------------------------- decoding

class _Reader:
    """A cursor over ``data`` that checks every length against the bytes left before using it."""

    def __init__(self, data: bytes) -> None:
        self.data = bytes(data)
        self.pos = 0

    @property
    def remaining(self) -> int:
        return len(self.data) - self.pos

    def error(self, field_: str, reason: str, at: int | None = None) -> DecodeError:
        at = self.pos if at is None else at
        return DecodeError(field_, at, reason, len(self.data) - at)

    def take(self, n: int, field_: str, what: str) -> bytes:
        if n > self.remaining:
            raise self.error(field_, f"{what} runs past the end of the buffer")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def int8(self, field_: str) -> int:
        return _INT8.unpack(self.take(1, field_, "int8"))[0]

    def int32(self, field_: str) -> int:
        return _INT32.unpack(self.take(4, field_, "int32"))[0]

    def int64(self, field_: str) -> int:
        return _INT64.unpack(self.take(8, field_, "int64"))[0]

    def uuid(self, field_: str) -> uuid.UUID:
        return uuid.UUID(bytes=self.take(16, field_, "uuid"))

    def count(self, field_: str, min_element_size: int) -> int:
        """Read an int32 count; reject it unless its smallest encoding fits in what is left."""
        start = self.pos
        n = self.int32(field_)
        if n < 0:
            raise self.error(field_, f"negative count {n}", at=start)
        if n * min_element_size > self.remaining:
            raise self.error(field_, f"count {n} needs at least {n * min_element_size} bytes, "
                                     "which runs past the end of the buffer")
        return n

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
        n = _INT16.unpack(self.take(2, field_, "int16 string length"))[0]
        if n == -1:
            return None
        if n < 0:
            raise self.error(field_, f"negative length {n} for a nullable string (only -1 means null)", at=start)
        return self._decode_utf8(self.take(n, field_, f"string length {n}"), field_, start + 2)

    def java_utf(self, field_: str) -> str:
        """``DataInputStream.readUTF``, rejecting the non-canonical forms ``writeUTF`` never writes."""
        n = _UINT16.unpack(self.take(2, field_, "writeUTF length"))[0]
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


def _read_version(r: _Reader) -> int:
    version = r.int32("version")
    if version < 1:
        raise r.error("version", f"version {version} is not a valid version (versions start at 1)", at=0)
    return version


def _check_subscription_versions(r: _Reader, version: int, latest: int) -> None:
    """``SubscriptionInfo.validateVersions`` (Kafka 2.6+), applied on decode."""
    if version >= 3 and latest < version:
        raise r.error("latestSupportedVersion", f"latest supported version {latest} is below the used "
                                                f"version {version}", at=4)


def decode_subscription_info(data: bytes, strict: bool = True) -> SubscriptionInfo:
    """Decode a SubscriptionInfo of any version.

    Follows ``SubscriptionInfo.decode`` at 2.3.0 (v1-4) and 3.2.0 - trunk (v1-11, through the
    generated reader of ``SubscriptionInfoData.json``).  A version above 11 yields only
    ``used_version`` and ``latest_supported_version`` (the version-probing path), ignoring the rest.
    """
    r = _Reader(data)
    v = _read_version(r)
    latest = r.int32("latestSupportedVersion") if v >= 3 else UNKNOWN
    _check_subscription_versions(r, v, latest)
    if v > LATEST_SUPPORTED_VERSION:
        return SubscriptionInfo(v, latest)
    process_id = r.uuid("processId")
    prev: list[TaskId] = []
    standby: list[TaskId] = []
    if v <= 6:
        for name, tasks in (("prevTasks", prev), ("standbyTasks", standby)):
            for i in range(r.count(name, 8)):
                tasks.append((r.int32(f"{name}[{i}].topicGroupId"), r.int32(f"{name}[{i}].partition")))
    endpoint = r.utf8_bytes32("userEndPoint") if v >= 2 else None
    offset_sums: list[tuple[TaskId, int]] = []
    if 7 <= v < MIN_NAMED_TOPOLOGY_VERSION:
        seen: set[int] = set()
        for i in range(r.count("taskOffsetSums", 8)):
            start = r.pos
            group_id = r.int32(f"taskOffsetSums[{i}].topicGroupId")
            if strict and group_id in seen:
                raise r.error(f"taskOffsetSums[{i}].topicGroupId", f"topicGroupId {group_id} appears in "
                              "two groups (Kafka's writer groups each once)", at=start)
            seen.add(group_id)
            f = f"taskOffsetSums[{i}].partitionToOffsetSum"
            start = r.pos
            n = r.count(f, 12)
            if strict and n == 0:
                raise r.error(f, "empty group (Kafka's writer never writes one)", at=start)
            for j in range(n):
                partition = r.int32(f"{f}[{j}].partition")
                offset_sums.append(((group_id, partition), r.int64(f"{f}[{j}].offsetSum")))
    elif v >= MIN_NAMED_TOPOLOGY_VERSION:
        for i in range(r.count("taskOffsetSums", 18)):
            f = f"taskOffsetSums[{i}]"
            group_id, partition = r.int32(f"{f}.topicGroupId"), r.int32(f"{f}.partition")
            offset_sum = r.int64(f"{f}.offsetSum")
            start = r.pos
            name = r.nullable_string16(f"{f}.namedTopology")
            if strict and name == "":
                raise r.error(f"{f}.namedTopology", "empty named topology (Kafka writes null)", at=start)
            offset_sums.append(((group_id, partition, name), offset_sum))
    unique_field = r.int8("uniqueField") if v >= 8 else 0
    error_code = r.int32("errorCode") if v >= 9 else 0
    tags: list[tuple[str, str]] = []
    if v >= 11:
        for i in range(r.count("clientTags", 8)):
            tags.append((r.utf8_bytes32(f"clientTags[{i}].key"), r.utf8_bytes32(f"clientTags[{i}].value")))
    r.finish(strict)
    return SubscriptionInfo(v, latest, process_id, tuple(prev), tuple(standby), endpoint,
                            tuple(offset_sums), unique_field, error_code, tuple(tags))


def _read_assignment_task(r: _Reader, version: int, field_: str) -> TaskId:
    group_id, partition = r.int32(f"{field_}.topicGroupId"), r.int32(f"{field_}.partition")
    if version < MIN_NAMED_TOPOLOGY_VERSION:
        return (group_id, partition)
    return _task((group_id, partition, r.java_chars(f"{field_}.namedTopology")))


def _read_topic_partitions(r: _Reader, field_: str) -> tuple[TopicPartition, ...]:
    return tuple((r.java_utf(f"{field_}[{j}].topic"), r.int32(f"{field_}[{j}].partition"))
                 for j in range(r.count(field_, 2 + 4)))


def _read_host(r: _Reader, field_: str) -> HostInfo:
    return (r.java_utf(f"{field_}.host"), r.int32(f"{field_}.port"))


def decode_assignment_info(data: bytes, strict: bool = True, *, allow_future: bool = False) -> AssignmentInfo:
    """Decode an AssignmentInfo of version 1-11.

    Follows ``AssignmentInfo.decode`` at 2.3.0 (v1-4) and 3.2.0 - trunk (v1-11) with
    ``ConsumerProtocolUtils.readTaskIdFrom`` for v10+ TaskIds.  Kafka throws for any other
    version; so do we, unless ``allow_future=True``: then a version above 11 yields only
    ``used_version`` and ``commonly_supported_version`` and the rest is ignored.  For v5+ the
    decoded topic dictionary is kept in ``topic_dictionary`` so that re-encoding is byte-exact.
    """
    r = _Reader(data)
    v = _read_version(r)
    if v > LATEST_SUPPORTED_VERSION:
        if not allow_future:
            raise r.error("version", f"unknown AssignmentInfo version {v} (Kafka's AssignmentInfo.decode "
                                     f"knows 1-{LATEST_SUPPORTED_VERSION} and throws for any other)", at=0)
        return AssignmentInfo(v, r.int32("commonlySupportedVersion"))
    commonly = r.int32("commonlySupportedVersion") if v >= 3 else UNKNOWN
    task_size = 12 if v >= MIN_NAMED_TOPOLOGY_VERSION else 8
    active = tuple(_read_assignment_task(r, v, f"activeTasks[{i}]")
                   for i in range(r.count("activeTasks", task_size)))
    standby = []
    for i in range(r.count("standbyTasks", task_size + 4)):
        task = _read_assignment_task(r, v, f"standbyTasks[{i}]")
        standby.append((task, _read_topic_partitions(r, f"standbyTasks[{i}].partitions")))
    by_host: list = []
    standby_by_host: list = []
    dictionary_entries: tuple[tuple[int, str], ...] | None = None
    if 2 <= v <= 4:
        for i in range(r.count("partitionsByHost", 2 + 4 + 4)):
            host = _read_host(r, f"partitionsByHost[{i}]")
            by_host.append((host, _read_topic_partitions(r, f"partitionsByHost[{i}].partitions")))
    elif v >= 5:
        entries = []
        topics_by_index: dict[int, str] = {}
        seen_topics: set[str] = set()
        for i in range(r.count("topicDictionary", 4 + 2)):
            start = r.pos
            index = r.int32(f"topicDictionary[{i}].index")
            if index in topics_by_index:
                raise r.error(f"topicDictionary[{i}].index", f"index {index} appears twice", at=start)
            start = r.pos
            topic = r.java_utf(f"topicDictionary[{i}].topic")
            if topic in seen_topics:
                raise r.error(f"topicDictionary[{i}].topic", f"topic {topic!r} appears twice", at=start)
            topics_by_index[index] = topic
            seen_topics.add(topic)
            entries.append((index, topic))
        dictionary_entries = tuple(entries)
        for name, target in (("partitionsByHost", by_host), ("standbyPartitionsByHost", standby_by_host)):
            if name == "standbyPartitionsByHost" and v < 6:
                break
            for i in range(r.count(name, 2 + 4 + 4)):
                host = _read_host(r, f"{name}[{i}]")
                tps = []
                for j in range(r.count(f"{name}[{i}].partitions", 8)):
                    f = f"{name}[{i}].partitions[{j}]"
                    start = r.pos
                    index = r.int32(f"{f}.topicIndex")
                    if index not in topics_by_index:
                        raise r.error(f"{f}.topicIndex", f"index {index} is not in the topic dictionary", at=start)
                    tps.append((topics_by_index[index], r.int32(f"{f}.partition")))
                target.append((host, tuple(tps)))
    error_code = r.int32("errCode") if v >= 4 else 0
    next_rebalance_ms = r.int64("nextRebalanceMs") if v >= 7 else NO_NEXT_REBALANCE
    r.finish(strict)
    return AssignmentInfo(v, commonly, active, tuple(standby), tuple(by_host), tuple(standby_by_host),
                          error_code, next_rebalance_ms, dictionary_entries)
