"""Member reconciliation: one pure step from a member's current assignment towards
the group's target assignment (Kafka's ``CurrentAssignmentBuilder``).

KIP-1071, "Reconciliation of the group": "Once a new target assignment is installed,
each member will independently reconcile their current assignment with their new
target assignment. Ultimately, each member will converge to their target epoch and
assignment."

The step is protocol-agnostic. Resources are a tuple of bitmasks, one per *role*:
``(partitions,)`` for a KIP-848 consumer, ``(active, standby, warmup)`` for a KIP-1071
Streams member; bit ``i`` of role ``r`` is resource ``i`` in that role. Which resource
another holder still blocks is the protocol's rule, passed in as ``unreleased``
(``model.epochs.group`` builds the Streams one and the consumer one).

Sources: group-coordinator/src/main/java/org/apache/kafka/coordinator/group/
``streams/CurrentAssignmentBuilder.java`` (Streams, 4.1 and trunk),
``modern/consumer/CurrentAssignmentBuilder.java`` (KIP-848), ``streams/MemberState.java``,
``streams/StreamsGroupMember.java`` (``Builder.updateMemberEpoch``).
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Optional

from ..partitions import bits

# Member states (streams/MemberState.java: STABLE 1, UNREVOKED_TASKS 2,
# UNRELEASED_TASKS 3, UNKNOWN 127; KIP-848 names them ..._PARTITIONS).
STABLE, UNREVOKED, UNRELEASED, UNKNOWN = "STABLE", "UNREVOKED", "UNRELEASED", "UNKNOWN"
MEMBER_STATES = (STABLE, UNREVOKED, UNRELEASED, UNKNOWN)

FENCED_MEMBER_EPOCH = 110
NO_REVOCATION_EPOCH = -1   # the profile keeps none (or a trunk record restored without it)

Resources = tuple[int, ...]                # one bitmask per role
Unreleased = Callable[[int, int], bool]    # (role, resource index) -> still held elsewhere


class Fenced(Exception):
    """FENCED_MEMBER_EPOCH: the member must abandon all its resources and rejoin."""

    code = FENCED_MEMBER_EPOCH


class Profile(NamedTuple):
    """How one Kafka version reconciles, where versions differ.

    ``epoch_after_revocation``: added to the member epoch when an UNREVOKED member
    has revoked and is recomputed; it is the epoch it stays at if it must revoke
    again. Streams (4.1 and trunk) and KIP-848 up to 4.1 add 1; KIP-848 since
    KAFKA-19974 (trunk and 4.2) adds 0, so a resource is never owned by two members
    at one epoch.
    ``tracks_revocation_epoch``: trunk Streams (KAFKA-19779, after 4.1) records the
    epoch at which the member last finished revoking, for offset-commit validation.
    """

    name: str
    epoch_after_revocation: int
    tracks_revocation_epoch: bool


STREAMS_4_1 = Profile("streams-4.1", 1, False)
STREAMS_TRUNK = Profile("streams-trunk", 1, True)
CONSUMER_4_1 = Profile("consumer-4.1", 1, False)
CONSUMER_TRUNK = Profile("consumer-trunk", 0, False)
PROFILES = {p.name: p for p in (STREAMS_4_1, STREAMS_TRUNK, CONSUMER_4_1, CONSUMER_TRUNK)}


class MemberAssignment(NamedTuple):
    """The reconciliation part of a member (StreamsGroupMember / ConsumerGroupMember)."""

    state: str
    epoch: int
    previous_epoch: int
    assigned: Resources
    pending_revocation: Resources
    revocation_epoch: int = NO_REVOCATION_EPOCH


def new_member(roles: int, profile: Profile = STREAMS_TRUNK) -> MemberAssignment:
    """A joining member: epoch 0, previous -1, nothing assigned (Builder defaults;
    trunk's revocation epoch starts at 0)."""
    empty = (0,) * roles
    return MemberAssignment(state=STABLE, epoch=0, previous_epoch=-1, assigned=empty, pending_revocation=empty,
                            revocation_epoch=0 if profile.tracks_revocation_epoch else NO_REVOCATION_EPOCH)


def _overlaps(owned: Optional[Resources], pending: Resources) -> bool:
    """True when ``owned`` was not reported (None) or still holds a pending resource."""
    return owned is None or any(o & p for o, p in zip(owned, pending))


class Difference(NamedTuple):
    kept: Resources
    pending_revocation: Resources
    pending_assignment: Resources
    has_unreleased: bool


# The set algebra, per role r (computeAssignmentDifferenceForOneSubtopology):
#
#   kept[r]               = current[r] ∩ target[r]
#   pending_revocation[r] = current[r] − kept[r]
#   pending_assignment[r] = target[r] − kept[r] − {i : unreleased(r, i)}
#   has_unreleased        = some i of target[r] − kept[r] with unreleased(r, i)
def difference(current: Resources, target: Resources, unreleased: Unreleased) -> Difference:
    kept, revoke, assign, withheld = [], [], [], False
    for role, (cur, tgt) in enumerate(zip(current, target)):
        keep = cur & tgt
        wanted = tgt & ~keep
        blocked = sum(1 << i for i in bits(wanted) if unreleased(role, i))
        kept.append(keep)
        revoke.append(cur & ~keep)
        assign.append(wanted & ~blocked)
        withheld = withheld or blocked != 0
    return Difference(tuple(kept), tuple(revoke), tuple(assign), withheld)


def _moved(member: MemberAssignment, epoch: int, **fields) -> MemberAssignment:
    # Builder.updateMemberEpoch: the old member epoch becomes the previous epoch,
    # even when the epoch itself does not change.
    return member._replace(epoch=epoch, previous_epoch=member.epoch, **fields)


def _next(member: MemberAssignment, epoch: int, target_epoch: int, target: Resources,
          owned: Optional[Resources], unreleased: Unreleased, revocation_epoch: int) -> MemberAssignment:
    """computeNextAssignment + buildNewMember."""
    d = difference(member.assigned, target, unreleased)
    empty = (0,) * len(target)
    if any(d.pending_revocation) and _overlaps(owned, d.pending_revocation):
        # Something to revoke that the member may still own: it stays at ``epoch``
        # and waits in UNREVOKED for the heartbeat that no longer reports it.
        return _moved(member, epoch, state=UNREVOKED, assigned=d.kept,
                      pending_revocation=d.pending_revocation, revocation_epoch=revocation_epoch)
    if any(d.pending_assignment):
        # Something free to assign: the member moves to the target epoch with it
        # added at once, UNRELEASED if some of its target is still held elsewhere.
        assigned = tuple(k | a for k, a in zip(d.kept, d.pending_assignment))
        return _moved(member, target_epoch, state=UNRELEASED if d.has_unreleased else STABLE,
                      assigned=assigned, pending_revocation=empty, revocation_epoch=revocation_epoch)
    if d.has_unreleased:
        # Nothing to revoke or assign yet, but some target still held elsewhere:
        # the member moves to the target epoch and waits in UNRELEASED.
        return _moved(member, target_epoch, state=UNRELEASED, assigned=d.kept,
                      pending_revocation=empty, revocation_epoch=revocation_epoch)
    # Otherwise the member has its whole target: STABLE at the target epoch.
    return _moved(member, target_epoch, state=STABLE, assigned=d.kept,
                  pending_revocation=empty, revocation_epoch=revocation_epoch)


def reconcile(member: MemberAssignment, target_epoch: int, target: Resources,
              owned: Optional[Resources], unreleased: Unreleased, *,
              profile: Profile = STREAMS_TRUNK) -> MemberAssignment:
    """One reconciliation step (CurrentAssignmentBuilder.build); ``member`` itself
    when it cannot move. ``owned`` is None when the heartbeat did not report it.

    Raises ``Fenced`` for an UNKNOWN member unless it reported owning nothing.
    """
    if len(target) != len(member.assigned):
        raise ValueError(f"reconcile: target has {len(target)} roles, the member "
                         f"{len(member.assigned)}; pass one bitmask per role")
    keep_rev = member.revocation_epoch
    if member.state == STABLE:
        # STABLE: a newer target epoch is reconciled towards; at the target, nothing to do.
        if member.epoch == target_epoch:
            return member
        return _next(member, member.epoch, target_epoch, target, owned, unreleased, keep_rev)
    if member.state == UNREVOKED:
        # UNREVOKED: wait until the heartbeat reports owned resources and none is
        # pending revocation; then recompute from the next epoch (Streams: +1), and
        # trunk Streams records the epoch it finished revoking at.
        if _overlaps(owned, member.pending_revocation):
            return member
        rev = member.epoch if profile.tracks_revocation_epoch else keep_rev
        return _next(member, member.epoch + profile.epoch_after_revocation, target_epoch,
                     target, owned, unreleased, rev)
    if member.state == UNRELEASED:
        # UNRELEASED: recompute; resources released since the last step are assigned now.
        return _next(member, member.epoch, target_epoch, target, owned, unreleased, keep_rev)
    # UNKNOWN (a newer coordinator's state after a downgrade): fence, unless the
    # member reported owning nothing; then reconcile from scratch at the target epoch.
    if owned is None or any(owned):
        raise Fenced("reconcile: the member is in an unknown state; it must abandon "
                     "all its resources and rejoin (FENCED_MEMBER_EPOCH)")
    return _next(member, target_epoch, target_epoch, target, owned, unreleased, keep_rev)
