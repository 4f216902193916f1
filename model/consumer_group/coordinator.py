"""The group coordinator's ConsumerGroupHeartbeat handler (KIP-848), the member-removing timers,
asynchronous regex resolution and offset-commit fencing, as pure functions. Handlers decide and
return records; ``replay`` applies them (``failover`` is exactly that).

    heartbeat(group, request, cluster, profile, config) -> Outcome
    session_timeout(group, member_id, ...) / rebalance_timeout(group, member_id, epoch, ...) -> Outcome
    resolve_regexes(group, cluster, ...) -> Outcome        (Kafka 4.0+: the async resolution lands)
    offset_commit(group, member_id, member_epoch, partitions, profile) -> error name or ""
    failover(records, partition_index) -> Group

The steps (apache/kafka group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
 1. request validation (``validation.validate``: GroupCoordinatorService#
    throwIfConsumerGroupHeartbeatRequestIsInvalid);
 2. leave (-1 / -2): GroupMetadataManager#consumerGroupLeave;
 3. the group: getOrMaybeCreateConsumerGroup (created only at epoch 0), throwIfConsumerGroupIsFull;
 4. the member: getOrMaybeSubscribeDynamicConsumerGroupMember / ...StaticConsumerGroupMember
    (UNKNOWN_MEMBER_ID, the member-epoch check with the lost-response rule, UNRELEASED_INSTANCE_ID,
    FENCED_INSTANCE_ID, "Instance id X is unknown.", replacing a static member that left with -2);
 5-8. member metadata, the group-epoch bump, the target, reconciliation, the response
    (``coordinator_update.update``).
A classic group of the same id (online migration) is ``migration.py``'s; here it raises
``NotModelled``.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Optional, Union

from ..epochs import Fenced, MemberAssignment, validate_member_epoch
from ..epochs.coordinator import Cluster, OtherGroup
from .coordinator_update import (Config, Outcome, Update, assignors_of, bumped, error_outcome, owned_partitions,
                                 refresh_regexes, switched, update)
from .group import Group, Member, mask_of, new_group
from .profiles import Profile, profile as _profile
from .records import diff, replay
from .state import (JOIN_EPOCH, LEAVE_EPOCH, LEAVE_STATIC_EPOCH, ConsumerGroupHeartbeat,
                    ConsumerGroupHeartbeatResponse, TopicPartitions)
from .target import resolve_regex, subscription_metadata
from .validation import Error, validate


class NotModelled(ValueError):
    """A request the coordinator module does not handle (a classic group of the same id: see ``migration``)."""


AnyGroup = Union[Group, OtherGroup]


def heartbeat(group: AnyGroup, request: ConsumerGroupHeartbeat, cluster: Cluster = Cluster(),
              profile="kip-848", config: Config = Config(), switches: tuple[str, ...] = ()) -> Outcome:
    """Handle one ConsumerGroupHeartbeat. ``group``: the coordinator's group for the id (a dead
    Group when it holds none, an ``OtherGroup`` for another type). ``switches``: known-bug rules
    (``coordinator_update.SWITCHES``) applied to ``profile``."""
    p = switched(profile, switches)
    if group.group_id != request.group_id:
        raise ValueError(f"heartbeat: the request is for group {request.group_id!r} but the group passed is "
                         f"{group.group_id!r}; pass the coordinator's group for the request's id")
    error = validate(request, p, assignors_of(p, config))                          # step 1
    if error is not None:
        return error_outcome(group, error)
    if request.member_epoch in (LEAVE_EPOCH, LEAVE_STATIC_EPOCH):                  # step 2
        return _leave(group, request, p)
    held = _held(group)                                                            # step 3
    if isinstance(held, OtherGroup):
        return error_outcome(group, _not_consumer(held, create=request.member_epoch == JOIN_EPOCH))
    if held is None:
        if request.member_epoch != JOIN_EPOCH:
            return error_outcome(group, Error("GROUP_ID_NOT_FOUND", f"Consumer group {request.group_id} not found."))
        held = new_group(request.group_id, group.partition_index)
        if p.initial_group_epoch:         # KAFKA-20268: epochs start at 1 (an empty target)
            held = replace(held, group_epoch=p.initial_group_epoch, target_assignment_epoch=p.initial_group_epoch)
    _check_index(held, cluster)
    if config.max_size is not None and len(held.members) >= config.max_size and (
            request.member_id == "" or held.member(request.member_id) is None):
        return error_outcome(group, Error("GROUP_MAX_SIZE_REACHED", "The consumer group has reached its maximum "
                                          f"capacity of {config.max_size} members."))
    member_id = request.member_id or _generated_id(held)   # v0 joins: the coordinator picks one
    if request.instance_id is None:                                                # step 4
        got = _dynamic_member(held, request, member_id, p)
    else:
        got = _static_member(held, request, member_id, p)
    if isinstance(got, Error):
        return error_outcome(group, got)
    g, old, member = got
    return update(Update(original=group, group=g, old=old, member=member, request=request, topics=cluster.topics,
                         profile=p, config=config))


def _held(group: AnyGroup) -> Optional[AnyGroup]:
    return None if isinstance(group, Group) and group.dead else group


def _not_consumer(group: OtherGroup, create: bool) -> Error:
    """getOrMaybeCreateConsumerGroup: a classic group may be converted (migration.py);
    any other type: "Group X is not a consumer group." (GROUP_ID_NOT_FOUND)."""
    if group.group_type == "classic" and create:
        raise NotModelled("heartbeat: a consumer member joining a classic group is migration.py's")
    return Error("GROUP_ID_NOT_FOUND", f"Group {group.group_id} is not a consumer group.")


@lru_cache(maxsize=256)
def _outside(index: tuple, topics: tuple) -> list:
    known = set(index)
    return [(t, n) for t, n in topics if any((t, p) not in known for p in range(n))]


def _check_index(g: Group, cluster: Cluster) -> None:
    """Every partition of the cluster must have a bit in the group's index."""
    missing = _outside(g.partition_index, tuple(cluster.topics))
    if missing:
        raise ValueError(f"heartbeat: the cluster's topics {missing[:3]} are not all in the group's partition_index; "
                         "build the group with new_group(id, partition_index(every topic the scope may create))")


