"""init_states, actions, step and canonical of a KIP-848 consumer group.

Protocol steps: ``send`` (a client sends its heartbeat, ``member.request``), ``handle`` (the
coordinator's ``heartbeat`` answers it), ``deliver`` (the client reads the response,
``member.on_response``), ``reconcile`` (the client's poll: commit, onPartitionsRevoked,
onPartitionsAssigned, ``member.reconcile``; the commit is judged by the coordinator's
``offset_commit``), ``restart`` (a down client starts again as a new incarnation), ``expire``
(the session of a member whose process is gone times out), ``rebalance_timeout`` (the
coordinator's rebalance timer of an UNREVOKED member that cannot revoke: stalled, or its
response lost), ``resume`` (a stalled application polls again), ``resolve`` (Kafka 4.0+: the
asynchronous regex resolution lands, ``coordinator.resolve_regexes``). Faults (spend the
budget): ``lose_response``, ``session_timeout`` (of a live member), ``crash``, ``stall``.
Budgeted operations: ``join`` (a joiner slot starts), ``leave`` (a client closes for good),
``roll`` (a client closes to restart: static members leave with -2), ``subscription_change``
(a client subscribes to t1 too), ``topic_change`` (t0 gains a partition), ``failover`` (a new
coordinator loads the log, ``failover.py``).
"""
from __future__ import annotations

from dataclasses import fields, replace
from functools import lru_cache

from ..epochs.rounds import add_slot, drop_slot, has_slot, response_read
from . import classic_world as classic
from . import delivery_steps as delivery
from . import failover as _failover
from .coordinator import (Cluster, Config, heartbeat, offset_commit, rebalance_timeout, resolve_regexes,
                          session_timeout)
from .coordinator_update import SWITCHES, switched
from .group import UNREVOKED, Group, Member, group_state, mask_of, new_group, partition_index, topic_partitions_of
from .migration_state import MIGRATION_SWITCHES
from .member import (Subscription, after_send, can_reconcile, client_rules, close, new_client, on_response,
                     reconcile, request, running)
from .profiles import REGEX_ASYNC
from .scope import ConsumerGroupScope
from .state import ERROR_NAMES, STABLE as GROUP_STABLE
from .world import (DOWNGRADED_ONLINE, UPGRADED_ONLINE, ACKNOWLEDGING, DOWN, FATAL, IN_GROUP, LOST_RECOVERED, RECONCILING, REVOKED, STABLE, STATIC_KEPT,
                    UNSUBSCRIBED, Action, Client, Event, Handled, Reply, State, member_id, slot_of)

GROUP_ID = "g"
REGEX = "t[0-9]"
K = 5            # heartbeat rounds converges_within_k allows: notice, target, revoke, ack, assign
FAULT_KINDS = ("lose_response", "session_timeout", "crash", "stall")
OPERATION_KINDS = ("join", "leave", "roll", "subscription_change", "topic_change", "failover", "downgrade")
BUDGETED = frozenset(FAULT_KINDS + OPERATION_KINDS)
PROGRESS = ("send", "handle", "deliver", "reconcile", "restart", "expire", "rebalance_timeout", "resume", "resolve",
            "classic_send", "classic_deliver", "classic_expire")
# the record layer's steps (scope.records, delivery_steps.py): progress, the producer, a fault
PROGRESS += delivery.KINDS
BUDGETED |= frozenset(delivery.FAULTS)
ACTION_KINDS = PROGRESS + FAULT_KINDS + OPERATION_KINDS + ("upgrade",) + delivery.ENVIRONMENT + delivery.FAULTS


# ---- the scope's fixed pieces ----

def topic(i: int) -> str:
    return f"t{i}"


def grows(scope: ConsumerGroupScope) -> bool:
    return "topic_change" in scope.operations and scope.partitions[0] < 4


@lru_cache(maxsize=64)
def index(scope: ConsumerGroupScope):
    """Every partition the scope may create (t0 one more with ``topic_change``)."""
    return partition_index((topic(i), p + (1 if i == 0 and grows(scope) else 0))
                           for i, p in enumerate(scope.partitions))


@lru_cache(maxsize=64)
def partition_names(scope: ConsumerGroupScope) -> tuple[str, ...]:
    """Each partition's name by its bit (``index``; the record layer's ``delivery.label``):
    topics may have unequal partition counts, so no stride names them."""
    return tuple(f"{t}-{p}" for t, p in index(scope))


