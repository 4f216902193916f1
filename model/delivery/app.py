"""The record layer's rules as pure functions over ``Log``s and an ``App``.

No protocol knowledge: a model calls them with what it knows (the member, its generation or
epoch, the coordinator's verdict on a commit) and decides when each is enabled. ``logs`` is
the tuple of every partition's ``Log`` by the models' partition bit; a ``mask`` is a
partition bitmask (``model.partitions``). Functions that change a log return the new tuple.

Kafka's names: a cursor is a ``SubscriptionState`` entry (``position``), the application
processes what ``poll()`` returned, ``allConsumed()`` is every cursor's position.
"""
from __future__ import annotations

from ..partitions import bits
from .state import (ACCEPTED, COMMITTING, EARLIEST, NO_OFFSET, App, Cursor, Log, OffsetCommitReq)


def new_logs(count: int) -> tuple[Log, ...]:
    """``count`` empty partitions (bits 0..count-1), nothing committed, nobody fetched."""
    return (Log(end=0, committed=NO_OFFSET, base=0, fetcher=0, done=0, excused=0),) * count


def new_app() -> App:
    """A freshly started application: no partitions, no commit."""
    return App(cursors=(), commit=None, reply=None, waiting="")


def _set(logs: tuple[Log, ...], p: int, log: Log) -> tuple[Log, ...]:
    return logs[:p] + (log,) + logs[p + 1:]


def _with_cursor(app: App, new: Cursor) -> App:
    return app._replace(cursors=tuple(new if c.partition == new.partition else c for c in app.cursors))


def produce(logs: tuple[Log, ...], p: int) -> tuple[Log, ...]:
    """A producer appends one record to partition ``p`` (the model bounds ``end``)."""
    return _set(logs, p, logs[p]._replace(end=logs[p].end + 1))


def cursor(app: App | None, p: int) -> Cursor | None:
    """The application's cursor on partition ``p``, or None when it does not own ``p``."""
    for c in app.cursors if app is not None else ():
        if c.partition == p:
            return c
    return None


def partitions(app: App | None) -> int:
    """The partitions the application has cursors on, as a mask."""
    return sum(1 << c.partition for c in app.cursors) if app is not None else 0


def in_poll(app: App | None) -> bool:
    """The application is inside ``poll()``: it processed every record poll gave it (the
    KafkaConsumer javadoc's requirement for auto-commit; rebalance callbacks run here) and
    owes no commitSync (``COMMITTING``: policy after-processing commits before polling again)."""
    return app is not None and app.waiting != COMMITTING and all(c.processed == c.position for c in app.cursors)


def held(app: App | None, p: int) -> int:
    """The offsets of ``p`` poll returned to the application and it has not processed yet
    (``[processed, position)``) as a mask: a live holder processes them unless a fault strikes."""
    c = cursor(app, p)
    if c is None or c.position <= c.processed:
        return 0
    return ((1 << c.position) - 1) & ~((1 << c.processed) - 1)


def start(log: Log, member: int, reset: str) -> tuple[int, Log]:
    """OffsetFetch for a cursor awaiting its position: the committed offset, or, with none,
    ``auto.offset.reset`` (earliest 0 / latest ``end``), which becomes the log's ``base``.
    ``member`` becomes the log's ``fetcher``. Returns (position, log)."""
    if log.committed != NO_OFFSET:
        return log.committed, log._replace(fetcher=member)
    position = 0 if reset == EARLIEST else log.end
    return position, log._replace(fetcher=member, base=position)


def can_poll(app: App | None, logs: tuple[Log, ...], p: int) -> bool:
    """``poll`` may act on ``p``: inside poll, ``p`` fetchable, and its position to be
    initialised or a record waiting at it."""
    c = cursor(app, p)
    return (c is not None and in_poll(app) and not c.unfetchable
            and (c.position == NO_OFFSET or c.position < logs[p].end))


def poll(app: App, logs: tuple[Log, ...], p: int, member: int, reset: str) -> tuple[App, tuple[Log, ...]]:
    """One ``poll()`` on ``p``: initialise the position if needed (``start``), then return one
    record if there is one (``position += 1``). One record per poll: batching adds nothing the
    claims can see."""
    c = cursor(app, p)
    log = logs[p]
    if c.position == NO_OFFSET:
        position, log = start(log, member, reset)
        c = c._replace(position=position, processed=position)
    if c.position < log.end:
        c = c._replace(position=c.position + 1)
    return _with_cursor(app, c), _set(logs, p, log)


def can_process(app: App | None, p: int) -> bool:
    """The application holds a record of ``p`` poll returned and it has not processed."""
    c = cursor(app, p)
    return c is not None and c.processed < c.position


