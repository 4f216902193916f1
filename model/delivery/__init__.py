"""The record layer (issue 30): partition logs, the application's fetch positions and
processing, offset commits, and the claims ``no_record_lost``, ``no_duplicate_without_failure``,
``commits_fenced_after_handover`` and ``fetch_stops_at_revocation``.

Shared by the classic and KIP-848 consumer models, which hold it as optional state
(``records: true`` in their scopes). Pure and protocol-neutral: the models pass members,
generations or epochs and the coordinator's verdicts. See README.md beside this file.

Against the design (``i30_design.md`` §1.1/§2), the API differs in three places: the claims
take ``Holder(member, live, app)`` (the app, not its cursors: ``held`` reads them), the step
claims compare the holders of two states (no action needed) and ``commits_fenced_after_handover``
takes the commits the step answered; ``revoked`` only drops cursors (the caller commits first
with ``commit_request`` + ``apply_commit``); ``excuse`` takes a partition mask. Added since the
first commit: ``App.waiting`` may be ``COMMITTING`` (policy after-processing: the app owes its
commitSync, ``in_poll`` is false until it is made), ``excuse_offset`` (one offset a zombie
processed), and ``FIXES`` / ``NAMES`` (a model's candidate fix, set True by ``rules``, next to
the known bugs of ``SWITCHES``, set False).
"""
from .app import (apply_commit, assigned, can_poll, can_process, commit_request, committed_mask, cursor, deliver,
                  excuse, excuse_offset, held, in_poll, lost, mark_revoking, new_app, new_logs, partitions, poll, process, produce,
                  redelivered, revoke_commit, revoked, start)
from .claims import (Holder, commits_fenced_after_handover, fetch_stops_at_revocation, killed_before_commit,
                     no_duplicate_without_failure, no_record_lost)
from .render import Names, app_itf, describe_app, describe_log, label, log_itf, logs_itf, offsets
from .rules import FIXES, NAMES, REFERENCE, SWITCHES, Rules, rules
from .state import (ACCEPTED, REQUEST_TIMED_OUT, AFTER_PROCESSING, AUTO, CALLBACK, CLOSE, COMMITTING, EARLIEST, INTERVAL, LATEST, MANUAL, NO_OFFSET,
                    NONE, POLICIES, PREPARE, PURPOSES, RECONCILE, RESETS, REVOKE, SYNC_ON_REVOKE, WAITING, App,
                    Cursor, Log, OffsetCommitReq)

__all__ = [
    "apply_commit", "assigned", "can_poll", "can_process", "commit_request", "committed_mask", "cursor", "deliver",
    "excuse", "excuse_offset", "held", "in_poll", "lost", "mark_revoking", "new_app", "new_logs", "partitions", "poll", "process",
    "produce", "redelivered", "revoke_commit", "revoked", "start",
    "Holder", "commits_fenced_after_handover", "fetch_stops_at_revocation", "killed_before_commit",
    "no_duplicate_without_failure", "no_record_lost",
    "Names", "app_itf", "describe_app", "describe_log", "label", "log_itf", "logs_itf", "offsets",
    "FIXES", "NAMES", "REFERENCE", "SWITCHES", "Rules", "rules",
    "ACCEPTED", "REQUEST_TIMED_OUT", "AFTER_PROCESSING", "AUTO", "CALLBACK", "CLOSE", "COMMITTING", "EARLIEST", "INTERVAL", "LATEST", "MANUAL",
    "NO_OFFSET", "NONE", "POLICIES", "PREPARE", "PURPOSES", "RECONCILE", "RESETS", "REVOKE", "SYNC_ON_REVOKE",
    "WAITING", "App", "Cursor", "Log", "OffsetCommitReq",
]
