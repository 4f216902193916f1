"""The group coordinator's StreamsGroupHeartbeat handler (KIP-1071 "Request Handling"), and
the member-removing timers, as pure functions. Handlers decide and return records;
``replay`` applies them (``failover`` is exactly that).

    heartbeat(group, request, cluster, profile, config, shutdown_member_id) -> Outcome
    session_timeout(group, member_id, ...) / rebalance_timeout(group, member_id, epoch, ...) -> Outcome
    failover(records, task_index) -> Group

The steps, in the KIP's order (Kafka: GroupCoordinatorService#streamsGroupHeartbeat, then
GroupMetadataManager#streamsGroupHeartbeat, apache/kafka group-coordinator/src/main/java/
org/apache/kafka/coordinator/group/):
 1. request validation (``validation.validate``);
 2. join (epoch 0): get or create the group, GROUP_MAX_SIZE_REACHED, the topology-epoch
    decision (``topology.decide_join``), create the member (or reset it: KAFKA-19233);
 3. existing member: the group, the member, its epoch (``epochs.validate_member_epoch``);
    leave (-1) removes it;
 2-3 static membership (an instance id): a join replaces a member that left with -2
    (UNRELEASED_INSTANCE_ID while it has not), a heartbeat from another member id than
    the instance's is FENCED_INSTANCE_ID, -2 keeps the member and its assignment
    (``_static_join``, ``_static_member``, ``static_leave``);
 4-5. member metadata, topology, topic metadata, configuration, the group-epoch bump;
 6. a new target assignment when group epoch > assignment epoch (``target.new_target``);
 7. reconcile the member (``epochs.reconcile`` with ``streams_unreleased``);
 8. the response; 9. records = ``records.diff(before, after)``.
The steps 4-9 live in ``coordinator_update``.

Static membership follows KIP-848's consumer rules, which KIP-1071 takes over ("All
non-assignment metadata as defined in the ConsumerGroupHeartbeatRequest such as ... instance
ID"; MemberEpoch "-2 to indicate that the static member will rejoin"; UNRELEASED_INSTANCE_ID
in its error list) and which Kafka's streams path ships since KAFKA-20169 (apache/kafka#22245,
Kafka 4.4; the ``kafka-4.5`` profile); ``kafka-4.1`` refuses any instance id in validation
("Static membership is not yet supported."). A classic group of the same id (migration) is
handled by ``migration.py``; here it raises ``NotModelled``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional, Union

from ..epochs import Fenced, MemberAssignment, validate_member_epoch
from ..epochs.coordinator import Cluster, OtherGroup
from .coordinator_update import (Config, Outcome, Update, coordinator_profile, error_outcome, fence,
                                 owned_tasks, remove_member, update)
from .group import NO_TASKS, Group, Member, TaskIndex, new_group
from .records import diff, replay
from .state import (JOIN_EPOCH, LEAVE_EPOCH, LEAVE_STATIC_EPOCH, StreamsGroupHeartbeat,
                    StreamsGroupHeartbeatResponse)
from .topology import ACCEPT, INITIALIZE, KEEP_GROUP, REJECT, UPDATE, decide_join
from .validation import Error, validate


class NotModelled(ValueError):
    """A request the model does not handle (a classic group of the same id: see ``migration``)."""


AnyGroup = Union[Group, OtherGroup]


def heartbeat(group: AnyGroup, request: StreamsGroupHeartbeat, cluster: Cluster = Cluster(),
              profile="kip-1071", config: Config = Config(),
              shutdown_member_id: Optional[str] = None) -> Outcome:
    """Handle one StreamsGroupHeartbeat. ``group``: the coordinator's group for the id (a dead
    Group when it holds none, an ``OtherGroup`` for another type). ``shutdown_member_id``: the
    member that requested SHUTDOWN_APPLICATION (soft state, Kafka's StreamsGroup field; not in
    any record), threaded through ``Outcome.shutdown_member_id``."""
    cp = coordinator_profile(profile)
    error = validate(request, cp.streams)                                  # step 1
    if error is not None:
        return error_outcome(group, error, shutdown_member_id)
    if request.member_epoch == JOIN_EPOCH:
        return _join(group, request, cluster, cp, config, shutdown_member_id)
    return _existing(group, request, cluster, cp, config, shutdown_member_id)


def _held(group: AnyGroup) -> Optional[AnyGroup]:
    return None if isinstance(group, Group) and group.dead else group


def _not_streams(group: OtherGroup) -> Error:
    if group.group_type == "classic":
        raise NotModelled("heartbeat: migrating a classic group to a streams group is not modelled")
    # GroupMetadataManager#getOrCreateStreamsGroup / getStreamsGroupOrThrow
    return Error("GROUP_ID_NOT_FOUND", f"Group {group.group_id} is not a streams group.")


def _join(group, request, cluster, cp, config, shutdown) -> Outcome:
    """Step 2. KIP: "Look up or create the group"; "GROUP_ID_NOT_FOUND is returned if the group
    ID is associated with a group type that is not streams"; then the topology epochs; then
    "Creates the member"."""
    held = _held(group)
    if isinstance(held, OtherGroup):
        return error_outcome(group, _not_streams(held), shutdown)
    g = held if held is not None else new_group(request.group_id, group.task_index)
    known = g.member(request.member_id)
    replaced, error = _static_join(g, request, cp)
    if error is not None:
        return error_outcome(group, error, shutdown)
    # GroupMetadataManager#throwIfStreamsGroupIsFull counts members only; the KIP reads as
    # "the group cannot take a new member", so a known member may rejoin a full group
    # (and a static member replace one).
    if config.max_size is not None and len(g.members) >= config.max_size and (
            (known is None and replaced is None) or cp.full_rejects_known_member):
        return error_outcome(group, Error("GROUP_MAX_SIZE_REACHED", "The streams group has reached its maximum "
                                          f"capacity of {config.max_size} members."), shutdown)
    eg = None if g.topology is None else g.topology.epoch
    same = g.topology is not None and g.topology.subtopologies == request.topology.subtopologies
    decision = decide_join(cp.streams, request.topology.epoch, eg, same)   # step 2.iii
    if decision.kind == REJECT:
        return error_outcome(group, decision.error, shutdown)
    topology = request.topology if decision.kind in (INITIALIZE, UPDATE) else g.topology
    assert decision.kind in (INITIALIZE, UPDATE, ACCEPT, KEEP_GROUP)
    if replaced is not None:
        g, member = _replace_static_member(g, replaced, request.member_id)
        out = update(Update(original=group, group=g, old=member, member=member, topology=topology, request=request,
                            topics=cluster.topics, cp=cp, config=config, shutdown=shutdown))
        if out.response.error_code:
            return out
        return out._replace(events=out.events + (("static_member_replaced", replaced.member_id),))
    # KAFKA-19233: an epoch-0 heartbeat from a known member is a rejoin: the member starts
    # over with nothing assigned (it reports owning nothing); its target entry stays.
    if known is not None and not cp.epoch0_rejoin_resets:
        # before KAFKA-19233's fix: the rejoin met throwIfStreamsGroupMemberEpochIsInvalid
        try:
            validate_member_epoch(_assignment(known), request.member_epoch, owned_tasks(g, request))
        except Fenced as fenced:
            return fence(g, request.member_id, str(fenced), cp, shutdown)
        member = known   # accepted as the lost-response case, not reset
    elif known is not None:
        member = replace(known, state="STABLE", epoch=0, previous_epoch=-1, assigned=NO_TASKS,
                         pending_revocation=NO_TASKS)
    else:
        member = Member(member_id=request.member_id)
    return update(Update(original=group, group=g, old=known, member=member, topology=topology, request=request,
                         topics=cluster.topics, cp=cp, config=config, shutdown=shutdown))


def _existing(group, request, cluster, cp, config, shutdown) -> Outcome:
    """Step 3. KIP: "GROUP_ID_NOT_FOUND is returned if the group ID does not exist anymore";
    "If the member does not exist, returns UNKNOWN_MEMBER_ID"; "Checks whether the member epoch
    matches ... FENCED_MEMBER_EPOCH is returned otherwise. The member is also removed from the
    group." (Kafka: throwIfStreamsGroupMemberEpochIsInvalid throws; nothing is written.)"""
    held = _held(group)
    if held is None:
        return error_outcome(group, Error("GROUP_ID_NOT_FOUND", f"Streams group {request.group_id} not found."),
                             shutdown)
    if isinstance(held, OtherGroup):
        return error_outcome(group, _not_streams(held), shutdown)
    if request.instance_id is not None:
        member, error = _static_member(held, request)
    else:
        member = held.member(request.member_id)
        error = None if member is not None else Error(
            "UNKNOWN_MEMBER_ID", f"Member {request.member_id} is not a member of group {request.group_id}.")
    if error is not None:
        return error_outcome(group, error, shutdown)
    if request.member_epoch < 0 and request.shutdown_application and cp.leave_records_shutdown:   # KAFKA-19190
        shutdown = request.member_id
    if request.member_epoch == LEAVE_STATIC_EPOCH and request.instance_id is not None:
        return static_leave(held, member, shutdown)
    if request.member_epoch in (LEAVE_EPOCH, LEAVE_STATIC_EPOCH):
        # -1, or -2 without an instance id (the KIP's validation allows it; Kafka's refuses
        # it, "InstanceId can't be null."): the member leaves.
        return remove_member(held, request.member_id, "member left", shutdown, leave=True)
    try:
        validate_member_epoch(_assignment(member), request.member_epoch, owned_tasks(held, request))
    except Fenced as fenced:
        return fence(held, request.member_id, str(fenced), cp, shutdown)
    return update(Update(original=group, group=held, old=member, member=member, topology=held.topology,
                         request=request, topics=cluster.topics, cp=cp, config=config, shutdown=shutdown))


