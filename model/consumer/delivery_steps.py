"""The record layer in the classic consumer model (issue 30): which record actions a consumer
has, what each does, and how the existing steps move cursors and logs. Only with
``scope.records``; ``model/delivery`` holds the rules, this module says where the classic
ConsumerCoordinator (Kafka 3.9) applies them.

* ``poll`` / ``process``: one record returned / processed (``delivery.poll``, ``delivery.process``).
* ``commit`` (policy after-processing): commitSync() of the processed offsets, answered at once;
  the application owes it after each ``process`` (``COMMITTING``) and polls again only after it.
* ``auto_commit`` (policy auto): ConsumerCoordinator.poll -> maybeAutoCommitOffsetsAsync, the
  positions (``allConsumed()``) as a message; only inside poll and only while the member is
  stable (``sendOffsetCommitRequest`` fails locally without ``generationIfStable()``).
* ``commit_deliver`` / ``commit_read``: the coordinator answers the message
  (``probes.offset_commit_error``); the client reads the answer. ``lose_commit_reply`` (fault
  ``lose_response``, budgeted): the answer is lost, the request times out (retriable: in the
  prepare phase onJoinPrepare commits again) and what the application processed is excused. UNKNOWN_MEMBER_ID and
  ILLEGAL_GENERATION reset the member (``OffsetCommitResponseHandler`` ->
  ``resetGenerationOnResponseError``), as a heartbeat's would.
* The prepare phase (policy auto): ``onJoinPrepare`` first marks the owned partitions pending
  revocation (EAGER only, ``maybeMarkPartitionsPendingRevocation``, the KAFKA-14196 fix) and
  sends the auto-commit, then returns false until its answer; reading the answer re-enters
  onJoinPrepare: a retriable error sends a new commit with the latest positions, anything
  else continues to the callbacks and the JoinGroup (``commit_read`` runs ``client.join``).
* The listener's events move cursors: ``lost`` drops and excuses, ``revoked`` commits the
  processed offsets first under sync-on-revoke (judged at once), ``assigned`` adds cursors.
* ``max_poll`` (fault, scope faults ``max_poll``): the application, stuck in records poll
  returned, exceeds max.poll.interval.ms; the heartbeat thread sends LeaveGroup and resets
  the member (``AbstractCoordinator#maybeLeaveGroup`` "consumer poll timeout has expired",
  ``resetStateAndRejoin``: needsJoinPrepare, so the next onJoinPrepare calls onPartitionsLost).
  ``librdkafka-5604``: when a rebalance is already in progress the lost flag is dropped
  (``rd_kafka_cgrp_revoke_all_rejoin_maybe`` returns early), so no onPartitionsLost comes.
* Faults excuse (``delivery.excuse``): a crash, a ``max_poll``, a ``fenced`` answer, the coordinator removing
  the member, a commit rejected while the committer is not current or REBALANCE_IN_PROGRESS.
"""
from __future__ import annotations

from functools import lru_cache

from .. import delivery
from ..assignors import EAGER
from ..delivery import AUTO, App, OffsetCommitReq
from . import client
from .coordinator import Event
from .probes import COORDINATOR_NOT_AVAILABLE, offset_commit_error
from .scope import ConsumerScope
from .state import (DOWN, ILLEGAL_GENERATION, NO_GENERATION, NO_MEMBER, NONE, REBALANCE_IN_PROGRESS,
                    UNKNOWN_MEMBER_ID, Action, Consumer, Group, State)

KINDS = ("poll", "process", "commit", "auto_commit", "commit_deliver", "commit_read", "produce", "lose_commit_reply",
         "max_poll")
"""The record actions, in the order a consumer's are listed (``produce`` after the coordinator's;
``lose_commit_reply`` and ``max_poll``, faults, last: a new kind appended keeps the swarm draws
of the others)."""
REQUEST_TIMED_OUT = delivery.REQUEST_TIMED_OUT
RETRIABLE = frozenset({COORDINATOR_NOT_AVAILABLE, REQUEST_TIMED_OUT})
FENCING = frozenset({UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION})


