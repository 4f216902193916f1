"""Classic consumers in the explorable model (scope field ``classic``): the first ``classic`` slots
start as cooperative classic consumers holding a STABLE classic group; the others start on the
consumer protocol, and the first one's heartbeat converts the group online (``migration.py``).
A classic client ``upgrade``s: it closes (LeaveGroup) and goes DOWN, and ``restart`` brings it
back on the consumer protocol (a new incarnation, a new member id).

The coordinator's value is split across the state: ``state.group`` is the consumer group (dead
while the id holds a classic group) and ``state.classic`` the rest: the ClassicGroup, or the
classic members' metadata of a consumer group with classic members (None when there is none).
``held(state)`` puts them together for the handlers; ``store`` splits a handler's result.

    ACTION_KINDS; actions(scope, state); step(scope, state, action)
    heartbeat(scope, state, request) -> (Outcome with the consumer group, state.classic after, replies)
    session_timeout(scope, state, member_id) -> (Outcome, state.classic after)
    live(state) -> (slot, classic client) pairs whose member the coordinator holds
    converged(scope, state, slot); replay_matches(records, prev, nxt)

Kafka facts are in ``classic_clients.py`` (the client), ``migration_classic.py`` (the
coordinator's translation) and ``migration.py`` (the conversions). A classic request is sent and
handled in one step (the model does not interleave its arrival); its response, when the
coordinator gives one (a classic group answers a JoinGroup when everybody joined), waits to be read.
"""
from __future__ import annotations

from dataclasses import replace

from . import classic_clients as cc
from .coordinator import Cluster, Config
from .coordinator_update import SWITCHES
from .group import Group, new_group
from .migration import ClassicGroup, MigratingGroup, consumer_heartbeat, consumer_session_timeout
from .migration_state import MIGRATION_SWITCHES
from .migration_state import replay as replay_any
from .world import DOWN, Action, Client, Event, Handled, member_id, slot_of

ACTION_KINDS = ("classic_send", "classic_deliver", "upgrade", "classic_expire")


def config_of(scope) -> Config:
    return Config(migration_policy=scope.migration_policy)


def switches_of(scope) -> tuple:
    """The scope's switches the coordinator reads (not the client's)."""
    return tuple(x for x in scope.switches if x in SWITCHES or x in MIGRATION_SWITCHES)


def init(scope, group_id: str, index, topics):
    """(consumer group (dead), state.classic, clients): slots 0..classic-1 classic members of a
    STABLE classic group; the others start on the consumer protocol."""
    classic, clients = cc.init(group_id, scope.classic, index, topics)
    return replace(new_group(group_id, index), dead=True), classic, clients


def held(state):
    """What the coordinator holds for the group id: a ClassicGroup, a MigratingGroup or a Group."""
    if isinstance(state.classic, ClassicGroup):
        return state.classic
    if state.classic:
        return MigratingGroup(state.group, state.classic)
    return state.group


def store(state, group):
    """``state`` holding ``group`` (any of ``held``'s types)."""
    if isinstance(group, ClassicGroup):
        return state._replace(group=replace(new_group(group.group_id, state.group.partition_index), dead=True),
                              classic=group)
    if isinstance(group, MigratingGroup):
        return state._replace(group=group.group, classic=group.classic)
    return state._replace(group=group, classic=None)


def restart(incarnation: int) -> cc.ClassicClient:
    """A client that closed with ``downgrade`` starts again on the classic protocol: a new
    member id, no generation, nothing owned; its first request is a JoinGroup."""
    return cc.ClassicClient(cc.REJOINING, incarnation, -1, 0)


def active(c) -> bool:
    """A classic client that takes part in the group (not closed, not failed)."""
    return c.status not in (cc.DOWN, cc.FAILED)


def is_classic(c) -> bool:
    return isinstance(c, cc.ClassicClient)


def live(state):
    """Classic clients consuming as members of the coordinator's group."""
    g = held(state)
    for s, c in enumerate(state.clients):
        if is_classic(c) and c.status != cc.DOWN and cc.is_classic_member(g, member_id(s, c.incarnation)):
            yield s, c


def actions(scope, state) -> list:
    out = []
    g = held(state)
    for s, c in enumerate(state.clients):
        if not is_classic(c):
            continue
        if c.reply is not None:
            out.append(Action("classic_deliver", s))
        elif c.status in (cc.MEMBER, cc.REJOINING, cc.SYNCING):
            out.append(Action("classic_send", s))
            if c.status == cc.MEMBER:
                out.append(Action("upgrade", s))
    for mid in _classic_member_ids(g):
        s, inc = slot_of(mid)
        c = state.clients[s]
        if not (is_classic(c) and c.incarnation == inc and c.status != cc.DOWN):
            out.append(Action("classic_expire", s, inc))
    return out