# ---- static membership (KIP-848's rules, Kafka's consumerGroupHeartbeat / streamsGroupHeartbeat) ----

def _static_join(g: Group, request: StreamsGroupHeartbeat, cp) -> tuple[Optional[Member], Optional[Error]]:
    """A join with an instance id (GroupMetadataManager#getOrMaybeSubscribeStaticConsumerGroupMember,
    the pattern of the streams path since KAFKA-20169): no member holds the instance id: a new
    static member (returns None, None); its holder left with -2: the joining member replaces
    it (returns the holder); otherwise UNRELEASED_INSTANCE_ID (throwIfInstanceIdIsUnreleased).

    The holder may be the joining member id itself (a lost join response, or a rejoin after
    FENCED_MEMBER_EPOCH: the client keeps its member id). Kafka answers it
    UNRELEASED_INSTANCE_ID too, which the client takes as fatal (apache/kafka#23542, open:
    "A static member that joins with epoch 0 while the coordinator still considers it active
    gets UNRELEASED_INSTANCE_ID"); ``static_rejoin_in_place`` (the ``kip-1071`` profile, the
    KIP's "0 to join the group") handles it as any known member's rejoin."""
    if request.instance_id is None:
        return None, None
    holder = g.static_member(request.instance_id)
    if holder is None:
        return None, None
    if holder.epoch == LEAVE_STATIC_EPOCH:
        return holder, None
    if holder.member_id == request.member_id and cp.static_rejoin_in_place:
        return None, None
    return None, Error("UNRELEASED_INSTANCE_ID", f"Static member {request.member_id} with instance id "
                       f"{request.instance_id} cannot join the group because the instance id is owned by "
                       f"{holder.member_id} member.")


