"""Classic Streams clients in the explorable model (KIP-1071 "Online Migration from a
Classic Consumer Group to a Streams Group"): the scope's first ``classic`` slots start as
members of a classic Streams group; each speaks JoinGroup / SyncGroup / Heartbeat (the
messages of ``model/consumer/state.py``, as ``migration_classic`` translates them) until
it ``upgrade``s: the rolling upgrade users do, closing the client and restarting it on the
streams protocol (``group.protocol=streams``).

    init(scope, group_id, topology, task_index, topics) -> (classic group, clients)
    request(slot, client) -> JoinGroup | SyncGroup | Heartbeat
    handle(group, slot, message, ...) -> (group, responses, records, events)
    on_response(client, response, task_index) -> client
    assign(classic group, ...) -> the classic leader's assignment
    upgrade(client) -> client

The classic group before the first streams member (and after the conversion back) is
handled by the classic coordinator of ``model/consumer/coordinator.py``: JoinGroup waits
until every member has joined (a member whose client is gone is removed when its session
expires), the leader's SyncGroup carries the assignment (``assign``: the broker's task
assignor standing in for Streams' StreamsPartitionAssignor, with its cooperative rule),
the others' SyncGroup waits for it. Not modelled: static members, join/sync timeouts of
running clients, version probing and the assignor's follow-up probing rebalances (the
business of ``model/streams_classic``).

Kafka facts: Kafka Streams' main consumer does not leave the group on close under the
classic protocol (StreamsConfig#getMainConsumerConfigs: ``internal.leave.group.on.close``
= false), so an upgraded client's old member stays until its session times out (the
model's ``expire``). A classic member restarts as a new member id: a restart is a new
incarnation here as for streams clients.
"""
from __future__ import annotations

from dataclasses import replace

from ..consumer import coordinator as classic_coordinator
from ..consumer.state import EMPTY as CLASSIC_EMPTY
from ..consumer.state import (COMPLETING, ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL, NONE,
                              REBALANCE_IN_PROGRESS, STABLE as CLASSIC_STABLE, UNKNOWN_MEMBER_ID, GroupMember,
                              Heartbeat, HeartbeatResponse, JoinGroup, JoinGroupResponse, SyncGroup,
                              SyncGroupResponse)
from ..consumer.state import Group as ClassicGroup
from .coordinator_update import coordinator_profile
from .group import ACTIVE, NO_TASKS, STANDBY, WARMUP, Group, Member, mask_of, new_group, task_ids_of
from .migration import PROTOCOL, MigratingGroup, StreamsAssignment, StreamsSubscription, streams_of
from .migration_classic import classic_heartbeat, classic_join, classic_sync
from .target import new_target
from .topology import configure
from .world import DOWN, FAILED, MEMBER, REJOINING, SYNCING, WAITING, Client, Event, Handled, member_id, slot_of

GENERATION = 1            # the classic group's generation when the exploration starts


def init(scope, group_id: str, topology, task_index, topics: dict, config) -> tuple[ClassicGroup, list[Client]]:
    """The classic group STABLE at ``GENERATION``, held by the first ``scope.classic`` slots,
    each running the assignment of that generation (placed by the broker's task assignor,
    standing in for the classic leader's StreamsPartitionAssignor)."""
    n = scope.classic
    procs = [f"p{s // scope.members_per_process}" for s in range(n)]
    members = tuple(Member(member_id=member_id(s, 0), process_id=procs[s], topology_epoch=topology.epoch)
                    for s in range(n))
    g = replace(new_group(group_id, task_index), topology=topology, members=members)
    target = new_target(g, configure(topology, topics, scope.profile), config.assignment, config.assignor)
    classic_members, clients = [], []
    for s in range(n):
        active, standby, warm = target[member_id(s, 0)]
        owned = (active, standby | warm, 0)
        sub = StreamsSubscription(procs[s], task_ids_of(task_index, owned[ACTIVE]),
                                  task_ids_of(task_index, owned[STANDBY]))
        a = StreamsAssignment(sub.owned_active, sub.owned_standby)
        classic_members.append(GroupMember(member_id=member_id(s, 0), slot=s, protocols=(PROTOCOL,), subscription=sub,
                                           joined=False, syncing=False, assignment=a))
        clients.append(Client(status=MEMBER, incarnation=0, epoch=GENERATION, owned=owned, topology_epoch=0, caught=0,
                              shutdown=False, request=None, reply=None, classic=True))
    leader = classic_members[0].member_id
    return ClassicGroup(status=CLASSIC_STABLE, generation=GENERATION, protocol=PROTOCOL, leader=leader,
                        members=tuple(classic_members), pending=(), next_id=1), clients


def subscription(scope, slot: int, c: Client, task_index) -> StreamsSubscription:
    """KIP: "The consumers on the classic protocol send their owned active and standby tasks
    in the JoinGroup request"."""
    return StreamsSubscription(f"p{slot // scope.members_per_process}", task_ids_of(task_index, c.owned[ACTIVE]),
                               task_ids_of(task_index, c.owned[STANDBY]))


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


