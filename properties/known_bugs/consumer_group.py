"""Known bugs of KIP-848 consumer groups, as rules switched away from the reference
(``model/consumer_group``). Same shape as ``streams_group.py``: each variant is a
reference scope with rules switched (``ConsumerGroupScope.switches``: the coordinator's
``coordinator_update.SWITCHES``, the client's ``member.CLIENT_SWITCHES``), the smallest scope in
which it shows, and the property expected to catch it. The reference passes every variant's
scope. Sources: the JIRAs / PRs named.

``FINDINGS`` are different: what Kafka itself does (no rule switched) and the model's
properties reject. Each comes with the model's candidate fix (a switch that is *not* Kafka,
or a profile); with it the same scope passes.
"""
from __future__ import annotations

from groupcheck.model.consumer_group.scope import ConsumerGroupScope, Rules

from . import Variant, lookup, with_rules


def _variant(*, switches: tuple[str, ...], scope, **fields) -> Variant:
    """The scope's own switches (the model's candidate fix of a finding, where the scope would
    show that finding first) stay on in the buggy scope too."""
    return with_rules(rules=Rules(scope.profile, scope.switches + tuple(switches)), scope=scope, **fields)


S = ConsumerGroupScope

VARIANTS: tuple[Variant, ...] = (
    _variant(
        key="KAFKA-19233", title="an epoch-0 rejoin from a known member is fenced",
        switches=("kafka-19233",), scope=S(partitions=(1,), faults=("lose_response",), budget=2, profile="kafka-4.3",
                                           switches=("report-target-while-reconciling",)),
        expect="join_epoch_is_rejoin",
        doc="apache/kafka PR #21305 (merged 2026-01-14, 4.3): before it, throwIfConsumerGroupMemberEpochIsInvalid "
        "also checked an epoch-0 heartbeat, so a member the coordinator still held past epoch 1 (FENCED_MEMBER_EPOCH "
        "removes nothing) was fenced again on its rejoin with the same member id (KIP-1082), and on every retry, "
        "until its session timed out. Here two lost responses put the member two epochs behind. Kafka 4.0-4.2 "
        "ship it: under those profiles the same scope breaks converges_within_k (the rejoin loop). The scope "
        "runs the model's fix of the finding unreconciled-assignment-released, which two members with lost "
        "responses show otherwise.",
        also=("error_as_profile_prescribes", "converges_within_k"), hunt_steps=30,
    ),
    _variant(
        key="KAFKA-16375", title="a reconciliation under way survives a fence and is applied after the rejoin",
        switches=("kafka-16375",), scope=S(faults=("session_timeout",), budget=1, profile="kafka-4.1"),
        expect="join_epoch_is_rejoin",
        doc="apache/kafka PR #15579 (3.8.0) 'Fix for rejoin while reconciling': a reconciliation (commit -> "
        "onPartitionsRevoked -> onPartitionsAssigned) started before the member was fenced was not abandoned "
        "(rejoinedWhileReconciliationInProgress), so the stale assignment was applied after the rejoin: the "
        "member runs partitions of an assignment from before its latest join. Here its session times out while "
        "it reconciles; it rejoins with epoch 0 still running the stale assignment.",
        also=("no_double_ownership", "callbacks_in_order"),
    ),
    _variant(
        key="KAFKA-16251", title="a fenced member rejoins before onPartitionsLost completed",
        switches=("kafka-16251",), scope=S(faults=("session_timeout",), budget=1, profile="kafka-4.1"),
        expect="join_epoch_is_rejoin",
        doc="apache/kafka PR #15392 (3.8.0) 'Fix for not sending heartbeat while fenced': the member kept "
        "heartbeating (and rejoined) while its onPartitionsLost callback ran; fixed, FENCED sends nothing and "
        "rejoins with epoch 0 only once the callback completed and the assignment is cleared. Here the fenced "
        "member's join heartbeat leaves while it still runs its partitions.",
        also=("no_double_ownership",),
    ),
    _variant(
        key="KAFKA-16249", title="an acknowledged revocation is lost when the heartbeat meets a new target",
        switches=("kafka-16249",), scope=S(partitions=(1,), faults=("session_timeout",), budget=2, profile="kafka-4.1"),
        expect="converges_within_k",
        doc="apache/kafka PR #15364 (3.8.0) 'Improve reconciliation state machine': 3.7.0's "
        "CurrentAssignmentBuilder restarted reconciliation from assigned ∪ pending revocation whenever a new "
        "target epoch was seen, ignoring the owned partitions the same heartbeat reported; 'As the member is "
        "supposed to only report its own partitions when they change, the member is stuck' until the rebalance "
        "timeout fences it. Here the acknowledging heartbeat meets the target installed after a session timeout. "
        "Not hunted: a liveness story (two timeouts at the right moments, then five quiet rounds) that 600 "
        "Hypothesis cases of up to 300 steps did not draw; BFS finds it.",
        hypothesis_finds=False,
    ),
    _variant(
        key="KAFKA-16147", title="a partition is assigned to two members at the same time",
        switches=("kafka-16249", "kafka-16147"), scope=S(faults=("session_timeout",), budget=1, profile="kafka-4.1"),
        expect="revoke_before_reassign",
        doc="apache/kafka PR #15212 (3.8.0): 3.7.0's ConsumerGroup#maybeUpdatePartitionEpoch removed the old "
        "pending-revocation epochs after adding the new assigned ones, so a partition moving from a member's "
        "pending revocation back to its assigned set lost its owner in the partition-epoch map and another "
        "member was given it. The move needs 3.7's KAFKA-16249 rule too (both are in the kafka-3.7 profile), "
        "which on its own breaks converges_within_k, so a hunt may meet that first.",
        also=("no_double_ownership", "converges_within_k"),
    ),
    _variant(
        key="KAFKA-20442", title="an emptied group keeps group epoch > assignment epoch",
        switches=("kafka-20442",), scope=S(operations=("leave",), budget=2, profile="kafka-4.3"),
        expect="empty_epochs_equal",
        doc="apache/kafka PR #22045 (2026-04, 4.3) 'Update consumer group assignment epoch when last member "
        "leaves': removing the last member bumped the group epoch and wrote no target-assignment metadata, so "
        "the EMPTY group kept groupEpoch > assignmentEpoch. Here both members leave.",
    ),
    # the record layer (issue 30, scope records; model/consumer_group/delivery_steps.py)
    _variant(
        key="KAFKA-18641", title="the auto-commit commits positions of records the application has not processed",
        switches=("kafka-18641",), scope=S(members=1, partitions=(1,), records=True, max_records=1, faults=("crash",),
                                           budget=1),
        expect="no_record_lost",
        doc="apache/kafka PR #18737 (4.0.0): the new consumer's background thread auto-committed allConsumed(), "
        "the fetch positions, while the application still held records poll() had returned; the fix commits "
        "only from the application's poll (every record returned before processed). Here C1 polls record 0, "
        "the interval auto-commit of offset 1 is accepted, and C1 crashes before processing it: the next "
        "owner starts at 1 and record 0 is never processed.",
    ),
    _variant(
        key="KAFKA-16460", title="records of a partition pending revocation reach the application",
        switches=("kafka-16460",), scope=S(partitions=(1,), records=True, max_records=2),
        expect="fetch_stops_at_revocation",
        doc="apache/kafka PR #17777 (4.0.0): the reconciliation marked the revoked partitions pending "
        "revocation (markPendingRevocationToPauseFetching) only after the commit before revocation completed, "
        "so fetches of them went on while the commit was in flight; the records returned then are processed "
        "again by the next owner, which starts at the committed offset. Here C2 hands t0-0 over to C1 "
        "(the uniform assignor's tie-break), sends its commit before revocation, and polls a record produced "
        "meanwhile.",
        also=("no_duplicate_without_failure",), hunt_steps=30,
    ),
    _variant(
        key="KAFKA-20332", title="the background revokes a partition whose records the application still holds",
        switches=("kafka-20332",), scope=S(partitions=(1,), records=True, max_records=2),
        expect="fetch_stops_at_revocation",
        doc="apache/kafka PR #21897 (merged 2026-03-30; the JIRA, resolved 2026-04-08, names the cherry-picks to "
        "the 4.2 and 4.3 branches): since 4.2 the application thread no longer waited for its poll event, so a "
        "reconciliation triggered from the background thread could revoke a partition while the application "
        "thread had records of it collected from the fetch buffer, and they were returned after the revocation "
        "(\"ending with records being returned to the app after commit/revocation\"). The fix: the app thread "
        "collects records only after it checked pending reconciliations, and background reconciliations trigger "
        "no revocation. Here C2 hands t0-0 over to C1 (the uniform assignor's tie-break) while it holds record 0: "
        "the revocation starts outside poll and C2 then processes record 0; C1 starts at the committed offset 0 "
        "and processes it again.",
        also=("no_duplicate_without_failure",), hunt_steps=30,
    ),
)


