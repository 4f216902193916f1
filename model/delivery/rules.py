"""The record layer's reference behaviour, one field per known bug (True = the fixed rule).

A variant flips one field through its switch name (a JIRA key or upstream reference):
``rules(("kafka-14196",))`` is the reference with that bug put back. The models read the
fields where the rule applies; each field names the one thing it changes.
"""
from __future__ import annotations

from typing import NamedTuple


class Rules(NamedTuple):
    pause_before_revoke_commit: bool = True
    """KAFKA-14196 (classic, fixed 3.2.3/3.3.0) / KAFKA-16460 (KIP-848, fixed 4.0.0): the cursors
    about to be revoked are marked ``unfetchable`` before the commit before revocation is sent
    (ConsumerCoordinator.maybeMarkPartitionsPendingRevocation; AbstractMembershipManager
    .markPendingRevocationToPauseFetching)."""
    commit_only_in_poll: bool = True
    """KAFKA-18641 (fixed 4.0.0): auto-commits happen only while the application is inside poll(),
    i.e. every record it was given is processed."""
    revoke_only_in_poll: bool = True
    """KAFKA-20332 (4.2.0; fixed by apache/kafka PR #21897, cherry-picked to 4.2 and 4.3): a
    revocation starts only from the application's poll(), never while the application holds
    records poll returned; with the bug the background starts it, and those records are still
    returned and processed after it."""
    retry_stale_with_latest: bool = True
    """KAFKA-16033 (fixed 3.8.0, apache/kafka PR #15357): a commit before revocation answered
    STALE_MEMBER_EPOCH is retried with the latest positions and the current epoch. No model runs
    its switch: 3.7.0 retried with the first attempt's offsets, which differ from the latest only
    for a partition fetched during the commit (KAFKA-16460's order), and the 3.8+ coordinator
    keeps an UNREVOKED member's epoch until it reports the revocation, so the answer needs 3.7.0's
    coordinator (CurrentAssignmentBuilder#transitionToNewTargetAssignmentState)."""
    metadata_before_revoke: bool = True
    """KAFKA-9741 (fixed 2.5.0): ConsumerGroupMetadata carries the new generation before
    onPartitionsRevoked runs, so a commit from the callback carries the current generation."""
    keep_lost_in_rebalance: bool = True
    """librdkafka PR #5604: a lost trigger meeting a rebalance in progress still treats the
    partitions as lost (no commit) instead of revoking and committing them."""
    commit_before_cooperative_revoke: bool = False
    """Not Kafka: the model's candidate fix for a finding (``FIXES``). With auto-commit, the
    classic consumer's onJoinComplete commits the positions of the partitions it revokes before
    onPartitionsRevoked, as the KIP-848 consumer does before a revocation; Kafka 3.9 commits
    nothing there, so records processed during a cooperative rebalance are redelivered."""


SWITCHES: dict[str, str] = {
    "kafka-14196": "pause_before_revoke_commit",
    "kafka-16460": "pause_before_revoke_commit",
    "kafka-18641": "commit_only_in_poll",
    "kafka-20332": "revoke_only_in_poll",
    "kafka-16033": "retry_stale_with_latest",
    "kafka-9741": "metadata_before_revoke",
    "librdkafka-5604": "keep_lost_in_rebalance",
}
"""A known bug's name -> the ``Rules`` field its variant sets to False."""

FIXES: dict[str, str] = {
    "commit-before-cooperative-revoke": "commit_before_cooperative_revoke",
}
"""A candidate fix's name (not Kafka's behaviour) -> the ``Rules`` field it sets to True."""

NAMES = tuple(SWITCHES) + tuple(FIXES)
"""Every name a scope's delivery switches may list."""

REFERENCE = Rules()


def rules(switches: tuple[str, ...] | list[str] = ()) -> Rules:
    """The reference ``Rules`` with each named known bug put back (``SWITCHES``) and each named
    candidate fix applied (``FIXES``); an unknown name raises ValueError naming it and the known
    ones (the scopes validate names before this)."""
    unknown = [s for s in switches if s not in NAMES]
    if unknown:
        raise ValueError(f"unknown delivery switch {unknown[0]!r}; known: {', '.join(sorted(NAMES))}")
    bugs = {SWITCHES[s]: False for s in switches if s in SWITCHES}
    fixes = {FIXES[s]: True for s in switches if s in FIXES}
    return Rules(**dict(sorted({**bugs, **fixes}.items())))
