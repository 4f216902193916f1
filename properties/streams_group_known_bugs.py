"""Known bugs of KIP-1071 streams groups, as rules switched away from the reference
(``model/streams_group``). Same shape as ``known_bugs.py``: each variant is a reference
scope with one of the coordinator's rules switched (``StreamsGroupScope.switches``, names
of ``coordinator_update.SWITCHES``), the smallest scope in which it shows, and the
property expected to catch it. The reference passes every variant's scope.

``FINDINGS`` are different: what Kafka itself does (no rule switched) and the model's
properties reject. Each comes with the model's candidate fix (a switch that is *not*
Kafka); with it the same scope passes.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from model.streams_group.scope import Rules, StreamsGroupScope


@dataclass(frozen=True)
class GroupVariant:
    key: str            # JIRA key, or the finding's name
    title: str
    behaviour: Rules    # the scope's profile and the switched rules
    scope: StreamsGroupScope   # the reference scope (no switch)
    expect: str         # the property BFS's shortest counterexample violates
    doc: str
    also: tuple[str, ...] = ()
    hypothesis_finds: bool = False     # not hunted with Hypothesis yet
    fix: tuple[str, ...] = ()          # findings: the switches that make the scope pass

    @property
    def caught_by(self) -> tuple[str, ...]:
        return (self.expect,) + self.also

    def buggy_scope(self) -> StreamsGroupScope:
        return replace(self.scope, profile=self.behaviour.profile, switches=self.behaviour.switches)

    def reference_scope(self) -> StreamsGroupScope:
        return self.scope

    def fixed_scope(self) -> StreamsGroupScope:
        return replace(self.scope, switches=self.fix)


def _variant(key, title, switch, scope, expect, doc, **kw) -> GroupVariant:
    return GroupVariant(key, title, Rules(scope.profile, (switch,)), scope, expect, doc, **kw)


STREAMS_GROUP_VARIANTS: tuple[GroupVariant, ...] = (
    _variant(
        "KAFKA-19233", "an epoch-0 rejoin from a known member is fenced",
        "kafka-19233",
        StreamsGroupScope(processes=2, partitions=(1,), profile="kafka-4.1", faults=("lose_response",), budget=2),
        "error_as_profile_prescribes",
        "apache/kafka PR #21312 (merged 2026-01): before it, throwIfStreamsGroupMemberEpochIsInvalid also "
        "checked an epoch-0 heartbeat, so a member the coordinator still held at a higher epoch (shipped "
        "Kafka keeps a fenced member: nothing is written on FENCED_MEMBER_EPOCH) was answered "
        "FENCED_MEMBER_EPOCH again on its rejoin, and again on every retry. Two lost responses fence a "
        "member here (its epoch falls two behind); KIP-1071's join (epoch 0) has no member-epoch check.",
    ),
    _variant(
        "KAFKA-20254", "after an offline migration the compacted log does not load",
        "kafka-20254",
        StreamsGroupScope(processes=1, classic=1, profile="kafka-4.5", operations=("failover",), budget=1),
        "replay_gives_live_state",
        "apache/kafka PR #21641 (merged 2026-03-05, in 4.2.1; 4.2.0 is affected): 'During replay of the "
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


FINDINGS: tuple[GroupVariant, ...] = (
    GroupVariant(
        "lost-response-strands-task", "a lost response that handed on a task is never repeated",
        Rules("kafka-4.5"),
        StreamsGroupScope(processes=2, partitions=(2,), profile="kafka-4.5", faults=("lose_response",), budget=1),
        "can_settle",
        "Kafka's GroupMetadataManager#streamsGroupHeartbeat sets the task lists only when the member "
        "joins (epoch 0) or hasAssignedTasksChanged(member, updatedMember); unlike consumerGroupHeartbeat "
        "it has no isFullRequest case (KAFKA-16367). The client (StreamsGroupHeartbeatRequestManager) "
        "resets its sent fields after a failed heartbeat and re-sends its owned tasks, but no topology "
        "or rebalance timeout, and keeps its epoch; the coordinator accepts it (same or previous epoch, "
        "owned tasks a subset of the assignment) and answers the new epoch with null task lists, which "
        "StreamsMembershipManager#onHeartbeatSuccess takes as 'no change'. The task the coordinator "
        "believes the member runs is run by nobody until the member's assignment changes again.",
        fix=("resend-when-owned-differs",),
    ),
)


def streams_group_variant(key: str) -> GroupVariant:
    for v in STREAMS_GROUP_VARIANTS + FINDINGS:
        if v.key == key:
            return v
    known = ", ".join(v.key for v in STREAMS_GROUP_VARIANTS + FINDINGS)
    raise KeyError(f"no streams-group known-bug variant {key!r}; known: {known}")