@lru_cache(maxsize=64)
def rules(switches: tuple[str, ...]) -> delivery.Rules:
    return delivery.rules(switches)


def new_logs(scope: ConsumerScope) -> tuple[delivery.Log, ...]:
    """One log per partition bit a topic may ever have (``len(partitions) * stride``)."""
    return delivery.new_logs(len(scope.partitions) * scope.stride)


def verdict(group: Group, member_id: int, generation: int) -> str:
    """The coordinator's answer to an OffsetCommit, ``delivery.ACCEPTED`` for none."""
    error = offset_commit_error(group, member_id, generation)
    return delivery.ACCEPTED if error == NONE else error


def _stable(c: Consumer) -> bool:
    """MemberState.STABLE with a generation: ``generationIfStable()`` is not null."""
    return (c.status != DOWN and c.member_id != NO_MEMBER and c.generation != NO_GENERATION
            and not client.rebalance_in_progress(c))


def _current(group: Group, member_id: int, generation: int) -> bool:
    return group.member(member_id) is not None and generation == group.generation


def zombie(state: State, c: Consumer) -> bool:
    """The coordinator no longer counts the consumer as a member (removed by a timeout, or reset):
    what it processes now is a fault's doing (``no_duplicate_without_failure`` does not judge it)."""
    return state.group.member(c.member_id) is None


def in_poll(scope: ConsumerScope, c: Consumer) -> bool:
    """Callbacks and the JoinGroup run inside poll(): with records, only once the application
    processed what the last poll returned. Always true without records."""
    return not scope.records or c.app is None or delivery.in_poll(c.app)


def actions(scope: ConsumerScope, state: State, slot: int) -> list[Action]:
    """The record actions of consumer ``slot``, in ``KINDS`` order."""
    c, logs = state.consumers[slot], state.logs
    app = c.app
    if app is None:
        return []
    out: list[Action] = []
    if not c.paused:
        out += [Action("poll", slot, x.partition) for x in app.cursors if delivery.can_poll(app, logs, x.partition)]
        out += [Action("process", slot, x.partition) for x in app.cursors if delivery.can_process(app, x.partition)]
        if app.waiting == delivery.COMMITTING:
            out.append(Action("commit", slot))
        if (scope.commit_policy == AUTO and app.commit is None and app.reply is None and not app.waiting
                and not c.outbox and delivery.in_poll(app) and _stable(c)
                and any(x.position > logs[x.partition].committed for x in app.cursors)):
            out.append(Action("auto_commit", slot))
        if app.reply is not None and (app.waiting != delivery.PREPARE or delivery.in_poll(app)):
            out.append(Action("commit_read", slot))
    if app.commit is not None:
        out.append(Action("commit_deliver", slot))
    if app.reply is not None and state.budget > 0 and "lose_response" in scope.faults:
        out.append(Action("lose_commit_reply", slot))
    return out


def max_poll_enabled(scope: ConsumerScope, state: State, slot: int) -> bool:
    """Fault ``max_poll``: a member whose application holds records it has not processed (it
    is not back in poll()) and whose connection has no request queued."""
    c = state.consumers[slot]
    return ("max_poll" in scope.faults and state.budget > 0 and c.app is not None and not c.paused
            and c.member_id != NO_MEMBER and not c.outbox and not delivery.in_poll(c.app))


def max_poll_reset(scope: ConsumerScope, c: Consumer) -> Consumer:
    """max.poll.interval.ms expired (the caller sends the LeaveGroup): the member is reset
    (``client.fenced`` as UNKNOWN_MEMBER_ID: no member id, no generation) and onJoinPrepare
    runs again, calling onPartitionsLost; ``librdkafka-5604``: not when a rebalance was
    already in progress (the lost flag is dropped)."""
    reset = client.fenced(scope, c, UNKNOWN_MEMBER_ID)
    if not rules(scope.behaviour.delivery).keep_lost_in_rebalance and client.rebalance_in_progress(c):
        reset = reset._replace(needs_join_prepare=c.needs_join_prepare)
    return reset


