"""Classic members inside a streams group (KIP-1071 "Online Migration"): their JoinGroup,
SyncGroup, Heartbeat and LeaveGroup translated to the streams protocol. KIP: "The JoinGroup
API updates the group state and provides the active and standby tasks owned (warm-ups are
standby tasks in the classic protocol), the SyncGroup API gets back the task assignment,
and the Heartbeat API updates the session."

    classic_join(group, JoinGroup, cluster, profile, config)  -> ClassicOutcome
    classic_sync(group, SyncGroup)                            -> ClassicOutcome
    classic_heartbeat(group, Heartbeat)                       -> ClassicOutcome
    classic_leave(group, LeaveGroup)                          -> ClassicOutcome

Kafka's KIP-848 counterparts (apache/kafka, group-coordinator/.../GroupMetadataManager.java),
followed here with tasks in place of partitions: classicGroupJoinToConsumerGroup (owned
partitions from the JoinGroup's subscription, the heartbeat's steps, the response's
generation is the member epoch, no leader), classicGroupSyncToConsumerGroup (generation
must equal the member epoch, throwIfRebalanceInProgress, the member's assigned
partitions), classicGroupHeartbeatToConsumerGroup (REBALANCE_IN_PROGRESS on a newer group
epoch, UNREVOKED, or UNRELEASED with every pending partition free). Not modelled: the
MEMBER_ID_REQUIRED round trip of a new classic member (it joins with its id), static
members, join/sync timeouts, and the KIP's probing rebalance through a classic member.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Union

from ..consumer.state import (ILLEGAL_GENERATION, NONE, REBALANCE_IN_PROGRESS, UNKNOWN_MEMBER_ID, Heartbeat,
                              HeartbeatResponse, JoinGroup, JoinGroupResponse, LeaveGroup, SyncGroup,
                              SyncGroupResponse)
from ..epochs import Holding, streams_unreleased
from ..epochs.reconcile import difference
from .coordinator import Cluster, remove_member
from .coordinator_update import Config, Update, coordinator_profile, update
from .group import ACTIVE, STANDBY, UNRELEASED, UNREVOKED, WARMUP, Group, Member, mask_of, task_ids_of
from .migration import (PROTOCOL, MigratingGroup, StreamsAssignment, StreamsSubscription, maybe_convert_back,
                        mixed)
from .state import ERRORS, StreamsGroupHeartbeat

_NAMES = {code: name for name, code in ERRORS.items()}


class LeaveGroupResponse(NamedTuple):
    """LeaveGroupResponse, in the style of ``model/consumer/state.py`` (which has none: its
    LeaveGroup is never answered)."""

    kind: str = "LeaveGroupResponse"
    to: object = None
    error: str = NONE


class ClassicOutcome(NamedTuple):
    """A classic request's result: the group after it (a ``MigratingGroup``, a ``Group`` once
    no classic member is left, or a classic group after a conversion back), the classic
    response, the records, events."""

    group: object
    response: object
    records: tuple = ()
    events: tuple = ()


def _member(group: MigratingGroup, member_id) -> Optional[Member]:
    return group.group.member(member_id) if group.is_classic(member_id) else None


def _owned(g: Group, m: Optional[Member], sub: StreamsSubscription) -> tuple[int, int, int]:
    """The owned tasks a JoinGroup reports, in the streams protocol's roles. KIP: "warm-ups
    are standby tasks in the classic protocol": a reported standby the member holds as a
    warm-up (assigned or pending revocation) is owned as a warm-up."""
    active, standby = mask_of(g.task_index, sub.owned_active), mask_of(g.task_index, sub.owned_standby)
    warm = 0 if m is None else standby & (m.assigned[WARMUP] | m.pending_revocation[WARMUP])
    return active, standby & ~warm, warm


def classic_join(group: MigratingGroup, request: JoinGroup, cluster: Cluster = Cluster(),
                 profile="kip-1071", config: Config = Config()) -> ClassicOutcome:
    """KIP: "The consumers on the classic protocol send their owned active and standby tasks in
    the JoinGroup request"; "The members still on the classic protocol receive the member
    epoch through the JoinGroup response". The join runs the heartbeat's steps 4-9 for the
    member (a new member is a join: a bump); "If the members need to revoke a task, their
    member epoch stays the same" - and so does the generation in the response."""
    sub = request.subscription
    if not isinstance(sub, StreamsSubscription):
        raise TypeError("classic_join: the JoinGroup's subscription must be a StreamsSubscription "
                        f"(process id, owned active, owned standby), not {type(sub).__name__}")
    g = group.group
    known = _member(group, request.member_id)
    if known is None and g.member(request.member_id) is not None:
        return ClassicOutcome(group, JoinGroupResponse(to=request.member_id, error=UNKNOWN_MEMBER_ID))
    member = known or Member(member_id=request.member_id, topology_epoch=g.topology.epoch)
    owned = _owned(g, known, sub)
    hb = StreamsGroupHeartbeat(
        group_id=g.group_id, member_id=request.member_id, member_epoch=member.epoch, process_id=sub.process_id,
        active_tasks=task_ids_of(g.task_index, owned[ACTIVE]),
        standby_tasks=task_ids_of(g.task_index, owned[STANDBY]),
        warmup_tasks=task_ids_of(g.task_index, owned[WARMUP]))
    out = update(Update(original=g, group=g, old=known, member=member, topology=g.topology, request=hb,
                        topics=cluster.topics, cp=coordinator_profile(profile), config=config, shutdown=None))
    if out.response.error_code:
        return ClassicOutcome(group, JoinGroupResponse(to=request.member_id, error=_NAMES[out.response.error_code]))
    after = out.group.member(request.member_id)
    classic = tuple(x for x in group.classic if x[0] != request.member_id) + ((request.member_id, sub),)
    response = JoinGroupResponse(to=request.member_id, generation=after.epoch, member_id=request.member_id,
                                 leader="", protocol=PROTOCOL)
    return ClassicOutcome(mixed(out.group, classic), response, out.records, out.events)


