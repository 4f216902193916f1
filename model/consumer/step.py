"""init_states and step of the classic consumer group (``actions.py`` lists what is
enabled). Every fault, operation and membership change is a *disturbance*: it resets
the liveness monitor ``calm``, which counts leader assignments for generations whose
JoinGroup round began after the last disturbance (``calm_from`` is the last
generation that began before it).
"""
from __future__ import annotations

from functools import lru_cache

from ..core import NotSettled
from .. import delivery
from . import client, coordinator as gc, delivery_steps as records
from .coordinator import Event, Outcome
from .actions import actions, unreachable
from .properties import quiescent
from .scope import ConsumerScope
from .state import (
    ASSIGNED, DOWN, IDLE, NO_GENERATION, NO_MEMBER, PREPARING, Action, Consumer, Group, State,
)

CALM_CAP = 3
DISTURBING = frozenset({
    "crash", "restart", "pause", "resume", "lose_response", "timeout", "bounce",
    "subscription_change", "add_partition", "delete_topic", "delete_group",
    "session_timeout", "rebalance_timeout", "max_poll",
})
BUDGETED = frozenset({"crash", "pause", "lose_response", "timeout", "subscription_change",
                      "add_partition", "delete_topic", "delete_group", "lose_commit_reply", "max_poll"})
ACTION_KINDS = ("receive", "join", "heartbeat", "refresh_metadata", "deliver", "crash", "restart",
                "pause", "resume", "lose_response", "timeout", "bounce", "subscription_change",
                "add_partition", "delete_topic", "delete_group", "session_timeout", "rebalance_timeout",
                *records.KINDS)   # the record kinds last: swarm testing draws for the others as before


def fresh_consumer(scope: ConsumerScope, config: int, metadata: int) -> Consumer:
    return Consumer(status=IDLE, config=config, member_id=NO_MEMBER, generation=NO_GENERATION, owned=0, user_data=0,
                    subscribed=scope.all_topics, joined=scope.all_topics, paused=False, metadata=metadata, snapshot=-1,
                    awaiting="", outbox=(), inbox=(), needs_join_prepare=True,
                    app=delivery.new_app() if scope.records else None)


PROGRESS = ("receive", "deliver", "join")


def init_states(scope: ConsumerScope) -> tuple[State, ...]:
    consumers = tuple(fresh_consumer(scope, 0, 0) for _ in range(scope.members))
    state = State(group=gc.new_group(), consumers=consumers, partitions=scope.partitions, metadata=0,
                  budget=scope.budget, calm=0, calm_from=0, logs=records.new_logs(scope) if scope.records else None)
    if scope.start == "stable":
        state = _settle(scope, state)
    return (state,)


def _settle(scope: ConsumerScope, state: State) -> State:
    """Run the first enabled protocol step (receive, deliver, join; else a heartbeat)
    until the group has settled: a fixed, fault-free schedule, so the result is a
    reachable state."""
    for _ in range(40 * scope.members):
        if quiescent(scope, state):
            return state._replace(calm=0, calm_from=state.group.generation)
        enabled = actions(scope, state)
        progress = [a for a in enabled if a.kind in PROGRESS] or [a for a in enabled if a.kind == "heartbeat"]
        if not progress:
            break
        state, _ = step(scope, state, progress[0])
    raise NotSettled(f"scope.start='stable': the group did not settle from an empty start on the fault-free "
                     f"schedule (reached {state.group.status})")


def _deliver_responses(consumers: list[Consumer], out: tuple) -> None:
    """Put each response in its consumer's inbox; a reset connection drops it."""
    for slot, resp in out:
        c = consumers[slot]
        if c.status == DOWN or (resp.to != NO_MEMBER and resp.to != c.member_id):
            continue
        consumers[slot] = c._replace(inbox=c.inbox + (resp,))


def _apply(state: State, consumers: list[Consumer], outcome: Outcome) -> State:
    _deliver_responses(consumers, outcome.out)
    return state._replace(group=outcome.group, consumers=tuple(consumers))


def dispatch(group: Group, slot: int, req, coordinator=gc) -> Outcome:
    """The coordinator (a module with ``model.consumer.coordinator``'s handlers) handles
    ``req``, arriving on connection ``slot``: a pure function of the group and the request."""
    if req.kind == "JoinGroup":
        return coordinator.join_group(group, slot, req)
    if req.kind == "SyncGroup":
        return coordinator.sync_group(group, slot, req.member_id, req.generation, req.assignments)
    if req.kind == "Heartbeat":
        return coordinator.heartbeat(group, slot, req.member_id, req.generation)
    return coordinator.leave_group(group, req.member_id)


