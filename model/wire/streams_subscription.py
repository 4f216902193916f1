"""Byte-exact codec for Kafka Streams' ``SubscriptionInfo`` (the consumer Subscription's userData).

See ``streams_metadata.py`` for sources, verification, the data model and the deliberate
differences from Kafka's readers.

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
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from .streams_bytes import (
    Reader,
    bytes32,
    check_encode_version,
    int8,
    int32,
    int64,
    no_named_topology,
    nullable_string16,
    plain_task,
    read_version,
    utf8,
)
from .streams_values import (
    LATEST_SUPPORTED_VERSION,
    MIN_NAMED_TOPOLOGY_VERSION,
    UNKNOWN,
    ZERO_UUID,
    TaskId,
    as_pairs,
    normalize_task,
)


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
        set_(self, "prev_tasks", tuple(normalize_task(t) for t in self.prev_tasks))
        set_(self, "standby_tasks", tuple(normalize_task(t) for t in self.standby_tasks))
        set_(self, "task_offset_sums",
             tuple((normalize_task(t), s) for t, s in as_pairs(self.task_offset_sums)))
        set_(self, "client_tags", tuple((k, v) for k, v in as_pairs(self.client_tags)))
        if self.user_endpoint == "":
            set_(self, "user_endpoint", None)


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
    check_encode_version(v, "SubscriptionInfo")
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
    out = [int32(v, "version")]
    if v >= 3:
        out.append(int32(latest, "latestSupportedVersion"))
    out.append(info.process_id.bytes)  # most then least significant bits, big-endian
    if v <= 6:
        for name, tasks in (("prevTasks", info.prev_tasks), ("standbyTasks", info.standby_tasks)):
            out.append(int32(len(tasks), name))
            out.extend(plain_task(t, v, f"{name}[{i}]") for i, t in enumerate(tasks))
    if v >= 2:
        out.append(bytes32(utf8(info.user_endpoint or "", "userEndPoint"), "userEndPoint"))
    if 7 <= v < MIN_NAMED_TOPOLOGY_VERSION:
        groups: dict[int, list[tuple[int, TaskId, int]]] = {}
        for i, (task, offset_sum) in enumerate(info.task_offset_sums):
            no_named_topology(task, v, f"taskOffsetSums[{i}]")
            groups.setdefault(task[0], []).append((i, task, offset_sum))
        out.append(int32(len(groups), "taskOffsetSums"))
        for group_id, entries in groups.items():
            out.append(int32(group_id, f"taskOffsetSums[{entries[0][0]}].topicGroupId"))
            out.append(int32(len(entries), "taskOffsetSums.partitionToOffsetSum"))
            for i, task, offset_sum in entries:
                out.append(int32(task[1], f"taskOffsetSums[{i}].partition"))
                out.append(int64(offset_sum, f"taskOffsetSums[{i}].offsetSum"))
    elif v >= MIN_NAMED_TOPOLOGY_VERSION:
        out.append(int32(len(info.task_offset_sums), "taskOffsetSums"))
        for i, (task, offset_sum) in enumerate(info.task_offset_sums):
            f = f"taskOffsetSums[{i}]"
            out.append(int32(task[0], f"{f}.topicGroupId") + int32(task[1], f"{f}.partition"))
            out.append(int64(offset_sum, f"{f}.offsetSum"))
            out.append(nullable_string16(task[2] if len(task) == 3 else None, f"{f}.namedTopology"))
    if v >= 8:
        out.append(int8(info.unique_field, "uniqueField"))
    if v >= 9:
        out.append(int32(info.error_code, "errorCode"))
    if v >= 11:
        out.append(int32(len(info.client_tags), "clientTags"))
        for i, (key, value) in enumerate(info.client_tags):
            out.append(bytes32(utf8(key, f"clientTags[{i}].key"), f"clientTags[{i}].key"))
            out.append(bytes32(utf8(value, f"clientTags[{i}].value"), f"clientTags[{i}].value"))
    return b"".join(out)


def _check_subscription_versions(r: Reader, version: int, latest: int) -> None:
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
    r = Reader(data)
    v = read_version(r)
    latest = r.int32("latestSupportedVersion") if v >= 3 else UNKNOWN
    _check_subscription_versions(r, v, latest)
    if v > LATEST_SUPPORTED_VERSION:
        return SubscriptionInfo(used_version=v, latest_supported_version=latest)
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
    return SubscriptionInfo(used_version=v, latest_supported_version=latest, process_id=process_id,
                            prev_tasks=tuple(prev), standby_tasks=tuple(standby), user_endpoint=endpoint,
                            task_offset_sums=tuple(offset_sums), unique_field=unique_field, error_code=error_code,
                            client_tags=tuple(tags))
