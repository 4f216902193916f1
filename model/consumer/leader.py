"""The group leader's assignment (ConsumerCoordinator#onLeaderElected), pure.

KIP-429's leader algorithm, with the set algebra it names:

    owned-partitions        = U ownedPartitions claimed in the subscriptions
    maybe-revoking          = owned & assigned   -> withheld when the owner changes
    ready-to-migrate        = assigned - owned   -> given to the new owner at once
    unknown-but-owned       = owned - assigned   -> nobody else gets them

Which claims count is the profile's ``claim_resolution`` (KIP-792); the withholding
is the cooperative assignor's ``adjustAssignment``; ``validateCooperativeAssignment``
runs for COOPERATIVE leaders with a non-built-in assignor (and, before KAFKA-13406,
for the built-in one too).
"""
from __future__ import annotations

from typing import NamedTuple

from ..assignors import COOPERATIVE, Assignor, Member, lookup
from ..assignors.ownership import Claim, cooperative_violation, resolve_claims, withhold
from ..partitions import existing, show
from .coordinator import Event
from .scope import Behaviour, ConsumerScope
from .state import JoinGroupResponse, Subscription


class LeaderResult(NamedTuple):
    assignments: tuple[tuple[int, int], ...] | None   # None: the assignment failed
    events: tuple[Event, ...]


def claim_of(sub: Subscription, claims_from: str | None) -> Claim:
    """What the leader reads as this member's previous ownership and its generation."""
    if claims_from == "user_data":                     # KIP-54 StickyAssignor userData
        return Claim(0, sub.user_data, sub.user_generation)
    owned = sub.owned if sub.version >= 1 else 0       # OwnedPartitions is v1+
    # GenerationId is v2+; before it, cooperative-sticky kept the generation in userData.
    generation = sub.generation if sub.version >= 2 else sub.user_generation
    return Claim(0, owned, generation)


def raw_subscription(sub: Subscription, behaviour: Behaviour) -> Subscription:
    """The subscription as the leader decodes it for a non-built-in assignor: whole, except
    that a leader on code before KIP-429 reads it as v0 (no ownedPartitions, no generation)."""
    if behaviour.leader_cooperative_aware:
        return sub
    return sub._replace(owned=0, generation=-1)


def run_assignor(assignor: Assignor, behaviour: Behaviour, subs: tuple[tuple[int, Subscription], ...],
                 partitions: tuple[int, ...], stride: int) -> dict[int, int]:
    """ConsumerPartitionAssignor#assign as the leader runs it: the claims it reads,
    resolved by the profile's rule (sticky family), the plan, then the cooperative
    assignor's adjustAssignment. ``subs`` are (member id, subscription) by member id."""
    claims_used = assignor.claims_from is not None and behaviour.leader_cooperative_aware
    claims = [claim_of(sub, assignor.claims_from)._replace(member_id=mid) for mid, sub in subs]
    if claims_used:
        kept, contested = resolve_claims(claims, behaviour.claim_resolution)
    else:
        kept, contested = {mid: 0 for mid, _ in subs}, 0
    members = tuple(Member(member_id=mid, eligible=existing(partitions, stride, sub.topics), claims=kept[mid],
                           topics=sub.topics, owned=claim.owned if claims_used else 0,
                           generation=claim.generation if claims_used else -1,
                           subscription=() if assignor.builtin else raw_subscription(sub, behaviour))
                    for (mid, sub), claim in zip(subs, claims))
    intended = assignor.plan(members, stride)
    if assignor.withholds and behaviour.withhold and behaviour.leader_cooperative_aware:
        return withhold(intended, kept, contested)
    return intended


def perform_assignment(scope: ConsumerScope, slot: int, leader_protocol: str,
                       resp: JoinGroupResponse, partitions: tuple[int, ...]) -> LeaderResult:
    behaviour = scope.behaviour
    assignor = lookup(resp.protocol)
    stride = scope.stride
    subs = resp.members
    final = run_assignor(assignor, behaviour, subs, partitions, stride)
    note = ", ".join(f"{mid}:{show(final[mid], stride)}" for mid, _ in subs)
    events = [Event("assignment", slot, note=f"{resp.protocol} gen {resp.generation}: {note}")]
    if leader_protocol == COOPERATIVE and (not assignor.builtin or behaviour.validate_builtin):
        raw = {mid: sub.owned for mid, sub in subs}
        moved = cooperative_violation(raw, final)
        if moved:
            events.append(Event("assignment_failed", slot, moved,
                                "Assignor supporting the COOPERATIVE protocol violates its requirements"))
            return LeaderResult(None, tuple(events))
    return LeaderResult(tuple(sorted(final.items())), tuple(events))
