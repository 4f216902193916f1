"""The record types of a KIP-848 consumer group in ``__consumer_offsets``, one NamedTuple per
key/value pair: the key's fields, then ``value`` (None: a tombstone), and the conversions
between a Member / target entry and a record value.

Sources (apache/kafka, group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
``GroupCoordinatorRecordHelpers.java`` (newConsumerGroupMemberSubscriptionRecord,
newConsumerGroupEpochRecord, newConsumerGroupSubscriptionMetadataRecord,
newConsumerGroupTargetAssignmentRecord, newConsumerGroupTargetAssignmentEpochRecord,
newConsumerGroupCurrentAssignmentRecord, newConsumerGroupRegularExpressionRecord and their
tombstones), ``resources/common/message/ConsumerGroup*Value.json``. Not modelled: client id /
host, ClassicMemberMetadata (``migration.py`` owns the classic side), 4.1's MetadataHash (the
model keeps the KIP's ConsumerGroupPartitionMetadata record instead), the regex record's
version / timestamp.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Union

from ..epochs.records import ReplayError
from .group import MEMBER_STATE_VALUES, Group, Member, mask_of, topic_partitions_of
from .state import TopicPartitions

LEAVE_EPOCH = -1


class ConsumerGroupMetadata(NamedTuple):
    group_id: str
    value: Optional[int]          # ConsumerGroupMetadataValue.Epoch


class MemberMetadataValue(NamedTuple):
    """ConsumerGroupMemberMetadataValue (the fields the model keeps)."""
    instance_id: Optional[str]
    rack_id: Optional[str]
    rebalance_timeout_ms: int
    subscribed_topic_names: tuple[str, ...]
    subscribed_topic_regex: Optional[str]
    server_assignor: Optional[str]


class ConsumerGroupMemberMetadata(NamedTuple):
    group_id: str
    member_id: str
    value: Optional[MemberMetadataValue]


class ConsumerGroupPartitionMetadata(NamedTuple):
    """KIP-848's ConsumerGroupPartitionMetadataValue reduced to (topic, partitions)."""
    group_id: str
    value: Optional[tuple[tuple[str, int], ...]]


class ConsumerGroupRegularExpression(NamedTuple):
    """ConsumerGroupRegularExpressionValue (4.0+): the topics a regex resolved to."""
    group_id: str
    regex: str
    value: Optional[tuple[str, ...]]


class ConsumerGroupTargetAssignmentMember(NamedTuple):
    group_id: str
    member_id: str
    value: Optional[tuple[TopicPartitions, ...]]


class ConsumerGroupTargetAssignmentMetadata(NamedTuple):
    group_id: str
    value: Optional[int]          # AssignmentEpoch


class CurrentMemberAssignmentValue(NamedTuple):
    member_epoch: int
    previous_member_epoch: int
    state: int                    # int8, MemberState's value
    assigned_partitions: tuple[TopicPartitions, ...] = ()
    partitions_pending_revocation: tuple[TopicPartitions, ...] = ()
    # KIP-1251's TopicPartitions.AssignmentEpochs, flattened: (partition bit, epoch), by bit
    assignment_epochs: tuple[tuple[int, int], ...] = ()
    target_member_epoch: int = 0     # 3.7.0's TargetMemberEpoch


class ConsumerGroupCurrentMemberAssignment(NamedTuple):
    group_id: str
    member_id: str
    value: Optional[CurrentMemberAssignmentValue]


Record = Union[ConsumerGroupMetadata, ConsumerGroupMemberMetadata, ConsumerGroupPartitionMetadata,
               ConsumerGroupRegularExpression, ConsumerGroupTargetAssignmentMember,
               ConsumerGroupTargetAssignmentMetadata, ConsumerGroupCurrentMemberAssignment]


def member_metadata_value(m: Member) -> MemberMetadataValue:
    return MemberMetadataValue(instance_id=m.instance_id, rack_id=m.rack_id,
                               rebalance_timeout_ms=m.rebalance_timeout_ms,
                               subscribed_topic_names=m.subscribed_topic_names,
                               subscribed_topic_regex=m.subscribed_topic_regex, server_assignor=m.server_assignor)


def current_assignment_value(g: Group, m: Member) -> CurrentMemberAssignmentValue:
    return CurrentMemberAssignmentValue(
        member_epoch=m.epoch, previous_member_epoch=m.previous_epoch, state=MEMBER_STATE_VALUES[m.state],
        assigned_partitions=topic_partitions_of(g.partition_index, m.assigned),
        partitions_pending_revocation=topic_partitions_of(g.partition_index, m.pending_revocation),
        assignment_epochs=m.assignment_epochs, target_member_epoch=m.target_member_epoch)


def target_value(g: Group, mask: int) -> tuple[TopicPartitions, ...]:
    return topic_partitions_of(g.partition_index, mask)


def mask(g: Group, tps: tuple[TopicPartitions, ...]) -> int:
    return mask_of(g.partition_index, tps)


__all__ = ["LEAVE_EPOCH", "ReplayError", "ConsumerGroupMetadata", "MemberMetadataValue", "ConsumerGroupMemberMetadata",
           "ConsumerGroupPartitionMetadata", "ConsumerGroupRegularExpression", "ConsumerGroupTargetAssignmentMember",
           "ConsumerGroupTargetAssignmentMetadata", "CurrentMemberAssignmentValue",
           "ConsumerGroupCurrentMemberAssignment", "Record", "member_metadata_value", "current_assignment_value",
           "target_value", "mask"]
