"""The record layer's state: partition logs, the application's cursors, offset commits.

Shared by the classic (``model/consumer``) and KIP-848 (``model/consumer_group``) models and
protocol-neutral: a member is an int the model chooses (classic member id; KIP-848 an
injective int of slot and incarnation), a generation is the classic generation or the
KIP-848 member epoch. Partitions are the models' global bit index (``model.partitions``):
``logs[p]`` is partition bit ``p``. Offset sets are bitmasks (offset ``o`` is bit ``o``).
"""
from __future__ import annotations

from typing import NamedTuple

NO_OFFSET = -1
"""OffsetFetch's INVALID_OFFSET: no committed offset (``model.consumer.probes.NO_OFFSET``);
as a cursor's position: INITIALIZING, the position awaits OffsetFetch."""

ACCEPTED = ""
"""An OffsetCommit answer without error (``App.reply``; ``apply_commit``'s ``error``)."""
REQUEST_TIMED_OUT = "REQUEST_TIMED_OUT"
"""What a client reads when an OffsetCommit's answer was lost (fault ``lose_commit_reply``):
the request times out, a retriable failure."""

# commit policies (scope ``commit_policy``): each one KafkaConsumer configuration an application runs
AUTO = "auto"                        # enable.auto.commit=true (Kafka's default)
SYNC_ON_REVOKE = "sync-on-revoke"    # commitSync(processed) in onPartitionsRevoked
AFTER_PROCESSING = "after-processing"  # commitSync() after each processed record
NONE = "none"                        # never commits
POLICIES = (AUTO, SYNC_ON_REVOKE, AFTER_PROCESSING, NONE)

# auto.offset.reset (scope ``offset_reset``) when the group has no committed offset
EARLIEST = "earliest"
LATEST = "latest"
RESETS = (EARLIEST, LATEST)

# OffsetCommitReq.purpose: decides the retry rule of the answer
INTERVAL = "interval"     # the auto-commit interval's commit (ConsumerCoordinator.poll / CommitRequestManager)
REVOKE = "revoke"         # the commit before a revocation (onJoinPrepare / maybeAutoCommitSyncBeforeRebalance)
CLOSE = "close"           # the commit on close (maybeAutoCommitOffsetsSync)
CALLBACK = "callback"     # the application's commitSync in onPartitionsRevoked
MANUAL = "manual"         # the application's commitSync after processing
PURPOSES = (INTERVAL, REVOKE, CLOSE, CALLBACK, MANUAL)

# App.waiting: a phase that waits for the answer of its commit
PREPARE = "prepare"       # classic onJoinPrepare returned false until its auto-commit completes
RECONCILE = "reconcile"   # KIP-848 reconciliation waits for the commit before revocation
COMMITTING = "commit"     # policy after-processing: the app processed a record and owes its commitSync
WAITING = ("", PREPARE, RECONCILE, COMMITTING)


class Log(NamedTuple):
    """One partition, broker side: its log and the group's ``__consumer_offsets`` entry."""

    end: int          # log end offset: records 0..end-1 exist
    committed: int    # the group's committed offset, NO_OFFSET until a commit is accepted
    base: int         # where the group last started reading by auto.offset.reset (no committed
                      # offset); records below it were skipped by configuration, not lost
    fetcher: int      # the member that last initialised a position from OffsetFetch; 0: none
    done: int         # bitmask: offsets processed by a client that owned the partition then
    excused: int      # bitmask: offsets whose redelivery a fault excuses (``app.excuse``)


class Cursor(NamedTuple):
    """One owned partition of one client: its SubscriptionState entry and the application."""

    partition: int
    position: int     # the next offset poll() returns; NO_OFFSET: INITIALIZING (awaits OffsetFetch)
    processed: int    # the next offset the application processes (processed <= position):
                      # [processed, position) was returned by poll and is not processed yet
    unfetchable: bool  # pendingRevocation / markUnconsumable: poll returns nothing of it
    revoking: bool    # its revocation started (``claims.fetch_stops_at_revocation``)


class OffsetCommitReq(NamedTuple):
    """An OffsetCommit request: at most one per client is in flight."""

    member: int                            # classic member id / KIP-848 member key
    generation: int                        # classic generation / KIP-848 member epoch
    offsets: tuple[tuple[int, int], ...]   # (partition, offset), sorted by partition
    purpose: str                           # one of PURPOSES


class App(NamedTuple):
    """The application and its consumer's SubscriptionState."""

    cursors: tuple[Cursor, ...]       # sorted by partition: exactly the client's owned partitions
    commit: OffsetCommitReq | None    # in flight to the coordinator
    reply: str | None                 # the coordinator's answer not read yet (ACCEPTED or an error name)
    waiting: str                      # one of WAITING
    meta_generation: int = -2         # ConsumerGroupMetadata's generation; written only under kafka-9741
