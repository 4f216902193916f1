"""The coordinator's side of a KIP-848 consumer group: its members, epochs, subscribed-topic
metadata, resolved regular expressions and target assignment, as frozen values, and the group
state Kafka derives from them.

Everything here is backed by a ``__consumer_offsets`` record (``records.py`` writes and replays
them); nothing soft (timers, deadlines) is kept.

Partitions are bitmasks over the group's ``partition_index``: the sorted ``(topic, partition)``
pairs of every topic the scope may create (fixed for the group's life, so a bit means the same
partition whatever the order records replay in). ``mask_of`` / ``topic_partitions_of`` turn
Kafka's ``TopicPartitions`` lists into bitmasks and back.

Sources (apache/kafka, group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
``modern/consumer/ConsumerGroup.java`` (fields, ``maybeUpdateGroupState``, ``staticMember``),
``modern/consumer/ConsumerGroupMember.java`` (fields, ``Builder`` defaults, ``isReconciledTo``),
``modern/MemberState.java`` (STABLE 1, UNREVOKED_PARTITIONS 2, UNRELEASED_PARTITIONS 3, UNKNOWN 127).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterable, Optional

from ..epochs.members import MemberTable
from .state import ASSIGNING, DEAD, EMPTY, RECONCILING, STABLE, TopicPartitions

# Member states, the names model/epochs/reconcile.py uses; the values are the records' int8.
MEMBER_STABLE, UNREVOKED, UNRELEASED, UNKNOWN = "STABLE", "UNREVOKED", "UNRELEASED", "UNKNOWN"
MEMBER_STATE_VALUES = {MEMBER_STABLE: 1, UNREVOKED: 2, UNRELEASED: 3, UNKNOWN: 127}
MEMBER_STATE_NAMES = {v: k for k, v in MEMBER_STATE_VALUES.items()}

PartitionIndex = tuple[tuple[str, int], ...]     # (topic, partition), sorted


def partition_index(topics: Iterable[tuple[str, int]]) -> PartitionIndex:
    """The index of every partition of ``topics`` ((name, partition count) pairs)."""
    return tuple((t, p) for t, n in sorted(topics) for p in range(n))


def mask_of(index: PartitionIndex, tps: Iterable[TopicPartitions]) -> int:
    """The bitmask of ``tps`` over ``index``; a partition outside it is an error."""
    position = {tp: i for i, tp in enumerate(index)}
    mask = 0
    for t in tps:
        for p in t.partitions:
            if (t.topic_id, p) not in position:
                raise ValueError(f"mask_of: partition ({t.topic_id!r}, {p}) is not in the group's "
                                 "partition_index; build the group with new_group(id, partition_index(topics)) "
                                 "covering every topic the scope may create")
            mask |= 1 << position[(t.topic_id, p)]
    return mask


def topic_partitions_of(index: PartitionIndex, mask: int) -> tuple[TopicPartitions, ...]:
    """The partitions of ``mask`` as Kafka lists them: one ``TopicPartitions`` per topic,
    sorted by topic, partitions ascending."""
    return _tps_of(tuple(index), mask)


@lru_cache(maxsize=1 << 14)
def _tps_of(index: PartitionIndex, mask: int) -> tuple[TopicPartitions, ...]:
    if mask >> len(index):
        raise ValueError(f"topic_partitions_of: mask {mask:#x} has bits beyond the partition_index "
                         f"({len(index)} partitions)")
    by_topic: dict[str, list[int]] = {}
    for i, (t, p) in enumerate(index):
        if mask >> i & 1:
            by_topic.setdefault(t, []).append(p)
    return tuple(TopicPartitions(t, tuple(ps)) for t, ps in sorted(by_topic.items()))


def topics_mask(index: PartitionIndex, topics: Iterable[str]) -> int:
    """Every partition of ``topics`` in ``index``."""
    names = set(topics)
    return sum(1 << i for i, (t, _) in enumerate(index) if t in names)


@dataclass(frozen=True, slots=True)
class Member:
    """A consumer group member: what its heartbeats told the coordinator (the member-metadata
    record) and its current assignment (the current-member-assignment record). Defaults are
    ConsumerGroupMember.Builder's (epoch 0, previous -1, STABLE, rebalance timeout -1, empty
    subscription). Client id and host are not modelled. ``assigned`` / ``pending_revocation``
    are bitmasks over the group's partition index (the epoch core's one role)."""

    member_id: str
    instance_id: Optional[str] = None
    rack_id: Optional[str] = None
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: tuple[str, ...] = ()       # sorted, unique
    subscribed_topic_regex: Optional[str] = None
    server_assignor: Optional[str] = None
    state: str = MEMBER_STABLE
    epoch: int = 0
    previous_epoch: int = -1
    assigned: int = 0
    pending_revocation: int = 0
    # KIP-1251 (profiles with ``assignment_epochs``): (partition bit, the member epoch it was
    # assigned at) for every partition assigned or pending revocation, by bit; () otherwise.
    assignment_epochs: tuple[tuple[int, int], ...] = ()
    # 3.7.0's targetMemberEpoch (KAFKA-16249's bug, ``new_target_ignores_owned``): the target
    # epoch the member last started reconciling towards; 0 in every other profile.
    target_member_epoch: int = 0

    def __post_init__(self):
        if list(self.subscribed_topic_names) != sorted(set(self.subscribed_topic_names)):
            raise ValueError(f"Member({self.member_id!r}): subscribed_topic_names must be sorted and unique; "
                             "pass tuple(sorted(set(names)))")
        if self.state not in MEMBER_STATE_VALUES:
            raise ValueError(f"Member({self.member_id!r}): state {self.state!r} is not one of "
                             f"{sorted(MEMBER_STATE_VALUES)}")

    def is_reconciled_to(self, target_assignment_epoch: int) -> bool:
        """ConsumerGroupMember.isReconciledTo: STABLE at the target assignment's epoch."""
        return self.state == MEMBER_STABLE and self.epoch == target_assignment_epoch

    def with_assignment(self, a) -> "Member":
        """This member with the current assignment ``a`` (an epochs.MemberAssignment: one role)."""
        return replace(self, state=a.state, epoch=a.epoch, previous_epoch=a.previous_epoch,
                       assigned=a.assigned[0], pending_revocation=a.pending_revocation[0])