def _replace_static_member(g: Group, old: Member, member_id: str) -> tuple[Group, Member]:
    """GroupMetadataManager#replaceMember: the joining member is a copy of the member that
    left with -2 under its own member id, at epoch 0 (previous epoch 0), with its current
    assignment and its target entry; the old member's records are tombstoned. Not a join
    for the bump list (KAFKA-20169: "When a static member leaves with member epoch -2 and
    later rejoins with the same instance ID, we treat this as not constituting a member
    join/leave"); the KIP's list bumps only "when a member with static membership rejoins
    with an updated configuration"."""
    target = g.target_of(old.member_id)
    member = replace(old, member_id=member_id, epoch=0, previous_epoch=0)
    g = g.without_member(old.member_id).with_target(old.member_id, None).with_target(member_id, target)
    return g.with_member(member), member


def _static_member(g: Group, request: StreamsGroupHeartbeat) -> tuple[Optional[Member], Optional[Error]]:
    """A heartbeat (or leave) with an instance id from a member that is not joining:
    throwIfStaticMemberIsUnknown, then throwIfInstanceIdIsFenced (a replaced member's old id)."""
    holder = g.static_member(request.instance_id)
    if holder is None:
        return None, Error("UNKNOWN_MEMBER_ID", f"Instance id {request.instance_id} is unknown.")
    if holder.member_id != request.member_id:
        return None, Error("FENCED_INSTANCE_ID", f"Static member {request.member_id} with instance id "
                           f"{request.instance_id} was fenced by member {holder.member_id}.")
    return holder, None