FINDINGS: tuple[Variant, ...] = (
    with_rules(
        key="unreconciled-assignment-released", title="a partition assigned but not yet reconciled is released on a stale owned list",
        rules=Rules("kip-848"), scope=S(partitions=(1,), operations=("topic_change",), budget=1),
        expect="commits_only_by_owner",
        doc="The coordinator takes a heartbeat's owned partitions as the truth (CurrentAssignmentBuilder#"
        "ownsRevokedPartitions); the Java client reports its reconciled local assignment "
        "(HeartbeatState: 'TopicPartitions - sent ... with the first heartbeat after a new assignment from the "
        "server was reconciled') while the next assignment is still being reconciled in poll. A partition "
        "added at epoch e (here: t0 gains a partition; C1 gets it) and moved to another member at e+1 (C2 "
        "joins) is released as soon as C1's acknowledgement of its previous assignment arrives, though C1 is "
        "about to run onPartitionsAssigned for it: C1 and C2 then both consume it, and C1's pre-revocation "
        "commit of it is accepted (its epoch is current). A model finding, not yet reproduced on a broker. "
        "The model's candidate fix (not Kafka): while RECONCILING the client reports the partitions it is "
        "about to assign as owned.",
        also=("no_double_ownership", "callbacks_in_order"),
        fix=("report-target-while-reconciling",), hypothesis_finds=False,
    ),
    with_rules(
        key="static-own-id-rejoin", title="a static member's retried join is refused as UNRELEASED_INSTANCE_ID",
        rules=Rules("kafka-4.3"), scope=S(members=1, partitions=(1,), faults=("lose_response",), budget=1, static=True,
                                          profile="kafka-4.3"),
        expect="join_epoch_is_rejoin",
        doc="apache/kafka #23542 (open, 2026-09): a static member whose join response was lost sends epoch 0 again "
        "with its own member id; GroupMetadataManager treats it as a replacement of the instance id's owner, "
        "which has not left, and answers UNRELEASED_INSTANCE_ID, fatal in the Java client "
        "(ConsumerHeartbeatRequestManager). Kafka 4.3 accepts the same rejoin from a dynamic member "
        "(KAFKA-19233's fix). The model's candidate fix is the kip-848 profile's static_rejoin_in_place.",
        fix_profile="kip-848", hypothesis_finds=False,
    ),
    with_rules(
        key="upgrade-trusts-last-sync", title="the online upgrade hands on a partition a cooperative classic member still runs",
        rules=Rules("kip-848"), scope=S(classic=2, partitions=(1,), operations=("downgrade",), budget=1),
        expect="no_double_ownership",
        doc="ConsumerGroup#fromClassicGroup takes each classic member's assignment from its last SyncGroup "
        "(ClassicGroupMember#assignment) as the partitions it holds. A cooperative classic member whose "
        "SyncGroup response revoking a partition it has not read yet still runs that partition, and its "
        "JoinGroup reported it in ownedPartitions; the upgrade counts it as free and the first consumer-protocol "
        "member gets it at once. Here C1 downgrades (back to classic, the group converts back), the classic "
        "group rebalances, C2 reads its SyncGroup late, and C1 upgrades again: two consumers run t0-0. A model "
        "finding, not reproduced on a broker. The model's candidate fix (not Kafka, switch upgrade-keeps-owned): "
        "the partitions a member's JoinGroup reported beyond its assignment stay pending revocation.",
        fix=("upgrade-keeps-owned",), hypothesis_finds=False,
    ),
)


def variant(key: str) -> Variant:
    return lookup(VARIANTS + FINDINGS, key, "unknown consumer-group variant")
