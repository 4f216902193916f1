"""The coordinator's side of a streams group (KIP-1071): its members, epochs, topology,
partition metadata and target assignment, as frozen values, and the group state Kafka
derives from them.

Everything here is backed by a ``__consumer_offsets`` record (``records.py`` writes and
replays them); nothing soft (deadlines, shutdown requests, endpoint epochs) is kept.

Tasks are bitmasks: a member's assignment is three bitmasks ``(active, standby,
warm-up)`` over the group's ``task_index``, the sorted ``(subtopology id, partition)``
pairs the scope fixes. Records name tasks as Kafka does (``TaskIds``); the index turns
one into the other the same way whatever order records replay in.

Sources (apache/kafka, group-coordinator/src/main/java/org/apache/kafka/coordinator/
group/streams/): ``StreamsGroup.java`` (the fields, ``maybeUpdateGroupState``),
``StreamsGroupMember.java`` (fields, ``Builder`` defaults, ``isReconciledTo``),
``MemberState.java`` (the member states and their int8 values).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Optional

from ..epochs.group import ACTIVE, STANDBY, WARMUP
from ..epochs.members import MemberTable
from .state import (ASSIGNING, DEAD, EMPTY, NOT_READY, RECONCILING, STABLE, Endpoint,
                    TaskIds, Topology)

# Member states, the names model/epochs/reconcile.py uses; the values are what the
# current-assignment record stores (MemberState.java: STABLE 1, UNREVOKED_TASKS 2,
# UNRELEASED_TASKS 3, UNKNOWN 127; an unknown byte reads back as UNKNOWN).
MEMBER_STABLE, UNREVOKED, UNRELEASED, UNKNOWN = "STABLE", "UNREVOKED", "UNRELEASED", "UNKNOWN"
MEMBER_STATE_VALUES = {MEMBER_STABLE: 1, UNREVOKED: 2, UNRELEASED: 3, UNKNOWN: 127}
MEMBER_STATE_NAMES = {v: k for k, v in MEMBER_STATE_VALUES.items()}

Tasks = tuple[int, int, int]            # (active, standby, warm-up) bitmasks
NO_TASKS: Tasks = (0, 0, 0)
TaskIndex = tuple[tuple[str, int], ...]  # (subtopology id, partition), sorted


def task_index(num_tasks: dict[str, int]) -> TaskIndex:
    """The index of every task: subtopology ids in order, partitions 0..n-1 each."""
    return tuple((s, p) for s in sorted(num_tasks) for p in range(num_tasks[s]))


def mask_of(index: TaskIndex, task_ids: tuple[TaskIds, ...]) -> int:
    """The bitmask of ``task_ids`` over ``index``; a task outside it is an error."""
    position = {task: i for i, task in enumerate(index)}
    mask = 0
    for t in task_ids:
        for p in t.partitions:
            if (t.subtopology_id, p) not in position:
                raise ValueError(f"mask_of: task ({t.subtopology_id!r}, {p}) is not in the group's "
                                 "task_index; build the Group with a task_index covering every task")
            mask |= 1 << position[(t.subtopology_id, p)]
    return mask


def task_ids_of(index: TaskIndex, mask: int) -> tuple[TaskIds, ...]:
    """The tasks of ``mask`` as Kafka writes them: one ``TaskIds`` per subtopology,
    sorted by id, partitions ascending (StreamsCoordinatorRecordHelpers.toTaskIds)."""
    return _task_ids_of(tuple(index), mask)


@lru_cache(maxsize=1 << 14)
def _task_ids_of(index: TaskIndex, mask: int) -> tuple[TaskIds, ...]:
    if mask >> len(index):
        raise ValueError(f"task_ids_of: mask {mask:#x} has bits beyond the task_index "
                         f"({len(index)} tasks); keep assignments inside the group's index")
    by_subtopology: dict[str, list[int]] = {}
    for i, (s, p) in enumerate(index):
        if mask >> i & 1:
            by_subtopology.setdefault(s, []).append(p)
    return tuple(TaskIds(s, tuple(sorted(ps))) for s, ps in sorted(by_subtopology.items()))


@dataclass(frozen=True, slots=True)
class Member:
    """A streams group member: what it sent in its heartbeats (the member-metadata
    record) and its current assignment (the current-member-assignment record). The
    defaults are StreamsGroupMember.Builder's (epoch 0, previous -1, STABLE, timeouts
    and topology epoch -1), which a member replayed from only one of its two records
    keeps for the other half. Kafka's client id and client host are not modelled."""

    member_id: str
    process_id: str = ""
    instance_id: Optional[str] = None
    rack_id: Optional[str] = None
    client_tags: tuple[tuple[str, str], ...] = ()   # sorted by key
    topology_epoch: int = -1
    rebalance_timeout_ms: int = -1
    user_endpoint: Optional[Endpoint] = None
    # the current assignment, field names as model/epochs/reconcile.MemberAssignment
    state: str = MEMBER_STABLE
    epoch: int = 0
    previous_epoch: int = -1
    assigned: Tasks = NO_TASKS
    pending_revocation: Tasks = NO_TASKS
    revocation_epoch: int = -1

    def __post_init__(self):
        if list(self.client_tags) != sorted(set(self.client_tags)):
            raise ValueError(f"Member({self.member_id!r}): client_tags must be sorted and "
                             "unique; pass tuple(sorted(tags.items()))")
        if self.state not in MEMBER_STATE_VALUES:
            raise ValueError(f"Member({self.member_id!r}): state {self.state!r} is not one "
                             f"of {sorted(MEMBER_STATE_VALUES)}")

    def is_reconciled_to(self, target_assignment_epoch: int) -> bool:
        """StreamsGroupMember.isReconciledTo: STABLE and at the target's epoch."""
        return self.state == MEMBER_STABLE and self.epoch == target_assignment_epoch

    def with_assignment(self, assignment) -> "Member":
        """This member with the current assignment of ``assignment`` (anything with the
        fields state, epoch, previous_epoch, assigned, pending_revocation, e.g.
        model.epochs.MemberAssignment)."""
        return replace(self, state=assignment.state, epoch=assignment.epoch,
                       previous_epoch=assignment.previous_epoch, assigned=tuple(assignment.assigned),
                       pending_revocation=tuple(assignment.pending_revocation),
                       revocation_epoch=getattr(assignment, "revocation_epoch", self.revocation_epoch))