def handle(group, slot: int, message, cluster, profile, config, leader):
    """The coordinator answers a classic request: (group, responses as (member id, response)
    pairs, records, events). ``leader(group)``: the classic leader's assignment (``assign``).
    A pure classic group answers a JoinGroup when every member has joined and a SyncGroup
    when the leader's arrives, so a response may go to other members, or to none yet."""
    if isinstance(group, Group):
        # A classic client whose member left a streams group (not reached by the model's
        # scopes: a running classic client's member is never removed).
        assert not group.dead, f"classic {message.kind} to no group"
        if coordinator_profile(profile).streams.name != "kip-1071":
            # GroupMetadataManager#classicGroupJoin: "Group exists but it's not a consumer group"
            return group, ((message.member_id, _error(message, INCONSISTENT_GROUP_PROTOCOL)),), (), ()
        group = MigratingGroup(group, ())   # kip-1071: a classic member joins a streams group
    if isinstance(group, MigratingGroup):
        if isinstance(message, JoinGroup):
            out = classic_join(group, message, cluster, profile, config)
        elif isinstance(message, SyncGroup):
            out = classic_sync(group, message)
        else:
            out = classic_heartbeat(group, message)
        return out.group, ((message.member_id, out.response),), out.records, out.events
    if isinstance(message, Heartbeat):
        out = classic_coordinator.heartbeat(group, slot, message.member_id, message.generation)
    elif isinstance(message, JoinGroup):
        if group.member(message.member_id) is None and message.member_id not in group.pending:
            # KIP-394's MEMBER_ID_REQUIRED round trip, collapsed: the new id is pending at once
            group = group._replace(pending=group.pending + (message.member_id,))
        out = classic_coordinator.join_group(group, slot, message)
    else:
        assignments = leader(group) if group.status == COMPLETING and message.member_id == group.leader else ()
        out = classic_coordinator.sync_group(group, slot, message.member_id, message.generation, assignments)
    return _kept(group, out.group), tuple((r.to, r) for _, r in out.out), (), ()


def handle_step(state, slot: int, cluster, profile, config, leader):
    """``step`` of a classic client's ``handle``: the client waits until a response reaches
    it (at once in a migrating group; in a classic group when the join or sync completes)."""
    c = state.clients[slot]
    group, responses, records, events = handle(state.group, slot, c.request, cluster, profile, config, leader)
    clients = list(state.clients)
    clients[slot] = c._replace(request=None, status=WAITING)
    clients = answer(clients, responses)
    answered = clients[slot].reply.error if clients[slot].reply is not None else "waits"
    nxt = state._replace(group=group, clients=tuple(clients))
    handled = Handled(request=c.request, response=responses, records=records, events=events)
    return nxt, (Event("handle", slot, f"{c.request.kind} -> {answered}", handled),)


def written(record, before, after):
    """The classic group's last record after a step: Kafka writes GroupMetadata when the
    group reaches Stable (the leader's SyncGroup) or Empty (completeClassicGroupJoin), and
    when a streams group converts back (convertToClassicGroup); a conversion to streams
    writes its tombstone (None)."""
    if not isinstance(after, ClassicGroup):
        return None
    if not isinstance(before, ClassicGroup):
        return after
    if after.status in (CLASSIC_STABLE, CLASSIC_EMPTY) and (after.status, after.generation) != (
            before.status, before.generation):
        return after
    return record


def reload(state):
    """Failover of a classic group: GroupMetadataManager#replay(GroupMetadataKey, ...) loads
    the last record, "loadedMembers.isEmpty() ? EMPTY : STABLE", with its generation, leader
    and assignments (what happened since, a rebalance, a removed member, is lost; onLoaded
    reschedules every member's heartbeat). Requests waiting in the old coordinator's
    purgatory fail NOT_COORDINATOR (onUnloaded): those clients send them again."""
    r = state.classic_record
    members = tuple(m._replace(joined=False, syncing=False) for m in r.members)
    group = r._replace(status=CLASSIC_STABLE if members else CLASSIC_EMPTY, members=members, pending=())
    waiting = {m.member_id: (REJOINING if m.joined else SYNCING) for m in state.group.members}
    clients = tuple(c._replace(status=waiting.get(member_id(s, c.incarnation), REJOINING))
                    if c.classic and c.status == WAITING else c for s, c in enumerate(state.clients))
    return state._replace(group=group, clients=clients, shutdown=None, uncommitted=None)


def answer(clients: list, responses) -> list:
    """Deliver classic responses, by member id, to the clients waiting for them."""
    for mid, response in responses:
        slot, inc = slot_of(mid)
        c = clients[slot]
        if c.classic and c.incarnation == inc and c.status == WAITING:
            status = {"HeartbeatResponse": MEMBER, "JoinGroupResponse": REJOINING}.get(response.kind, SYNCING)
            clients[slot] = c._replace(reply=response, status=status)   # the status it sent from
    return clients


def _error(message, error):
    if isinstance(message, JoinGroup):
        return JoinGroupResponse(to=message.member_id, error=error)
    if isinstance(message, SyncGroup):
        return SyncGroupResponse(to=message.member_id, error=error, generation=message.generation)
    return HeartbeatResponse(to=message.member_id, error=error)