def coordinator_switches(scope: ConsumerGroupScope) -> tuple[str, ...]:
    return tuple(s for s in scope.switches if s in SWITCHES)


def profile_of(scope: ConsumerGroupScope):
    return switched(scope.profile, coordinator_switches(scope))


def instance_id(slot: int) -> str:
    """A static client's ``group.instance.id``: one per slot, kept across incarnations."""
    return f"i{slot}"


def subscription(scope: ConsumerGroupScope, slot: int, c: Client) -> Subscription:
    """Names: every topic (with subscription_change: t0 only until the client changes); regex: ``t[0-9]``."""
    names = None
    if not scope.regex:
        n = len(scope.partitions)
        names = tuple(topic(i) for i in range(n if c.sub != 0 or "subscription_change" not in scope.operations else 1))
    return Subscription(names, REGEX if scope.regex else None, scope.assignor,
                        instance_id(slot) if scope.static else None)


def tps(scope: ConsumerGroupScope, mask: int):
    return topic_partitions_of(index(scope), mask)


def init_states(scope: ConsumerGroupScope) -> tuple[State, ...]:
    group = replace(new_group(GROUP_ID, index(scope)), dead=True)
    topics = tuple((topic(i), p) for i, p in enumerate(scope.partitions))
    first = scope.members - scope.joiners
    clients = tuple(new_client(0) if s < first else new_client(-1, DOWN) for s in range(scope.members))
    held = None
    if scope.classic:   # classic consumers holding a classic group (classic_world.py)
        group, held, first_slots = classic.init(scope, GROUP_ID, index(scope), topics)
        clients = tuple(first_slots) + clients[scope.classic:]
    state = State(group=group, topics=topics, clients=clients, budget=scope.budget, calm=0, beaten=0, classic=held)
    return (delivery.init(scope, index(scope), state) if scope.records else state,)


# ---- actions ----

def _idle(c: Client) -> bool:
    return c.request is None and c.reply is None and c.status != "waiting"


def actions(scope: ConsumerGroupScope, state: State) -> tuple[Action, ...]:
    rules = client_rules(scope.switches)
    out = []
    for s, c in enumerate(state.clients):
        if classic.is_classic(c):
            continue
        if running(c) and _idle(c) and (not scope.records or delivery.may_send(c)):
            out.append(Action("send", s))
        if c.request is not None:
            out.append(Action("handle", s))
        if c.reply is not None:
            out.append(Action("deliver", s))
        if can_reconcile(c, rules) and (not scope.records or delivery.may_reconcile(scope, c)):
            out.append(Action("reconcile", s))
        if scope.records:
            out += delivery.actions(scope, state, s, c)
    out += _upkeep(scope, state)
    if scope.records:
        out += delivery.produced(scope, state, index(scope))
    if scope.classic or "downgrade" in scope.operations:
        out += classic.actions(scope, state)
    if state.budget > 0:
        out += _budgeted(scope, state)
    return tuple(out)


def _upkeep(scope: ConsumerGroupScope, state: State) -> list[Action]:
    out = []
    g = state.group
    for s, c in enumerate(state.clients):
        if classic.is_classic(c):
            continue
        if c.status == DOWN and c.incarnation >= 0 and c.request is None:
            out.append(Action("restart", s))
        if c.stalled:
            out.append(Action("resume", s))
    for m in () if g.dead else g.members:
        s, inc = slot_of(m.member_id)
        c = state.clients[s]
        if classic.is_classic(c) or state.classic and dict(state.classic).get(m.member_id):
            continue    # a classic member: classic_world's classic_expire
        if inc != c.incarnation or not running(c):
            out.append(Action("expire", s, inc))
        elif m.state == UNREVOKED and (c.stalled or has_slot(state.wedged, s)):
            out.append(Action("rebalance_timeout", s, inc))
    if scope.regex and profile_of(scope).regex == REGEX_ASYNC and not g.dead and g.members:
        if resolve_regexes(g, Cluster(state.topics), profile_of(scope)).records:
            out.append(Action("resolve", 0))
    return out


