"""The record layer's four claims (issue 30) over a KIP-848 consumer group: thin wrappers of the
shared ``model/delivery/claims.py`` (each keeps the shared claim's docstring, the sentence it
enforces). Each holds trivially while the record layer is off (``state.logs`` None).

The clients as the claims see them (``Holder``): the member key of the client's incarnation
(``delivery_steps.member_key``), live while its process runs (``member.running``), its
application. Classic clients run no application. A zombie (a client whose member the
coordinator removed, ``delivery_steps.zombie``) processes after a fault: its records are
excused (``delivery_steps`` excuses them as it processes them, and its own redeliveries are
not judged), since the design's snapshot at removal (``excused |= done``) misses what it
processes after.
"""
from __future__ import annotations


from .. import delivery
from ..delivery import NONE, Holder
from .delivery_steps import member_key, zombie
from .member import running
from .step import partition_names as _names
from .world import HANDOVER_CLEAN, KILLED_BEFORE_COMMIT, REDELIVERED


def _holders(state, zombies: bool = True) -> tuple[Holder, ...]:
    """The clients as Holders; ``zombies`` False: a client the coordinator removed shows no
    application (what it processes after the fault that removed it is excused)."""
    return tuple(Holder(member=member_key(s, c.incarnation), live=running(c),
                        app=getattr(c, "app", None) if zombies or not zombie(state, s) else None)
                 for s, c in enumerate(state.clients))


def _apps_moved(prev, nxt) -> bool:
    """Some client's application changed in the step: only then can a cursor have been fetched
    from or processed (the step claims' ``_moves``); a shortcut, not a rule."""
    return any(getattr(a, "app", None) != getattr(b, "app", None) for a, b in zip(prev.clients, nxt.clients))


def no_record_lost(scope, state) -> str | None:
    if state.logs is None or all(log.committed <= log.base for log in state.logs):
        return None
    return delivery.no_record_lost(state.logs, _holders(state), _names(scope))


def no_duplicate_without_failure(scope, prev, action, nxt, events) -> str | None:
    if nxt.logs is None or scope.commit_policy == NONE or not _apps_moved(prev, nxt):
        return None
    return delivery.no_duplicate_without_failure(prev.logs, _holders(prev, zombies=False), _holders(nxt), _names(scope))


def commits_fenced_after_handover(scope, prev, action, nxt, events) -> str | None:
    if nxt.logs is None:
        return None
    answered = [e.data for e in events if e.kind == "offset_commit"]
    return delivery.commits_fenced_after_handover(prev.logs, answered, _names(scope)) if answered else None


def fetch_stops_at_revocation(scope, prev, action, nxt, events) -> str | None:
    if nxt.logs is None or not _apps_moved(prev, nxt):
        return None
    return delivery.fetch_stops_at_revocation(_holders(prev), _holders(nxt), _names(scope))


for _mine, _shared in ((no_record_lost, delivery.no_record_lost),
                       (no_duplicate_without_failure, delivery.no_duplicate_without_failure),
                       (commits_fenced_after_handover, delivery.commits_fenced_after_handover),
                       (fetch_stops_at_revocation, delivery.fetch_stops_at_revocation)):
    _mine.__doc__ = _shared.__doc__


def sometimes_redelivered_after_crash(scope, state) -> str | None:
    """Witness: a record was processed a second time and a fault (in the scopes that reach it, a
    crash: KafkaConsumer javadoc, "in failure cases could be duplicated") excused it."""
    return "a record was processed again after a fault" if state.marks & REDELIVERED else None


def sometimes_killed_before_commit(scope, state) -> str | None:
    """Witness: a process was killed (crash) after processing a record and before its offset was
    committed: the interleaving kill -9 makes."""
    return "a crash fell between processing and committing" if state.marks & KILLED_BEFORE_COMMIT else None


def sometimes_handover_clean(scope, state) -> str | None:
    """Witness: a partition changed hands and its new owner's OffsetFetch started it exactly after
    the records processed before (ConsumerRebalanceListener: commit in onPartitionsRevoked "to
    prevent duplicate data")."""
    return "a new owner started right after what was processed" if state.marks & HANDOVER_CLEAN else None


__all__ = ["commits_fenced_after_handover", "fetch_stops_at_revocation", "no_duplicate_without_failure",
           "no_record_lost", "sometimes_handover_clean",
           "sometimes_killed_before_commit", "sometimes_redelivered_after_crash"]