def _generated_id(g: Group) -> str:
    n = len(g.members) + 1
    while g.member(f"member-{n}") is not None:
        n += 1
    return f"member-{n}"


def _assignment(m: Member) -> MemberAssignment:
    return MemberAssignment(state=m.state, epoch=m.epoch, previous_epoch=m.previous_epoch, assigned=(m.assigned,),
                            pending_revocation=(m.pending_revocation,))


def check_member_epoch(m: Member, received: int, owned: Optional[int]) -> Optional[Error]:
    """GroupMetadataManager#throwIfConsumerGroupMemberEpochIsInvalid: newer than the member's
    epoch, or older and not (the previous epoch with owned ⊆ assigned): FENCED_MEMBER_EPOCH."""
    try:
        validate_member_epoch(_assignment(m), received, None if owned is None else (owned,))
    except Fenced:
        which = "greater" if received > m.epoch else "smaller"
        return Error("FENCED_MEMBER_EPOCH", f"The consumer group member has a {which} member epoch ({received}) "
                     f"than the one known by the group coordinator ({m.epoch}). The member must abandon all "
                     "its partitions and rejoin.")
    return None


def _unknown_member(g: Group, member_id: str) -> Error:
    return Error("UNKNOWN_MEMBER_ID", f"Member {member_id} is not a member of group {g.group_id}.")


def _dynamic_member(g: Group, r: ConsumerGroupHeartbeat, member_id: str, p: Profile):
    """getOrMaybeSubscribeDynamicConsumerGroupMember: (group, old member, member) or an Error."""
    known = g.member(member_id)
    if known is None:
        if r.member_epoch != JOIN_EPOCH:
            return _unknown_member(g, member_id)
        return g, None, Member(member_id=member_id)
    if r.member_epoch == JOIN_EPOCH and p.epoch0_rejoin_accepted:
        return g, known, known          # KAFKA-19233's early return: no epoch check at 0
    error = check_member_epoch(known, r.member_epoch, owned_partitions(g, r))
    return error if error is not None else (g, known, known)