def _budgeted(scope: ConsumerGroupScope, state: State) -> list[Action]:
    out = []
    ops, faults, g = scope.operations, scope.faults, state.group
    if "failover" in ops and not g.dead:
        out.append(Action("failover", 0))
    for s, c in enumerate(state.clients):
        if classic.is_classic(c):
            continue
        live = running(c)
        member = not g.dead and g.member(member_id(s, c.incarnation)) is not None
        if c.reply is not None and "lose_response" in faults:
            out.append(Action("lose_response", s))
        if live and member and "session_timeout" in faults:
            out.append(Action("session_timeout", s))
        if live and "crash" in faults:
            out.append(Action("crash", s))
        if c.status == RECONCILING and not c.stalled and "stall" in faults:
            out.append(Action("stall", s))
        if c.status == DOWN and c.incarnation < 0 and "join" in ops:
            out.append(Action("join", s))
        quiet = c.status in IN_GROUP and _idle(c) and (not scope.records or delivery.may_close(c))
        if scope.records:
            out += delivery.faults(scope, state, s, c)
        if quiet and "leave" in ops:
            out.append(Action("leave", s))
        if quiet and "roll" in ops:
            out.append(Action("roll", s))
        if quiet and "downgrade" in ops:
            out.append(Action("downgrade", s))
        if quiet and c.sub == 0 and "subscription_change" in ops:
            out.append(Action("subscription_change", s))
    if grows(scope) and dict(state.topics)[topic(0)] == scope.partitions[0]:
        out.append(Action("topic_change", 0))
    return out


# ---- step ----

# cached for the search: one heartbeat meets one group in many states
_heartbeat = lru_cache(maxsize=1 << 14)(heartbeat)