def classic_assignment(g: Group, m: Member) -> StreamsAssignment:
    """KIP: "If the group coordinator assigns a warm-up task to a Streams client on the classic
    protocol, that warm-up task is translated to a standby task"."""
    return StreamsAssignment(task_ids_of(g.task_index, m.assigned[ACTIVE]),
                             task_ids_of(g.task_index, m.assigned[STANDBY] | m.assigned[WARMUP]))


def _check(group: MigratingGroup, member_id, generation: int, make) -> Union[Member, object]:
    m = _member(group, member_id)
    if m is None:
        return make(UNKNOWN_MEMBER_ID)
    if generation != m.epoch:   # throwIfGenerationIdUnmatched
        return make(ILLEGAL_GENERATION)
    return m


def classic_sync(group: MigratingGroup, request: SyncGroup) -> ClassicOutcome:
    """KIP: "they still need to wait for the SyncGroup response for their current assignment".
    Kafka (throwIfRebalanceInProgress): a newer group epoch answers REBALANCE_IN_PROGRESS
    unless the member is UNREVOKED (it rejoined already and must revoke first)."""
    def make(error):
        return SyncGroupResponse(to=request.member_id, error=error, generation=request.generation, assignment=None)
    m = _check(group, request.member_id, request.generation, make)
    if not isinstance(m, Member):
        return ClassicOutcome(group, m)
    g = group.group
    if g.group_epoch > m.epoch and m.state != UNREVOKED:
        return ClassicOutcome(group, make(REBALANCE_IN_PROGRESS))
    return ClassicOutcome(group, make(NONE)._replace(assignment=classic_assignment(g, m)))


def must_rejoin(g: Group, m: Member) -> bool:
    """KIP: "The group coordinator will ensure that a rebalance is triggered when the
    assignment of a Streams client on the classic protocol needs to be updated by returning a
    REBALANCE_IN_PROGRESS error in the heartbeat response." As Kafka's consumer-group
    version: the group epoch moved past the member's, the member has tasks to revoke
    (UNREVOKED), or it waits for tasks (UNRELEASED) that are all free now."""
    if m.epoch < g.group_epoch or m.state == UNREVOKED:
        return True
    if m.state != UNRELEASED:
        return False
    holdings = tuple(Holding(x.member_id, x.process_id, x.assigned, x.pending_revocation) for x in g.members)
    d = difference(m.assigned, g.target_of(m.member_id), streams_unreleased(holdings, m.process_id))
    return not d.has_unreleased


def classic_heartbeat(group: MigratingGroup, request: Heartbeat) -> ClassicOutcome:
    """The classic Heartbeat: the session only, and REBALANCE_IN_PROGRESS when ``must_rejoin``."""
    def make(error):
        return HeartbeatResponse(to=request.member_id, error=error)
    m = _check(group, request.member_id, request.generation, make)
    if not isinstance(m, Member):
        return ClassicOutcome(group, m)
    return ClassicOutcome(group, make(REBALANCE_IN_PROGRESS if must_rejoin(group.group, m) else NONE))


def classic_leave(group: MigratingGroup, request: LeaveGroup) -> ClassicOutcome:
    """A classic member leaves (LeaveGroup): removed like a streams member's leave (a bump).
    If no classic member is left the group is a plain streams group; if only classic members
    are left it is converted back (cannot happen while a streams member stays)."""
    if _member(group, request.member_id) is None:
        return ClassicOutcome(group, LeaveGroupResponse(to=request.member_id, error=UNKNOWN_MEMBER_ID))
    out = remove_member(group.group, request.member_id, "member left", None)
    out = maybe_convert_back(group, out, (request.member_id,))
    return ClassicOutcome(out.group, LeaveGroupResponse(to=request.member_id), out.records, out.events)


__all__ = ["ClassicOutcome", "LeaveGroupResponse", "classic_assignment", "classic_heartbeat", "classic_join", "classic_leave",
           "classic_sync", "must_rejoin"]
