"""KIP-1071 streams groups: the StreamsGroupHeartbeat messages, and the names the rest of
the package uses (error codes, statuses, group and member states).

The messages are field for field the RPC's (``StreamsGroupHeartbeatRequest.json`` /
``StreamsGroupHeartbeatResponse.json``, apiKey 88): ``model/wire/streams_group_heartbeat.py``
reads and writes them byte-exactly, request validation (``validation.py``) judges them,
and the model's members send them. Everything is a NamedTuple (immutable, hashable,
ordered). A field the KIP makes nullable ("null if unchanged since last heartbeat") is
``None`` when absent; lists are tuples. Task ids are ``TaskIds(subtopology_id,
partitions)`` as on the wire.
"""
from __future__ import annotations

from typing import NamedTuple

# Member epochs with a meaning of their own (KIP-1071, StreamsGroupHeartbeatRequest.MemberEpoch:
# "0 to join the group; -1 to leave the group; -2 to indicate that the static member will rejoin")
JOIN_EPOCH = 0
LEAVE_EPOCH = -1
LEAVE_STATIC_EPOCH = -2

# Error codes (name -> Kafka's code), as Errors.java numbers them
ERRORS = {
    "NONE": 0,
    "UNKNOWN_MEMBER_ID": 25,
    "INVALID_REQUEST": 42,
    "GROUP_ID_NOT_FOUND": 69,
    "GROUP_MAX_SIZE_REACHED": 81,
    "FENCED_INSTANCE_ID": 82,
    "FENCED_MEMBER_EPOCH": 110,
    "UNRELEASED_INSTANCE_ID": 111,
    "STREAMS_INVALID_TOPOLOGY": 130,
    "STREAMS_INVALID_TOPOLOGY_EPOCH": 131,
    "STREAMS_TOPOLOGY_FENCED": 132,
}

# Status codes of a heartbeat response (KIP-1071, StreamsGroupHeartbeatResponse.Status)
STALE_TOPOLOGY = 0
MISSING_SOURCE_TOPICS = 1
INCORRECTLY_PARTITIONED_TOPICS = 2
MISSING_INTERNAL_TOPICS = 3
SHUTDOWN_APPLICATION = 4
STATUS_NAMES = {STALE_TOPOLOGY: "STALE_TOPOLOGY", MISSING_SOURCE_TOPICS: "MISSING_SOURCE_TOPICS",
                INCORRECTLY_PARTITIONED_TOPICS: "INCORRECTLY_PARTITIONED_TOPICS",
                MISSING_INTERNAL_TOPICS: "MISSING_INTERNAL_TOPICS", SHUTDOWN_APPLICATION: "SHUTDOWN_APPLICATION"}

# Group states ("EMPTY, ASSIGNING, RECONCILING, STABLE, NOT_READY, DEAD as for consumer groups")
EMPTY, NOT_READY, ASSIGNING, RECONCILING, STABLE, DEAD = (
    "EMPTY", "NOT_READY", "ASSIGNING", "RECONCILING", "STABLE", "DEAD")


# ---- the request's structures ----

class KeyValue(NamedTuple):
    key: str
    value: str


class TopicInfo(NamedTuple):
    """A changelog or repartition topic: ``partitions`` 0 when not fixed (always 0 for a
    changelog topic), ``replication_factor`` 0 for the broker's default."""

    name: str
    partitions: int = 0
    replication_factor: int = 0
    topic_configs: tuple[KeyValue, ...] = ()


class CopartitionGroup(NamedTuple):
    """Indices into the subtopology's ``source_topics``, ``source_topic_regex`` and
    ``repartition_source_topics`` of topics that must be copartitioned."""

    source_topics: tuple[int, ...] = ()
    source_topic_regex: tuple[int, ...] = ()
    repartition_source_topics: tuple[int, ...] = ()


class Subtopology(NamedTuple):
    subtopology_id: str
    source_topics: tuple[str, ...] = ()
    source_topic_regex: tuple[str, ...] = ()
    state_changelog_topics: tuple[TopicInfo, ...] = ()
    repartition_sink_topics: tuple[str, ...] = ()
    repartition_source_topics: tuple[TopicInfo, ...] = ()
    copartition_groups: tuple[CopartitionGroup, ...] = ()


class Topology(NamedTuple):
    """The topology metadata a member sends when it joins, with its topology epoch."""

    epoch: int
    subtopologies: tuple[Subtopology, ...] = ()


class TaskIds(NamedTuple):
    """The tasks of one subtopology: its id and partition numbers."""

    subtopology_id: str
    partitions: tuple[int, ...] = ()


class Endpoint(NamedTuple):
    host: str
    port: int


class TaskOffset(NamedTuple):
    subtopology_id: str
    partition: int
    offset: int


class StreamsGroupHeartbeat(NamedTuple):
    """StreamsGroupHeartbeatRequest. ``rebalance_timeout_ms`` -1: unchanged since the last
    heartbeat. ``active_tasks`` / ``standby_tasks`` / ``warmup_tasks`` None: unchanged.
    ``endpoint_information_epoch`` is shipped Kafka's (4.1+, not in the KIP's schema)."""

    group_id: str
    member_id: str
    member_epoch: int
    endpoint_information_epoch: int = 0
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    topology: Topology | None = None
    active_tasks: tuple[TaskIds, ...] | None = None
    standby_tasks: tuple[TaskIds, ...] | None = None
    warmup_tasks: tuple[TaskIds, ...] | None = None
    process_id: str | None = None
    user_endpoint: Endpoint | None = None
    client_tags: tuple[KeyValue, ...] | None = None
    task_offsets: tuple[TaskOffset, ...] | None = None
    task_end_offsets: tuple[TaskOffset, ...] | None = None
    shutdown_application: bool = False


# ---- the response's structures ----

class Status(NamedTuple):
    status_code: int
    status_detail: str = ""


class TopicPartitions(NamedTuple):
    topic: str
    partitions: tuple[int, ...] = ()


class EndpointToPartitions(NamedTuple):
    user_endpoint: Endpoint
    active_partitions: tuple[TopicPartitions, ...] = ()
    standby_partitions: tuple[TopicPartitions, ...] = ()


class StreamsGroupHeartbeatResponse(NamedTuple):
    """StreamsGroupHeartbeatResponse. The task lists are None unless the member's
    assignment changed ("Null if unchanged since last heartbeat"). ``endpoint_information_epoch``
    and ``EndpointToPartitions``' split into active / standby partitions are shipped Kafka's
    (4.1, v0); the KIP's schema has neither (one ``Partitions`` list per endpoint). Field order
    here is not wire order: ``model/wire/streams_group_heartbeat.py`` has that."""

    error_code: int = 0
    error_message: str | None = None
    member_id: str = ""
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    acceptable_recovery_lag: int = 0
    task_offset_interval_ms: int = 0
    status: tuple[Status, ...] | None = None
    active_tasks: tuple[TaskIds, ...] | None = None
    standby_tasks: tuple[TaskIds, ...] | None = None
    warmup_tasks: tuple[TaskIds, ...] | None = None
    endpoint_information_epoch: int = 0
    partitions_by_user_endpoint: tuple[EndpointToPartitions, ...] | None = None
    throttle_time_ms: int = 0
