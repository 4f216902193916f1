"""The broker-side group coordinator of the classic protocol, as pure handlers.

Each handler takes the group and one request and returns the new group, the
responses it sends as ``(slot, response)`` pairs, and the events it emits. Facts
from Kafka's GroupCoordinator (core/.../coordinator/group/GroupCoordinator.scala):
a JoinGroup without a member id gets MEMBER_ID_REQUIRED with a new id (KIP-394);
JoinGroup responses wait until every member has rejoined; a known member rejoining
a Stable group with unchanged metadata gets the current generation back *unless it
is the leader* ("force a rebalance if the leader sends JoinGroup"); SyncGroup
responses wait for the leader's assignment; moving to PreparingRebalance answers
waiting SyncGroups with REBALANCE_IN_PROGRESS.
"""
from __future__ import annotations

from typing import NamedTuple

from ..delivery import OffsetCommitReq
from .selection import select_protocol, supports
from .state import (
    COMPLETING, DEAD, EMPTY, ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL, MEMBER_ID_REQUIRED,
    NO_MEMBER, NONE, PREPARING, REBALANCE_IN_PROGRESS, STABLE, UNKNOWN_MEMBER_ID,
    Group, GroupMember, HeartbeatResponse, JoinGroup, JoinGroupResponse, SyncGroupResponse,
)


class Event(NamedTuple):
    """Something observable a step did: a callback, a rebalance milestone, an error."""

    kind: str
    slot: int = -1
    partitions: int = 0
    note: str = ""
    commit: OffsetCommitReq | None = None   # an ``offset_commit`` event's request (records only)


def new_group() -> Group:
    """A group the coordinator has just created: Empty, generation 0, no members."""
    return Group(status=EMPTY, generation=0, protocol="", leader=NO_MEMBER, members=(), pending=(), next_id=1)


class Outcome(NamedTuple):
    group: Group
    out: tuple      # ((slot, response), ...)
    events: tuple   # (Event, ...)


def _join_response(group: Group, m: GroupMember) -> JoinGroupResponse:
    members = ()
    if m.member_id == group.leader:
        members = tuple((x.member_id, x.subscription) for x in group.members)
    return JoinGroupResponse(to=m.member_id, generation=group.generation, member_id=m.member_id,
                             leader=group.leader, protocol=group.protocol, members=members)


def _with_member(group: Group, member: GroupMember) -> Group:
    others = tuple(m for m in group.members if m.member_id != member.member_id)
    return group._replace(members=tuple(sorted(others + (member,))))


def prepare_rebalance(group: Group, why: str) -> Outcome:
    """Move to PreparingRebalance; SyncGroups waiting in CompletingRebalance fail."""
    out = []
    if group.status == COMPLETING:
        for m in group.members:
            if m.syncing:
                out.append((m.slot, SyncGroupResponse(to=m.member_id, error=REBALANCE_IN_PROGRESS,
                                                      generation=group.generation)))
    members = tuple(m._replace(joined=False, syncing=False) for m in group.members)
    group = group._replace(status=PREPARING, members=members)
    return Outcome(group, tuple(out), (Event("rebalance_started", note=why),))


def maybe_complete_join(group: Group) -> Outcome:
    """Complete the join phase once every member has rejoined (initNextGeneration)."""
    if group.status != PREPARING or not all(m.joined for m in group.members):
        return Outcome(group, (), ())
    generation = group.generation + 1
    if not group.members:
        empty = group._replace(status=EMPTY, generation=generation, protocol="", leader=NO_MEMBER)
        return Outcome(empty, (), (Event("group_empty", note=f"generation {generation}"),))
    ids = [m.member_id for m in group.members]
    # Kafka keeps the leader while it is a member; otherwise it takes the first member
    # of its map (unspecified order). The model takes the lowest member id.
    leader = group.leader if group.leader in ids else min(ids)
    protocol = select_protocol([m.protocols for m in group.members]) or ""
    members = tuple(m._replace(joined=False, assignment=0) for m in group.members)
    group = group._replace(status=COMPLETING, generation=generation, protocol=protocol,
                           leader=leader, members=members)
    out = tuple((m.slot, _join_response(group, m)) for m in group.members)
    return Outcome(group, out, (Event("join_completed", note=f"generation {generation}, leader m{leader}"),))


def _chain(first: Outcome, second: Outcome) -> Outcome:
    """``first`` then ``second``: the second's group, both outcomes' responses and events in order."""
    return Outcome(second.group, first.out + second.out, first.events + second.events)


def remove_member(group: Group, member_id: int, why: str) -> Outcome:
    """removeMemberAndUpdateGroup: answer its waiting requests, then rebalance."""
    m = group.member(member_id)
    if m is None:
        return Outcome(group, (), ())
    out = []
    if m.joined:
        out.append((m.slot, JoinGroupResponse(to=member_id, error=UNKNOWN_MEMBER_ID)))
    if m.syncing:
        out.append((m.slot, SyncGroupResponse(to=member_id, error=UNKNOWN_MEMBER_ID,
                                              generation=group.generation)))
    members = tuple(x for x in group.members if x.member_id != member_id)
    leader = NO_MEMBER if group.leader == member_id else group.leader
    group = group._replace(members=members, leader=leader)
    result = Outcome(group, tuple(out), (Event("member_removed", m.slot, note=f"m{member_id}: {why}"),))
    if group.status in (STABLE, COMPLETING):
        result = _chain(result, prepare_rebalance(group, f"m{member_id} left"))
    return _chain(result, maybe_complete_join(result.group))


