"""Byte-exact codec for Kafka Streams' ``AssignmentInfo`` (the consumer Assignment's userData).

See ``streams_metadata.py`` for sources, verification, the data model and the deliberate
differences from Kafka's readers.

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
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .streams_bytes import (
    INT32,
    Reader,
    check_encode_version,
    int32,
    int64,
    java_chars,
    java_utf,
    plain_task,
    read_version,
)
from .streams_values import (
    LATEST_SUPPORTED_VERSION,
    MIN_NAMED_TOPOLOGY_VERSION,
    NO_NEXT_REBALANCE,
    UNKNOWN,
    HostInfo,
    HostPartitions,
    TaskId,
    TopicPartition,
    as_pairs,
    normalize_host_partitions,
    normalize_task,
    normalize_topic_partitions,
)


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
        set_(self, "active_tasks", tuple(normalize_task(t) for t in self.active_tasks))
        set_(self, "standby_tasks",
             tuple((normalize_task(t), normalize_topic_partitions(tps))
                   for t, tps in as_pairs(self.standby_tasks)))
        set_(self, "partitions_by_host", normalize_host_partitions(self.partitions_by_host))
        set_(self, "standby_partitions_by_host", normalize_host_partitions(self.standby_partitions_by_host))
        if self.topic_dictionary is not None:
            set_(self, "topic_dictionary", tuple((i, t) for i, t in as_pairs(self.topic_dictionary)))

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
        return plain_task(task, version, field_)
    return (int32(task[0], f"{field_}.topicGroupId") + int32(task[1], f"{field_}.partition")
            + java_chars(task[2] if len(task) == 3 else None, f"{field_}.namedTopology"))


def _write_topic_partitions(tps: tuple[TopicPartition, ...], field_: str) -> list[bytes]:
    out = [int32(len(tps), field_)]
    for j, (topic, partition) in enumerate(tps):
        out.append(java_utf(topic, f"{field_}[{j}].topic"))
        out.append(int32(partition, f"{field_}[{j}].partition"))
    return out


def _write_host(host: HostInfo, field_: str) -> list[bytes]:
    if len(host) != 2:
        raise ValueError(f"{field_}: a HostInfo is (host, port), got {host!r}")
    return [java_utf(host[0], f"{field_}.host"), int32(host[1], f"{field_}.port")]


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
    check_encode_version(v, "AssignmentInfo")
    if not drop_unsupported:
        for name, attr, since, default in _ASSIGNMENT_FIELDS:
            value = getattr(info, attr)
            if v < since and value != default:
                raise ValueError(f"{name}: {value!r} cannot be encoded at AssignmentInfo version {v} "
                                 f"(the field exists from version {since})")
    out = [int32(v, "version")]
    if v >= 3:
        out.append(int32(info.commonly_supported_version, "commonlySupportedVersion"))
    out.append(int32(len(info.active_tasks), "activeTasks"))
    out.extend(_assignment_task(t, v, f"activeTasks[{i}]") for i, t in enumerate(info.active_tasks))
    out.append(int32(len(info.standby_tasks), "standbyTasks"))
    for i, (task, tps) in enumerate(info.standby_tasks):
        out.append(_assignment_task(task, v, f"standbyTasks[{i}]"))
        out.extend(_write_topic_partitions(tps, f"standbyTasks[{i}].partitions"))
    if 2 <= v <= 4:
        out.append(int32(len(info.partitions_by_host), "partitionsByHost"))
        for i, (host, tps) in enumerate(info.partitions_by_host):
            out.extend(_write_host(host, f"partitionsByHost[{i}]"))
            out.extend(_write_topic_partitions(tps, f"partitionsByHost[{i}].partitions"))
    elif v >= 5:
        maps: tuple[tuple[str, HostPartitions], ...] = (("partitionsByHost", info.partitions_by_host),)
        if v >= 6:
            maps += (("standbyPartitionsByHost", info.standby_partitions_by_host),)
        dictionary = _topic_dictionary(info, maps)
        out.append(int32(len(dictionary), "topicDictionary"))
        for topic, index in dictionary.items():
            out.append(int32(index, "topicDictionary.index") + java_utf(topic, "topicDictionary.topic"))
        for name, host_map in maps:
            out.append(int32(len(host_map), name))
            for i, (host, tps) in enumerate(host_map):
                out.extend(_write_host(host, f"{name}[{i}]"))
                out.append(int32(len(tps), f"{name}[{i}].partitions"))
                for j, (topic, partition) in enumerate(tps):
                    out.append(INT32.pack(dictionary[topic]))
                    out.append(int32(partition, f"{name}[{i}].partitions[{j}].partition"))
    if v >= 4:
        out.append(int32(info.error_code, "errCode"))
    if v >= 7:
        out.append(int64(info.next_rebalance_ms, "nextRebalanceMs"))
    return b"".join(out)

def _read_assignment_task(r: Reader, version: int, field_: str) -> TaskId:
    group_id, partition = r.int32(f"{field_}.topicGroupId"), r.int32(f"{field_}.partition")
    if version < MIN_NAMED_TOPOLOGY_VERSION:
        return (group_id, partition)
    return normalize_task((group_id, partition, r.java_chars(f"{field_}.namedTopology")))


def _read_topic_partitions(r: Reader, field_: str) -> tuple[TopicPartition, ...]:
    return tuple((r.java_utf(f"{field_}[{j}].topic"), r.int32(f"{field_}[{j}].partition"))
                 for j in range(r.count(field_, 2 + 4)))


def _read_host(r: Reader, field_: str) -> HostInfo:
    return (r.java_utf(f"{field_}.host"), r.int32(f"{field_}.port"))


def decode_assignment_info(data: bytes, strict: bool = True, *, allow_future: bool = False) -> AssignmentInfo:
    """Decode an AssignmentInfo of version 1-11.

    Follows ``AssignmentInfo.decode`` at 2.3.0 (v1-4) and 3.2.0 - trunk (v1-11) with
    ``ConsumerProtocolUtils.readTaskIdFrom`` for v10+ TaskIds.  Kafka throws for any other
    version; so do we, unless ``allow_future=True``: then a version above 11 yields only
    ``used_version`` and ``commonly_supported_version`` and the rest is ignored.  For v5+ the
    decoded topic dictionary is kept in ``topic_dictionary`` so that re-encoding is byte-exact.
    """
    r = Reader(data)
    v = read_version(r)
    if v > LATEST_SUPPORTED_VERSION:
        if not allow_future:
            raise r.error("version", f"unknown AssignmentInfo version {v} (Kafka's AssignmentInfo.decode "
                                     f"knows 1-{LATEST_SUPPORTED_VERSION} and throws for any other)", at=0)
        return AssignmentInfo(used_version=v, commonly_supported_version=r.int32("commonlySupportedVersion"))
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
    return AssignmentInfo(used_version=v, commonly_supported_version=commonly, active_tasks=active,
                          standby_tasks=tuple(standby), partitions_by_host=tuple(by_host),
                          standby_partitions_by_host=tuple(standby_by_host), error_code=error_code,
                          next_rebalance_ms=next_rebalance_ms, topic_dictionary=dictionary_entries)
