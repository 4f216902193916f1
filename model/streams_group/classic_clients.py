"""Classic Streams clients in the explorable model (KIP-1071 "Online Migration from a
Classic Consumer Group to a Streams Group"): the scope's first ``classic`` slots start as
members of a classic Streams group; each speaks JoinGroup / SyncGroup / Heartbeat (the
messages of ``model/consumer/state.py``, as ``migration_classic`` translates them) until
it ``upgrade``s: the rolling upgrade users do, closing the client and restarting it on the
streams protocol (``group.protocol=streams``).

    init(scope, group_id, topology, task_index, topics) -> (classic group, clients)
    request(slot, client) -> JoinGroup | SyncGroup | Heartbeat
    handle(group, slot, message, ...) -> (group, response, records, events)
    on_response(slot, client, response) -> client
    upgrade(client) -> client
    rebalance_unmodelled(state) -> bool

The classic group before the first streams member (and after the conversion back) is
handled by the classic coordinator of ``model/consumer/coordinator.py``. What this model
does NOT explore: a rebalance of a pure classic group with a running classic client
(its leader's StreamsPartitionAssignor is the business of ``model/streams_classic``);
``rebalance_unmodelled`` names those states and ``step.within_bounds`` stops there. A
classic group whose classic clients have all stopped needs no rebalance: its members'
sessions expire one by one until it is Empty.

Kafka facts: Kafka Streams' main consumer does not leave the group on close under the
classic protocol (StreamsConfig#getMainConsumerConfigs: ``internal.leave.group.on.close``
= false), so an upgraded client's old member stays until its session times out (the
model's ``expire``). A classic member restarts as a new member id: a restart is a new
incarnation here as for streams clients.
"""
from __future__ import annotations

from dataclasses import replace

from ..consumer import coordinator as classic_coordinator
from ..consumer.state import (EMPTY as CLASSIC_EMPTY, ILLEGAL_GENERATION, NONE, REBALANCE_IN_PROGRESS,
                              STABLE as CLASSIC_STABLE, UNKNOWN_MEMBER_ID, GroupMember, Heartbeat, JoinGroup,
                              SyncGroup)
from ..consumer.state import Group as ClassicGroup
from .group import NO_TASKS, Group, Member, mask_of, new_group, task_ids_of
from .member import running
from .migration import PROTOCOL, MigratingGroup, StreamsAssignment, StreamsSubscription, streams_of
from .migration_classic import classic_heartbeat, classic_join, classic_sync
from .target import new_target
from .topology import configure
from .world import DOWN, FAILED, MEMBER, REJOINING, SYNCING, Client, member_id

GENERATION = 1            # the classic group's generation when the exploration starts


def init(scope, group_id: str, topology, task_index, topics: dict, config) -> tuple[ClassicGroup, list[Client]]:
    """The classic group STABLE at ``GENERATION``, held by the first ``scope.classic`` slots,
    each running the assignment of that generation (placed by the broker's task assignor,
    standing in for the classic leader's StreamsPartitionAssignor)."""
    n = scope.classic
    procs = [f"p{s // scope.members_per_process}" for s in range(n)]
    members = tuple(Member(member_id(s, 0), process_id=procs[s], topology_epoch=topology.epoch) for s in range(n))
    g = replace(new_group(group_id, task_index), topology=topology, members=members)
    target = new_target(g, configure(topology, topics, scope.profile), config.assignment, config.assignor)
    classic_members, clients = [], []
    for s in range(n):
        active, standby, warm = target[member_id(s, 0)]
        owned = (active, standby | warm, 0)
        sub = StreamsSubscription(procs[s], task_ids_of(task_index, owned[0]), task_ids_of(task_index, owned[1]))
        a = StreamsAssignment(sub.owned_active, sub.owned_standby)
        classic_members.append(GroupMember(member_id(s, 0), s, (PROTOCOL,), sub, False, False, a))
        clients.append(Client(MEMBER, 0, GENERATION, owned, 0, 0, False, None, None, classic=True))
    leader = classic_members[0].member_id
    return ClassicGroup(CLASSIC_STABLE, GENERATION, PROTOCOL, leader, tuple(classic_members), (), 1), clients


def subscription(scope, slot: int, c: Client, task_index) -> StreamsSubscription:
    """KIP: "The consumers on the classic protocol send their owned active and standby tasks
    in the JoinGroup request"."""
    return StreamsSubscription(f"p{slot // scope.members_per_process}", task_ids_of(task_index, c.owned[0]),
                               task_ids_of(task_index, c.owned[1]))


def request(scope, slot: int, c: Client, task_index):
    mid = member_id(slot, c.incarnation)
    if c.status == REJOINING:
        return JoinGroup(member_id=mid, protocols=(PROTOCOL,), subscription=subscription(scope, slot, c, task_index))
    if c.status == SYNCING:
        return SyncGroup(member_id=mid, generation=c.epoch)
    return Heartbeat(member_id=mid, generation=c.epoch)


def in_round(message) -> bool:
    """What counts for the convergence monitor's heartbeat rounds (``step._monitor``): a
    classic client's round is its Heartbeat; the JoinGroup and SyncGroup it leads to belong
    to that round (a classic rebalance takes more requests than a streams heartbeat)."""
    return message.kind in ("Heartbeat", "HeartbeatResponse")


