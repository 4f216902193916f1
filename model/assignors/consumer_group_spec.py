"""The value objects of KIP-848's server-side assignors (``consumer_group_uniform``,
``consumer_group_range``): Kafka's GroupSpec / MemberSubscriptionSpec / SubscribedTopicDescriber
as NamedTuples. Partitions are ``(topic, partition)`` pairs; an assignment maps a member id to a
sorted tuple of them.

Sources (apache/kafka, group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
``api/assignor/GroupSpec.java``, ``assignor/GroupSpecImpl.java`` (``subscriptionType``:
HOMOGENEOUS when every member subscribes to the same topics), ``assignor/UniformAssignor.java``.
"""
from __future__ import annotations

from typing import NamedTuple

TopicPartition = tuple[str, int]
Assignment = dict[str, tuple[TopicPartition, ...]]


class PartitionAssignorException(ValueError):
    """Kafka's PartitionAssignorException (the heartbeat fails with UNKNOWN_SERVER_ERROR)."""


class MemberSpec(NamedTuple):
    """One member: its id, subscribed topics (names, sorted), its current target assignment
    (what GroupSpec.memberAssignment gives: the previous target, not the owned partitions) and rack."""

    member_id: str
    topics: tuple[str, ...]
    assignment: tuple[TopicPartition, ...] = ()
    rack_id: str | None = None
    instance_id: str | None = None


class GroupSpec(NamedTuple):
    """The members (sorted by id), the subscribed topics' metadata (name, partitions) and the
    group's SubscriptionType as the coordinator computed it (None: HOMOGENEOUS iff every member
    subscribes to the same topics)."""

    members: tuple[MemberSpec, ...]
    topics: tuple[tuple[str, int], ...]
    homogeneous_type: bool | None = None

    def partitions(self, topic: str) -> int:
        """SubscribedTopicDescriber.numPartitions: -1 for a topic not in the metadata."""
        return dict(self.topics).get(topic, -1)

    def homogeneous(self) -> bool:
        if self.homogeneous_type is not None:
            return self.homogeneous_type
        return len({m.topics for m in self.members}) <= 1


def finish(out: dict[str, set[TopicPartition]], spec: GroupSpec) -> Assignment:
    """Every member present, partitions sorted (the model's canonical form)."""
    return {m.member_id: tuple(sorted(out.get(m.member_id, ()))) for m in spec.members}


__all__ = ["Assignment", "GroupSpec", "MemberSpec", "PartitionAssignorException", "TopicPartition", "finish"]
