"""The record types of a streams group in ``__consumer_offsets`` (KIP-1071, "Records"),
one NamedTuple per key/value pair: the key's fields, then ``value`` (None: a tombstone),
and the conversions between a Member / target entry and a record value.

Sources (apache/kafka, group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
``streams/StreamsCoordinatorRecordHelpers.java`` (the records, their fields),
``streams/StreamsGroupMember.java`` (``Builder.updateWith``), the
``resources/common/message/StreamsGroup*Value.json`` schemas as the Java code fills them;
KIP-1071 "Records" for StreamsGroupPartitionMetadata.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Union

from ..epochs.records import ReplayError  # noqa: F401  (part of this API)
from .group import MEMBER_STATE_VALUES, Group, Member, Tasks, mask_of, task_ids_of
from .state import Endpoint, TaskIds, Topology

LEAVE_EPOCH = -1


# ---- the records ----

class GroupMetadataValue(NamedTuple):
    """StreamsGroupMetadataValue as the Java code writes it (the KIP's has the epoch
    only; later fields: ValidatedTopologyEpoch, LastAssignmentConfigs; its MetadataHash
    is the model's separate partition-metadata record)."""
    epoch: int
    validated_topology_epoch: int = -1
    last_assignment_configs: tuple[tuple[str, str], ...] = ()


class StreamsGroupMetadata(NamedTuple):
    group_id: str
    value: Optional[GroupMetadataValue]


class MemberMetadataValue(NamedTuple):
    """StreamsGroupMemberMetadataValue (client id / host not modelled)."""
    instance_id: Optional[str]
    rack_id: Optional[str]
    rebalance_timeout_ms: int
    topology_epoch: int
    process_id: str
    user_endpoint: Optional[Endpoint]
    client_tags: tuple[tuple[str, str], ...]


class StreamsGroupMemberMetadata(NamedTuple):
    group_id: str
    member_id: str
    value: Optional[MemberMetadataValue]


class StreamsGroupTopology(NamedTuple):
    """StreamsGroupTopologyValue carries the heartbeat's topology field for field."""
    group_id: str
    value: Optional[Topology]


class StreamsGroupPartitionMetadata(NamedTuple):
    """KIP-1071's StreamsGroupPartitionMetadataValue, reduced to (topic, partitions);
    shipped Kafka (4.1+) stores a hash of this in the group-metadata record instead."""
    group_id: str
    value: Optional[tuple[tuple[str, int], ...]]


class TargetAssignmentMemberValue(NamedTuple):
    active_tasks: tuple[TaskIds, ...] = ()
    standby_tasks: tuple[TaskIds, ...] = ()
    warmup_tasks: tuple[TaskIds, ...] = ()


class StreamsGroupTargetAssignmentMember(NamedTuple):
    group_id: str
    member_id: str
    value: Optional[TargetAssignmentMemberValue]


class StreamsGroupTargetAssignmentMetadata(NamedTuple):
    group_id: str
    value: Optional[int]     # AssignmentEpoch


class CurrentMemberAssignmentValue(NamedTuple):
    member_epoch: int
    previous_member_epoch: int
    state: int               # int8, MemberState's value
    active_tasks: tuple[TaskIds, ...] = ()
    standby_tasks: tuple[TaskIds, ...] = ()
    warmup_tasks: tuple[TaskIds, ...] = ()
    active_tasks_pending_revocation: tuple[TaskIds, ...] = ()
    standby_tasks_pending_revocation: tuple[TaskIds, ...] = ()
    warmup_tasks_pending_revocation: tuple[TaskIds, ...] = ()
    revocation_epoch: int = -1


class StreamsGroupCurrentMemberAssignment(NamedTuple):
    group_id: str
    member_id: str
    value: Optional[CurrentMemberAssignmentValue]


class OffsetCommit(NamedTuple):
    """A committed offset (OffsetCommitKey/Value), kept only for what it does to the
    group map on replay: for a group that does not exist it creates a "simple" classic
    group to hold the offsets (OffsetMetadataManager's replay)."""
    group_id: str
    topic: str
    partition: int
    value: Optional[int]


Record = Union[StreamsGroupMetadata, StreamsGroupMemberMetadata, StreamsGroupTopology,
               StreamsGroupPartitionMetadata, StreamsGroupTargetAssignmentMember,
               StreamsGroupTargetAssignmentMetadata, StreamsGroupCurrentMemberAssignment, OffsetCommit]


# ---- member <-> record values ----

def member_metadata_value(m: Member) -> MemberMetadataValue:
    return MemberMetadataValue(instance_id=m.instance_id, rack_id=m.rack_id,
                               rebalance_timeout_ms=m.rebalance_timeout_ms, topology_epoch=m.topology_epoch,
                               process_id=m.process_id, user_endpoint=m.user_endpoint, client_tags=m.client_tags)


def current_assignment_value(g: Group, m: Member) -> CurrentMemberAssignmentValue:
    active, standby, warmup = (task_ids_of(g.task_index, mask) for mask in m.assigned)
    revoking = [task_ids_of(g.task_index, mask) for mask in m.pending_revocation]
    return CurrentMemberAssignmentValue(
        member_epoch=m.epoch, previous_member_epoch=m.previous_epoch, state=MEMBER_STATE_VALUES[m.state],
        active_tasks=active, standby_tasks=standby, warmup_tasks=warmup,
        active_tasks_pending_revocation=revoking[0], standby_tasks_pending_revocation=revoking[1],
        warmup_tasks_pending_revocation=revoking[2], revocation_epoch=m.revocation_epoch)


def target_value(g: Group, tasks: Tasks) -> TargetAssignmentMemberValue:
    return TargetAssignmentMemberValue(*(task_ids_of(g.task_index, mask) for mask in tasks))


def _tasks(g: Group, *task_ids: tuple[TaskIds, ...]) -> Tasks:
    return tuple(mask_of(g.task_index, t) for t in task_ids)