def produce_actions(scope: ConsumerScope, state: State) -> list[Action]:
    """A producer appends to an existing partition below ``max_records``."""
    out = []
    for t, n in enumerate(state.partitions):
        for p in range(t * scope.stride, t * scope.stride + n):
            if state.logs[p].end < scope.max_records:
                out.append(Action("produce", arg=p))
    return out


def _set(state: State, slot: int, c: Consumer) -> State:
    consumers = list(state.consumers)
    consumers[slot] = c
    return state._replace(consumers=tuple(consumers))


def _committed(slot: int, req: OffsetCommitReq, error: str) -> Event:
    mask = delivery.committed_mask(req)
    return Event("offset_commit", slot, mask, error or NONE, commit=req)


def _commit_now(state: State, slot: int, req: OffsetCommitReq | None, sent: bool = True,
                generation: int | None = None) -> tuple[State, tuple[Event, ...]]:
    """A commitSync the client blocks on: judged by the coordinator in this step. A rejection
    the application cannot avoid (the member is not current, or REBALANCE_IN_PROGRESS) excuses,
    and so does a commit the client fails itself (``sent`` false: ``sendOffsetCommitRequest``
    finds no ``generationIfStable()`` and throws RebalanceInProgressException /
    CommitFailedException). ``generation``: the member's own, when the request carries another
    (kafka-9741's stale ConsumerGroupMetadata): a rejection of it is the client's own doing."""
    if req is None:
        return state, ()
    if not sent:
        return state._replace(logs=delivery.excuse(state.logs, delivery.committed_mask(req))), ()
    error = verdict(state.group, req.member, req.generation)
    logs = delivery.apply_commit(state.logs, req, error)
    own = req.generation if generation is None else generation
    if error and (error == REBALANCE_IN_PROGRESS or not _current(state.group, req.member, own)):
        logs = delivery.excuse(logs, delivery.committed_mask(req))
    return state._replace(logs=logs), (_committed(slot, req, error),)


