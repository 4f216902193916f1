"""The consumer's known bugs and KIP-described hazards (``model/consumer``): each variant is
the reference model with the rules of a buggy release (or a hazard a KIP describes)
switched on through ``Behaviour``, plus the smallest scope in which the bug shows and the
property expected to catch it. The reference (Kafka 3.5+) passes every one of these scopes.
"""
from __future__ import annotations

from dataclasses import replace

from groupcheck.model.consumer.scope import PROFILES, Behaviour, Config, ConsumerScope

from . import Variant, lookup, with_behaviour

COOPERATIVE_STICKY = (Config(("cooperative-sticky",)),)

REF = Behaviour()

VARIANTS: tuple[Variant, ...] = (
    with_behaviour(
        key="KAFKA-7026", title="sticky assignor trusts stale userData: a partition gets two owners",
        behaviour=replace(REF, claim_resolution="trust-all"),
        scope=ConsumerScope(plan=(Config(("sticky",)),), faults=("pause",), budget=1, max_generation=4),
        expect="no_double_ownership",
        doc="Before KIP-341 (2.3) StickyAssignor's userData carried the previous assignment without a "
        "generation, so an expelled member's stale claim was kept next to its new owner's.",
    ),
    with_behaviour(
        key="KAFKA-12984", title="cooperative-sticky trusts stale ownedPartitions (Kafka 2.4-2.8)",
        behaviour=PROFILES["kafka-2.4-2.8"],
        scope=ConsumerScope(plan=COOPERATIVE_STICKY, faults=("pause",), budget=1, max_generation=4),
        expect="lost_only_when_fenced",
        doc="Kafka 2.4-2.8: a fenced consumer rejoins still claiming its partitions (KAFKA-12983) and "
        "the leader trusts every claim regardless of generation (KAFKA-12984).",
    ),
    with_behaviour(
        key="KAFKA-12983", title="a fenced consumer rejoins without calling onPartitionsLost",
        behaviour=replace(REF, fenced_clears_owned=False),
        scope=ConsumerScope(plan=COOPERATIVE_STICKY, faults=("pause",), budget=1, max_generation=4),
        expect="lost_only_when_fenced",
        doc="onJoinPrepare was skipped after resetStateAndGeneration, so ownedPartitions were not "
        "cleared: KIP-429 says to \"re-join group with empty assigned partition\".",
    ),
    with_behaviour(
        key="KAFKA-13406", title="validateCooperativeAssignment on the built-in assignor fails on a lagging claim (3.0.0)",
        behaviour=PROFILES["kafka-3.0.0"],
        scope=ConsumerScope(members=3, partitions=(2,), plan=COOPERATIVE_STICKY, faults=("lose_response",),
                            budget=1, max_generation=5),
        expect="converges_within_k",
        doc="Kafka 3.0.0 dropped every claim of a lower generation and still ran "
        "validateCooperativeAssignment on cooperative-sticky. A member whose JoinGroup response was "
        "lost claims with the old generation; its partition is moved in one round, validation throws "
        "and the round is wasted, so the group needs more rebalances than KIP-429 allows. (In the "
        "model the retry succeeds once the labels catch up; the shipped bug, fed by KAFKA-12983's "
        "duplicate claims, could fail every round.)",
        hunt_steps=200,       # its 57-step interleaving; 0-2 of 5 seeds find it in 300 cases of 200 steps
    ),
    with_behaviour(
        key="KAFKA-14639", title="lower-generation claims dropped: revoked and assigned in one round (Kafka 3.1-3.4)",
        behaviour=PROFILES["kafka-3.1-3.4"],
        scope=ConsumerScope(members=3, partitions=(1,), plan=COOPERATIVE_STICKY, faults=("lose_response",),
                            budget=1, max_generation=4),
        expect="no_double_ownership",
        doc="Kafka 3.1-3.4 kept only the highest generation's claims, so a member one generation behind "
        "(its JoinGroup response was lost) had its partition handed to another member in the same "
        "round, while it still owned it.",
        hunt_steps=200,       # no seed of 5 found it in 300 cases of 200 steps (2026-11-23), nor 2 of 800
        hypothesis_finds=False,   # too rare for a bounded test (docs/known-gaps.md)
    ),
    with_behaviour(
        key="KAFKA-13419", title="a late SyncGroup outcome applied after rejoining: generation N-1 partitions kept",
        behaviour=replace(REF, apply_late_sync=True),
        scope=ConsumerScope(plan=COOPERATIVE_STICKY, faults=("timeout",), budget=1, max_generation=5),
        expect="no_double_ownership",
        also=("settles_fully_owned", "revoke_before_reassign"),
        doc="A member that gave up on its SyncGroup and rejoined then applies the old response: it owns "
        "partitions the next leader never saw it claim (the out-of-date ownedPartitions of "
        "KAFKA-13419).",
    ),
    with_behaviour(
        key="KIP-429-old-leader", title="a leader on old code treats cooperative members as eager",
        behaviour=replace(REF, leader_cooperative_aware=False),
        scope=ConsumerScope(plan=COOPERATIVE_STICKY, faults=(), budget=0, max_generation=4),
        expect="no_double_ownership",
        doc="KIP-429: \"we want to avoid the situation where leader is on old byte-code and only "
        "recognize eager ... and hence just go ahead and do the assignment while new versioned "
        "members did not revoke their partitions before joining the group\".",
    ),
    with_behaviour(
        key="KIP-429-no-withholding", title="the leader skips withholding maybe-revoking partitions",
        behaviour=replace(REF, withhold=False),
        scope=ConsumerScope(plan=COOPERATIVE_STICKY, faults=(), budget=0, max_generation=4),
        expect="no_double_ownership",
        doc="KIP-429: \"For maybe-revoking-partitions, check if the owner has changed. If yes, exclude "
        "them from the assigned-partitions list to the new owner.\"",
    ),
)


