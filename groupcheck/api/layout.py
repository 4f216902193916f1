"""Kafka's names to the model's numbers and back.

Topics are numbered in name order; partition ``p`` of topic number ``t`` is bit
``t * stride + p`` of a partition mask (``model.partitions``), with ``stride`` above
every partition number in play. Member ids are numbered 1, 2, ... in the order Kafka's
assignors sort them: by member id (Java's String#compareTo, which orders these ids as
Python does unless they hold characters outside the Basic Multilingual Plane).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from groupcheck.model.partitions import bits

from .values import ApiError, Subscription, TopicPartition, _int, _str, topic_partitions


@dataclass(frozen=True)
class Layout:
    topics: tuple[str, ...]      # in name order: topic number t is topics[t]
    stride: int

    def bit(self, tp: TopicPartition) -> int:
        return self.topics.index(tp.topic) * self.stride + tp.partition

    def mask(self, tps: Iterable[TopicPartition]) -> int:
        out = 0
        for tp in tps:
            out |= 1 << self.bit(tp)
        return out

    def topic_mask(self, names: Iterable[str]) -> int:
        out = 0
        for name in names:
            out |= 1 << self.topics.index(name)
        return out

    def partitions(self, mask: int) -> tuple[TopicPartition, ...]:
        return tuple(TopicPartition(self.topics[b // self.stride], b % self.stride) for b in bits(mask))

    def counts(self, cluster: Mapping[str, int]) -> tuple[int, ...]:
        """Partition count per topic number; 0 for a topic the cluster does not have."""
        return tuple(cluster.get(t, 0) for t in self.topics)


def layout(cluster: Mapping[str, int], subscriptions: Mapping[str, Subscription],
           *assignments: Mapping[str, tuple[TopicPartition, ...]]) -> Layout:
    """Every topic and partition any argument names (all checked beforehand)."""
    topics = set(cluster)
    top = max(cluster.values(), default=0)
    claimed = [tp for a in assignments for tps in a.values() for tp in tps]
    for sub in subscriptions.values():
        topics.update(sub.topics)
        claimed += sub.owned_partitions
        if sub.user_data is not None:
            claimed += sub.user_data.previous_assignment
    topics.update(tp.topic for tp in claimed)
    top = max([top] + [tp.partition + 1 for tp in claimed])
    return Layout(tuple(sorted(topics)), max(top, 1))


def member_numbers(member_ids: Iterable[str]) -> dict[str, int]:
    """Member id -> the model's member id (1, 2, ...), in member-id order."""
    return {m: i for i, m in enumerate(sorted(member_ids), start=1)}


def checked_cluster(cluster: Any) -> dict[str, int]:
    """``cluster``: topic name -> partition count."""
    if not isinstance(cluster, Mapping):
        raise ApiError(f"cluster: expected a mapping of topic name to partition count, got {type(cluster).__name__}")
    return {_str(t, "cluster key"): _int(n, f"cluster[{t!r}]", 0) for t, n in cluster.items()}


def checked_members(value: Any, where: str, kind: type) -> dict[str, Any]:
    """A mapping of member id -> ``kind`` value."""
    if not isinstance(value, Mapping):
        raise ApiError(f"{where}: expected a mapping of member id to {kind.__name__}, got {type(value).__name__}")
    out = {}
    for member, v in value.items():
        _str(member, f"{where} key")
        if not isinstance(v, kind):
            raise ApiError(f"{where}[{member!r}]: expected a {kind.__name__}, got {type(v).__name__}")
        out[member] = v
    return out


def checked_assignment(value: Any, where: str) -> dict[str, tuple[TopicPartition, ...]]:
    """A mapping of member id -> list of TopicPartitions (or pairs)."""
    if not isinstance(value, Mapping):
        raise ApiError(f"{where}: expected a mapping of member id to a list of partitions, "
                       f"got {type(value).__name__}")
    return {_str(m, f"{where} key"): topic_partitions(tps, f"{where}[{m!r}]") for m, tps in value.items()}
