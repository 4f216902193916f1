"""The record layer of the KIP-848 consumer-group model (issue 30): the application behind each
client polls and processes records of the partitions it owns, and commits offsets by the
scope's ``commit_policy``. The rules on logs and cursors are the shared ``model/delivery``'s;
this module says when each runs in a KIP-848 group and what the coordinator answers
(``coordinator.offset_commit``). Only called with ``scope.records``.

Kafka's new consumer (``AsyncKafkaConsumer``, clients/.../consumer/internals/):

* ``poll`` / ``process``: the application's ``poll()`` returns records of fetchable partitions
  (one per step here); it processes them before polling again. The rebalance callbacks and the
  reconciliation run inside ``poll()`` (``AbstractMembershipManager#maybeReconcile(canCommit)``
  returns early unless called from the application's poll): ``delivery.in_poll``
  (``kafka-20332``: the background starts a revocation while the application holds records).
* ``auto_commit`` (policy auto): ``CommitRequestManager``'s interval commit of
  ``allConsumed()``, a message: ``commit_deliver`` (the coordinator judges it), ``commit_read``
  (the client reads the answer), ``lose_commit_reply`` (fault ``lose_response``). One
  connection per client: a queued commit goes before the next heartbeat (``send`` waits).
* the reconciliation with policy auto and partitions to revoke runs in two phases:
  ``revokePartitions`` marks them pending revocation (``markPendingRevocationToPauseFetching``,
  KAFKA-16460's fix) and sends ``maybeAutoCommitSyncBeforeRebalance``'s commit of
  ``allConsumed()`` (phase 1, ``waiting = "reconcile"``); its answer read, onPartitionsRevoked
  and onPartitionsAssigned run (phase 2). STALE_MEMBER_EPOCH is retried with the latest
  positions and epoch (KAFKA-16033's fix); any other answer: "Will proceed with the
  reconciliation anyway".
* atomic commits (the client blocks; judged in the step that makes them): ``commitSync`` in
  onPartitionsRevoked (policy sync-on-revoke), after each record (after-processing, action
  ``commit``: the application owes it from ``process`` on, ``delivery.COMMITTING``, and polls,
  closes or reconciles only after it, whatever the answer), and the auto-commit on close
  (``AsyncKafkaConsumer#close``).
* faults that excuse a redelivery (``delivery.excuse``): a crash, the coordinator removing
  the member (session or rebalance timeout; what its zombie processes after that too),
  onPartitionsLost (a fence), a lost commit answer. A commit answered UNKNOWN_MEMBER_ID comes
  from a removed member, already excused (excusing its partitions again would also excuse what
  the next owner processed). STALE_MEMBER_EPOCH is not a fault: the client's own rules avoid it.
"""
from __future__ import annotations

from .. import delivery as d
from ..delivery import (AFTER_PROCESSING, AUTO, CALLBACK, CLOSE, INTERVAL, MANUAL, RECONCILE, REVOKE, SYNC_ON_REVOKE,
                        Rules)
from .coordinator import offset_commit
from .group import topic_partitions_of
from .member import Commit, close, reconcile, running
from .world import (HANDOVER_CLEAN, IN_GROUP, KILLED_BEFORE_COMMIT, RECONCILING, REDELIVERED, Action, Client, Event,
                    State, member_id)

KINDS = ("poll", "process", "commit", "auto_commit", "commit_deliver", "commit_read")
ENVIRONMENT = ("produce",)
FAULTS = ("lose_commit_reply",)
# the record layer's known-bug switches (delivery.SWITCHES) this model runs
SWITCHES = ("kafka-16460", "kafka-18641", "kafka-20332")


def rules_of(scope) -> Rules:
    """The record layer's rules: the reference with the scope's delivery switches put back."""
    return d.rules(tuple(s for s in scope.switches if s in SWITCHES))


def member_key(slot: int, incarnation: int) -> int:
    """The member as an int (``Log.fetcher``, ``OffsetCommitReq.member``): one per (slot,
    incarnation), never 0."""
    return incarnation * 4 + slot + 1


def _slot_of_key(key: int) -> tuple[int, int]:
    return (key - 1) % 4, (key - 1) // 4


# ---- the start ----