def _classic_member_ids(g) -> tuple:
    if isinstance(g, ClassicGroup):
        return tuple(m.member_id for m in g.state.members)
    if isinstance(g, MigratingGroup):
        return tuple(mid for mid, _ in g.classic)
    return ()


def step(scope, state, action, index, names):
    """A classic action: (state, events)."""
    k, s = action.kind, action.slot
    clients = list(state.clients)
    c = clients[s]
    cfg, sw = config_of(scope), switches_of(scope)
    if k == "classic_deliver":
        clients[s] = cc.on_response(c, c.reply, index)
        return state._replace(clients=tuple(clients)), (Event(k, s, clients[s].status),)
    if k == "classic_send":
        msg = cc.request(s, c, index, names)
        group, responses, records, events = cc.handle(held(state), s, msg, Cluster(state.topics), index, scope.profile,
                                                      cfg, sw)
        clients[s] = c._replace(status=cc.WAITING)
        clients = cc.answer(clients, responses)
        nxt = store(state, group)._replace(clients=tuple(clients))      # step.py keeps the rounds
        return nxt, (Event(k, s, msg.kind, Handled(request=msg, response=responses, records=records, events=events)),)
    if k == "upgrade":
        group, _, records, events, responses = cc.upgrade(held(state), s, c, cfg, switches=sw)
        clients = cc.answer(clients, responses)
        clients[s] = Client(status=DOWN, incarnation=c.incarnation, epoch=0, owned=0, target=0, sub=0, sent=None,
                            request=None, reply=None)   # restart: consumer protocol
        nxt = store(state, group)._replace(clients=tuple(clients), calm=0, beaten=0, fresh=0)
        handled = Handled(request=None, response=None, records=records, events=events)
        return nxt, (Event(k, s, "LeaveGroup, restarts on the consumer protocol", handled),)
    mid = member_id(s, action.arg)                       # classic_expire
    group, responses, records, events = cc.expire(held(state), mid, cfg, switches=sw)
    nxt = store(state, group)._replace(clients=tuple(cc.answer(clients, responses)), calm=0, beaten=0, fresh=0)
    return nxt, (Event(k, s, mid, Handled(request=None, response=None, records=records, events=events)),)


def heartbeat(scope, state, request, profile, switches, index):
    """A consumer-protocol heartbeat while the id holds a classic group or classic members:
    (outcome, the state holding its group, the classic clients' replies after a conversion)."""
    before = held(state)
    out = consumer_heartbeat(before, request, Cluster(state.topics), profile, config_of(scope), switches,
                             partition_index=index)
    clients = cc.answer(list(state.clients), cc.conversion_replies(before)
                        if isinstance(before, ClassicGroup) and not isinstance(out.group, ClassicGroup) else ())
    return out, store(state, out.group)._replace(clients=tuple(clients))


def session_timeout(scope, state, mid):
    out = consumer_session_timeout(held(state), mid, config=config_of(scope), switches=switches_of(scope))
    return out, store(state, out.group)


def converged(state, slot: int, index) -> bool:
    """Judged after the client reads the response it has waiting, if any."""
    c = state.clients[slot]
    if c.reply is not None:
        c = cc.on_response(c, c.reply, index)
    return cc.converged(held(state), slot, c, index)


def replay_matches(records, prev, nxt) -> bool:
    """The records of a step turn what the coordinator held into what it holds (a classic group
    created by a JoinGroup is not written until its rebalance completes)."""
    before, after = held(prev), held(nxt)
    if isinstance(before, ClassicGroup) and isinstance(after, ClassicGroup):
        return True
    got = replay_any(records, before, partition_index=prev.group.partition_index)
    if isinstance(after, ClassicGroup) and not any(type(r).__name__ == "ClassicGroupMetadata" for r in records):
        return isinstance(got, Group) and got.dead
    return got == after


def upgrade_refused(scope, state, request) -> str:
    """The error a ConsumerGroupHeartbeat meets while the id holds a classic group with members
    ("": none, the group converts): GROUP_ID_NOT_FOUND unless it joins (epoch 0), the profile
    migrates (not 3.7) and the policy allows an upgrade (validateOnlineUpgrade; the scope's
    classic consumers use the consumer embedded protocol and the group has no size limit)."""
    g = state.classic
    if not isinstance(g, ClassicGroup) or not g.state.members:
        return ""
    allowed = request.member_epoch == 0 and scope.profile != "kafka-3.7" and scope.migration_policy in (
        "upgrade", "bidirectional")
    return "" if allowed else "GROUP_ID_NOT_FOUND"


def canonical_part(state) -> object:
    return state.classic


__all__ = ["ACTION_KINDS", "actions", "canonical_part", "upgrade_refused", "converged", "heartbeat", "held", "init", "is_classic", "live",
           "replay_matches", "session_timeout", "step", "store"]