def _static_member(g: Group, r: ConsumerGroupHeartbeat, member_id: str, p: Profile):
    """getOrMaybeSubscribeStaticConsumerGroupMember: (group, old member, member) or an Error."""
    holder = g.static_member(r.instance_id)
    if r.member_epoch == JOIN_EPOCH:
        if holder is None:
            known = g.member(member_id)
            return g, known, known or Member(member_id=member_id)
        if holder.member_id == member_id and p.static_rejoin_in_place:
            return g, holder, holder            # apache/kafka #23542's rejoin in place
        if holder.epoch != LEAVE_STATIC_EPOCH:                # throwIfInstanceIdIsUnreleased
            return Error("UNRELEASED_INSTANCE_ID", f"Static member {member_id} with instance id {r.instance_id} "
                         f"cannot join the group because the instance id is owned by {holder.member_id} member.")
        # replaceMember: the joining member is a copy of the one that left with -2, under its
        # own member id, at epoch 0 (previous epoch 0), with its assignment and target entry.
        target = g.target_of(holder.member_id)
        member = replace(holder, member_id=member_id, epoch=0, previous_epoch=0)
        g = g.without_member(holder.member_id).with_target(holder.member_id, None).with_target(member_id, target)
        return g.with_member(member), member, member
    error = _static_holder_error(g, holder, r, member_id)
    if error is not None:
        return error
    error = check_member_epoch(holder, r.member_epoch, owned_partitions(g, r))
    return error if error is not None else (g, holder, holder)


def _static_holder_error(g: Group, holder: Optional[Member], r: ConsumerGroupHeartbeat, member_id: str):
    if holder is None:                                        # throwIfStaticMemberIsUnknown
        return Error("UNKNOWN_MEMBER_ID", f"Instance id {r.instance_id} is unknown.")
    if holder.member_id != member_id:                         # throwIfInstanceIdIsFenced
        return Error("FENCED_INSTANCE_ID", f"Static member {member_id} with instance id {r.instance_id} "
                     f"was fenced by member {holder.member_id}.")
    return None


def _leave(group: AnyGroup, r: ConsumerGroupHeartbeat, p: Profile) -> Outcome:
    """GroupMetadataManager#consumerGroupLeave: the group must exist; a dynamic member leaves
    (removed, a bump); a static member with -2 stays at epoch -2 with its assignment; a static
    member with -1 leaves for good. The response echoes the member id and the epoch sent."""
    held = _held(group)
    if held is None:
        return error_outcome(group, Error("GROUP_ID_NOT_FOUND", f"Consumer group {r.group_id} not found."))
    if isinstance(held, OtherGroup):
        return error_outcome(group, _not_consumer(held, create=False))
    if r.instance_id is None:
        member = held.member(r.member_id)
        if member is None:
            return error_outcome(group, _unknown_member(held, r.member_id))
    else:
        member = held.static_member(r.instance_id)
        error = _static_holder_error(held, member, r, r.member_id)
        if error is not None:
            return error_outcome(group, error)
        if r.member_epoch == LEAVE_STATIC_EPOCH:
            return static_leave(held, member)
    out = remove_member(held, member.member_id, "member left", p)
    return out._replace(response=ConsumerGroupHeartbeatResponse(member_id=r.member_id, member_epoch=r.member_epoch))


def static_leave(group: Group, member: Member) -> Outcome:
    """consumerGroupStaticMemberGroupLeave: "We will write a member epoch of -2 for this
    departing static member": epoch -2, partitions pending revocation dropped, only its current
    assignment written, no bump. Its session timer keeps running (``session_timeout``)."""
    left = replace(member, epoch=LEAVE_STATIC_EPOCH, pending_revocation=0)
    after = group.with_member(left)
    resp = ConsumerGroupHeartbeatResponse(member_id=member.member_id, member_epoch=LEAVE_STATIC_EPOCH)
    return Outcome(after, resp, diff(group, after), (("static_member_left", member.member_id),))


def remove_member(group: Group, member_id: str, reason: str, profile="kip-848") -> Outcome:
    """consumerGroupFenceMember / removeMember: the member's current assignment, target entry
    and metadata are tombstoned; the subscription metadata is recomputed from what is left
    (the cluster's counts, as the group last saw them); the group epoch is bumped. An emptied
    group's assignment epoch catches up with it since KAFKA-20442 (``empty_group_epochs_equal``)."""
    g = group.without_member(member_id).with_target(member_id, None)
    g, _ = refresh_regexes(g, (), resolve_new=False)
    counts = dict(group.subscription_metadata)
    g = replace(g, subscription_metadata=subscription_metadata(g, counts), group_epoch=group.group_epoch + 1)
    gone = group.member(member_id)
    if gone is not None:          # removePartitionEpochs of both its sets
        g = replace(g, epoch_map_lost=g.epoch_map_lost & ~(gone.assigned | gone.pending_revocation))
    if not g.members and _profile(profile).empty_group_epochs_equal:
        g = replace(g, target_assignment_epoch=g.group_epoch)
    return Outcome(g, None, diff(group, g), bumped((reason,)) + (("member_removed", member_id),))