def init(scope, index, state: State) -> State:
    """Empty logs, and an application for every client that starts."""
    clients = tuple(c._replace(app=d.new_app()) if running(c) else c for c in state.clients)
    return state._replace(logs=d.new_logs(len(index)), clients=clients)


def started(c: Client) -> Client:
    """A new incarnation (join, restart): a fresh application."""
    return c._replace(app=d.new_app())


# ---- actions ----

def _idle_commit(app) -> bool:
    return app.commit is None and app.reply is None


def may_send(c: Client) -> bool:
    """One connection per client, in order: a commit queued goes before the next heartbeat."""
    return c.app is None or c.app.commit is None


def may_reconcile(scope, c: Client) -> bool:
    """maybeReconcile(canCommit): only from the application's poll (every record it was given
    processed, no commitSync owed), with no commit of its own under way (a reconciliation
    waiting for its commit has one). ``kafka-20332`` (4.2.0): the background thread may run
    it while the application still holds records poll returned."""
    app = c.app
    if app is None or not _idle_commit(app):
        return False
    return d.in_poll(app) or (not rules_of(scope).revoke_only_in_poll and app.waiting != d.COMMITTING)


def may_close(c: Client) -> bool:
    """close() runs between the application's batches, with no commit under way."""
    return c.app is None or (d.in_poll(c.app) and _idle_commit(c.app))


def _behind(app, logs) -> bool:
    """A cursor whose position is past the partition's committed offset."""
    return any(c.position != d.NO_OFFSET and c.position > logs[c.partition].committed for c in app.cursors)


def _offset_fetch_ok(state: State, slot: int, c: Client) -> bool:
    """ConsumerGroup#validateOffsetFetch: the OffsetFetch that initialises a position carries the
    member id and epoch; an unknown member ("Member %s is not a member of group %s.") or another
    epoch (STALE_MEMBER_EPOCH) is refused, and the position stays INITIALIZING (a removed
    member's zombie fetches nothing)."""
    g = state.group
    m = None if g.dead else g.member(member_id(slot, c.incarnation))
    return m is not None and m.epoch == c.epoch


def actions(scope, state: State, slot: int, c: Client) -> list[Action]:
    """The record steps of client ``slot`` (appended after its protocol steps)."""
    app, logs, out = c.app, state.logs, []
    if app is None:
        return out
    live = running(c) and not c.stalled
    fetch = _offset_fetch_ok(state, slot, c)
    for cur in app.cursors if live else ():
        p = cur.partition
        if d.can_poll(app, logs, p) and (cur.position != d.NO_OFFSET or fetch):
            out.append(Action("poll", slot, p))
        if d.can_process(app, p):
            out.append(Action("process", slot, p))
    if live and app.waiting == d.COMMITTING:
        out.append(Action("commit", slot))
    member = live and c.status in IN_GROUP and _idle_commit(app) and app.waiting == ""
    if (member and scope.commit_policy == AUTO and (d.in_poll(app) or not rules_of(scope).commit_only_in_poll)
            and _behind(app, logs)):
        out.append(Action("auto_commit", slot))
    if app.commit is not None and c.request is None:
        out.append(Action("commit_deliver", slot))
    if app.reply is not None and not c.stalled:
        out.append(Action("commit_read", slot))
    return out


def produced(scope, state: State, index) -> list[Action]:
    """``produce`` on every partition that exists and has room."""
    topics = dict(state.topics)
    return [Action("produce", 0, bit) for bit, (t, p) in enumerate(index)
            if p < topics.get(t, 0) and state.logs[bit].end < scope.max_records]


def faults(scope, state: State, slot: int, c: Client) -> list[Action]:
    if c.app is not None and c.app.reply is not None and "lose_response" in scope.faults:
        return [Action("lose_commit_reply", slot)]
    return []


# ---- steps ----

def _judge(scope, state: State, slot: int, c: Client, req, profile, index) -> str:
    """The coordinator's answer to ``req`` (ConsumerGroup#validateOffsetCommit)."""
    mask = d.committed_mask(req)
    return offset_commit(state.group, member_id(slot, c.incarnation), req.generation,
                         topic_partitions_of(index, mask), profile)


