"""The consumer group's rules on Kafka's terms, each built on the model's own function.

Every function takes topic names, partition numbers and member ids as Kafka has them,
translates them to the model's numbers (``layout``: member ids in the order Kafka's
assignors sort them), calls the model, and translates the answer back.
``profile`` names the behaviour profile whose rules apply (``kafka-3.5+`` by default;
``groupcheck list`` shows them all).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from groupcheck.model.assignors import PACKAGED, AssignorConfigError, lookup
from groupcheck.model.assignors import rebalance_protocol as _rebalance_protocol
from groupcheck.model.assignors.ownership import cooperative_violation, withhold
from groupcheck.model.assignors.ownership import resolve_claims as _resolve_claims
from groupcheck.model.consumer import PROFILES, Behaviour, claim_of, run_assignor
from groupcheck.model.consumer import select_protocol as _select_protocol
from groupcheck.model.consumer import Subscription as ModelSubscription

from .layout import (
    Layout,
    checked_assignment,
    checked_cluster,
    checked_members,
    layout,
    member_numbers,
)
from .values import (
    NO_GENERATION,
    ApiError,
    ClaimResolution,
    CooperativeAssignmentError,
    Subscription,
    TopicPartition,
    _sequence,
    _str,
)

DEFAULT_PROFILE = "kafka-3.5+"
Assignment = dict[str, tuple[TopicPartition, ...]]


def _behaviour(profile: str) -> Behaviour:
    if profile not in PROFILES:
        raise ApiError(f"profile: unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    return PROFILES[profile]


def _model_subscriptions(lay: Layout, numbers: dict[str, int],
                         subscriptions: Mapping[str, Subscription]) -> tuple[tuple[int, ModelSubscription], ...]:
    """(model member id, subscription) in member-id order, as a v3 JoinGroup carries it."""
    out = []
    for member, sub in sorted(subscriptions.items()):
        user = sub.user_data
        out.append((numbers[member], ModelSubscription(
            version=3, topics=lay.topic_mask(sub.topics), owned=lay.mask(sub.owned_partitions),
            generation=sub.generation, user_data=lay.mask(user.previous_assignment) if user else 0,
            user_generation=user.generation if user else NO_GENERATION)))
    return tuple(out)


def assign(assignor: str, cluster: Mapping[str, int], subscriptions: Mapping[str, Subscription], *,
           profile: str = DEFAULT_PROFILE) -> Assignment:
    """ConsumerPartitionAssignor#assign of a packaged assignor (range, roundrobin,
    sticky, cooperative-sticky): partition counts per topic and each member's
    subscription -> the partitions of each member.

    The sticky assignors read previous ownership as Kafka's do (StickyAssignor from
    ``user_data``, cooperative-sticky from ``owned_partitions`` and ``generation``) and
    keep only the claims the profile's rule keeps; cooperative-sticky then withholds
    the partitions changing owner (adjustAssignment). Members are numbered in member-id
    order, as Kafka's assignors sort them, so ties go the way Kafka's go.
    Runs ``model.consumer.leader.run_assignor``."""
    if assignor not in PACKAGED:
        raise ApiError(f"assignor: {assignor!r} is not a packaged assignor ({', '.join(sorted(PACKAGED))}); "
                       "call your own assignor's assign() directly")
    cluster = checked_cluster(cluster)
    subscriptions = checked_members(subscriptions, "subscriptions", Subscription)
    lay = layout(cluster, subscriptions)
    numbers = member_numbers(subscriptions)
    subs = _model_subscriptions(lay, numbers, subscriptions)
    final = run_assignor(lookup(assignor), _behaviour(profile), subs, lay.counts(cluster), lay.stride)
    return {m: lay.partitions(final[numbers[m]]) for m in sorted(subscriptions)}


def _claims(lay: Layout, numbers: dict[str, int], subscriptions: Mapping[str, Subscription], profile: str):
    subs = _model_subscriptions(lay, numbers, subscriptions)
    claims = [claim_of(sub, "owned")._replace(member_id=mid) for mid, sub in subs]
    return _resolve_claims(claims, _behaviour(profile).claim_resolution)


def resolve_claims(subscriptions: Mapping[str, Subscription], *, profile: str = DEFAULT_PROFILE) -> ClaimResolution:
    """Which ownedPartitions claims the leader keeps, under the profile's rule (KIP-792):
    kafka-3.5+ is AbstractStickyAssignor's per-partition rule (KAFKA-14639: the unique
    claimant of the highest generation keeps it; a tie at that generation leaves it
    to nobody, in ``partitions_with_multiple_previous_owners``); kafka-3.0.0 and
    kafka-3.1-3.4 keep only the highest generation's claims (KAFKA-12984); kafka-2.4-2.8
    trusts every claim. Runs ``model.assignors.ownership.resolve_claims``."""
    subscriptions = checked_members(subscriptions, "subscriptions", Subscription)
    lay = layout({}, subscriptions)
    numbers = member_numbers(subscriptions)
    resolved = _claims(lay, numbers, subscriptions, profile)
    kept = {m: lay.partitions(resolved.kept[numbers[m]]) for m in sorted(subscriptions)}
    return ClaimResolution(kept, lay.partitions(resolved.contested))


def _withheld(assignment: Any, subscriptions: Any, profile: str) -> tuple[Assignment, Assignment]:
    """(the assignment as given, what adjustAssignment leaves of it)."""
    subscriptions = checked_members(subscriptions, "subscriptions", Subscription)
    assignment = checked_assignment(assignment, "assignment")
    unknown = sorted(set(assignment) - set(subscriptions))
    if unknown:
        raise ApiError(f"assignment[{unknown[0]!r}]: not a member (no subscription)")
    lay = layout({}, subscriptions, assignment)
    numbers = member_numbers(subscriptions)
    resolved = _claims(lay, numbers, subscriptions, profile)
    intended = {numbers[m]: lay.mask(assignment.get(m, ())) for m in subscriptions}
    final = withhold(intended, resolved.kept, resolved.contested)
    return assignment, {m: lay.partitions(final[numbers[m]]) for m in sorted(subscriptions)}


def adjust_assignment(assignment: Mapping[str, Sequence[TopicPartition]], subscriptions: Mapping[str, Subscription],
                      *, profile: str = DEFAULT_PROFILE) -> Assignment:
    """CooperativeStickyAssignor#adjustAssignment: the assignment without the partitions
    transferring ownership (KIP-429: "if the owner has changed, exclude them from the
    assigned-partitions list to the new owner"). Previous owners are the claims the
    profile's rule keeps; a partition with several previous owners transfers too.
    Runs ``model.assignors.ownership.withhold``."""
    return _withheld(assignment, subscriptions, profile)[1]


def partitions_transferring_ownership(assignment: Mapping[str, Sequence[TopicPartition]],
                                      subscriptions: Mapping[str, Subscription], *,
                                      profile: str = DEFAULT_PROFILE) -> dict[TopicPartition, str]:
    """AbstractStickyAssignor's partitionsTransferringOwnership: each partition the
    assignment hands to a member other than its previous owner -> that member (the
    one adjustAssignment takes it from this round)."""
    given, adjusted = _withheld(assignment, subscriptions, profile)
    return {tp: m for m in sorted(given) for tp in given[m] if tp not in adjusted[m]}


def validate_cooperative_assignment(owned_partitions: Mapping[str, Sequence[TopicPartition]],
                                    assignment: Mapping[str, Sequence[TopicPartition]]) -> None:
    """ConsumerCoordinator#validateCooperativeAssignment: added = assigned - owned and
    revoked = owned - assigned per member; a partition both added and revoked means the
    assignor moved it in one round: raise CooperativeAssignmentError (Kafka's
    IllegalStateException) naming the partitions. Runs ``model.assignors.ownership.cooperative_violation``."""
    owned = checked_assignment(owned_partitions, "owned_partitions")
    assigned = checked_assignment(assignment, "assignment")
    lay = layout({}, {}, owned, assigned)
    numbers = member_numbers(set(owned) | set(assigned))
    moved = cooperative_violation({numbers[m]: lay.mask(tps) for m, tps in owned.items()},
                                  {numbers[m]: lay.mask(tps) for m, tps in assigned.items()})
    if moved:
        raise CooperativeAssignmentError(lay.partitions(moved))


def rebalance_protocol(assignors: Sequence[str]) -> str:
    """The consumer's RebalanceProtocol ("EAGER" or "COOPERATIVE") for its
    partition.assignment.strategy (ConsumerCoordinator's constructor, KIP-429): the
    highest protocol every configured assignor supports. Runs ``model.assignors.rebalance_protocol``."""
    names = tuple(_str(a, f"assignors[{i}]") for i, a in enumerate(_sequence(assignors, "assignors")))
    try:
        return _rebalance_protocol(names)
    except AssignorConfigError as e:
        raise ApiError(f"assignors: {e}") from None


def select_protocol(member_protocols: Mapping[str, Sequence[str]]) -> str | None:
    """The group coordinator's vote (GroupMetadata#selectProtocol): among the protocols
    (assignor names) every member lists, each member votes for the first of its own;
    the most votes wins, a tie broken by name (Kafka: map order). None when the members
    share none. Runs ``model.consumer``'s ``select_protocol``."""
    if not isinstance(member_protocols, Mapping):
        raise ApiError("member_protocols: expected a mapping of member id to its protocol names")
    lists = []
    for m in sorted(member_protocols):
        names = _sequence(member_protocols[m], f"member_protocols[{m!r}]")
        lists.append(tuple(_str(p, f"member_protocols[{m!r}][{i}]") for i, p in enumerate(names)))
    return _select_protocol(lists)