def static_leave(group: Group, member: Member, shutdown: Optional[str]) -> Outcome:
    """KIP: MemberEpoch "-2 to indicate that the static member will rejoin". Kafka
    (GroupMetadataManager#consumerGroupStaticMemberGroupLeave; the streams path since
    KAFKA-20169): the member stays, at epoch -2, with its assigned tasks and target entry,
    its tasks pending revocation dropped; only its current assignment is written, the group
    epoch is not bumped. Its session timer keeps running: if no member with its instance id
    joins before it expires, ``session_timeout`` removes it (a bump)."""
    left = replace(member, epoch=LEAVE_STATIC_EPOCH, pending_revocation=NO_TASKS)
    after = group.with_member(left)
    resp = StreamsGroupHeartbeatResponse(member_id=member.member_id, member_epoch=LEAVE_STATIC_EPOCH)
    return Outcome(after, resp, diff(group, after), (("static_member_left", member.member_id),), shutdown)


def _assignment(m: Member) -> MemberAssignment:
    return MemberAssignment(state=m.state, epoch=m.epoch, previous_epoch=m.previous_epoch, assigned=m.assigned,
                            pending_revocation=m.pending_revocation, revocation_epoch=m.revocation_epoch)


def session_timeout(group: Group, member_id: str, shutdown_member_id: Optional[str] = None) -> Outcome:
    """The member's session expired (GroupMetadataManager#streamsGroupSessionTimeoutExpired):
    it is removed, a bump. A member already gone: nothing happens."""
    if group.dead or group.member(member_id) is None:
        return Outcome(group, None, (), (), shutdown_member_id)
    return remove_member(group, member_id, "member removed (session timeout)", shutdown_member_id)


def rebalance_timeout(group: Group, member_id: str, member_epoch: int,
                      shutdown_member_id: Optional[str] = None) -> Outcome:
    """The rebalance timer armed when the member had tasks to revoke at ``member_epoch``
    expired (GroupMetadataManager#scheduleStreamsGroupRebalanceTimeout): if it is still
    UNREVOKED at that epoch it is removed (a bump); otherwise the timer is stale and ignored."""
    m = None if group.dead else group.member(member_id)
    if m is None or m.epoch != member_epoch or m.state != "UNREVOKED":
        return Outcome(group, None, (), (), shutdown_member_id)
    return remove_member(group, member_id, "member removed (rebalance timeout)", shutdown_member_id)


def failover(records, task_index: TaskIndex = ()) -> Group:
    """The group a new coordinator rebuilds from the log: ``replay`` of every record written."""
    return replay(records, None, task_index=task_index)


__all__ = ["Cluster", "Config", "NotModelled", "OtherGroup", "Outcome", "failover", "heartbeat",
           "rebalance_timeout", "remove_member", "session_timeout", "static_leave"]
