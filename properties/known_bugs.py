"""Known bugs and KIP-described hazards, as behaviours kept apart from the reference.

Each variant is the reference model with the rules of a buggy release (or a hazard a
KIP describes) switched on through ``Behaviour``, plus the smallest scope in which
the bug shows and the property expected to catch it. The reference (Kafka 3.5+)
passes every one of these scopes.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from groupcheck.model.consumer.scope import PROFILES, Behaviour, Config, ConsumerScope

COOPERATIVE_STICKY = (Config(("cooperative-sticky",)),)


@dataclass(frozen=True)
class Variant:
    key: str            # JIRA key or hazard name
    title: str
    behaviour: Behaviour
    scope: ConsumerScope
    expect: str         # the property BFS's shortest counterexample violates
    doc: str
    also: tuple[str, ...] = ()        # other properties a longer run may break first
    hypothesis_finds: bool = True      # False: deeper than Hypothesis reaches at CI budget
    hunt_steps: int = 100              # steps per Hypothesis test case when hunting it

    @property
    def caught_by(self) -> tuple[str, ...]:
        return (self.expect,) + self.also

    def buggy_scope(self) -> ConsumerScope:
        return replace(self.scope, profile="custom", behaviour=self.behaviour)

    def reference_scope(self) -> ConsumerScope:
        return self.scope


REF = Behaviour()

VARIANTS: tuple[Variant, ...] = (
    Variant(
        "KAFKA-7026", "sticky assignor trusts stale userData: a partition gets two owners",
        replace(REF, claim_resolution="trust-all"),
        ConsumerScope(plan=(Config(("sticky",)),), faults=("pause",), budget=1, max_generation=4),
        "no_double_ownership",
        "Before KIP-341 (2.3) StickyAssignor's userData carried the previous assignment without a "
        "generation, so an expelled member's stale claim was kept next to its new owner's.",
    ),
    Variant(
        "KAFKA-12984", "cooperative-sticky trusts stale ownedPartitions (Kafka 2.4-2.8)",
        PROFILES["kafka-2.4-2.8"],
        ConsumerScope(plan=COOPERATIVE_STICKY, faults=("pause",), budget=1, max_generation=4),
        "lost_only_when_fenced",
        "Kafka 2.4-2.8: a fenced consumer rejoins still claiming its partitions (KAFKA-12983) and "
        "the leader trusts every claim regardless of generation (KAFKA-12984).",
    ),
    Variant(
        "KAFKA-12983", "a fenced consumer rejoins without calling onPartitionsLost",
        replace(REF, fenced_clears_owned=False),
        ConsumerScope(plan=COOPERATIVE_STICKY, faults=("pause",), budget=1, max_generation=4),
        "lost_only_when_fenced",
        "onJoinPrepare was skipped after resetStateAndGeneration, so ownedPartitions were not "
        "cleared: KIP-429 says to \"re-join group with empty assigned partition\".",
    ),
    Variant(
        "KAFKA-13406", "validateCooperativeAssignment on the built-in assignor fails on a lagging claim (3.0.0)",
        PROFILES["kafka-3.0.0"],
        ConsumerScope(members=3, partitions=(2,), plan=COOPERATIVE_STICKY, faults=("lose_response",),
                      budget=1, max_generation=5),
        "converges_within_k",
        "Kafka 3.0.0 dropped every claim of a lower generation and still ran "
        "validateCooperativeAssignment on cooperative-sticky. A member whose JoinGroup response was "
        "lost claims with the old generation; its partition is moved in one round, validation throws "
        "and the round is wasted, so the group needs more rebalances than KIP-429 allows. (In the "
        "model the retry succeeds once the labels catch up; the shipped bug, fed by KAFKA-12983's "
        "duplicate claims, could fail every round.)",
        hunt_steps=200,       # its 57-step interleaving; 0-2 of 5 seeds find it in 300 cases of 200 steps
    ),
    Variant(
        "KAFKA-14639", "lower-generation claims dropped: revoked and assigned in one round (Kafka 3.1-3.4)",
        PROFILES["kafka-3.1-3.4"],
        ConsumerScope(members=3, partitions=(1,), plan=COOPERATIVE_STICKY, faults=("lose_response",),
                      budget=1, max_generation=4),
        "no_double_ownership",
        "Kafka 3.1-3.4 kept only the highest generation's claims, so a member one generation behind "
        "(its JoinGroup response was lost) had its partition handed to another member in the same "
        "round, while it still owned it.",
        hunt_steps=200,       # no seed of 5 found it in 300 cases of 200 steps (2026-11-23), nor 2 of 800
        hypothesis_finds=False,   # too rare for a bounded test (docs/known-gaps.md)
    ),
    Variant(
        "KAFKA-13419", "a late SyncGroup outcome applied after rejoining: generation N-1 partitions kept",
        replace(REF, apply_late_sync=True),
        ConsumerScope(plan=COOPERATIVE_STICKY, faults=("timeout",), budget=1, max_generation=5),
        "no_double_ownership",
        also=("settles_fully_owned", "revoke_before_reassign"),
        doc="A member that gave up on its SyncGroup and rejoined then applies the old response: it owns "
        "partitions the next leader never saw it claim (the out-of-date ownedPartitions of "
        "KAFKA-13419).",
    ),
    Variant(
        "KIP-429-old-leader", "a leader on old code treats cooperative members as eager",
        replace(REF, leader_cooperative_aware=False),
        ConsumerScope(plan=COOPERATIVE_STICKY, faults=(), budget=0, max_generation=4),
        "no_double_ownership",
        "KIP-429: \"we want to avoid the situation where leader is on old byte-code and only "
        "recognize eager ... and hence just go ahead and do the assignment while new versioned "
        "members did not revoke their partitions before joining the group\".",
    ),
    Variant(
        "KIP-429-no-withholding", "the leader skips withholding maybe-revoking partitions",
        replace(REF, withhold=False),
        ConsumerScope(plan=COOPERATIVE_STICKY, faults=(), budget=0, max_generation=4),
        "no_double_ownership",
        "KIP-429: \"For maybe-revoking-partitions, check if the owner has changed. If yes, exclude "
        "them from the assigned-partitions list to the new owner.\"",
    ),
)


def variant(key: str) -> Variant:
    for v in VARIANTS:
        if v.key == key:
            return v
    raise KeyError(f"no known-bug variant {key!r}; known: {', '.join(v.key for v in VARIANTS)}")
