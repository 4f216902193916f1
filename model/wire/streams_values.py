"""Shared values of the Kafka Streams rebalance-metadata codecs: version constants, defaults,
type aliases and the normalisers ``SubscriptionInfo`` / ``AssignmentInfo`` apply to their fields.

See ``streams_metadata.py`` for the overview, sources and data model.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

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


def normalize_task(value: Iterable[Any]) -> TaskId:
    t = tuple(value)
    if len(t) == 2 or (len(t) == 3 and t[2] in (None, "")):
        return (t[0], t[1])
    if len(t) == 3:
        return (t[0], t[1], t[2])
    raise ValueError(f"a TaskId is (topic_group_id, partition[, named_topology]), got {value!r}")


def as_pairs(value: Any) -> tuple:
    return tuple(value.items()) if isinstance(value, Mapping) else tuple(value)


def normalize_topic_partitions(value: Iterable[Iterable[Any]]) -> tuple[TopicPartition, ...]:
    return tuple((topic, partition) for topic, partition in value)


def normalize_host_partitions(value: Any) -> HostPartitions:
    return tuple((tuple(host), normalize_topic_partitions(tps)) for host, tps in as_pairs(value))