def join_group(group: Group, slot: int, req: JoinGroup) -> Outcome:
    if group.status == DEAD:   # a Dead group was removed; a JoinGroup creates it anew
        group = new_group()._replace(next_id=group.next_id)
    member_protocols = [m.protocols for m in group.members]
    if group.status != EMPTY and not supports(member_protocols, req.protocols):
        return Outcome(group, ((slot, JoinGroupResponse(to=req.member_id, error=INCONSISTENT_GROUP_PROTOCOL)),), ())
    if req.member_id == NO_MEMBER:
        mid = group.next_id
        group = group._replace(next_id=mid + 1, pending=group.pending + (mid,))
        return Outcome(group, ((slot, JoinGroupResponse(to=NO_MEMBER, error=MEMBER_ID_REQUIRED, member_id=mid)),), ())
    known = group.member(req.member_id)
    if known is None:
        if req.member_id not in group.pending:
            return Outcome(group, ((slot, JoinGroupResponse(to=req.member_id, error=UNKNOWN_MEMBER_ID)),), ())
        member = GroupMember(member_id=req.member_id, slot=slot, protocols=req.protocols,
                             subscription=req.subscription, joined=True, syncing=False, assignment=0)
        group = group._replace(pending=tuple(p for p in group.pending if p != req.member_id))
        added = Outcome(group, (), (Event("member_added", slot, note=f"m{req.member_id}"),))
        if group.status != PREPARING:
            added = _chain(added, prepare_rebalance(group, f"m{req.member_id} joined"))
        group = _with_member(added.group, member)
        return _chain(added._replace(group=group), maybe_complete_join(group))
    updated = known._replace(slot=slot, protocols=req.protocols, subscription=req.subscription, joined=True)
    matches = known.protocols == req.protocols and known.subscription == req.subscription
    if group.status == PREPARING:
        return maybe_complete_join(_with_member(group, updated))
    if group.status == COMPLETING and matches:
        # "member is joining with the same metadata ... just return current group information"
        return Outcome(group, ((slot, _join_response(group, known)),), ())
    if group.status == STABLE and matches and known.member_id != group.leader:
        return Outcome(group, ((slot, _join_response(group, known)),), ())
    why = "leader rejoined" if known.member_id == group.leader and matches else f"m{req.member_id} metadata changed"
    prepared = prepare_rebalance(group, why)
    group = _with_member(prepared.group, updated)
    return _chain(prepared._replace(group=group), maybe_complete_join(group))


def sync_group(group: Group, slot: int, member_id: int, generation: int,
               assignments: tuple[tuple[int, int], ...]) -> Outcome:
    m = group.member(member_id)

    def reply(error: str, assignment: int = 0) -> Outcome:
        return Outcome(group, ((slot, SyncGroupResponse(to=member_id, error=error, generation=generation,
                                                         assignment=assignment)),), ())

    if m is None or group.status in (EMPTY, DEAD):
        return reply(UNKNOWN_MEMBER_ID)
    if generation != group.generation:
        return reply(ILLEGAL_GENERATION)
    if group.status == PREPARING:
        return reply(REBALANCE_IN_PROGRESS)
    if group.status == STABLE:
        return reply(NONE, m.assignment)
    group = _with_member(group, m._replace(slot=slot, syncing=True))
    if member_id != group.leader:
        return Outcome(group, (), ())
    # the leader's assignment: store it, go Stable, answer every waiting SyncGroup
    given = dict(assignments)
    waiting = {x.member_id for x in group.members if x.syncing}
    members = tuple(x._replace(syncing=False, assignment=given.get(x.member_id, 0)) for x in group.members)
    out = tuple((x.slot, SyncGroupResponse(to=x.member_id, error=NONE, generation=generation,
                                           assignment=x.assignment))
                for x in members if x.member_id in waiting)
    group = group._replace(status=STABLE, members=members)
    return Outcome(group, out, (Event("group_stable", note=f"generation {generation}"),))


def heartbeat(group: Group, slot: int, member_id: int, generation: int) -> Outcome:
    if group.status in (EMPTY, DEAD) or group.member(member_id) is None:
        error = UNKNOWN_MEMBER_ID
    elif generation != group.generation:
        error = ILLEGAL_GENERATION
    elif group.status == PREPARING:
        error = REBALANCE_IN_PROGRESS
    else:
        error = NONE
    return Outcome(group, ((slot, HeartbeatResponse(to=member_id, error=error)),), ())


def leave_group(group: Group, member_id: int) -> Outcome:
    """handleLeaveGroup: a pending member (issued an id by MEMBER_ID_REQUIRED, not yet
    joined) is simply forgotten; a member is removed and the group rebalances."""
    if member_id in group.pending:
        return Outcome(group._replace(pending=tuple(p for p in group.pending if p != member_id)), (), ())
    return remove_member(group, member_id, "LeaveGroup")


def rebalance_timeout(group: Group, stragglers: tuple[int, ...]) -> Outcome:
    """The rebalance timeout removes members that did not rejoin, then completes the join."""
    result = Outcome(group, (), ())
    for mid in stragglers:
        result = _chain(result, remove_member(result.group, mid, "rebalance timeout"))
    return _chain(result, maybe_complete_join(result.group))


def delete_group(group: Group) -> Outcome:
    """DeleteGroups on an Empty group: it becomes Dead (a later JoinGroup creates it anew)."""
    return Outcome(group._replace(status=DEAD), (), (Event("group_deleted"),))


__all__ = [
    "Event", "Outcome", "new_group", "join_group", "sync_group", "heartbeat", "leave_group",
    "remove_member", "rebalance_timeout", "delete_group",
]