def _kept(before: ClassicGroup, after: ClassicGroup) -> ClassicGroup:
    """Kafka's ClassicGroup keeps a member's last assignment until the leader's SyncGroup
    replaces it (initNextGeneration does not clear it; ConsumerGroup.fromClassicGroup reads
    it: "set based on the last assignment of the classic group"); the consumer model's
    coordinator clears it when the join completes, so it is restored here."""
    last = {m.member_id: m.assignment for m in before.members}
    members = tuple(m if isinstance(m.assignment, StreamsAssignment) else
                    m._replace(assignment=last.get(m.member_id) or StreamsAssignment()) for m in after.members)
    return after._replace(members=members)


def assign(group: ClassicGroup, profile, task_index, topology, topics: dict, config) -> tuple:
    """The classic leader's assignment (StreamsPartitionAssignor, reduced): the broker's task
    assignor over the members' subscriptions (process, owned tasks as the previous
    assignment), then the cooperative rule: an active task still owned by another member is
    withheld from its new owner; the owner's assignment lacks it, so it revokes and rejoins,
    and the follow-up rebalance hands it on. Classic Streams has no warm-up role: a warm-up
    is sent as a standby."""
    owned = {m.member_id: (mask_of(task_index, m.subscription.owned_active),
                           mask_of(task_index, m.subscription.owned_standby), 0) for m in group.members}
    members = tuple(Member(member_id=m.member_id, process_id=m.subscription.process_id, topology_epoch=topology.epoch,
                           assigned=owned[m.member_id]) for m in group.members)
    g = replace(new_group("leader", task_index), topology=topology, members=members,   # the leader's working copy
                target_assignment=tuple(sorted(owned.items())))
    target = new_target(g, configure(topology, topics, profile), config.assignment, config.assignor)
    out = []
    for mid, (active, standby, warm) in sorted(target.items()):
        others = 0
        for other, tasks in owned.items():
            others |= tasks[ACTIVE] if other != mid else 0
        active &= ~others | owned[mid][ACTIVE]
        out.append((mid, StreamsAssignment(task_ids_of(task_index, active),
                                           task_ids_of(task_index, (standby | warm) & ~active))))
    return tuple(out)


def conversion_replies(before) -> tuple:
    """Converting a rebalancing classic group answers the JoinGroup and SyncGroup requests
    waiting there REBALANCE_IN_PROGRESS (GroupMetadataManager#convertToConsumerGroup:
    "If the ClassicGroup is rebalancing, inform the awaiting consumers of another ongoing
    rebalance so that they will rejoin for the new rebalance.")."""
    if not isinstance(before, ClassicGroup):
        return ()
    out = []
    for m in before.members:
        if m.joined:
            out.append((m.member_id, JoinGroupResponse(to=m.member_id, error=REBALANCE_IN_PROGRESS)))
        elif m.syncing:
            out.append((m.member_id, SyncGroupResponse(to=m.member_id, error=REBALANCE_IN_PROGRESS,
                                                       generation=before.generation)))
    return tuple(out)


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
    revoked = c.owned[ACTIVE] & ~owned[ACTIVE]
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


def expire(group: ClassicGroup, mid: str):
    """A classic member's session expired in a pure classic group
    (removeMemberAndUpdateClassicGroup): removed; the group rebalances (the removal may
    complete a join others wait in: their responses), and with nobody left completes the
    join as Empty at the next generation. (group, responses)."""
    out = classic_coordinator.remove_member(group, mid, "session timeout")
    return _kept(group, out.group), tuple((r.to, r) for _, r in out.out)


def converged(group, slot: int, c: Client, task_index) -> bool:
    """A classic client at its target: in a migrating group at the target epoch running the
    target (warm-ups as standbys); in a classic group STABLE at its generation running its
    assignment."""
    mid = member_id(slot, c.incarnation)
    if c.status != MEMBER:
        return False
    if c.reply is not None and (c.reply.kind != "HeartbeatResponse" or c.reply.error != NONE):
        return False   # it reads a response that changes something first
    if isinstance(group, ClassicGroup):
        m = group.member(mid)
        return (group.status == CLASSIC_STABLE and m is not None and c.epoch == group.generation
                and c.owned == (mask_of(task_index, m.assignment.active), mask_of(task_index, m.assignment.standby), 0))
    if not isinstance(group, MigratingGroup) or not group.is_classic(mid):
        return False
    g = group.group
    m, t = g.member(mid), g.target_of(mid)
    return (c.epoch == g.target_assignment_epoch and m.is_reconciled_to(g.target_assignment_epoch)
            and c.owned == (t[ACTIVE], t[STANDBY] | t[WARMUP], 0))


__all__ = ["GENERATION", "REJOINING", "SYNCING", "classic_member_ids", "converged", "expire", "handle", "holds",
           "in_round", "init", "is_classic_member", "on_response", "request", "upgrade",
           "answer", "assign", "conversion_replies", "handle_step", "reload", "written", "WAITING"]