def _sorted_unique(items, key, what: str, fix: str):
    keys = [key(x) for x in items]
    if keys != sorted(set(keys)):
        raise ValueError(f"Group: {what} must be sorted by key with no duplicates; {fix}")


@dataclass(frozen=True, slots=True)
class Group(MemberTable):
    """A streams group as the coordinator holds it (StreamsGroup.java's record-backed
    fields). Canonical: every collection is a tuple sorted by its key, so two equal
    groups compare and hash equal. ``dead``: the group was deleted (its metadata
    tombstone replayed); Kafka then no longer holds it, and describes it as DEAD.

    ``validated_topology_epoch`` starts at -1 here (Kafka's TimelineInteger starts at
    0): an unvalidated topology of epoch 0 reads NOT_READY until a handler writes the
    epoch it validated in the group-metadata record."""

    group_id: str
    task_index: TaskIndex = ()
    group_epoch: int = 0
    target_assignment_epoch: int = 0
    topology: Optional[Topology] = None
    validated_topology_epoch: int = -1
    partition_metadata: tuple[tuple[str, int], ...] = ()     # (topic, partitions), by topic
    members: tuple[Member, ...] = ()                          # by member id
    target_assignment: tuple[tuple[str, Tasks], ...] = ()     # (member id, tasks), by id
    assignment_configs: tuple[tuple[str, str], ...] = ()      # (key, value), by key
    dead: bool = False

    def __post_init__(self):
        _sorted_unique(self.members, lambda m: m.member_id, "members",
                       "build them with Group.with_member or sort by member_id")
        _sorted_unique(self.target_assignment, lambda t: t[0], "target_assignment",
                       "pass tuple(sorted(target.items()))")
        _sorted_unique(self.partition_metadata, lambda t: t[0], "partition_metadata",
                       "pass tuple(sorted(partitions.items()))")
        _sorted_unique(self.assignment_configs, lambda t: t[0], "assignment_configs",
                       "pass tuple(sorted(configs.items()))")
        if list(self.task_index) != sorted(set(self.task_index)):
            raise ValueError("Group: task_index must be sorted and unique; build it with task_index()")

    # ---- reading ----

    def target_of(self, member_id: str) -> Tasks:
        """StreamsGroup.targetAssignment(memberId): NO_TASKS when it has none."""
        for mid, tasks in self.target_assignment:
            if mid == member_id:
                return tasks
        return NO_TASKS

    # ---- new values ----

    def with_target(self, member_id: str, tasks: Optional[Tasks]) -> "Group":
        """The target assignment with ``member_id``'s entry set, or removed if None."""
        target = dict(self.target_assignment)
        if tasks is None:
            target.pop(member_id, None)
        else:
            target[member_id] = tuple(tasks)
        return replace(self, target_assignment=tuple(sorted(target.items())))


def new_group(group_id: str, task_index: TaskIndex = ()) -> Group:
    """The group Kafka creates on first use (StreamsGroup's constructor)."""
    return Group(group_id=group_id, task_index=task_index)


def group_state(group: Group) -> str:
    """The group state, StreamsGroup.maybeUpdateGroupState's order (first match wins):

    EMPTY        no members;
    NOT_READY    no topology, or its epoch is not the validated topology epoch;
    ASSIGNING    group epoch > target-assignment epoch (a new target is due);
    RECONCILING  some member is not STABLE at the target-assignment epoch;
    STABLE       otherwise.
    DEAD         the group was deleted (Kafka's state for a group it no longer holds).
    """
    if group.dead:
        return DEAD
    if not group.members:
        return EMPTY
    if group.topology is None or group.topology.epoch != group.validated_topology_epoch:
        return NOT_READY
    if group.group_epoch > group.target_assignment_epoch:
        return ASSIGNING
    if any(not m.is_reconciled_to(group.target_assignment_epoch) for m in group.members):
        return RECONCILING
    return STABLE


__all__ = ["ACTIVE", "STANDBY", "WARMUP", "MEMBER_STABLE", "UNREVOKED", "UNRELEASED", "UNKNOWN",
           "MEMBER_STATE_VALUES", "MEMBER_STATE_NAMES", "NO_TASKS", "Tasks", "TaskIndex", "Member",
           "Group", "new_group", "group_state", "task_index", "mask_of", "task_ids_of"]