def step(scope: ConsumerScope, state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
    """One record action (``KINDS``)."""
    kind, slot, p = action.kind, action.slot, action.arg
    if kind == "produce":
        return state._replace(logs=delivery.produce(state.logs, p)), ()
    c = state.consumers[slot]
    app = c.app
    if kind == "poll":
        # a zombie's OffsetFetch takes nothing over: the log keeps its fetcher
        fetcher = state.logs[p].fetcher if zombie(state, c) else c.member_id
        app, logs = delivery.poll(app, state.logs, p, fetcher, scope.offset_reset)
        return _set(state, slot, c._replace(app=app))._replace(logs=logs), ()
    if kind == "process":
        again = delivery.redelivered(state.logs[p], delivery.cursor(app, p).processed)
        app, logs, offset = delivery.process(app, state.logs, p)
        if scope.commit_policy == delivery.AFTER_PROCESSING:
            app = app._replace(waiting=delivery.COMMITTING)
        if zombie(state, c):
            logs = delivery.excuse_offset(logs, p, offset)
        note = f"offset {offset}" + (" again" if again else "")
        return _set(state, slot, c._replace(app=app))._replace(logs=logs), (Event("processed", slot, 1 << p, note),)
    if kind == "commit":
        req = delivery.commit_request(app, c.member_id, c.generation, delivery.MANUAL, processed=True)
        state = _set(state, slot, c._replace(app=app._replace(waiting="")))
        return _commit_now(state, slot, req, sent=_stable(c))
    if kind == "auto_commit":
        req = delivery.commit_request(app, c.member_id, c.generation, delivery.INTERVAL, processed=False)
        return _set(state, slot, c._replace(app=app._replace(commit=req))), ()
    if kind == "commit_deliver":
        req = app.commit
        error = verdict(state.group, req.member, req.generation)
        app, logs = delivery.deliver(app, state.logs, error)
        if error and (error == REBALANCE_IN_PROGRESS or not _current(state.group, req.member, req.generation)):
            logs = delivery.excuse(logs, delivery.committed_mask(req))
        return _set(state, slot, c._replace(app=app))._replace(logs=logs), (_committed(slot, req, error),)
    if kind == "commit_read":
        return _read(scope, state, slot, app.reply)
    if kind == "lose_commit_reply":     # a fault: what the application processed may come again
        state = state._replace(logs=delivery.excuse(state.logs, delivery.partitions(app)))
        return _read(scope, state, slot, REQUEST_TIMED_OUT)
    raise ValueError(f"unknown record action kind {kind!r}")


def _read(scope: ConsumerScope, state: State, slot: int, error: str) -> tuple[State, tuple[Event, ...]]:
    """The client reads its commit's answer ``error`` (``REQUEST_TIMED_OUT``: the answer was
    lost). A fencing error resets the member. In the prepare phase this is onJoinPrepare
    re-entered: retriable -> commit again, else the JoinGroup."""
    c = state.consumers[slot]
    waiting = c.app.waiting
    c = c._replace(app=c.app._replace(reply=None))
    events: tuple = ()
    if error in FENCING:
        c = client.fenced(scope, c, error)
        events = (Event("fenced", slot, note=error),)
    if waiting != delivery.PREPARE:
        return _set(state, slot, c), events
    if error in RETRIABLE:
        return _set(state, slot, c._replace(app=_prepare_commit(scope, c))), events
    c = c._replace(app=c.app._replace(waiting=""))
    h = client.join(scope, _set(state, slot, c), slot)
    return _set(state, slot, h.consumer), events + h.events


def _prepare_commit(scope: ConsumerScope, c: Consumer) -> App:
    """onJoinPrepare with auto-commit and no commit in flight: maybeMarkPartitionsPendingRevocation
    (EAGER only; ``pause_before_revoke_commit``: unfetchable too) and the positions sent."""
    app = c.app
    eager = client.protocol_of(scope, c) == EAGER
    req = delivery.commit_request(app, c.member_id, c.generation, delivery.REVOKE, processed=False)
    mask = delivery.partitions(app) if eager else 0
    return delivery.revoke_commit(app, mask, req, delivery.PREPARE,
                                  pause=rules(scope.behaviour.delivery).pause_before_revoke_commit)


def join(scope: ConsumerScope, state: State, slot: int) -> tuple[State, tuple[Event, ...]]:
    """``join`` with records: under policy auto, a stable member's first onJoinPrepare sends
    its commit and waits (nothing else changes); otherwise the JoinGroup as without records."""
    c = state.consumers[slot]
    if scope.commit_policy == AUTO and c.needs_join_prepare and _stable(c):
        app = _prepare_commit(scope, c)
        if app.waiting:
            return _set(state, slot, c._replace(app=app)), ()
        c = c._replace(app=app)
        state = _set(state, slot, c)
    h = client.join(scope, state, slot)
    return _set(state, slot, h.consumer), h.events


def settle(scope: ConsumerScope, prev: State, state: State, action: Action,
           events: tuple[Event, ...]) -> tuple[State, tuple[Event, ...]]:
    """What the step's listener calls, resets, crashes and removals do to cursors and logs."""
    slot = action.slot
    if action.kind == "crash":
        app = prev.consumers[slot].app
        state = state._replace(logs=delivery.excuse(state.logs, delivery.partitions(app)))
        return _set(state, slot, state.consumers[slot]._replace(app=None)), events
    if action.kind == "restart":
        return _set(state, slot, state.consumers[slot]._replace(app=delivery.new_app())), events
    if action.kind == "bounce":
        state, more = _leave(scope, prev, state, slot)
        return _set(state, slot, state.consumers[slot]._replace(app=delivery.new_app())), events + more
    extra: tuple = ()
    for e in events:
        if e.kind in ("lost", "revoked", "assigned", "fenced", "fatal") and state.consumers[e.slot].app is not None:
            state, more = _listener(scope, prev, state, e)
            extra += more
    return _excuse_removed(prev, state), events + extra


def _listener(scope: ConsumerScope, prev: State, state: State, e: Event) -> tuple[State, tuple[Event, ...]]:
    """One listener call (or a reset) on the cursors of consumer ``e.slot``."""
    app, out = state.consumers[e.slot].app, ()
    if e.kind == "lost":
        app, logs = delivery.lost(app, state.logs, e.partitions)
        state = state._replace(logs=logs)
    elif e.kind in ("fenced", "fatal"):    # fatal: poll() threw, the process stops (no app)
        state = state._replace(logs=delivery.excuse(state.logs, delivery.partitions(app)))
        app = app if e.kind == "fenced" else None
    elif e.kind == "assigned":
        app = delivery.assigned(app, e.partitions)
        if not rules(scope.behaviour.delivery).metadata_before_revoke:    # kafka-9741: updated last
            app = app._replace(meta_generation=state.consumers[e.slot].generation)
    else:   # revoked: a commitSync in the callback, with the member's identity before the step
        was = prev.consumers[e.slot]
        if (scope.commit_policy == AUTO and was.awaiting == "SyncGroup"
                and rules(scope.behaviour.delivery).commit_before_cooperative_revoke):
            # the candidate fix (not Kafka): onJoinComplete auto-commits what it is about to revoke
            req = delivery.commit_request(app, was.member_id, was.generation, delivery.REVOKE,
                                          processed=False, mask=e.partitions)
            state, out = _commit_now(state, e.slot, req)
        if scope.commit_policy == delivery.SYNC_ON_REVOKE:
            # kafka-9741: the commit carries consumer.groupMetadata(), not yet updated by onJoinComplete
            meta = was.generation if rules(scope.behaviour.delivery).metadata_before_revoke else app.meta_generation
            req = delivery.commit_request(app, was.member_id, meta, delivery.CALLBACK,
                                          processed=True, mask=e.partitions)
            # onJoinPrepare and onJoinComplete run while the member is STABLE, unless it was reset
            state, out = _commit_now(state, e.slot, req, sent=was.generation != NO_GENERATION
                                     and was.member_id != NO_MEMBER, generation=was.generation)
        app = delivery.revoked(app, e.partitions)
    return _set(state, e.slot, state.consumers[e.slot]._replace(app=app)), out


def _leave(scope: ConsumerScope, prev: State, state: State, slot: int) -> tuple[State, tuple[Event, ...]]:
    """KafkaConsumer#close before the restart: with auto-commit, maybeAutoCommitOffsetsSync of
    the positions, then onLeavePrepare's callback, both against the group before the LeaveGroup."""
    was = prev.consumers[slot]
    closing = _set(state._replace(group=prev.group), slot, was)
    events: tuple = ()
    if scope.commit_policy == AUTO and _stable(was):
        req = delivery.commit_request(was.app, was.member_id, was.generation, delivery.CLOSE, processed=False)
        closing, events = _commit_now(closing, slot, req)
    for e in client.leave(scope, slot, was):
        closing, more = _listener(scope, prev, closing, e)
        events += more
    return state._replace(logs=closing.logs), events


def _excuse_removed(prev: State, state: State) -> State:
    """The coordinator removed a member (session or rebalance timeout): what its consumer
    processed may be redelivered by the next owner, a fault's doing."""
    kept = {m.member_id for m in state.group.members}
    for m in prev.group.members:
        c = state.consumers[m.slot]
        if m.member_id not in kept and c.member_id == m.member_id and c.app is not None:
            state = state._replace(logs=delivery.excuse(state.logs, delivery.partitions(c.app)))
    return state