def answered(slot: int, req, error: str) -> Event:
    """The event of a commit the coordinator answered: (request, answer) for the claim
    commits_fenced_after_handover (the Commit callback the other claims read has no offsets)."""
    return Event("offset_commit", slot, error or "accepted", (req, error))


def _commit_now(scope, state: State, slot: int, c: Client, app, logs, req, profile, index):
    """An atomic commit (commitSync; the auto-commit on close): judged and applied in this
    step. Returns (logs, the Commit callback or (), its ``answered`` events)."""
    if req is None:
        return logs, (), ()
    error = _judge(scope, state, slot, c, req, profile, index)
    logs = d.apply_commit(logs, req, error)
    return (logs, (Commit(kind="commit", partitions=d.committed_mask(req), epoch=req.generation, error=error),),
            (answered(slot, req, error),))


def step(scope, state: State, action: Action, profile, index) -> tuple[State, tuple[Event, ...]]:
    """One record step (``KINDS``, ``ENVIRONMENT``, ``FAULTS``)."""
    k, s, p = action.kind, action.slot, action.arg
    if k == "produce":
        return state._replace(logs=d.produce(state.logs, p)), (Event("produce", s, f"partition {p}"),)
    c = state.clients[s]
    app, logs, key = c.app, state.logs, member_key(s, c.incarnation)
    data, note, extra, marks = (), "", (), state.marks
    if k == "poll":
        fetching = d.cursor(app, p).position == d.NO_OFFSET
        app, logs = d.poll(app, logs, p, key, scope.offset_reset)
        note = f"partition {p} position {d.cursor(app, p).position}"
        if fetching and _clean_handover(state.logs[p], logs[p], d.cursor(app, p).processed):
            marks |= HANDOVER_CLEAN
    elif k == "process":
        offset = d.cursor(app, p).processed
        redelivered = d.redelivered(logs[p], offset)
        if logs[p].done >> offset & 1 and not redelivered:
            marks |= REDELIVERED
        app, logs, offset = d.process(app, logs, p)
        note = f"partition {p} offset {offset}" + (" (again)" if redelivered else "")
        if zombie(state, s):    # after the fault that removed it: the next owner's redelivery is excused
            logs = d.excuse(logs, 1 << p)
        if scope.commit_policy == AFTER_PROCESSING:
            app = app._replace(waiting=d.COMMITTING)
        if not c.owned >> p & 1 and not d.can_process(app, p) and not rules_of(scope).revoke_only_in_poll:
            app = d.revoked(app, 1 << p)     # kafka-20332: the revoked cursor's last held record

    elif k == "commit":
        req = d.commit_request(app, key, c.epoch, MANUAL, processed=True)
        logs, data, extra = _commit_now(scope, state, s, c, app, logs, req, profile, index)
        app = app._replace(waiting="")
    elif k == "auto_commit":
        app = app._replace(commit=d.commit_request(app, key, c.epoch, INTERVAL, processed=False))
    elif k == "commit_deliver":
        req = app.commit
        error = _judge(scope, state, s, c, req, profile, index)
        app, logs = d.deliver(app, logs, error)
        data = (Commit(kind="commit", partitions=d.committed_mask(req), epoch=req.generation, error=error),)
        note, extra = error or "accepted", (answered(s, req, error),)
    else:   # commit_read, lose_commit_reply
        return _read(scope, state, action, profile, index)
    clients = state.clients[:s] + (c._replace(app=app),) + state.clients[s + 1:]
    return state._replace(clients=clients, logs=logs, marks=marks), (Event(k, s, note, data),) + extra