# cached for the search: one request meets one group in many states
_handle = lru_cache(maxsize=1 << 16)(dispatch)


def _deliver(scope: ConsumerScope, state: State, slot: int) -> tuple[State, tuple]:
    consumers = list(state.consumers)
    c = consumers[slot]
    req = c.outbox[0]
    consumers[slot] = c._replace(outbox=())
    outcome = _handle(state.group, slot, req)
    return _apply(state, consumers, outcome), outcome.events


def _set(state: State, slot: int, c: Consumer) -> State:
    consumers = list(state.consumers)
    consumers[slot] = c
    return state._replace(consumers=tuple(consumers))


def _bounce(scope: ConsumerScope, state: State, slot: int) -> tuple[State, tuple]:
    """Graceful shutdown (KafkaConsumer#close: onLeavePrepare, maybeLeaveGroup), then a
    restart on the next config of the plan."""
    c = state.consumers[slot]
    events = client.leave(scope, slot, c)
    if client.sends_leave_group(c):
        outcome = gc.leave_group(state.group, c.member_id)
    else:
        outcome = Outcome(state.group, (), ())
    consumers = list(state.consumers)
    consumers[slot] = fresh_consumer(scope, c.config + 1, state.metadata)
    return _apply(state, consumers, outcome), events + outcome.events


def _max_poll(scope: ConsumerScope, state: State, slot: int) -> tuple[State, tuple]:
    """Fault ``max_poll`` (records): the heartbeat thread's LeaveGroup ("consumer poll timeout
    has expired") and the member's reset (``records.max_poll_reset``); what the application
    processed may come again (excused)."""
    c = state.consumers[slot]
    outcome = gc.leave_group(state.group, c.member_id) if client.sends_leave_group(c) else Outcome(state.group, (), ())
    consumers = list(state.consumers)
    consumers[slot] = records.max_poll_reset(scope, c)
    state = _apply(state, consumers, outcome)
    logs = delivery.excuse(state.logs, delivery.partitions(c.app))
    return state._replace(logs=logs), outcome.events + (Event("max_poll", slot),)


def _crash(state: State, slot: int) -> State:
    c = state.consumers[slot]
    group = state.group
    if c.member_id in group.pending:   # a pending member id expires with its process
        group = group._replace(pending=tuple(p for p in group.pending if p != c.member_id))
    down = c._replace(status=DOWN, member_id=NO_MEMBER, generation=NO_GENERATION, owned=0, user_data=0,
                      paused=False, awaiting="", outbox=(), inbox=(), needs_join_prepare=True)
    return _set(state, slot, down)._replace(group=group)


def _lose_response(state: State, slot: int) -> State:
    """The oldest response is lost; the consumer sees its connection fail."""
    c = state.consumers[slot]
    resp, rest = c.inbox[0], c.inbox[1:]
    c = c._replace(inbox=rest)
    kind = resp.kind.removesuffix("Response")
    if c.awaiting == kind and resp.to == c.member_id:
        c = c._replace(awaiting="", status=IDLE if kind != "Heartbeat" else c.status)
    return _set(state, slot, c)


def _refresh_metadata(scope: ConsumerScope, state: State, slot: int) -> tuple[State, tuple]:
    c, events = client.refresh(scope, state, state.consumers[slot], slot)
    if c.status == ASSIGNED and client.stale_snapshot(c):
        c = c._replace(status=IDLE)
    return _set(state, slot, c), events


def _broker(state: State, outcome: Outcome) -> tuple[State, tuple]:
    return _apply(state, list(state.consumers), outcome), outcome.events


def _carries_old_subscription(c: Consumer) -> bool:
    req = c.outbox[0]
    return req.kind == "JoinGroup" and req.subscription.topics != c.subscribed


