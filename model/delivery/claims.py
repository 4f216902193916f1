"""The four record claims, shared by both consumer models (and the conformance judge).

Each model gives its clients as ``Holder``s, in the same order in every state (one per client
slot), and wraps each claim in a ``Property`` of its own that returns None while the record
layer is off. A claim returns None when it holds, else one line naming the partition, the
offset and the member. ``names`` names partitions (``render.label``: the model's names by bit,
or the classic model's stride).

The step claims compare two states: a cursor's ``processed`` that moved from ``a`` to ``b``
processed offsets ``a..b-1`` in the step; a cursor whose ``position`` or ``processed`` moved
was fetched from or processed. A cursor dropped and created anew restarts at NO_OFFSET, which
is no move.
"""
from __future__ import annotations

from typing import Iterable, Iterator, NamedTuple

from .app import cursor, held
from .render import Names, label
from .state import ACCEPTED, NO_OFFSET, App, Cursor, Log, OffsetCommitReq


class Holder(NamedTuple):
    """One client as the claims see it."""

    member: int          # the model's member number (classic member id; KIP-848 member key)
    live: bool           # its process runs (it will process what it holds unless a fault strikes)
    app: App | None      # None: no application (the process is down)


def no_record_lost(logs: tuple[Log, ...], holders: Iterable[Holder], names: Names) -> str | None:
    """Note: Using automatic offset commits can also give you "at-least-once" delivery, but the
    requirement is that you must consume all data returned from each call to poll(Duration)
    before any subsequent calls, or before closing the consumer. If you fail to do either of
    these, it is possible for the committed offset to get ahead of the consumed position, which
    results in missing records. (Kafka's KafkaConsumer javadoc, "Offsets and Consumer Position")

    Every record from where the group started reading (``base``) to below the committed offset
    was processed by an owner, or is held by a live client that will process it."""
    holders = tuple(holders)
    for p, log in enumerate(logs):
        if log.committed <= log.base:
            continue
        safe = log.done
        for h in holders:
            if h.live:
                safe |= held(h.app, p)
        for offset in range(log.base, log.committed):
            if not safe >> offset & 1:
                return (f"{label(p, names)} offset {offset} is below the committed offset {log.committed} "
                        f"but no owner processed it")
    return None


def _moves(prev: Iterable[Holder], holders: Iterable[Holder]) -> Iterator[tuple[Holder, Cursor, Cursor]]:
    """(holder, cursor before, cursor after) for every cursor the step fetched from or processed."""
    for before, after in zip(prev, holders):
        for c in after.app.cursors if after.app is not None else ():
            old = cursor(before.app, c.partition)
            if old is not None and (c.position > old.position or c.processed > old.processed):
                yield after, old, c


def no_duplicate_without_failure(prev_logs: tuple[Log, ...], prev: Iterable[Holder],
                                 holders: Iterable[Holder], names: Names) -> str | None:
    """It is recommended that offsets should be committed in this callback to either Kafka or a
    custom offset store to prevent duplicate data. (Kafka's ConsumerRebalanceListener#onPartitionsRevoked)
    Used in this way Kafka provides what is often called "at-least-once" delivery guarantees, as
    each record will likely be delivered one time but in failure cases could be duplicated.
    (KafkaConsumer javadoc, "Manual Offset Control")

    A record processed in this step was not processed before, unless a fault (``excused``)
    struck since. The caller leaves out policy ``none``, which redelivers by design."""
    for h, old, c in _moves(prev, holders):
        if old.processed == NO_OFFSET:
            continue                     # OffsetFetch set the position: nothing processed
        log = prev_logs[c.partition]
        for offset in range(old.processed, c.processed):
            if log.done >> offset & 1 and not log.excused >> offset & 1:
                return (f"{label(c.partition, names)} offset {offset} processed again by member {h.member} "
                        f"with no fault since it was first processed")
    return None


def commits_fenced_after_handover(prev_logs: tuple[Log, ...], answered: Iterable[tuple[OffsetCommitReq, str]],
                                  names: Names) -> str | None:
    """The point of this is for the group coordinator to fence against zombie commit requests,
    that is, commit requests that include an offset for a partition that was since reassigned to
    a different member. If such a guard was not in place, a zombie offset commit may overwrite
    offsets of the new owner (KAFKA-19779); "when consumer's being kicked out of the group, since
    it no longer owns the partitions the commit call would doom to fail" (KIP-429).

    ``answered``: the (request, answer) of every commit the coordinator answered in this step.
    An accepted commit's partitions were last fetched (OffsetFetch) by nobody or by the committer."""
    for req, error in answered:
        if error != ACCEPTED:
            continue
        for p, offset in req.offsets:
            fetcher = prev_logs[p].fetcher
            if fetcher not in (0, req.member):
                return (f"{label(p, names)} commit of offset {offset} by member {req.member} accepted "
                        f"after member {fetcher} fetched it")
    return None


def fetch_stops_at_revocation(prev: Iterable[Holder], holders: Iterable[Holder], names: Names) -> str | None:
    """In eager rebalancing, it will always be called at the start of a rebalance and after the
    consumer stops fetching data. (Kafka's ConsumerRebalanceListener#onPartitionsRevoked) "we mark the
    partitions as "pending revocation," which stops the Fetcher from sending new fetches or
    returning data from previous fetches to the user." (ConsumerCoordinator
    #maybeMarkPartitionsPendingRevocation)

    No record of a partition whose revocation started is returned to or processed by the
    application."""
    for h, old, c in _moves(prev, holders):
        if old.revoking:
            return (f"{label(c.partition, names)} was fetched from or processed by member {h.member} "
                    f"after its revocation started")
    return None


def killed_before_commit(logs: tuple[Log, ...], app: App | None) -> bool:
    """The application processed a record whose offset is not committed yet (a crash now
    loses that commit: the witness that kill -9 falls between processing and committing)."""
    return any(c.processed > logs[c.partition].committed for c in (app.cursors if app is not None else ()))
