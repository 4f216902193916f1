"""The group side of the three epochs, and the blocking rules ``reconcile`` takes.

KIP-1071, "Rebalance Process": "Similar as in KIP-848 consumer groups, the rebalance
process is entirely driven by the group coordinator, and based on the same three
epochs: group epoch, assignment epoch, and member epoch."

* group epoch: bumped by the coordinator when anything the assignment depends on
  changes (members, metadata, topology, configs);
* assignment epoch: the group epoch the target assignment was computed for;
* member epoch (+ previous member epoch): per member, moved by ``reconcile``.

Sources: GroupMetadataManager.java (``streamsGroupHeartbeat`` step 4,
``throwIfStreamsGroupMemberEpochIsInvalid``), streams/CurrentAssignmentBuilder.java
(the ``isUnreleasedTask`` predicates), modern/consumer/CurrentAssignmentBuilder.java
(``currentPartitionEpoch``), all under group-coordinator/src/main/java/org/apache/
kafka/coordinator/group/.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from .reconcile import Fenced, MemberAssignment, Resources, Unreleased

ACTIVE, STANDBY, WARMUP = 0, 1, 2     # Streams roles; a consumer has the one role 0


class GroupEpochs(NamedTuple):
    group_epoch: int = 0
    assignment_epoch: int = 0


def bump_group_epoch(epochs: GroupEpochs) -> GroupEpochs:
    """KIP-1071: "The group epoch is bumped: When a member joins or leaves the group ..."."""
    return epochs._replace(group_epoch=epochs.group_epoch + 1)


def needs_new_target(epochs: GroupEpochs) -> bool:
    """KIP-1071: "Every time the group epoch is bumped, a new task assignment is
    computed" (streamsGroupHeartbeat: groupEpoch > assignmentEpoch)."""
    return epochs.group_epoch > epochs.assignment_epoch


class TargetAssignment(NamedTuple):
    """The assignor's output, installed for one group epoch."""

    epoch: int
    members: tuple[tuple[str, Resources], ...]    # (member id, resources), sorted by id

    def of(self, member_id: str, roles: int) -> Resources:
        for mid, resources in self.members:
            if mid == member_id:
                return resources
        return (0,) * roles


def install_target(epochs: GroupEpochs, members: dict[str, Resources]) -> tuple[GroupEpochs, TargetAssignment]:
    """The new target for the current group epoch; the assignment epoch catches up."""
    target = TargetAssignment(epochs.group_epoch, tuple(sorted(members.items())))
    return epochs._replace(assignment_epoch=epochs.group_epoch), target


def _subset(owned: Resources, assigned: Resources) -> bool:
    return all(o & ~a == 0 for o, a in zip(owned, assigned))


def validate_member_epoch(member: MemberAssignment, received_epoch: int,
                          owned: Optional[Resources]) -> None:
    """Raise ``Fenced`` unless a heartbeat's member epoch is acceptable.

    Newer than the coordinator's: fenced. Older: accepted only when it is the
    previous member epoch and everything the member reports owning is still assigned
    to it ("the response with the bumped epoch may have been lost"); an unreported
    owned set is fenced. Joining (0) and leaving (-1, -2) are the caller's cases.
    """
    if received_epoch > member.epoch:
        raise Fenced(f"validate_member_epoch: received epoch {received_epoch} is newer "
                     f"than the member epoch {member.epoch}")
    if received_epoch < member.epoch:
        if received_epoch != member.previous_epoch or owned is None or not _subset(owned, member.assigned):
            raise Fenced(f"validate_member_epoch: received epoch {received_epoch} is older "
                         f"than the member epoch {member.epoch} and not a lost response")


class Holding(NamedTuple):
    """Who holds what: one member's current assignment as the coordinator tracks it
    (assigned ∪ pending revocation, per role), with its Streams process id."""

    member_id: str
    process_id: str
    assigned: Resources
    pending_revocation: Resources

    def held(self, role: int) -> int:
        return self.assigned[role] | self.pending_revocation[role]


def holding(member_id: str, process_id: str, m: MemberAssignment) -> Holding:
    return Holding(member_id, process_id, m.assigned, m.pending_revocation)


def streams_unreleased(holdings: tuple[Holding, ...], process_id: str) -> Unreleased:
    """KIP-1071's blocking rule for a member of process ``process_id``.

    Active: "An active task is assigned as soon as no other client owns it anymore"
    - blocked while any member of any process holds it active, or a member of the
    same process holds it as standby or warm-up. Standby / warm-up: "Newly assigned
    standby and warm-up tasks await that any member with the same processId owning
    that task (as active or standby) confirms revocation" - blocked while a member of
    the same process holds it in any role. As in Kafka, the member's own holdings
    count too (its own pending revocation blocks until the next step).
    """
    def held_anywhere(role: int) -> int:
        out = 0
        for h in holdings:
            out |= h.held(role)
        return out

    def held_by_process(role: int) -> int:
        out = 0
        for h in holdings:
            if h.process_id == process_id:
                out |= h.held(role)
        return out

    same_process = held_by_process(ACTIVE) | held_by_process(STANDBY) | held_by_process(WARMUP)
    blocked = (held_anywhere(ACTIVE) | held_by_process(STANDBY) | held_by_process(WARMUP),
               same_process, same_process)
    return lambda role, i: bool(blocked[role] >> i & 1)


def consumer_unreleased(holdings: tuple[Holding, ...], member_id: str, *,
                        own_pending_blocks: bool = False) -> Unreleased:
    """KIP-848's blocking rule: a partition is unreleased while another member still
    owns it (Kafka: its partition epoch is set and it is not this member's own
    pending revocation, KAFKA-19449, merged after 4.1.0). ``own_pending_blocks``
    gives the earlier rule, where the member's own pending revocation blocked too."""
    blocked = 0
    for h in holdings:
        if h.member_id != member_id:
            blocked |= h.held(0)
        elif own_pending_blocks:
            blocked |= h.pending_revocation[0]
    return lambda role, i: bool(blocked >> i & 1)