def step(scope: ConsumerScope, state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
    kind, slot = action.kind, action.slot
    prev, before = state, state.group
    # a subscription change reaches the coordinator only with the next JoinGroup: the
    # delivery of one built before the change is when that disturbance lands
    stale_join = kind == "deliver" and _carries_old_subscription(state.consumers[slot])
    events: tuple = ()
    assigned = False
    if kind == "receive":
        h = client.receive(scope, state, slot)
        state, events, assigned = _set(state, slot, h.consumer), h.events, h.assigned
    elif kind == "join" and scope.records:
        state, events = records.join(scope, state, slot)
    elif kind == "join":
        h = client.join(scope, state, slot)
        state, events = _set(state, slot, h.consumer), h.events
    elif kind == "heartbeat":
        state = _set(state, slot, client.heartbeat(state.consumers[slot]))
    elif kind == "refresh_metadata":
        state, events = _refresh_metadata(scope, state, slot)
    elif kind == "deliver":
        state, events = _deliver(scope, state, slot)
    elif kind == "crash":
        state = _crash(state, slot)
    elif kind == "restart":
        state = _set(state, slot, fresh_consumer(scope, state.consumers[slot].config, state.metadata))
    elif kind == "pause":
        state = _set(state, slot, state.consumers[slot]._replace(paused=True))
    elif kind == "resume":
        state = _set(state, slot, state.consumers[slot]._replace(paused=False))
    elif kind == "lose_response":
        state = _lose_response(state, slot)
    elif kind == "timeout":   # the SyncGroup times out; the consumer rejoins
        state = _set(state, slot, state.consumers[slot]._replace(awaiting="", status=IDLE))
    elif kind == "bounce":
        state, events = _bounce(scope, state, slot)
    elif kind == "subscription_change":
        c = state.consumers[slot]
        c = c._replace(subscribed=c.subscribed ^ (1 << action.arg))
        state = _set(state, slot, c._replace(status=IDLE) if c.status == ASSIGNED else c)
    elif kind in ("add_partition", "delete_topic"):
        counts = list(state.partitions)
        counts[action.arg] = counts[action.arg] + 1 if kind == "add_partition" else 0
        state = state._replace(partitions=tuple(counts), metadata=state.metadata + 1)
    elif kind == "delete_group":
        state, events = _broker(state, gc.delete_group(state.group))
    elif kind == "session_timeout":
        state, events = _broker(state, gc.remove_member(state.group, action.arg, "session timeout"))
    elif kind == "rebalance_timeout":
        stragglers = tuple(m.member_id for m in state.group.members
                           if not m.joined and unreachable(state, m.slot, m.member_id))
        state, events = _broker(state, gc.rebalance_timeout(state.group, stragglers))
    elif kind == "max_poll":
        state, events = _max_poll(scope, state, slot)
    elif kind in records.KINDS:
        state, events = records.step(scope, state, action)
    else:
        raise ValueError(f"unknown action kind {kind!r}")
    if scope.records:
        state, events = records.settle(scope, prev, state, action, events)
    if kind in BUDGETED:
        state = state._replace(budget=state.budget - 1)
    if kind in DISTURBING or stale_join or any(e.kind in ("member_added", "member_removed") for e in events):
        # a JoinGroup round already open (or the one a stale JoinGroup lands in) may
        # carry what the disturbance changed: that round is not a rebalance after it
        opened = 1 if before.status == PREPARING or stale_join else 0
        state = state._replace(calm=0, calm_from=max(state.calm_from, before.generation + opened))
    elif assigned and state.consumers[slot].generation > state.calm_from:
        # only generations begun after the disturbance count: an assignment for one the
        # disturbance already abandoned is not a rebalance the group needed
        state = state._replace(calm=min(state.calm + 1, CALM_CAP))
    return state, events


def canonical(scope: ConsumerScope, state: State) -> State:
    """Consumers are interchangeable: sort them, and renumber the slots the coordinator
    answers on to match. Member ids stay: assignors order members by id."""
    order = tuple(sorted(range(len(state.consumers)), key=state.consumers.__getitem__))
    if order == tuple(range(len(order))):
        return state
    return state._replace(consumers=tuple(state.consumers[i] for i in order),
                          group=_renumbered(state.group, order))


@lru_cache(maxsize=1 << 16)
def _renumbered(group: Group, order: tuple[int, ...]) -> Group:
    """The group with the slot each member answers on renumbered (``order``: new slot ->
    old); cached, as few groups recur under many orders of the consumers."""
    where = {old: new for new, old in enumerate(order)}
    return group._replace(members=tuple(m._replace(slot=where[m.slot]) for m in group.members))


def within_bounds(scope: ConsumerScope, state: State) -> bool:
    return state.group.generation <= scope.max_generation


def is_terminal_ok(scope: ConsumerScope, state: State) -> bool:
    return False
