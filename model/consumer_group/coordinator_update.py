"""Steps 1-3 of GroupMetadataManager#consumerGroupHeartbeat once the member is known (see
``coordinator``): member metadata and subscription, regex resolution, subscribed-topic
metadata and the group-epoch bump; the target assignment; reconciliation; the response and
the records. Also the broker settings (``Config``), the handler result (``Outcome``) and the
known-bug switches (``SWITCHES``).

Source: GroupMetadataManager#consumerGroupHeartbeat (apache/kafka, group-coordinator/src/main/
java/org/apache/kafka/coordinator/group/): "1. Create or update the member", "2. Update the
target assignment if the group epoch is larger than the target assignment epoch", "3. Reconcile
the member's assignment with the target assignment", then the response.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple, Optional

from ..epochs import Fenced, Holding, MemberAssignment, consumer_unreleased, reconcile
from ..epochs.switches import apply_switches
from .group import Group, Member, mask_of, topic_partitions_of
from .profiles import (REGEX_ASYNC, REGEX_SYNC, SENT_ON_FULL_REQUEST_OR_REGEX, SENT_WHEN_OWNED_REPORTED, Profile,
                       profile as _profile)
from .records import diff
from .state import ConsumerGroupHeartbeat, ConsumerGroupHeartbeatResponse
from .target import new_target, preferred_assignor, resolve_regex, subscription_metadata
from .validation import Error, regex_compiles


class Config(NamedTuple):
    """Broker-side settings (GroupCoordinatorConfig / group configs): ``session_timeout_ms``
    (group.consumer.session.timeout.ms), ``heartbeat_interval_ms``
    (group.consumer.heartbeat.interval.ms), ``max_size`` (group.consumer.max.size, None:
    unbounded), ``assignors`` (group.consumer.assignors, None: the profile's; the first is the
    default), ``migration_policy`` (group.consumer.migration.policy: disabled, upgrade,
    downgrade, bidirectional; read by ``migration.py``)."""

    session_timeout_ms: int = 45000
    heartbeat_interval_ms: int = 5000
    max_size: Optional[int] = None
    assignors: Optional[tuple[str, ...]] = None
    migration_policy: str = "bidirectional"


class Outcome(NamedTuple):
    """A handler's result: the group after it, the response (None for a timer), the records
    that turn the old group into it, and events (``("group_epoch_bumped", reasons)``,
    ``("member_removed", id)``, ``("new_target", epoch)``, ``("rebalance_timer", id, epoch)``,
    ``("regex_to_resolve", regex)``)."""

    group: object
    response: Optional[ConsumerGroupHeartbeatResponse]
    records: tuple
    events: tuple = ()


# One rule of a profile switched, by name (a scope's ``switches``; the known-bug variants of
# properties/known_bugs/consumer_group.py). Each takes a Profile and returns it changed.
SWITCHES = {
    # KAFKA-19233 unfixed: an epoch-0 heartbeat from a known member past epoch 1 is fenced.
    "kafka-19233": lambda p: p._replace(epoch0_rejoin_accepted=False),
    # KAFKA-19449 unfixed: the member's own pending revocation blocks its own reassignment.
    "kafka-19449": lambda p: p._replace(own_pending_blocks=True),
    # KAFKA-20442 unfixed (<= 4.2): an emptied group keeps groupEpoch > assignmentEpoch.
    "kafka-20442": lambda p: p._replace(empty_group_epochs_equal=False),
    # KAFKA-16249 unfixed (3.7.0): a heartbeat that meets a new target is reconciled from
    # assigned ∪ pending revocation, its reported owned partitions ignored.
    "kafka-16249": lambda p: p._replace(new_target_ignores_owned=True),
    # KAFKA-16147 unfixed (3.7.0): the partition-epoch map forgets a partition that moves from
    # the member's pending revocation back to its assigned set; another member may take it.
    "kafka-16147": lambda p: p._replace(partition_epoch_map_bug=True),
    # KAFKA-16367 unfixed (3.7.x): the assignment is sent whenever owned partitions are
    # reported, not on a full request (apache/kafka #15533).
    "kafka-16367": lambda p: p._replace(assignment_sent=SENT_WHEN_OWNED_REPORTED),
}


def switched(profile, switches=()) -> Profile:
    """``profile`` with each of ``switches`` (names in ``SWITCHES``) applied."""
    return apply_switches(_profile(profile), switches, SWITCHES, "consumer group")


def assignors_of(p: Profile, config: Config) -> tuple[str, ...]:
    return p.assignors if config.assignors is None else tuple(config.assignors)


def bumped(reasons) -> tuple:
    return (("group_epoch_bumped", tuple(reasons)),)


def error_outcome(group, error: Error) -> Outcome:
    """An error response; nothing is written (the exception aborts Kafka's handler)."""
    return Outcome(group, ConsumerGroupHeartbeatResponse(error_code=error.error_code, error_message=error.message), ())


def owned_partitions(group: Group, r: ConsumerGroupHeartbeat) -> Optional[int]:
    """The reported TopicPartitions as a bitmask; None when not reported. A partition outside
    the group's index (a topic the scope never creates) is an error naming it."""
    return None if r.topic_partitions is None else mask_of(group.partition_index, r.topic_partitions)


class Update(NamedTuple):
    original: object            # the group value the handler was given (returned on error)
    group: Group                # the consumer group (possibly just created or with a replaced member)
    old: Optional[Member]       # the member before this heartbeat (None: new)
    member: Member              # the member to update
    request: ConsumerGroupHeartbeat
    topics: tuple               # the cluster's (topic, partitions)
    profile: Profile
    config: Config


def with_metadata(m: Member, r: ConsumerGroupHeartbeat) -> Member:
    """ConsumerGroupMember.Builder.maybeUpdate*: a null field keeps the stored value."""
    return replace(
        m, instance_id=m.instance_id if r.instance_id is None else r.instance_id,
        rack_id=m.rack_id if r.rack_id is None else r.rack_id,
        rebalance_timeout_ms=m.rebalance_timeout_ms if r.rebalance_timeout_ms == -1 else r.rebalance_timeout_ms,
        server_assignor=m.server_assignor if r.server_assignor is None else r.server_assignor,
        subscribed_topic_names=(m.subscribed_topic_names if r.subscribed_topic_names is None
                                else tuple(sorted(set(r.subscribed_topic_names)))),
        subscribed_topic_regex=m.subscribed_topic_regex if r.subscribed_topic_regex is None
        else (r.subscribed_topic_regex or None))


def member_reasons(old: Optional[Member], new: Member, g: Group, p: Profile) -> list[str]:
    """Why this heartbeat's member change bumps the group epoch. The KIP: "a member joins" and
    "a member updates its subscriptions" (names or regex). Kafka: hasMemberSubscriptionChanged
    (the subscribed names differ, a new member's from empty) and maybeUpdateRegularExpressions
    (a changed regex bumps only if it is already resolved: "If the new regex is already resolved,
    we trigger a rebalance by bumping the group epoch"; a new one is resolved asynchronously).
    A server assignor or rack change is written but bumps nothing in either."""
    if old is None and p.bump_on_join:
        return ["member joined"]
    before = old or Member(member_id=new.member_id)
    if before.subscribed_topic_names != new.subscribed_topic_names:
        return ["member joined" if old is None else "subscription changed"]
    if before.subscribed_topic_regex != new.subscribed_topic_regex:
        if p.regex != REGEX_ASYNC or g.regex_topics(new.subscribed_topic_regex) is not None:
            return ["member joined" if old is None else "subscription changed"]
    return []


def invalid_new_regex(g: Group, old: Optional[Member], new: Member, p: Profile) -> Optional[Error]:
    """maybeUpdateRegularExpressions (4.0+): "If the member subscribed to a new regex, we compile
    it to ensure its validity" - only a changed regex that no member uses yet."""
    rx = new.subscribed_topic_regex
    if p.regex != REGEX_ASYNC or rx is None or (old is not None and old.subscribed_topic_regex == rx):
        return None
    if rx in used_regexes(g) or regex_compiles(rx):
        return None
    return Error("INVALID_REGULAR_EXPRESSION", f"SubscribedTopicRegex `{rx}` is not a valid regular expression.")


def used_regexes(g: Group) -> set[str]:
    return {m.subscribed_topic_regex for m in g.members if m.subscribed_topic_regex is not None}


def refresh_regexes(g: Group, topics, resolve_new: bool) -> tuple[Group, tuple]:
    """Drop the resolutions no member uses any more ("If the member was the last one subscribed
    to the regex, we delete the resolved regular expression"); resolve the new ones now (the
    KIP) or report them as ``regex_to_resolve`` events (Kafka 4.0+ schedules the resolution)."""
    used = used_regexes(g)
    kept = {rx: ts for rx, ts in g.resolved_regexes if rx in used}
    events = ()
    for rx in sorted(used - set(kept)):
        if resolve_new:
            kept[rx] = resolve_regex(rx, [t for t, _ in topics]) or ()
        else:
            events += (("regex_to_resolve", rx),)
    return replace(g, resolved_regexes=tuple(sorted(kept.items()))), events


def update(u: Update) -> Outcome:
    """consumerGroupHeartbeat steps 1-3 and the response."""
    g, r, p = u.group, u.request, u.profile
    member = with_metadata(u.member, r)                                            # step 1
    bad = invalid_new_regex(g, u.old, member, p)
    if bad is not None:
        return error_outcome(u.original, bad)
    reasons = member_reasons(u.old, member, g, p)
    if g.group_epoch == 0 and not reasons:
        # "If the group is newly created, we must ensure that it moves away from epoch 0"
        reasons.append("group created")
    after = g.with_member(member)
    after, events = refresh_regexes(after, u.topics, p.regex == REGEX_SYNC)
    metadata = subscription_metadata(after, dict(u.topics))
    if metadata != g.subscription_metadata:
        reasons.append("subscribed topic metadata changed")
        after = replace(after, subscription_metadata=metadata)
    if reasons:
        after = replace(after, group_epoch=g.group_epoch + 1)
        events = bumped(reasons) + events
    if after.group_epoch > after.target_assignment_epoch:                          # step 2
        target = new_target(after, preferred_assignor(after, assignors_of(p, u.config)), p.sticky_range)
        after = replace(after, target_assignment=tuple(sorted(target.items())),
                        target_assignment_epoch=after.group_epoch)
        events += (("new_target", after.group_epoch),)
    owned = owned_partitions(g, r)
    try:                                                                           # step 3
        member = reconcile_member(after, member, owned, p)
    except Fenced as fenced:
        return error_outcome(u.original, Error("FENCED_MEMBER_EPOCH", str(fenced)))
    after = after.with_member(member)
    if p.partition_epoch_map_bug:
        after = replace(after, epoch_map_lost=epoch_map_after(after.epoch_map_lost, u.member, member))
    if member.state == "UNREVOKED":
        events += (("rebalance_timer", member.member_id, member.epoch),)
    return Outcome(after, response(after, u, member), diff(_before(u), after), events)


def _before(u: Update) -> Group:
    return u.original if isinstance(u.original, Group) else u.group


def reconcile_member(g: Group, m: Member, owned: Optional[int], p: Profile) -> Member:
    """The member moves towards its target (modern/consumer/CurrentAssignmentBuilder); a
    partition is withheld while another member still holds it (``consumer_unreleased`` over
    every member's assigned and pending-revocation partitions)."""
    lost = g.epoch_map_lost       # KAFKA-16147: owners the partition-epoch map forgot
    holdings = tuple(Holding(x.member_id, "", (x.assigned & ~lost,), (x.pending_revocation & ~lost,))
                     for x in g.members)
    current = MemberAssignment(state=m.state, epoch=m.epoch, previous_epoch=m.previous_epoch, assigned=(m.assigned,),
                               pending_revocation=(m.pending_revocation,))
    if p.new_target_ignores_owned and g.target_assignment_epoch != m.target_member_epoch:
        # 3.7.0 transitionToNewTargetAssignmentState: start over from assigned ∪ pending
        # revocation towards the new target; the owned partitions reported now are not read.
        current = MemberAssignment(state="STABLE", epoch=m.epoch, previous_epoch=m.previous_epoch,
                                   assigned=(m.assigned | m.pending_revocation,), pending_revocation=(0,))
        owned = None
        m = replace(m, target_member_epoch=g.target_assignment_epoch)
    moved = reconcile(current, g.target_assignment_epoch, (g.target_of(m.member_id),),
                      None if owned is None else (owned,),
                      consumer_unreleased(holdings, m.member_id, own_pending_blocks=p.own_pending_blocks),
                      profile=p.epochs)
    out = m.with_assignment(moved)
    return replace(out, assignment_epochs=assignment_epochs(m, out)) if p.assignment_epochs else out


def epoch_map_after(lost: int, old: Member, new: Member) -> int:
    """3.7.0's maybeUpdatePartitionEpoch, on the partitions the map lost: if the assigned set
    changed, the old ones are removed and the new ones added (re-adding any lost one); if the
    pending set changed, the old pending ones are removed (so one now assigned is lost) and the
    new ones added."""
    if old.assigned != new.assigned:
        lost &= ~new.assigned
    if old.pending_revocation != new.pending_revocation:
        lost = (lost | (old.pending_revocation & new.assigned)) & ~new.pending_revocation
    return lost


def assignment_epochs(old: Member, new: Member) -> tuple[tuple[int, int], ...]:
    """KIP-1251: a partition the member already held keeps its assignment epoch; a newly
    assigned one gets the member epoch it is assigned at."""
    known = dict(old.assignment_epochs)
    held = new.assigned | new.pending_revocation
    return tuple((i, known.get(i, new.epoch)) for i in range(held.bit_length()) if held >> i & 1)


def is_full_request(r: ConsumerGroupHeartbeat, counts_regex: bool = False) -> bool:
    """GroupMetadataManager#consumerGroupHeartbeat (3.8+): "memberEpoch == 0 ||
    (rebalanceTimeoutMs != -1 && subscribedTopicNames != null && ownedTopicPartitions != null)";
    ``counts_regex``: a non-null SubscribedTopicRegex counts like the names (the KIP profile)."""
    subscribed = r.subscribed_topic_names is not None or (counts_regex and r.subscribed_topic_regex is not None)
    return r.member_epoch == 0 or (r.rebalance_timeout_ms != -1 and subscribed and r.topic_partitions is not None)


def response(g: Group, u: Update, m: Member) -> ConsumerGroupHeartbeatResponse:
    """"The assignment is only provided in the following cases: 1. The member sent a full
    request ... 2. The member's assignment has been updated." (hasAssignedPartitionsChanged).
    3.7: also whenever the request reports its owned partitions."""
    r, how = u.request, u.profile.assignment_sent
    if how == SENT_WHEN_OWNED_REPORTED:
        full = r.member_epoch == 0 or r.topic_partitions is not None
    else:
        full = is_full_request(r, how == SENT_ON_FULL_REQUEST_OR_REGEX)
    resp = ConsumerGroupHeartbeatResponse(member_id=m.member_id, member_epoch=m.epoch,
                                          heartbeat_interval_ms=u.config.heartbeat_interval_ms)
    if full or u.old is None or u.old.assigned != m.assigned:
        resp = resp._replace(assignment=topic_partitions_of(g.partition_index, m.assigned))
    return resp


__all__ = ["Config", "Outcome", "SWITCHES", "Update", "assignors_of", "bumped", "error_outcome", "is_full_request",
           "member_reasons", "owned_partitions", "reconcile_member", "refresh_regexes", "response", "switched",
           "update", "with_metadata"]