# the record layer (issue 30): one partition, one record, auto-commit, EAGER (range)
RECORDS_EAGER_AUTO = ConsumerScope(partitions=(1,), plan=(Config(("range",)),), faults=(), budget=0, max_generation=3,
                                   records=True, max_records=1, commit_policy="auto")

VARIANTS += (
    with_behaviour(
        key="KAFKA-14196", title="records of partitions pending revocation returned during onJoinPrepare's commit",
        behaviour=replace(REF, delivery=("kafka-14196",)),
        scope=RECORDS_EAGER_AUTO,
        expect="fetch_stops_at_revocation",
        doc="Kafka 3.2.0-3.2.2 (fixed 3.2.3/3.3.0, apache/kafka#12603): onJoinPrepare's auto-commit became "
        "asynchronous in 3.2.0 without marking the owned partitions pending revocation, so poll() "
        "kept returning their records while the commit was in flight; the fix's comment: \"we mark the "
        "partitions as \"pending revocation,\" which stops the Fetcher from sending new fetches or "
        "returning data from previous fetches to the user\" (ConsumerCoordinator"
        "#maybeMarkPartitionsPendingRevocation, EAGER only).",
    ),
    with_behaviour(
        key="KAFKA-9741", title="a commit from onPartitionsRevoked carries the previous generation (ConsumerGroupMetadata)",
        behaviour=replace(REF, delivery=("kafka-9741",)),
        scope=ConsumerScope(partitions=(2,), faults=(), budget=0, max_generation=3, records=True, max_records=1,
                            commit_policy="sync-on-revoke"),
        expect="no_duplicate_without_failure",
        doc="Before 2.5.0 (apache/kafka#8325, \"Update ConsumerGroupMetadata before calling "
        "onPartitionsRevoked()\") ConsumerCoordinator#onJoinComplete updated groupMetadata after the "
        "cooperative revocation callback, so a transactional application committing there with "
        "consumer.groupMetadata() sent the previous generation: ILLEGAL_GENERATION while the member is "
        "current, and the next owner reprocesses what it had processed (the model treats the "
        "TxnOffsetCommit as an OffsetCommit: the coordinator validates both with validateOffsetCommit).",
    ),
    with_behaviour(
        key="librdkafka-5604", title="max.poll.interval.ms expiring during a rebalance drops the lost flag",
        behaviour=replace(REF, delivery=("librdkafka-5604",)),
        scope=ConsumerScope(partitions=(1,), faults=("max_poll",), budget=1, max_generation=3, records=True,
                            max_records=1, commit_policy="auto"),
        expect="lost_only_when_fenced",
        doc="librdkafka (confluentinc/librdkafka PR #5604, open): when max.poll.interval.ms expires, "
        "rd_kafka_cgrp_max_poll_interval_check_tmr_cb leaves the group, resets the member id and calls "
        "rd_kafka_cgrp_revoke_all_rejoin_maybe(lost), which returns early when a rebalance is already in "
        "progress without rd_kafka_cgrp_assignment_set_lost: the application is never told its partitions "
        "were lost. (Its commits carry the reset member id, which the coordinator refuses, "
        "ClassicGroup#validateOffsetCommit: no record claim breaks.) The model runs librdkafka's rule in the "
        "Java client's place: the reset member skips onJoinPrepare's onPartitionsLost. Here C2's JoinGroup "
        "starts a rebalance, C1 rejoins, polls a record and exceeds max.poll.interval.ms; it processes the "
        "record and rejoins still claiming t0-0.",
    ),
)


COOP_RECORDS_AUTO = ConsumerScope(partitions=(2,), faults=(), budget=0, max_generation=3, records=True, max_records=1,
                                  commit_policy="auto")

FINDINGS: tuple[Variant, ...] = (
    Variant(
        key="cooperative-auto-commit-redelivers",
        title="records processed during a cooperative rebalance are redelivered with auto-commit and no fault",
        scope=COOP_RECORDS_AUTO, buggy=COOP_RECORDS_AUTO,
        fixed=replace(COOP_RECORDS_AUTO, profile="custom",
                      behaviour=replace(REF, delivery=("commit-before-cooperative-revoke",))),
        expect="no_duplicate_without_failure",
        doc="Kafka as shipped (3.9): with enable.auto.commit and cooperative-sticky, onJoinPrepare commits the "
        "positions and marks nothing pending revocation (maybeMarkPartitionsPendingRevocation is EAGER only), "
        "poll() keeps returning records during the rebalance, and onJoinComplete revokes the partitions that "
        "move without committing: the next owner starts at onJoinPrepare's offset and processes again what the "
        "previous owner processed in between, with no fault. Reproduced with Apache Kafka's Java client 3.9 on "
        "Tansu: 5 of 5 runs, 12 duplicates each (adapters/java; also 2.5.0 to trunk, not 2.4.1). "
        "The model's candidate fix (not Kafka, delivery switch commit-before-cooperative-revoke): "
        "onJoinComplete auto-commits the positions of the partitions it revokes before onPartitionsRevoked, "
        "as the KIP-848 consumer commits before a revocation.",
        hypothesis_finds=False,
    ),
)


def variant(key: str) -> Variant:
    return lookup(VARIANTS + FINDINGS, key, "no known-bug variant")