def process(app: App, logs: tuple[Log, ...], p: int) -> tuple[App, tuple[Log, ...], int]:
    """The application processes the next record it holds of ``p``. Returns (app, logs, offset)."""
    c = cursor(app, p)
    offset = c.processed
    log = logs[p]
    return (_with_cursor(app, c._replace(processed=offset + 1)),
            _set(logs, p, log._replace(done=log.done | 1 << offset)), offset)


def redelivered(log: Log, offset: int) -> bool:
    """Processing ``offset`` now processes it twice with no fault to excuse it."""
    return bool(log.done >> offset & 1) and not log.excused >> offset & 1


def assigned(app: App, mask: int) -> App:
    """onPartitionsAssigned: a cursor awaiting its position for every partition of ``mask``
    the application has none on."""
    new = [Cursor(partition=p, position=NO_OFFSET, processed=NO_OFFSET, unfetchable=False, revoking=False)
           for p in bits(mask & ~partitions(app))]
    return app._replace(cursors=tuple(sorted(app.cursors + tuple(new))))


def revoked(app: App, mask: int) -> App:
    """The cursors of ``mask`` are gone (after onPartitionsRevoked; the caller commits first if
    the policy does)."""
    return app._replace(cursors=tuple(c for c in app.cursors if not mask >> c.partition & 1))


def excuse(logs: tuple[Log, ...], mask: int) -> tuple[Log, ...]:
    """A fault struck the holder of the partitions of ``mask``: a later redelivery of any
    record processed so far on them is excused (``excused |= done``)."""
    for p in bits(mask):
        logs = _set(logs, p, logs[p]._replace(excused=logs[p].excused | logs[p].done))
    return logs


def excuse_offset(logs: tuple[Log, ...], p: int, offset: int) -> tuple[Log, ...]:
    """A fault's doing processed ``offset`` of ``p`` (a zombie: a client the coordinator no longer
    counts as a member processed it): its redelivery is excused."""
    return _set(logs, p, logs[p]._replace(excused=logs[p].excused | 1 << offset))


def lost(app: App, logs: tuple[Log, ...], mask: int) -> tuple[App, tuple[Log, ...]]:
    """onPartitionsLost: the cursors of ``mask`` are dropped without a commit, and excused."""
    return revoked(app, mask), excuse(logs, mask & partitions(app))


def mark_revoking(app: App, mask: int, pause: bool) -> App:
    """The revocation of ``mask`` started: its cursors are ``revoking`` and, when ``pause``
    (the reference, ``Rules.pause_before_revoke_commit``), ``unfetchable``."""
    return app._replace(cursors=tuple(
        c._replace(revoking=True, unfetchable=c.unfetchable or pause) if mask >> c.partition & 1 else c
        for c in app.cursors))


def commit_request(app: App, member: int, generation: int, purpose: str, *,
                   processed: bool, mask: int = -1) -> OffsetCommitReq | None:
    """An OffsetCommit of the cursors of ``mask`` that have a position: their ``processed``
    offsets (the application's commitSync) or their positions (``allConsumed()``, the
    auto-commit). None when no such cursor."""
    offsets = tuple((c.partition, c.processed if processed else c.position) for c in app.cursors
                    if mask >> c.partition & 1 and c.position != NO_OFFSET)
    if not offsets:
        return None
    return OffsetCommitReq(member=member, generation=generation, offsets=offsets, purpose=purpose)


def revoke_commit(app: App, mask: int, req: OffsetCommitReq | None, waiting: str, pause: bool) -> App:
    """The first phase of a revocation with auto-commit: mark ``mask`` (``mark_revoking``), send
    ``req`` (the positions) and wait for its answer in phase ``waiting``."""
    return mark_revoking(app, mask, pause)._replace(commit=req, waiting=waiting if req is not None else "")


def apply_commit(logs: tuple[Log, ...], req: OffsetCommitReq, error: str) -> tuple[Log, ...]:
    """The coordinator's answer ``error`` to ``req``: accepted (``ACCEPTED``) stores each offset
    as the partition's committed offset; any error stores nothing."""
    if error != ACCEPTED:
        return logs
    for p, offset in req.offsets:
        logs = _set(logs, p, logs[p]._replace(committed=offset))
    return logs


def deliver(app: App, logs: tuple[Log, ...], error: str) -> tuple[App, tuple[Log, ...]]:
    """The in-flight commit reaches the coordinator, which answers ``error``; the answer waits
    to be read (``App.reply``)."""
    return app._replace(commit=None, reply=error), apply_commit(logs, app.commit, error)


def committed_mask(req: OffsetCommitReq | None) -> int:
    """The partitions ``req`` commits, as a mask."""
    return sum(1 << p for p, _ in req.offsets) if req is not None else 0