def session_timeout(group: Group, member_id: str, profile="kip-848", config: Config = Config()) -> Outcome:
    """The member's session expired (GroupMetadataManager#consumerGroupSessionTimeoutExpired):
    it is removed (a bump); a static member at -2 too. A member already gone: nothing happens."""
    if group.dead or group.member(member_id) is None:
        return Outcome(group, None, ())
    return remove_member(group, member_id, "member removed (session timeout)", profile)


def rebalance_timeout(group: Group, member_id: str, member_epoch: int, profile="kip-848",
                      config: Config = Config()) -> Outcome:
    """The rebalance timer armed when the member had partitions to revoke at ``member_epoch``
    expired (scheduleConsumerGroupRebalanceTimeout: "if (member.memberEpoch() == memberEpoch)"
    fence it). maybeReconcile cancels the timer once the member leaves UNREVOKED_PARTITIONS, so
    a member no longer UNREVOKED at that epoch is not removed."""
    m = None if group.dead else group.member(member_id)
    if m is None or m.epoch != member_epoch or m.state != "UNREVOKED":
        return Outcome(group, None, ())
    return remove_member(group, member_id, "member removed (rebalance timeout)", profile)


def resolve_regexes(group: Group, cluster: Cluster = Cluster(), profile="kip-848", config: Config = Config()) -> Outcome:
    """Kafka 4.0+ (GroupMetadataManager#maybeUpdateRegularExpressions schedules, then
    handleRegularExpressionsResult applies): every regex some member uses is resolved against
    the cluster's topics; a changed resolution is written (ConsumerGroupRegularExpression) and
    bumps the group epoch ("regex resolved"); so does the subscription metadata it changes.
    The next heartbeat computes the new target. No change: nothing happens."""
    if group.dead or not group.members:
        return Outcome(group, None, ())
    used = sorted({m.subscribed_topic_regex for m in group.members if m.subscribed_topic_regex})
    names = [t for t, _ in cluster.topics]
    resolved = tuple((rx, resolve_regex(rx, names) or ()) for rx in used)
    if resolved == group.resolved_regexes:
        return Outcome(group, None, ())
    g = replace(group, resolved_regexes=resolved)
    g = replace(g, subscription_metadata=subscription_metadata(g, dict(cluster.topics)), group_epoch=group.group_epoch + 1)
    return Outcome(g, None, diff(group, g), bumped(("regex resolved",)))


def offset_commit(group: Group, member_id: str, member_epoch: int, partitions: tuple[TopicPartitions, ...] = (),
                  profile="kip-848") -> str:
    """ConsumerGroup#validateOffsetCommit for a KIP-848 member (OffsetCommit v9+): "" when the
    commit is accepted, else the error's name. No group: epoch < 0 creates a simple group
    (accepted), else GROUP_ID_NOT_FOUND; epoch < 0 on an empty group (an admin client):
    accepted; an unknown member: UNKNOWN_MEMBER_ID; then validateMemberEpoch: an epoch other
    than the member's is STALE_MEMBER_EPOCH. KIP-1251 (``assignment_epochs``): an older epoch is
    accepted when every committed partition is the member's (assigned or pending revocation)
    with an assignment epoch <= the received one; a newer one is still stale."""
    p = _profile(profile)
    if group.dead:
        return "" if member_epoch < 0 else "GROUP_ID_NOT_FOUND"
    if member_epoch < 0 and not group.members:
        return ""
    m = group.member(member_id)
    if m is None:
        return "UNKNOWN_MEMBER_ID"
    if member_epoch == m.epoch:
        return ""
    if not p.assignment_epochs or member_epoch > m.epoch:
        return "STALE_MEMBER_EPOCH"
    epochs = dict(m.assignment_epochs)
    mine = m.assigned | m.pending_revocation
    for i in range(len(group.partition_index)):
        if mask_of(group.partition_index, partitions) >> i & 1:
            if not mine >> i & 1 or epochs.get(i, max(m.epoch, 0)) > member_epoch:
                return "STALE_MEMBER_EPOCH"
    return ""


def failover(records, partition_index=()) -> Group:
    """The group a new coordinator rebuilds from the log: ``replay`` of every record written."""
    return replay(records, None, partition_index=partition_index)


__all__ = ["AnyGroup", "Cluster", "Config", "NotModelled", "OtherGroup", "Outcome", "check_member_epoch", "failover",
           "heartbeat", "offset_commit", "rebalance_timeout", "remove_member", "resolve_regexes", "session_timeout",
           "static_leave"]