def handle(group, slot: int, message, cluster, profile, config):
    """The coordinator answers a classic request: (group, response, records, events)."""
    if isinstance(group, MigratingGroup):
        if isinstance(message, JoinGroup):
            out = classic_join(group, message, cluster, profile, config)
        elif isinstance(message, SyncGroup):
            out = classic_sync(group, message)
        else:
            out = classic_heartbeat(group, message)
        return out.group, out.response, out.records, out.events
    if isinstance(group, ClassicGroup) and isinstance(message, Heartbeat):
        out = classic_coordinator.heartbeat(group, slot, message.member_id, message.generation)
        return group, out.out[0][1], (), ()
    # A JoinGroup / SyncGroup to a pure classic group is a classic rebalance (not explored:
    # ``rebalance_unmodelled`` stops first); a classic request to a streams group without
    # classic members cannot come from a running classic client (its member is in the group).
    raise AssertionError(f"classic {message.kind} to a {type(group).__name__}: not explored")


def on_response(c: Client, response, task_index) -> Client:
    """ConsumerCoordinator (classic, cooperative), as Streams runs it: REBALANCE_IN_PROGRESS
    rejoins keeping the tasks; ILLEGAL_GENERATION resets the generation and loses the tasks
    (onPartitionsLost); UNKNOWN_MEMBER_ID also resets the member id (a new one: a new
    incarnation here; the MEMBER_ID_REQUIRED round trip is not modelled); a SyncGroup's
    assignment replaces what the client runs (revoked tasks closed), and having revoked
    something it rejoins at once (cooperative onJoinComplete)."""
    c = c._replace(reply=None)
    err = response.error
    if err == UNKNOWN_MEMBER_ID:
        return c._replace(status=REJOINING, incarnation=c.incarnation + 1, epoch=0, owned=NO_TASKS)
    if err == ILLEGAL_GENERATION:
        return c._replace(status=REJOINING, epoch=0, owned=NO_TASKS)
    if err == REBALANCE_IN_PROGRESS:
        return c._replace(status=REJOINING)
    if err != NONE:
        return c._replace(status=FAILED, owned=NO_TASKS)
    if response.kind == "JoinGroupResponse":
        return c._replace(status=SYNCING, epoch=response.generation)
    if response.kind == "SyncGroupResponse":
        return _synced(c, response.assignment, task_index)
    return c


def _synced(c: Client, a: StreamsAssignment, task_index) -> Client:
    owned = (mask_of(task_index, a.active), mask_of(task_index, a.standby), 0)
    revoked = c.owned[0] & ~owned[0]
    return c._replace(status=REJOINING if revoked else MEMBER, owned=owned)


def upgrade(c: Client) -> Client:
    """The client closes (no LeaveGroup: ``internal.leave.group.on.close`` is false) and
    will restart (``restart``) on the streams protocol."""
    return c._replace(status=DOWN, classic=False, epoch=0, owned=NO_TASKS, caught=0)


def is_classic_member(group, mid: str) -> bool:
    if isinstance(group, ClassicGroup):
        return group.member(mid) is not None
    return isinstance(group, MigratingGroup) and group.is_classic(mid)


def holds(group, mid: str) -> bool:
    """``mid`` is a member of the coordinator's group, whatever its type."""
    if isinstance(group, ClassicGroup):
        return group.member(mid) is not None
    g = streams_of(group)
    return not g.dead and g.member(mid) is not None


def classic_member_ids(group) -> tuple[str, ...]:
    if isinstance(group, ClassicGroup):
        return tuple(m.member_id for m in group.members)
    if isinstance(group, MigratingGroup):
        return tuple(mid for mid, _ in group.classic)
    return ()


def expire(group, mid: str):
    """A classic member's session expired in a pure classic group
    (removeMemberAndUpdateClassicGroup): removed; the group rebalances, and with nobody
    left completes the join as Empty at the next generation."""
    out = classic_coordinator.remove_member(group, mid, "session timeout")
    return out.group


def rebalance_unmodelled(state) -> bool:
    """A pure classic group rebalancing (PreparingRebalance / CompletingRebalance) while a
    classic client runs: its JoinGroup would meet the classic coordinator's purgatory and a
    leader's assignment, which this model does not explore."""
    g = state.group
    return (isinstance(g, ClassicGroup) and g.status not in (CLASSIC_STABLE, CLASSIC_EMPTY)
            and any(c.classic and running(c) for c in state.clients))


def converged(group, slot: int, c: Client) -> bool:
    """A classic client at its target: in a migrating group at the target epoch running the
    target (warm-ups as standbys); in a classic group STABLE at its generation (a pure
    classic group never reassigns here: its rebalances are not explored)."""
    mid = member_id(slot, c.incarnation)
    if c.status != MEMBER:
        return False
    if c.reply is not None and (c.reply.kind != "HeartbeatResponse" or c.reply.error != NONE):
        return False   # it reads a response that changes something first
    if isinstance(group, ClassicGroup):
        return group.status == CLASSIC_STABLE and group.member(mid) is not None and c.epoch == group.generation
    if not isinstance(group, MigratingGroup) or not group.is_classic(mid):
        return False
    g = group.group
    m, t = g.member(mid), g.target_of(mid)
    return (c.epoch == g.target_assignment_epoch and m.is_reconciled_to(g.target_assignment_epoch)
            and c.owned == (t[0], t[1] | t[2], 0))


__all__ = ["GENERATION", "REJOINING", "SYNCING", "classic_member_ids", "converged", "expire", "handle", "holds",
           "in_round", "init", "is_classic_member", "on_response", "rebalance_unmodelled", "request", "upgrade"]