def _sorted_unique(keys, what: str, fix: str) -> None:
    keys = list(keys)
    if keys != sorted(set(keys)):
        raise ValueError(f"Group: {what} must be sorted by key with no duplicates; {fix}")


@dataclass(frozen=True, slots=True)
class Group(MemberTable):
    """A consumer group as the coordinator holds it (ConsumerGroup.java's record-backed
    fields). Canonical: every collection is a tuple sorted by its key.

    ``subscription_metadata``: (topic, partitions) of every subscribed topic that exists
    (KIP-848's ConsumerGroupPartitionMetadata record; 4.1+ store a hash of it instead).
    ``resolved_regexes``: (regex, matching topics) per regex some member subscribes to
    (ConsumerGroupRegularExpression records, Kafka 4.0+). ``dead``: the group was deleted."""

    group_id: str
    partition_index: PartitionIndex = ()
    group_epoch: int = 0
    target_assignment_epoch: int = 0
    members: tuple[Member, ...] = ()                               # by member id
    target_assignment: tuple[tuple[str, int], ...] = ()            # (member id, partitions), by id
    subscription_metadata: tuple[tuple[str, int], ...] = ()        # (topic, partitions), by topic
    resolved_regexes: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (regex, topics), by regex
    dead: bool = False
    # Soft state, in no record: partitions whose owner the coordinator's partition-epoch map
    # (ConsumerGroup#currentPartitionEpoch) lost through KAFKA-16147's bookkeeping bug (3.7.0,
    # ``partition_epoch_map_bug``); 0 otherwise. A failover rebuilds the map from the compacted
    # log, which heals it.
    epoch_map_lost: int = 0

    def __post_init__(self):
        _sorted_unique((m.member_id for m in self.members), "members", "build them with Group.with_member")
        _sorted_unique((t[0] for t in self.target_assignment), "target_assignment",
                       "pass tuple(sorted(target.items()))")
        _sorted_unique((t[0] for t in self.subscription_metadata), "subscription_metadata",
                       "pass tuple(sorted(metadata.items()))")
        _sorted_unique((t[0] for t in self.resolved_regexes), "resolved_regexes", "pass tuple(sorted(...))")
        if list(self.partition_index) != sorted(set(self.partition_index)):
            raise ValueError("Group: partition_index must be sorted and unique; build it with partition_index()")

    def target_of(self, member_id: str) -> int:
        for mid, mask in self.target_assignment:
            if mid == member_id:
                return mask
        return 0

    def with_target(self, member_id: str, mask: Optional[int]) -> "Group":
        """The target assignment with ``member_id``'s entry set, or removed if None."""
        target = dict(self.target_assignment)
        if mask is None:
            target.pop(member_id, None)
        else:
            target[member_id] = mask
        return replace(self, target_assignment=tuple(sorted(target.items())))

    def regex_topics(self, regex: Optional[str]) -> Optional[tuple[str, ...]]:
        """The topics ``regex`` resolved to (None: not resolved yet)."""
        return dict(self.resolved_regexes).get(regex) if regex is not None else None

    def subscribed_topics(self, m: Member) -> tuple[str, ...]:
        """The member's topic names plus what its regex resolved to (nothing while unresolved)."""
        return tuple(sorted(set(m.subscribed_topic_names) | set(self.regex_topics(m.subscribed_topic_regex) or ())))


def new_group(group_id: str, partition_index: PartitionIndex = ()) -> Group:
    """The group Kafka creates on a first join (ConsumerGroup's constructor: epochs 0)."""
    return Group(group_id=group_id, partition_index=tuple(partition_index))


def group_state(group: Group) -> str:
    """ConsumerGroup.maybeUpdateGroupState, first match wins:

    EMPTY        no members;
    ASSIGNING    group epoch > target assignment epoch;
    RECONCILING  some member is not STABLE at the target assignment epoch;
    STABLE       otherwise;
    DEAD         the group was deleted.
    """
    if group.dead:
        return DEAD
    if not group.members:
        return EMPTY
    if group.group_epoch > group.target_assignment_epoch:
        return ASSIGNING
    if any(not m.is_reconciled_to(group.target_assignment_epoch) for m in group.members):
        return RECONCILING
    return STABLE


__all__ = ["MEMBER_STABLE", "UNREVOKED", "UNRELEASED", "UNKNOWN", "MEMBER_STATE_VALUES", "MEMBER_STATE_NAMES",
           "PartitionIndex", "Member", "Group", "new_group", "group_state", "partition_index", "mask_of",
           "topic_partitions_of", "topics_mask"]
