"""Which actions are enabled in a state of the classic consumer group, in order.

Per consumer slot, in this order:

  consumer  receive (process the oldest response), join (onJoinPrepare + JoinGroup),
            heartbeat, refresh_metadata
  network   deliver (the coordinator handles the consumer's request)
  faults    crash, restart, pause, resume, lose_response, timeout,
            max_poll (records only)                                  (budgeted)
  ops       bounce (rolling restart onto the next config of the plan),
            subscription_change                                      (budgeted)

then the coordinator's: session_timeout (a member whose process is paused, down or
replaced), rebalance_timeout (members that cannot rejoin are removed), and the
budgeted operations add_partition, delete_topic, delete_group. A paused consumer
does nothing, but what it already sent still arrives. The order never depends on a
set or dict, so a path of action indices replays identically.
"""
from __future__ import annotations

from ..delivery import COMMITTING
from . import delivery_steps as records
from .scope import ConsumerScope
from .state import ASSIGNED, DOWN, EMPTY, IDLE, PREPARING, Action, Consumer, State


def unreachable(state: State, slot: int, member_id: int) -> bool:
    """The member's process cannot answer: paused, down, or replaced by a new incarnation."""
    c = state.consumers[slot]
    return c.status == DOWN or c.paused or c.member_id != member_id


def _free(scope: ConsumerScope, c: Consumer) -> bool:
    """The group requests wait while an OffsetCommit is in flight or its answer is unread
    (one connection, requests in order; onJoinPrepare waits for its commit's answer)."""
    return c.app is None or (c.app.commit is None and c.app.reply is None and c.app.waiting in ("", COMMITTING))


def _receivable(scope: ConsumerScope, c: Consumer) -> bool:
    """A SyncGroup response is handled inside poll() (onJoinComplete's callbacks)."""
    return c.inbox[0].kind != "SyncGroupResponse" or records.in_poll(scope, c)


def actions(scope: ConsumerScope, state: State) -> tuple[Action, ...]:
    out: list[Action] = []
    faults, ops = scope.faults, scope.operations
    budget = state.budget > 0
    rec = scope.records
    for slot, c in enumerate(state.consumers):
        if c.status == DOWN:
            out.append(Action("restart", slot))
            continue
        if not c.paused:
            if c.inbox and (not rec or _receivable(scope, c)):
                out.append(Action("receive", slot))
            if (c.status == IDLE and not c.awaiting and not c.outbox
                    and (not rec or _free(scope, c) and records.in_poll(scope, c))):
                out.append(Action("join", slot))
            if c.status == ASSIGNED and not c.awaiting and not c.outbox and (not rec or _free(scope, c)):
                out.append(Action("heartbeat", slot))
            if c.metadata != state.metadata:
                out.append(Action("refresh_metadata", slot))
        if c.outbox:
            out.append(Action("deliver", slot))
        if budget and "crash" in faults:
            out.append(Action("crash", slot))
        if c.paused:
            out.append(Action("resume", slot))
        elif budget and "pause" in faults:
            out.append(Action("pause", slot))
        if budget and "lose_response" in faults and c.inbox:
            out.append(Action("lose_response", slot))
        if budget and "timeout" in faults and c.awaiting == "SyncGroup" and not c.paused:
            out.append(Action("timeout", slot))
        if rec and records.max_poll_enabled(scope, state, slot):
            out.append(Action("max_poll", slot))
        if c.config + 1 < len(scope.plan) and not c.paused and (not rec or records.in_poll(scope, c)):
            out.append(Action("bounce", slot))
        if budget and "subscription_change" in ops and len(scope.partitions) > 1 and not c.paused:
            for t in range(len(scope.partitions)):
                if c.subscribed != 1 << t:
                    out.append(Action("subscription_change", slot, t))
        if rec:
            out += records.actions(scope, state, slot)
    group = state.group
    for m in group.members:
        if unreachable(state, m.slot, m.member_id):
            out.append(Action("session_timeout", m.slot, m.member_id))
    if group.status == PREPARING and any(
            not m.joined and unreachable(state, m.slot, m.member_id) for m in group.members):
        out.append(Action("rebalance_timeout"))
    if budget:
        for t, n in enumerate(state.partitions):
            if "add_partition" in ops and 0 < n < scope.stride:
                out.append(Action("add_partition", arg=t))
            if "delete_topic" in ops and n > 0 and sum(1 for x in state.partitions if x) > 1:
                out.append(Action("delete_topic", arg=t))
        if "delete_group" in ops and group.status == EMPTY and not group.members:
            out.append(Action("delete_group"))
    if scope.records:
        out += records.produce_actions(scope, state)
    return tuple(out)