def _read(scope, state: State, action: Action, profile, index):
    """The client reads its commit's answer (or loses it: the request times out and counts as
    failed, and excuses); the reconciliation waiting for it goes on."""
    s, c = action.slot, state.clients[action.slot]
    app, logs = c.app, state.logs
    lost = action.kind == "lose_commit_reply"
    error = d.REQUEST_TIMED_OUT if lost else app.reply
    app = app._replace(reply=None)
    if lost:
        logs = d.excuse(logs, d.partitions(app))
    budget = state.budget - lost
    c = c._replace(app=app)
    state = state._replace(logs=logs, budget=budget)
    callbacks = ()
    if app.waiting == RECONCILE:
        if error == "STALE_MEMBER_EPOCH" and rules_of(scope).retry_stale_with_latest and c.status == RECONCILING:
            # "auto-commit before revocation should retry with latest consumed offsets" (KAFKA-16033's fix)
            req = d.commit_request(app, member_key(s, c.incarnation), c.epoch, REVOKE, processed=True)
            c = c._replace(app=app._replace(commit=req, waiting=RECONCILE if req is not None else ""))
        else:
            c, state, callbacks = _finish_revocation(scope, state, s, c, profile, index)
    clients = state.clients[:s] + (c,) + state.clients[s + 1:]
    return state._replace(clients=clients), (Event(action.kind, s, error or "accepted", callbacks),)


def _finish_revocation(scope, state: State, s: int, c: Client, profile, index):
    """Phase 2 of a reconciliation that waited for its commit: onPartitionsRevoked of what phase
    1 marked, onPartitionsAssigned of the target's additions. A client fenced meanwhile
    abandoned it (its cursors went with onPartitionsLost)."""
    app = c.app._replace(waiting="")
    if c.status != RECONCILING:
        return c._replace(app=app), state, ()
    marked = sum(1 << cur.partition for cur in app.cursors if cur.revoking)
    goal = c.target
    c, callbacks = reconcile(c._replace(target=(c.owned & ~marked) | (c.target & ~c.owned)), "", commit=False)
    c = c._replace(target=goal)
    app = d.assigned(_revoked(scope, app, marked), c.owned)
    return c._replace(app=app), state, callbacks


def _revoked(scope, app, mask: int):
    """onPartitionsRevoked: the cursors of ``mask`` are dropped. ``kafka-20332``: one whose
    records the application still holds (the background thread revoked while the app thread
    had collected them) stays, revoking and unfetchable, until they are processed: "records
    being returned to the app after commit/revocation" (KAFKA-20332). (A ghost whose partition
    comes back before it is processed stays the partition's one cursor: the buggy scope's
    claim breaks before.)"""
    if rules_of(scope).revoke_only_in_poll:
        return d.revoked(app, mask)
    ghosts = tuple(cur._replace(revoking=True, unfetchable=True) for cur in app.cursors
                   if mask >> cur.partition & 1 and cur.processed < cur.position)
    kept = d.revoked(app, mask)
    return kept._replace(cursors=tuple(sorted(kept.cursors + ghosts)))


def reconcile_step(scope, state: State, s: int, profile, index) -> tuple[State, tuple[Event, ...]]:
    """The reconciliation with records: policy auto with partitions to revoke starts phase 1
    (mark, commit, wait); otherwise it runs at once, a sync-on-revoke commit in the callback."""
    c = state.clients[s]
    app, logs = c.app, state.logs
    key = member_key(s, c.incarnation)
    revoked = c.owned & ~c.target
    if scope.commit_policy == AUTO and revoked:
        # the positions as of the application's last poll (CommitRequestManager's
        # latestPartitionOffsets, KAFKA-18641's fix): inside poll they are the positions, and
        # they are what was processed (poll returns records only once all before are)
        req = d.commit_request(app, key, c.epoch, REVOKE, processed=True)
        if req is not None:
            app = d.revoke_commit(app, revoked, req, RECONCILE, pause=rules_of(scope).pause_before_revoke_commit)
            clients = state.clients[:s] + (c._replace(app=app),) + state.clients[s + 1:]
            return state._replace(clients=clients), (Event("reconcile", s, "commit before revocation sent", ()),)
    data = extra = ()
    if scope.commit_policy == SYNC_ON_REVOKE and revoked:
        req = d.commit_request(app, key, c.epoch, CALLBACK, processed=True, mask=revoked)
        logs, data, extra = _commit_now(scope, state, s, c, app, logs, req, profile, index)
    nc, callbacks = reconcile(c, "", commit=False)
    app = d.assigned(_revoked(scope, app, revoked), nc.owned & ~c.owned)
    clients = state.clients[:s] + (nc._replace(app=app),) + state.clients[s + 1:]
    note = (data[0].error or "committed") if data else "no commit"
    return state._replace(clients=clients, logs=logs), (Event("reconcile", s, note, data + callbacks),) + extra


