"""Known bugs of KIP-1071 streams groups, as rules switched away from the reference
(``model/streams_group``). Same shape as ``consumer.py``: each variant is a reference
scope with one of the coordinator's rules switched (``StreamsGroupScope.switches``, names
of ``coordinator_update.SWITCHES``), the smallest scope in which it shows, and the
property expected to catch it. The reference passes every variant's scope.

``FINDINGS`` are different: what Kafka itself does (no rule switched) and the model's
properties reject. Each comes with the model's candidate fix (a switch that is *not*
Kafka); with it the same scope passes.
"""
from __future__ import annotations

from groupcheck.model.streams_group.scope import Rules, StreamsGroupScope

from . import Variant, lookup, with_rules


def _variant(*, switch: str, scope, **fields) -> Variant:
    """The bug's rule, ``switch``, on at the scope's own profile."""
    return with_rules(rules=Rules(scope.profile, (switch,)), scope=scope, **fields)


VARIANTS: tuple[Variant, ...] = (
    _variant(
        key="KAFKA-19233", title="an epoch-0 rejoin from a known member is fenced",
        switch="kafka-19233",
        scope=StreamsGroupScope(processes=2, partitions=(1,), profile="kafka-4.1", faults=("lose_response",), budget=2),
        expect="error_as_profile_prescribes",
        doc="apache/kafka PR #21312 (merged 2026-01): before it, throwIfStreamsGroupMemberEpochIsInvalid also "
        "checked an epoch-0 heartbeat, so a member the coordinator still held at a higher epoch (shipped "
        "Kafka keeps a fenced member: nothing is written on FENCED_MEMBER_EPOCH) was answered "
        "FENCED_MEMBER_EPOCH again on its rejoin, and again on every retry. Two lost responses fence a "
        "member here (its epoch falls two behind); KIP-1071's join (epoch 0) has no member-epoch check.",
        hunt_steps=30,
    ),
    _variant(
        key="KAFKA-21370", title="a redeploy under the same topology epoch is answered INVALID_REQUEST",
        switch="kafka-21370",
        scope=StreamsGroupScope(processes=1, partitions=(1,), profile="kafka-4.5", operations=("redeploy",), budget=1),
        expect="error_as_profile_prescribes",
        doc="KIP-1071 (Request Handling 2.iii): \"If ER=EG, check if topology metadata in the request is equal to "
        "the topology metadata of the group, otherwise fail with STREAMS_INVALID_TOPOLOGY_EPOCH\". Up to 4.4 "
        "GroupMetadataManager#maybeUpdateTopology answers any topology other than the group's, the same "
        "epoch included, with INVALID_REQUEST \"Topology updates are not supported yet.\"; KAFKA-21370 (4.5) "
        "answers the same-epoch mismatch with STREAMS_INVALID_TOPOLOGY_EPOCH (131), so the client learns that "
        "it redeployed a changed topology without bumping its epoch. Here a client restarts with state "
        "stores added under topology epoch 0 (operation redeploy).",
    ),
    _variant(
        key="KAFKA-19335", title="a member that rejoined takes the leave response's epoch -1",
        switch="kafka-19335",
        scope=StreamsGroupScope(processes=1, partitions=(1,), profile="kafka-4.5", operations=("poll_timeout",), budget=1),
        expect="member_epoch_never_decreases",
        doc="apache/kafka PR #19818 (merged 2025-05), clients/.../StreamsMembershipManager#onHeartbeatSuccess: a "
        "member leaves (LEAVING, the leave heartbeat goes out, UNSUBSCRIBED) and rejoins on the next poll "
        "(JOINING, epoch 0) before the leave heartbeat's response arrives; the response's member epoch -1 "
        "was taken as the member's epoch, so the join heartbeat went out with epoch -1 and its topology, "
        "which the coordinator refuses with INVALID_REQUEST (\"Topology can only be provided when (re-)"
        "joining.\") and the member fails. The fix ignores a response with a negative epoch. Here the "
        "member's poll timer expires (operation poll_timeout: onPollTimerExpired, then "
        "maybeRejoinStaleMember); the client's epoch falls from 0 to -1, then its join breaks "
        "join_epoch_is_rejoin.",
        also=("join_epoch_is_rejoin",),
    ),
    _variant(
        key="KAFKA-20870", title="the client reports only the owned-task lists that changed; no revocation is acknowledged",
        switch="kafka-20870",
        scope=StreamsGroupScope(processes=2, partitions=(2,), profile="kip-1071"),
        expect="converges_within_k",
        doc="apache/kafka PR #23002 (KAFKA-20870): the coordinator reads the three owned-task lists of a "
        "StreamsGroupHeartbeat as a report only when all three are non-null, so a change confined to one "
        "role must resend the other two lists; KIP-1071 does not say so (\"Any other information that has "
        "not changed since the last heartbeat can be omitted\"), and a client that omits each unchanged "
        "list on its own never reports "
        "what it owns: here m0 revokes T1 for m1, reports active [T0] with null standby and warm-up lists, "
        "stays UNREVOKED, and T1 is never handed on. StreamsGroupHeartbeatRequestManager sends all three "
        "lists whenever any changed (the reference). Under a shipped profile a partial report is refused "
        "outright (\"If one task-type is non-null, all must be non-null.\"), so the scope is the KIP's.",
    ),
    _variant(
        key="KAFKA-20899", title="a standby goes to the process that already runs the task as active",
        switch="kafka-20899",
        scope=StreamsGroupScope(processes=2, partitions=(1,), stateful=True, standbys=1, profile="kafka-4.5",
                                faults=("session_timeout",), budget=1),
        expect="standby_not_with_active",
        doc="apache/kafka PR #23096 (merged 2026-08), group-coordinator/.../streams/assignor/StickyTaskAssignor#"
        "findPrevMemberWithLeastLoad: the previous standby holders were scanned from members.get(0) as the "
        "first candidate, and only the others were checked for a process that already holds the task. "
        "KIP-1071: \"A stateful task (in the various roles) cannot be assigned to two clients with the "
        "same processId.\" Here m0 (active T0) times out, m1's standby T0 becomes its active task, and the "
        "standby pass hands T0's standby back to m1, its first previous holder.",
    ),
    _variant(
        key="KAFKA-19190", title="a shutdown request sent on the leave heartbeat is dropped",
        switch="kafka-19190",
        scope=StreamsGroupScope(processes=2, partitions=(1,), profile="kafka-4.5", operations=("shutdown_leave",),
                                budget=1),
        expect="shutdown_request_kept",
        doc="apache/kafka PR #19544 (merged 2025-04): with the streams protocol an application did not shut down "
        "on SHUTDOWN_APPLICATION, partly because the request was sometimes sent only with the leave "
        "heartbeat and GroupMetadataManager's leave path ignored it. KIP-1071 puts the flag exactly there: "
        "\"A flag to request shutdown of the whole application (only if the member epoch is the group "
        "leave epoch)\". Here m0 asks for the shutdown as it leaves (operation shutdown_leave); unfixed, "
        "m1 never gets SHUTDOWN_APPLICATION.",
    ),
    _variant(
        key="KAFKA-20254", title="after an offline migration the compacted log does not load",
        switch="kafka-20254",
        scope=StreamsGroupScope(processes=1, classic=1, profile="kafka-4.5", operations=("failover",), budget=1),
        expect="replay_gives_live_state",
        doc="apache/kafka PR #21641 (merged 2026-03-05, in 4.2.1; 4.2.0 is affected): 'During replay of the "
        "__consumer_offsets topic, offset commit records can appear before streams group records, for "
        "example after log compaction. When OffsetMetadataManager replays an offset commit for a group that "
        "doesn't exist yet, it automatically creates a simple ClassicGroup to hold the offsets. When the "
        "streams group records are subsequently replayed, getOrMaybeCreatePersistedStreamsGroup fails with "
        "\"Group X is not a streams group\"'. Here the classic member upgrades offline (stops, its session "
        "expires, the empty classic group is replaced: KAFKA-19570), the streams member joins, and a failover "
        "replays the compacted log: the classic group's offset commit first (its GroupMetadata tombstone "
        "is gone), then the streams group's records. PR #21642 reproduces it the same way (two compaction "
        "passes with delete.retention.ms=0, the upgraded group committing no offsets).",
    ),
)


