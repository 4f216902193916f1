"""The ``__consumer_offsets`` records of a streams group (KIP-1071, "Records"): the
types, ``diff`` (the records a handler writes to move a group from one value to
another) and ``replay`` (what a coordinator rebuilds from them, loading the log after a
failover). Handlers decide and return records; ``replay`` applies them.

The record types live in ``record_types`` and are re-exported here.

Sources (apache/kafka, group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
``streams/StreamsCoordinatorRecordHelpers.java`` (the records, their fields, tombstones),
``GroupMetadataManager.java`` (the ``replay(StreamsGroup...Key, ...Value)`` methods and
``getOrMaybeCreatePersistedStreamsGroup``), ``streams/StreamsGroup.java``
(``createGroupTombstoneRecords``); KIP-1071 "Records" for StreamsGroupPartitionMetadata.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional, Union

from ..epochs.records import (check_group_tombstone, check_member_tombstone, check_target_tombstone,
                              leave_tombstones, target_batch)
from .group import MEMBER_STATE_NAMES, NO_TASKS, UNKNOWN, Group, Member, new_group
from .record_types import *  # noqa: F401,F403  (the record types are part of this API)
from .record_types import (LEAVE_EPOCH, OffsetCommit, Record, ReplayError, StreamsGroupCurrentMemberAssignment,
                           StreamsGroupMemberMetadata, StreamsGroupMetadata, StreamsGroupPartitionMetadata,
                           StreamsGroupTargetAssignmentMember, StreamsGroupTargetAssignmentMetadata,
                           StreamsGroupTopology, GroupMetadataValue, _tasks, current_assignment_value,
                           member_metadata_value, target_value)

KIND = "StreamsGroup"   # the records' names, as Kafka's replay messages spell them

# ---- diff: the records that move ``before`` to ``after`` ----

def diff(before: Group, after: Group) -> tuple[Record, ...]:
    """The records a handler writes to turn ``before`` into ``after``, writing only what
    changed (KIP-1071: "a new version of the member metadata record is appended" when it
    changes; the target assignment: "only write the difference between the two
    assignments"). Order, so that replay accepts it: a leaving member's current
    assignment, target assignment and metadata tombstones (GroupMetadataManager's
    member-tombstone checks need the first two replayed first); member metadata; group
    metadata; topology; partition metadata; the target-assignment batch (member values
    and tombstones, then its epoch record); current assignments. Deleting the group writes
    StreamsGroup.createGroupTombstoneRecords' order."""
    if before.group_id != after.group_id or before.task_index != after.task_index:
        raise ValueError("diff: before and after must be the same group (group_id and task_index)")
    gid = after.group_id
    if after.dead:
        return () if before.dead else _tombstones(before)
    if before.dead:
        before = new_group(gid, before.task_index)
    out: list[Record] = []
    after_ids = {m.member_id for m in after.members}
    for m in before.members:
        if m.member_id not in after_ids:
            out += leave_tombstones(gid, m.member_id, StreamsGroupCurrentMemberAssignment,
                                    StreamsGroupTargetAssignmentMember, StreamsGroupMemberMetadata)
    for m in after.members:
        old = before.member(m.member_id)
        if old is None or member_metadata_value(old) != member_metadata_value(m):
            out.append(StreamsGroupMemberMetadata(gid, m.member_id, member_metadata_value(m)))
    def meta(g):
        return GroupMetadataValue(g.group_epoch, g.validated_topology_epoch, g.assignment_configs)
    if meta(before) != meta(after):
        out.append(StreamsGroupMetadata(gid, meta(after)))
    if before.topology != after.topology:
        out.append(StreamsGroupTopology(gid, after.topology))
    if before.partition_metadata != after.partition_metadata:
        out.append(StreamsGroupPartitionMetadata(gid, after.partition_metadata))
    out += target_batch(before, after, after_ids, StreamsGroupTargetAssignmentMember,
                        StreamsGroupTargetAssignmentMetadata, target_value)
    for m in after.members:
        old = before.member(m.member_id)
        if old is None or current_assignment_value(before, old) != current_assignment_value(after, m):
            out.append(StreamsGroupCurrentMemberAssignment(gid, m.member_id, current_assignment_value(after, m)))
    return tuple(out)


def _tombstones(g: Group) -> list[Record]:
    """StreamsGroup.createGroupTombstoneRecords: current assignments, target assignment
    members, target-assignment metadata, member metadata, group metadata, topology; the
    model adds the KIP's partition-metadata tombstone."""
    gid, ids = g.group_id, [m.member_id for m in g.members]
    return ([StreamsGroupCurrentMemberAssignment(gid, i, None) for i in ids]
            + [StreamsGroupTargetAssignmentMember(gid, i, None) for i in ids]
            + [StreamsGroupTargetAssignmentMetadata(gid, None)]
            + [StreamsGroupMemberMetadata(gid, i, None) for i in ids]
            + [StreamsGroupMetadata(gid, None), StreamsGroupTopology(gid, None),
               StreamsGroupPartitionMetadata(gid, None)])


# ---- replay ----

SIMPLE_CLASSIC = "simple classic group"   # what an offset commit creates for an unknown group


class _Log:
    """The coordinator's view of one group id while a log replays: None (no group), a
    streams Group (possibly dead: then Kafka holds no group), or SIMPLE_CLASSIC."""

    def __init__(self, group: Group, kafka_20254: bool):
        self.held: Union[Group, str, None] = None if group.dead else group
        self.dead, self.kafka_20254 = group, kafka_20254

    def get(self, create: bool) -> Optional[Group]:
        """getOrMaybeCreatePersistedStreamsGroup(groupId, create): None means
        GroupIdNotFoundException (the caller ignores its tombstone)."""
        if self.held is None:
            if not create:
                return None
            self.held = new_group(self.dead.group_id, self.dead.task_index)
        elif self.held == SIMPLE_CLASSIC:
            if self.kafka_20254:
                # 4.2.0 before KAFKA-20254's fix: only a streams group passes.
                raise ReplayError(f"Group {self.dead.group_id} is not a streams group.")
            # The fix: a simple classic group has no records behind it, so a streams
            # record replaces it with a new streams group (whatever ``create`` says).
            self.held = new_group(self.dead.group_id, self.dead.task_index)
        return self.held

    def result(self) -> Group:
        if isinstance(self.held, Group):
            return self.held
        return replace(new_group(self.dead.group_id, self.dead.task_index), dead=True)


def replay(records, group: Optional[Group] = None, *, task_index=None,
           kafka_20254: bool = False) -> Group:
    """The group a coordinator holds after replaying ``records`` in order on top of
    ``group`` (None: a coordinator that holds nothing for the id yet, whose tasks are
    read over ``task_index``). GroupMetadataManager's rules:

    * a record with a value creates the group if missing (any record type: after
      compaction a member's records can precede the group's);
    * a tombstone for a missing group, or a missing member, is ignored;
    * a member-metadata tombstone is rejected unless that member's current-assignment
      tombstone (epoch -1) and target-assignment tombstone came first;
    * a target-assignment-metadata tombstone is rejected while target entries remain,
      and sets the assignment epoch to -1;
    * a group-metadata tombstone is rejected while members remain or the assignment
      epoch is not -1, and otherwise deletes the group (DEAD);
    * an offset commit for a missing group creates a simple classic group; a streams
      record then replaces it, or, with ``kafka_20254`` (4.2.0), is rejected.
    Rejections raise ReplayError.
    """
    records = tuple(records)
    if group is None:
        if not records:
            raise ValueError("replay: pass a group or at least one record to name the group")
        group = replace(new_group(records[0].group_id, tuple(task_index or ())), dead=True)
    log = _Log(group, kafka_20254)
    for r in records:
        if r.group_id != group.group_id:
            raise ValueError(f"replay: record for group {r.group_id!r} in the log of "
                             f"{group.group_id!r}; replay one group's records at a time")
        _apply(log, r)
    return log.result()


def _apply(log: _Log, r: Record) -> None:
    if isinstance(r, OffsetCommit):
        if log.held is None and r.value is not None:
            log.held = SIMPLE_CLASSIC
        return
    g = log.get(create=r.value is not None)
    if g is None:
        return
    log.held = _REPLAY[type(r)](g, r)


def _group_metadata(g: Group, r: StreamsGroupMetadata) -> Group:
    if r.value is not None:
        v = r.value
        return replace(g, group_epoch=v.epoch, validated_topology_epoch=v.validated_topology_epoch,
                       assignment_configs=v.last_assignment_configs)
    check_group_tombstone(g, KIND)
    return replace(new_group(g.group_id, g.task_index), dead=True)


def _member_metadata(g: Group, r: StreamsGroupMemberMetadata) -> Group:
    old = g.member(r.member_id)
    if r.value is not None:
        v = r.value
        base = old or Member(member_id=r.member_id)
        return g.with_member(replace(base, instance_id=v.instance_id, rack_id=v.rack_id,
                                     rebalance_timeout_ms=v.rebalance_timeout_ms,
                                     topology_epoch=v.topology_epoch, process_id=v.process_id,
                                     user_endpoint=v.user_endpoint, client_tags=v.client_tags))
    if old is None:
        return g
    check_member_tombstone(g, old, LEAVE_EPOCH, KIND)
    return g.without_member(r.member_id)


def _topology(g: Group, r: StreamsGroupTopology) -> Group:
    return replace(g, topology=r.value)


def _partition_metadata(g: Group, r: StreamsGroupPartitionMetadata) -> Group:
    return replace(g, partition_metadata=r.value if r.value is not None else ())


def _target_member(g: Group, r: StreamsGroupTargetAssignmentMember) -> Group:
    v = r.value
    return g.with_target(r.member_id, None if v is None else
                         _tasks(g, v.active_tasks, v.standby_tasks, v.warmup_tasks))


def _target_metadata(g: Group, r: StreamsGroupTargetAssignmentMetadata) -> Group:
    if r.value is None:
        check_target_tombstone(g)
    return replace(g, target_assignment_epoch=-1 if r.value is None else r.value)


def _current_assignment(g: Group, r: StreamsGroupCurrentMemberAssignment) -> Group:
    old, v = g.member(r.member_id), r.value
    if v is None:
        if old is None:
            return g
        # Kafka keeps the member (its metadata tombstone removes it) at epoch -1 with
        # nothing assigned; its state is left as it was.
        return g.with_member(replace(old, epoch=LEAVE_EPOCH, previous_epoch=LEAVE_EPOCH,
                                     assigned=NO_TASKS, pending_revocation=NO_TASKS))
    return g.with_member(replace(
        old or Member(member_id=r.member_id), state=MEMBER_STATE_NAMES.get(v.state, UNKNOWN),
        epoch=v.member_epoch, previous_epoch=v.previous_member_epoch,
        assigned=_tasks(g, v.active_tasks, v.standby_tasks, v.warmup_tasks),
        pending_revocation=_tasks(g, v.active_tasks_pending_revocation,
                                  v.standby_tasks_pending_revocation, v.warmup_tasks_pending_revocation),
        revocation_epoch=v.revocation_epoch))


_REPLAY = {StreamsGroupMetadata: _group_metadata, StreamsGroupMemberMetadata: _member_metadata,
           StreamsGroupTopology: _topology, StreamsGroupPartitionMetadata: _partition_metadata,
           StreamsGroupTargetAssignmentMember: _target_member,
           StreamsGroupTargetAssignmentMetadata: _target_metadata,
           StreamsGroupCurrentMemberAssignment: _current_assignment}
