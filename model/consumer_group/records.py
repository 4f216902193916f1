"""The ``__consumer_offsets`` records of a KIP-848 consumer group: ``diff`` (the records a
handler writes to move a group from one value to another) and ``replay`` (what a coordinator
rebuilds from them when it loads the partition). Handlers decide and return records; ``replay``
applies them. The record types live in ``record_types`` and are re-exported here.

Sources (apache/kafka, group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
``GroupMetadataManager.java`` (the ``replay(ConsumerGroup...Key, ...Value)`` methods,
``getOrMaybeCreatePersistedConsumerGroup``, ``removeMember`` / ``consumerGroupFenceMember``'s
record order), ``modern/consumer/ConsumerGroup.java`` (``createGroupTombstoneRecords``),
``modern/TargetAssignmentBuilder.java`` (only changed target entries, then the epoch record).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..epochs.records import (check_group_tombstone, check_member_tombstone, check_target_tombstone,
                              leave_tombstones, target_batch)
from .group import MEMBER_STATE_NAMES, UNKNOWN, Group, Member, new_group
from .record_types import *  # noqa: F401,F403  (the record types are part of this API)
from .record_types import (LEAVE_EPOCH, ConsumerGroupCurrentMemberAssignment, ConsumerGroupMemberMetadata,
                           ConsumerGroupMetadata, ConsumerGroupPartitionMetadata, ConsumerGroupRegularExpression,
                           ConsumerGroupTargetAssignmentMember, ConsumerGroupTargetAssignmentMetadata, Record,
                           ReplayError, current_assignment_value, mask, member_metadata_value, target_value)

KIND = "ConsumerGroup"   # the records' names, as Kafka's replay messages spell them


def diff(before: Group, after: Group) -> tuple[Record, ...]:
    """The records that turn ``before`` into ``after``, only what changed. Order, so that
    replay accepts it: a leaving member's current-assignment, target-assignment and metadata
    tombstones (replay's member-tombstone checks need the first two first); member metadata;
    resolved regexes; partition metadata; group metadata (the epoch); the target-assignment
    batch (entries, then its epoch record); current assignments. Deleting the group writes
    ConsumerGroup.createGroupTombstoneRecords' order."""
    if before.group_id != after.group_id or before.partition_index != after.partition_index:
        raise ValueError("diff: before and after must be the same group (group_id and partition_index)")
    gid = after.group_id
    if after.dead:
        return () if before.dead else _tombstones(before)
    if before.dead:
        before = new_group(gid, before.partition_index)
    out: list = []
    after_ids = {m.member_id for m in after.members}
    for m in before.members:
        if m.member_id not in after_ids:
            out += leave_tombstones(gid, m.member_id, ConsumerGroupCurrentMemberAssignment,
                                    ConsumerGroupTargetAssignmentMember, ConsumerGroupMemberMetadata)
    for m in after.members:
        old = before.member(m.member_id)
        if old is None or member_metadata_value(old) != member_metadata_value(m):
            out.append(ConsumerGroupMemberMetadata(gid, m.member_id, member_metadata_value(m)))
    old_rx, new_rx = dict(before.resolved_regexes), dict(after.resolved_regexes)
    for rx in sorted(set(old_rx) | set(new_rx)):
        if old_rx.get(rx) != new_rx.get(rx):
            out.append(ConsumerGroupRegularExpression(gid, rx, new_rx.get(rx)))
    if before.subscription_metadata != after.subscription_metadata:
        out.append(ConsumerGroupPartitionMetadata(gid, after.subscription_metadata))
    if before.group_epoch != after.group_epoch or before.dead:
        out.append(ConsumerGroupMetadata(gid, after.group_epoch))
    out += target_batch(before, after, after_ids, ConsumerGroupTargetAssignmentMember,
                        ConsumerGroupTargetAssignmentMetadata, target_value)
    for m in after.members:
        old = before.member(m.member_id)
        if old is None or current_assignment_value(before, old) != current_assignment_value(after, m):
            out.append(ConsumerGroupCurrentMemberAssignment(gid, m.member_id, current_assignment_value(after, m)))
    return tuple(out)


def _tombstones(g: Group) -> list:
    """ConsumerGroup.createGroupTombstoneRecords: current assignments, target members, target
    metadata, member metadata, regexes, partition metadata, group metadata."""
    gid, ids = g.group_id, [m.member_id for m in g.members]
    return ([ConsumerGroupCurrentMemberAssignment(gid, i, None) for i in ids]
            + [ConsumerGroupTargetAssignmentMember(gid, i, None) for i in ids]
            + [ConsumerGroupTargetAssignmentMetadata(gid, None)]
            + [ConsumerGroupMemberMetadata(gid, i, None) for i in ids]
            + [ConsumerGroupRegularExpression(gid, rx, None) for rx, _ in g.resolved_regexes]
            + [ConsumerGroupPartitionMetadata(gid, None), ConsumerGroupMetadata(gid, None)])


def replay(records, group: Optional[Group] = None, *, partition_index=None) -> Group:
    """The group after replaying ``records`` in order on top of ``group`` (None: the
    coordinator holds nothing for the id; partitions read over ``partition_index``).
    GroupMetadataManager's rules: a record with a value creates the group if missing; a
    tombstone for a missing group or member is ignored; a member-metadata tombstone is
    rejected unless that member's current-assignment tombstone (epoch -1) and target tombstone
    came first; a target-metadata tombstone is rejected while target entries remain (and sets
    the assignment epoch to -1); a group-metadata tombstone is rejected while members remain or
    the assignment epoch is not -1, and otherwise deletes the group. Rejections raise ReplayError."""
    records = tuple(records)
    if group is None:
        if not records:
            raise ValueError("replay: pass a group or at least one record to name the group")
        group = replace(new_group(records[0].group_id, tuple(partition_index or ())), dead=True)
    g = group
    for r in records:
        if r.group_id != g.group_id:
            raise ValueError(f"replay: record for group {r.group_id!r} in the log of {g.group_id!r}; "
                             "replay one group's records at a time")
        if g.dead:
            if r.value is None:
                continue
            g = new_group(g.group_id, g.partition_index)
        g = _REPLAY[type(r)](g, r)
    return g


def _group_metadata(g: Group, r: ConsumerGroupMetadata) -> Group:
    if r.value is not None:
        return replace(g, group_epoch=r.value)
    check_group_tombstone(g, KIND)
    return replace(g, dead=True)


def _member_metadata(g: Group, r: ConsumerGroupMemberMetadata) -> Group:
    old, v = g.member(r.member_id), r.value
    if v is not None:
        return g.with_member(replace(old or Member(member_id=r.member_id), instance_id=v.instance_id, rack_id=v.rack_id,
                                     rebalance_timeout_ms=v.rebalance_timeout_ms,
                                     subscribed_topic_names=v.subscribed_topic_names,
                                     subscribed_topic_regex=v.subscribed_topic_regex,
                                     server_assignor=v.server_assignor))
    if old is None:
        return g
    check_member_tombstone(g, old, LEAVE_EPOCH, KIND)
    return g.without_member(r.member_id)


def _partition_metadata(g: Group, r: ConsumerGroupPartitionMetadata) -> Group:
    return replace(g, subscription_metadata=r.value if r.value is not None else ())


def _regex(g: Group, r: ConsumerGroupRegularExpression) -> Group:
    rx = dict(g.resolved_regexes)
    if r.value is None:
        rx.pop(r.regex, None)
    else:
        rx[r.regex] = tuple(r.value)
    return replace(g, resolved_regexes=tuple(sorted(rx.items())))


def _target_member(g: Group, r: ConsumerGroupTargetAssignmentMember) -> Group:
    return g.with_target(r.member_id, None if r.value is None else mask(g, r.value))


def _target_metadata(g: Group, r: ConsumerGroupTargetAssignmentMetadata) -> Group:
    if r.value is None:
        check_target_tombstone(g)
    return replace(g, target_assignment_epoch=-1 if r.value is None else r.value)


def _current_assignment(g: Group, r: ConsumerGroupCurrentMemberAssignment) -> Group:
    old, v = g.member(r.member_id), r.value
    if v is None:
        if old is None:
            return g
        # Kafka keeps the member (its metadata tombstone removes it) at epoch -1 with nothing assigned.
        return g.with_member(replace(old, epoch=LEAVE_EPOCH, previous_epoch=LEAVE_EPOCH, assigned=0,
                                     pending_revocation=0, assignment_epochs=()))
    return g.with_member(replace(old or Member(member_id=r.member_id), state=MEMBER_STATE_NAMES.get(v.state, UNKNOWN),
                                 epoch=v.member_epoch, previous_epoch=v.previous_member_epoch,
                                 assigned=mask(g, v.assigned_partitions),
                                 pending_revocation=mask(g, v.partitions_pending_revocation),
                                 assignment_epochs=tuple(v.assignment_epochs),
                                 target_member_epoch=v.target_member_epoch))


_REPLAY = {ConsumerGroupMetadata: _group_metadata, ConsumerGroupMemberMetadata: _member_metadata,
           ConsumerGroupPartitionMetadata: _partition_metadata, ConsumerGroupRegularExpression: _regex,
           ConsumerGroupTargetAssignmentMember: _target_member,
           ConsumerGroupTargetAssignmentMetadata: _target_metadata,
           ConsumerGroupCurrentMemberAssignment: _current_assignment}

__all__ = ["diff", "replay", "ReplayError"]