FINDINGS: tuple[Variant, ...] = (
    with_rules(
        key="lost-response-strands-task", title="a lost response that handed on a task is never repeated",
        rules=Rules("kafka-4.5"),
        scope=StreamsGroupScope(processes=2, partitions=(2,), profile="kafka-4.5", faults=("lose_response",), budget=1),
        expect="can_settle",
        doc="Kafka's GroupMetadataManager#streamsGroupHeartbeat sets the task lists only when the member "
        "joins (epoch 0) or hasAssignedTasksChanged(member, updatedMember); unlike consumerGroupHeartbeat "
        "it has no isFullRequest case (KAFKA-16367). The client (StreamsGroupHeartbeatRequestManager) "
        "resets its sent fields after a failed heartbeat and re-sends its owned tasks, but no topology "
        "or rebalance timeout, and keeps its epoch; the coordinator accepts it (same or previous epoch, "
        "owned tasks a subset of the assignment) and answers the new epoch with null task lists, which "
        "StreamsMembershipManager#onHeartbeatSuccess takes as 'no change'. The task the coordinator "
        "believes the member runs is run by nobody until the member's assignment changes again.",
        fix=("resend-when-owned-differs",), hypothesis_finds=False,
    ),
    with_rules(
        key="create-topics-every-heartbeat", title="Kafka 4.1 sends a CreateTopics for missing internal topics on every heartbeat",
        rules=Rules("kafka-4.1"),
        scope=StreamsGroupScope(processes=1, partitions=(1,), stateful=True, profile="kafka-4.1"),
        expect="one_creation_in_flight",
        doc="KIP-1071 (MISSING_INTERNAL_TOPICS): 'There can only be one such request in-flight at a time'. Kafka "
        "4.1's AutoTopicCreationManager#createStreamsInternalTopics (core, Scala) sends a CreateTopics for the "
        "missing internal topics of every heartbeat that lists them, whatever is in flight; apache/kafka PR "
        "#20663 (merged 2025-10, in 4.2: 'auto-topic creation back-off') skips topics in flight "
        "(inflightTopics) or in back-off after an error. Two heartbeats before the controller answers send "
        "two requests for the same changelog topic; the second fails with TOPIC_ALREADY_EXISTS or races.",
        fix=("one-creation-in-flight",),
    ),
)


def variant(key: str) -> Variant:
    return lookup(VARIANTS + FINDINGS, key, "no streams-group known-bug variant")