def close_step(scope, state: State, s: int, for_good: bool, profile, index):
    """close(): policy auto commits every position (atomic), sync-on-revoke commits the
    processed offsets in onPartitionsRevoked (epoch > 0), then the partitions are revoked or
    lost. Returns (client, logs, callbacks, ``answered`` events)."""
    c = state.clients[s]
    app, logs = c.app, state.logs
    key = member_key(s, c.incarnation)
    req = None
    if scope.commit_policy == AUTO:
        req = d.commit_request(app, key, c.epoch, CLOSE, processed=False)
    elif scope.commit_policy == SYNC_ON_REVOKE and c.epoch > 0:
        req = d.commit_request(app, key, c.epoch, CALLBACK, processed=True)
    logs, data, extra = _commit_now(scope, state, s, c, app, logs, req, profile, index)
    nc, callbacks = close(c, "", for_good, commit=False)
    if c.epoch > 0:
        app = d.revoked(app, c.owned)
    else:
        app, logs = d.lost(app, logs, c.owned)
    return nc._replace(app=app), logs, data + callbacks, extra


def follow(app, logs, callbacks):
    """onPartitionsLost / Revoked / Assigned the protocol ran on its own (a fence, a fatal
    error): the cursors follow; lost ones are excused."""
    for call in callbacks:
        if call.kind == "lost":
            app, logs = d.lost(app, logs, call.partitions)
        elif call.kind == "revoked":
            app = d.revoked(app, call.partitions)
        elif call.kind == "assigned":
            app = d.assigned(app, call.partitions)
    return app, logs


def _clean_handover(before, after, start: int) -> bool:
    """An OffsetFetch by a member other than the partition's last fetcher started it exactly
    after what was processed: every record from ``base`` below ``start`` done, none above."""
    if before.fetcher in (0, after.fetcher) or after.committed != start:
        return False
    below = ((1 << start) - 1) & ~((1 << after.base) - 1)
    return after.done & below == below and after.done >> start == 0


def crashed(state: State, c: Client) -> State:
    """The process dies: its application and cursors are gone, and their records excused
    (the witness KILLED_BEFORE_COMMIT when it held processed records not committed yet)."""
    if c.app is None:
        return state
    marks = state.marks | (KILLED_BEFORE_COMMIT if d.killed_before_commit(state.logs, c.app) else 0)
    return state._replace(logs=d.excuse(state.logs, d.partitions(c.app)), marks=marks)


def zombie(state: State, slot: int) -> bool:
    """The client runs as a member (epoch > 0) the coordinator no longer holds: removed by a
    timeout, it goes on processing until its next heartbeat is fenced."""
    c = state.clients[slot]
    g = state.group
    return running(c) and c.epoch > 0 and (g.dead or g.member(member_id(slot, c.incarnation)) is None)


def removed(prev: State, nxt: State, slot: int, incarnation: int):
    """The coordinator removed the member (a timeout): the client's records are excused from
    then on (the next owner may reprocess them before the zombie learns it)."""
    c = nxt.clients[slot]
    mid = member_id(slot, incarnation)
    gone = not prev.group.dead and prev.group.member(mid) is not None and (
        nxt.group.dead or nxt.group.member(mid) is None)
    if gone and c.incarnation == incarnation and c.app is not None:
        return d.excuse(nxt.logs, d.partitions(c.app))
    return nxt.logs


def canonical_logs(state: State):
    """The logs with each fetcher as (slot, incarnation relative to its client's): canonical
    drops incarnation numbers."""
    if state.logs is None:
        return None
    out = []
    for log in state.logs:
        if log.fetcher:
            slot, inc = _slot_of_key(log.fetcher)
            log = log._replace(fetcher=(slot, inc - state.clients[slot].incarnation))
        out.append(log)
    return tuple(out)


__all__ = ["ENVIRONMENT", "SWITCHES", "FAULTS", "KINDS", "actions", "canonical_logs", "close_step", "crashed", "faults", "follow",
           "init", "may_close", "may_reconcile", "may_send", "member_key", "produced", "reconcile_step", "removed",
           "rules_of", "started", "step", "zombie"]