def step(scope: ConsumerGroupScope, state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
    nxt, events = _step(scope, state, action)
    if scope.classic or "downgrade" in scope.operations:
        nxt = nxt._replace(marks=nxt.marks | _conversions(events))
    return nxt, events


def _conversions(events) -> int:
    """The online conversions a step's coordinator events name (witness marks)."""
    marks = 0
    for e in events:
        for ev in (e.data.events if isinstance(e.data, Handled) else ()):
            if ev[0] == "converted_to_consumer":
                marks |= UPGRADED_ONLINE
            elif ev[0] == "converted_to_classic":
                marks |= DOWNGRADED_ONLINE
    return marks


def _step(scope: ConsumerGroupScope, state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
    k, s = action.kind, action.slot
    if k == "handle":
        return _handle(scope, state, s)
    if k in ("expire", "session_timeout", "rebalance_timeout"):
        return _expire(scope, state, action)
    if k in ("resolve", "failover"):
        return _coordinator(scope, state, action)
    if k in delivery.KINDS + delivery.ENVIRONMENT + delivery.FAULTS:
        return delivery.step(scope, state, action, profile_of(scope), index(scope))
    if k in classic.ACTION_KINDS:
        nxt, events = classic.step(scope, state, action, index(scope), tuple(topic(i) for i in range(len(scope.partitions))))
        if k == "classic_send":     # a request of this round, like a heartbeat
            nxt = nxt._replace(fresh=add_slot(nxt.fresh, s))
        elif k == "classic_deliver":
            c = nxt.clients[s]
            calm, beaten, fresh = _monitor(nxt, s, nxt.clients, c.status != "member" or c.reply is not None)
            nxt = nxt._replace(calm=calm, beaten=beaten, fresh=fresh)
        return nxt, events
    clients = list(state.clients)
    c = clients[s]
    rules = client_rules(scope.switches)
    if k == "send":
        r = request(c, member_id(s, c.incarnation), GROUP_ID, subscription(scope, s, c), lambda m: tps(scope, m), rules)
        clients[s] = after_send(c, r, None if r.topic_partitions is None else mask_of(index(scope), r.topic_partitions))
        nxt = state._replace(clients=tuple(clients), fresh=add_slot(state.fresh, s))
        return nxt, (Event("send", s, f"epoch {r.member_epoch}"),)
    if k == "deliver":
        clients[s], callbacks = on_response(c, c.reply, rules)
        nxt = state._replace(clients=tuple(clients))
        if scope.records and callbacks:     # a fence or a fatal error: onPartitionsLost
            app, logs = delivery.follow(c.app, state.logs, callbacks)
            clients[s] = clients[s]._replace(app=app)
            nxt = nxt._replace(clients=tuple(clients), logs=logs)
        if has_slot(nxt.wedged, s) and (converged(nxt, s) or clients[s].status not in IN_GROUP):
            nxt = nxt._replace(wedged=drop_slot(nxt.wedged, s))
        calm, beaten, fresh = _monitor(nxt, s, clients, can_reconcile(clients[s], rules)
                                       or clients[s].status == ACKNOWLEDGING)
        return nxt._replace(calm=calm, beaten=beaten, fresh=fresh), (Event("deliver", s, clients[s].status, callbacks),)
    if k == "reconcile" and scope.records:
        return delivery.reconcile_step(scope, state, s, profile_of(scope), index(scope))
    if k == "reconcile":
        error = _commit(scope, state, s, c)
        clients[s], callbacks = reconcile(c, error)
        return state._replace(clients=tuple(clients)), (Event("reconcile", s, error or "committed", callbacks),)
    return _disturb(scope, state, clients, action)


def _commit(scope: ConsumerGroupScope, state: State, s: int, c: Client) -> str:
    """The OffsetCommit a client sends before revoking (auto-commit), judged by the coordinator."""
    if not c.owned:
        return ""
    return offset_commit(state.group, member_id(s, c.incarnation), c.epoch, tps(scope, c.owned), profile_of(scope))


def _disturb(scope: ConsumerGroupScope, state: State, clients: list, action: Action):
    """Faults and operations: each resets the convergence monitor."""
    k, s = action.kind, action.slot
    c = clients[s]
    topics = dict(state.topics)
    wedged = state.wedged
    callbacks = extra = ()
    downgrading = state.downgrading
    if k == "restart" and has_slot(downgrading, s):     # back as a classic consumer (classic_world.py)
        clients[s] = classic.restart(c.incarnation + 1)
        downgrading = drop_slot(downgrading, s)
    elif k == "restart" or k == "join":
        clients[s] = new_client(c.incarnation + 1, sub=c.sub)
        if scope.records:
            clients[s] = delivery.started(clients[s])
    elif k in ("leave", "roll") and scope.records:
        clients[s], logs, callbacks, extra = delivery.close_step(scope, state, s, k == "leave", profile_of(scope),
                                                                 index(scope))
        state = state._replace(logs=logs)
    elif k in ("leave", "roll", "downgrade"):
        clients[s], callbacks = close(c, _commit(scope, state, s, c), for_good=k == "leave")
        downgrading = add_slot(downgrading, s) if k == "downgrade" else downgrading
    elif k == "crash":
        clients[s] = c._replace(status=DOWN, epoch=0, owned=0, target=0, reply=None, sent=None, stalled=False)
        if scope.records:
            state = delivery.crashed(state, c)
            clients[s] = clients[s]._replace(app=None)
    elif k == "lose_response":
        # the request times out: HeartbeatRequestManager#onFailure resets the heartbeat state
        clients[s] = c._replace(reply=None, sent=None)
        wedged = add_slot(wedged, s)
    elif k == "stall":
        clients[s] = c._replace(stalled=True)
    elif k == "resume":
        clients[s] = c._replace(stalled=False)
    elif k == "subscription_change":
        clients[s] = c._replace(sub=1)
    elif k == "topic_change":
        topics[topic(0)] += 1
    budget = state.budget - (k in BUDGETED)
    nxt = state._replace(clients=tuple(clients), topics=tuple(sorted(topics.items())), budget=budget,
                         calm=0, beaten=0, fresh=0, wedged=wedged, downgrading=downgrading)
    return nxt, (Event(k, s, "", callbacks),) + extra


def _handle(scope: ConsumerGroupScope, state: State, s: int):
    c = state.clients[s]
    r = c.request
    before = state.group
    if state.classic is not None:   # a classic group or classic members (classic_world.py)
        out, state = classic.heartbeat(scope, state, r, scope.profile, coordinator_switches(scope) + tuple(
            x for x in scope.switches if x in MIGRATION_SWITCHES), index(scope))
        out = out._replace(group=state.group)
    else:
        out = _heartbeat(state.group, r, Cluster(state.topics), scope.profile, Config(), coordinator_switches(scope))
    resp = out.response
    error = ERROR_NAMES[resp.error_code] if resp.error_code else ""
    assignment = None if resp.assignment is None else mask_of(index(scope), resp.assignment)
    reply = Reply(error, resp.member_epoch, assignment)
    # a leave heartbeat's response reaches nobody: the client is gone once it is sent
    waiting = running(c) and r.member_epoch >= 0
    clients = list(state.clients)
    clients[s] = c._replace(request=None, reply=reply if waiting else None)
    nxt = state._replace(group=out.group, clients=tuple(clients), marks=state.marks | _marks(before, r, out))
    if r.member_epoch < 0:
        nxt = nxt._replace(calm=0, beaten=0, fresh=0)   # the membership changes
    note = f"epoch {r.member_epoch} -> {error or 'epoch ' + str(resp.member_epoch)}"
    return nxt, (Event("handle", s, note, Handled(request=r, response=resp, records=out.records, events=out.events)),)


def _marks(before: Group, r, out) -> int:
    """The witnesses a handled heartbeat shows."""
    marks = 0
    after = out.group
    if out.response.error_code or before.dead or after.dead:
        return 0
    old = before.member(r.member_id)
    new = after.member(r.member_id)
    if old is not None and new is not None and old.state == UNREVOKED and new.state != UNREVOKED:
        marks |= REVOKED
    if old is not None and 0 < r.member_epoch == old.previous_epoch < old.epoch:
        marks |= LOST_RECOVERED
    if r.member_epoch == 0 and r.instance_id is not None and new is not None:
        gone = before.static_member(r.instance_id)
        if (gone is not None and gone.member_id != r.member_id and gone.assigned
                and new.assigned == gone.assigned and after.group_epoch == before.group_epoch):
            marks |= STATIC_KEPT
    return marks


def _expire(scope: ConsumerGroupScope, state: State, action: Action):
    s = action.slot
    inc = state.clients[s].incarnation if action.kind == "session_timeout" else action.arg
    mid = member_id(s, inc)
    if action.kind == "rebalance_timeout":
        out = rebalance_timeout(state.group, mid, state.group.member(mid).epoch, profile_of(scope))
    elif state.classic is not None:   # the last consumer-protocol member's expiry may downgrade
        out, state = classic.session_timeout(scope, state, mid)
        out = out._replace(group=state.group)
    else:
        out = session_timeout(state.group, mid, profile_of(scope))
    nxt = state._replace(group=out.group, calm=0, beaten=0, fresh=0, budget=state.budget - (action.kind in BUDGETED))
    if scope.records:
        nxt = nxt._replace(logs=delivery.removed(state, nxt, s, inc))
    return nxt, (Event(action.kind, s, mid, Handled(request=None, response=None, records=out.records, events=out.events)),)


def _coordinator(scope: ConsumerGroupScope, state: State, action: Action):
    if action.kind == "resolve":
        out = resolve_regexes(state.group, Cluster(state.topics), profile_of(scope))
        nxt = state._replace(group=out.group, calm=0, beaten=0, fresh=0)
        handled = Handled(request=None, response=None, records=out.records, events=out.events)
        return nxt, (Event("resolve", 0, "regex resolved", handled),)
    group, error = _failover.failover(state.group)
    nxt = state._replace(group=group, budget=state.budget - 1, calm=0, beaten=0, fresh=0)
    return nxt, (Event("failover", 0, error or "the new coordinator replayed the log"),)


def _monitor(state: State, slot: int, clients, busy: bool) -> tuple[int, int, int]:
    """A round ends once every running client has read the response to a heartbeat it sent in
    the round (``fresh``) with no reconciliation left to run (``busy``: it must poll first);
    nothing counts while a lost response may hide an assignment (``epochs.rounds``)."""
    return response_read(state, slot, clients, active, not busy, K)


# ---- symmetry, bounds, settling ----

_MEMBER_FIELDS = tuple(f.name for f in fields(Member) if f.name not in ("member_id", "instance_id"))
_GROUP_FIELDS = tuple(f.name for f in fields(Group) if f.name not in ("group_id", "partition_index", "members",
                                                                      "target_assignment"))


@lru_cache(maxsize=1 << 16)
def _member_key(m) -> tuple:
    """Every field of the coordinator's member but its ids (one slot, one instance id)."""
    return tuple(getattr(m, name) for name in _MEMBER_FIELDS)


@lru_cache(maxsize=1 << 16)
def _client_key(c: Client) -> tuple:
    if classic.is_classic(c):
        return c
    r = c.request
    if r is not None:
        r = r._replace(member_id="", instance_id=None if r.instance_id is None else "i")
    app = c.app
    if app is not None and app.commit is not None:     # the commit's member is the client's incarnation
        app = app._replace(commit=app.commit._replace(member=0))
    return c._replace(request=r, incarnation=c.incarnation >= 0, app=app)


def canonical(scope: ConsumerGroupScope, state: State):
    """The state without what does not change behaviour: member and instance ids inside the
    request (the slot gives them), a member's incarnation (relative to its client's). Clients
    are NOT interchangeable: the server assignors break ties by member id (the uniform
    assignor's extra quota goes to the first member in id order), so swapping two clients can
    change the next target; a reduction over slot permutations hid a real story (a walk found
    it), so there is none."""
    g = state.group
    per_slot: dict[int, list] = {}
    for m in () if g.dead else g.members:
        slot, inc = slot_of(m.member_id)
        per_slot.setdefault(slot, []).append((inc - state.clients[slot].incarnation, _member_key(m),
                                              g.target_of(m.member_id)))
    slots = tuple((_client_key(c), tuple(sorted(per_slot[s])) if s in per_slot else ())
                  for s, c in enumerate(state.clients))
    head = tuple(getattr(g, name) for name in _GROUP_FIELDS)
    return (head, slots, state.beaten, state.fresh, state.wedged, state.topics, state.budget, state.calm,
            state.marks, state.classic, state.downgrading, delivery.canonical_logs(state))


def within_bounds(scope: ConsumerGroupScope, state: State) -> bool:
    return state.group.group_epoch < scope.max_epoch


def active(c) -> bool:
    """A client taking part in the group: a running consumer-protocol one, or a classic one
    not closed (classic_world.active)."""
    return classic.active(c) if classic.is_classic(c) else running(c)


def converged(state: State, slot: int) -> bool:
    """A client in the group at the target assignment epoch, consuming exactly its target
    (judged after it reads the response it has in flight, if any)."""
    c = state.clients[slot]
    if classic.is_classic(c):
        return classic.converged(state, slot, state.group.partition_index)
    if c.reply is not None:
        c = on_response(c, c.reply)[0]
    g = state.group
    m = None if g.dead else g.member(member_id(slot, c.incarnation))
    return (c.status == STABLE and m is not None and c.epoch == g.target_assignment_epoch
            and m.is_reconciled_to(g.target_assignment_epoch) and c.owned == g.target_of(m.member_id))


def settled(scope: ConsumerGroupScope, state: State) -> bool:
    """Nothing left to do: no message in flight, every client converged or out for good, no
    stale session, the group STABLE (or EMPTY with nobody left)."""
    if any(a.kind in PROGRESS and a.kind not in ("send", "classic_send") for a in actions(scope, state)):
        return False
    if any(not _idle(c) for c in state.clients):
        return False
    return converged_group(scope, state)


def converged_group(scope: ConsumerGroupScope, state: State) -> bool:
    """``settled`` but for what is in flight: every client converged (judged after the
    response it has in flight) or out for good, the group STABLE (or EMPTY with nobody left).
    The goal of the checker's settles_under_fairness: heartbeats go on forever."""
    live = [s for s, c in enumerate(state.clients) if active(c)]
    if not live:
        return True
    if isinstance(state.classic, classic.ClassicGroup):
        return all(converged(state, s) for s in live)   # a classic group: Stable (converged says so)
    return group_state(state.group) == GROUP_STABLE and all(converged(state, s) for s in live)


def is_terminal_ok(scope: ConsumerGroupScope, state: State) -> bool:
    return settled(scope, state) or all(c.status in (UNSUBSCRIBED, FATAL) or c.incarnation < 0
                                        for c in state.clients)


__all__ = ["ACTION_KINDS", "BUDGETED", "GROUP_ID", "K", "PROGRESS", "actions", "active", "canonical", "converged", "converged_group", "index",
           "init_states", "is_terminal_ok", "profile_of", "settled", "step", "subscription", "within_bounds"]
