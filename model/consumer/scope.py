"""What one exploration of the classic consumer group covers, and which behaviour it follows.

A *scope* bounds the state space (members, topics x partitions, generations, fault
budget) and names the behaviour profile: where shipped Kafka releases behaved
differently, each behaviour is a named option and a profile fixes them all.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .. import delivery, scopes
from ..scopes import ScopeError

from ..assignors import COOPERATIVE, AssignorConfigError, rebalance_protocol
from ..assignors.ownership import RESOLUTION_RULES

FAULTS = ("crash", "pause", "lose_response", "timeout", "max_poll")   # max_poll: records scopes only
OPERATIONS = ("add_partition", "delete_topic", "subscription_change", "delete_group")


@dataclass(frozen=True)
class Config:
    """One consumer configuration: partition.assignment.strategy and the client's
    ConsumerProtocolSubscription version (1 for 2.4-3.3, 2 for 3.4, 3 from 3.5)."""

    assignors: tuple[str, ...] = ("cooperative-sticky",)
    version: int = 3

    @property
    def protocol(self) -> str:
        return rebalance_protocol(self.assignors)


@dataclass(frozen=True)
class Behaviour:
    """Every rule on which Kafka releases differ. The defaults are Kafka 3.5+."""

    claim_resolution: str = "per-partition-generation"
    # KAFKA-13406 (fixed 3.0.1/3.1.0): the built-in cooperative-sticky assignor skips
    # ConsumerCoordinator#validateCooperativeAssignment; custom assignors never do.
    validate_builtin: bool = False
    # CooperativeStickyAssignor#adjustAssignment withholds partitions changing owner.
    withhold: bool = True
    # False: the leader runs code that predates KIP-429 and treats every member as
    # EAGER: it ignores ownedPartitions and withholds nothing.
    leader_cooperative_aware: bool = True
    # KAFKA-12983 (fixed 3.0.0, 2.8.1): resetStateAndRejoin sets needsJoinPrepare, so
    # after UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION mid-rebalance the consumer runs
    # onJoinPrepare again: onPartitionsLost, and it rejoins owning nothing. False: the
    # reset skips it and the consumer rejoins still claiming its partitions.
    fenced_clears_owned: bool = True
    # KIP-429 1.2: "If topic metadata has changed: call onPartitionsLost on those
    # owned-but-no-longer-exist partitions". No Kafka release does this (the comment in
    # ConsumerCoordinator#rejoinNeededOrPending has no code under it): a deleted topic's
    # partitions stay owned until the next assignment revokes them.
    lost_on_deleted_partitions: bool = False
    # A consumer ignores a SyncGroup response it is no longer waiting for (its
    # connection was reset when the request timed out).
    apply_late_sync: bool = False
    # Known record-layer bugs put back (``model.delivery.SWITCHES`` names, e.g. "kafka-14196");
    # records scopes only. Empty: the reference rules.
    delivery: tuple[str, ...] = ()


PROFILES: dict[str, Behaviour] = {
    "kafka-3.5+": Behaviour(),
    "kafka-3.1-3.4": Behaviour(claim_resolution="highest-generation-only"),
    "kafka-3.0.0": Behaviour(claim_resolution="highest-generation-only", validate_builtin=True),
    "kafka-2.4-2.8": Behaviour(claim_resolution="trust-all", validate_builtin=True, fenced_clears_owned=False),
    # KIP-429's text where every Kafka release departs from it
    "kip-429": Behaviour(lost_on_deleted_partitions=True),
}


@dataclass(frozen=True)
class ConsumerScope:
    members: int = 2
    partitions: tuple[int, ...] = (2,)           # partition count per topic
    max_generation: int = 4
    budget: int = 1                               # faults + operations in one run
    faults: tuple[str, ...] = ("crash", "pause", "lose_response")
    operations: tuple[str, ...] = ()
    # Configurations in rolling-bounce order: every consumer starts on plan[0] and a
    # "bounce" moves one consumer to the next entry (a restart with the new config).
    plan: tuple[Config, ...] = (Config(),)
    profile: str = "kafka-3.5+"
    behaviour: Behaviour = field(default_factory=Behaviour)
    # "empty": every consumer starts unjoined; "stable": the group has formed and
    # settled (reached by the protocol's own steps, no faults), generation included
    start: str = "empty"
    # The record layer (issue 30, ``model/delivery``): partition logs, fetch positions,
    # processing and offset commits. Off: every state has ``logs=None``, ``app=None``.
    records: bool = False
    max_records: int = 2             # records per partition the run may produce (1..3)
    commit_policy: str = "auto"      # delivery.POLICIES: auto | sync-on-revoke | after-processing | none
    offset_reset: str = "earliest"   # auto.offset.reset without a committed offset: earliest | latest
    known_profiles: ClassVar[dict[str, Behaviour]] = PROFILES     # for scopes.profile_label

    @property
    def stride(self) -> int:
        grow = self.budget if "add_partition" in self.operations else 0
        return max(self.partitions) + grow

    @property
    def all_topics(self) -> int:
        return (1 << len(self.partitions)) - 1


def with_profile(scope: ConsumerScope, profile: str) -> ConsumerScope:
    return scopes.with_profile(scope, profile, PROFILES)


def validate(scope: ConsumerScope) -> ConsumerScope:
    """Return ``scope`` if it can be explored, else raise ScopeError naming the field."""
    def bad(name: str, why: str) -> ScopeError:
        return ScopeError(f"scope.{name}: {why}")

    if not 1 <= scope.members <= 4:
        raise bad("members", f"{scope.members} is outside 1..4")
    if not 1 <= len(scope.partitions) <= 3 or not all(1 <= n <= 4 for n in scope.partitions):
        raise bad("partitions", f"{list(scope.partitions)} is out of range: give 1-3 topics of 1-4 partitions each")
    if not 1 <= scope.max_generation <= 12:
        raise bad("max_generation", f"{scope.max_generation} is outside 1..12")
    if not 0 <= scope.budget <= 4:
        raise bad("budget", f"{scope.budget} is outside 0..4")
    scopes.check_names("faults", scope.faults, FAULTS, "fault")
    scopes.check_names("operations", scope.operations, OPERATIONS, "operation")
    if not scope.plan:
        raise bad("plan", "needs at least one configuration")
    for i, cfg in enumerate(scope.plan):
        try:
            protocol = cfg.protocol
        except AssignorConfigError as e:
            raise bad(f"plan[{i}].assignors", str(e)) from None
        if not 0 <= cfg.version <= 3:
            raise bad(f"plan[{i}].version", f"subscription version {cfg.version} is outside 0..3")
        if protocol == COOPERATIVE and cfg.version < 1:
            raise bad(f"plan[{i}].version", "COOPERATIVE needs subscription v1+ (ownedPartitions)")
    if scope.start not in ("empty", "stable"):
        raise bad("start", f"{scope.start!r}: give 'empty' or 'stable'")
    if scope.profile not in PROFILES and scope.profile != "custom":
        raise bad("profile", f"unknown profile {scope.profile!r}; known: {', '.join(PROFILES)}")
    if scope.behaviour.claim_resolution not in RESOLUTION_RULES:
        raise bad("behaviour.claim_resolution", f"unknown rule; known: {', '.join(RESOLUTION_RULES)}")
    _validate_records(scope, bad)
    return scope


RECORD_DEFAULTS = {"max_records": 2, "commit_policy": "auto", "offset_reset": "earliest"}
"""The record fields besides ``records``, at their defaults: what a scope without records has."""


def _validate_records(scope: ConsumerScope, bad) -> None:
    """The record layer's fields: set only with ``records: true``, each in range."""
    if not scope.records and "max_poll" in scope.faults:
        raise bad("faults", "max_poll needs records: true (an application stuck in its records)")
    if not scope.records:
        for name, default in RECORD_DEFAULTS.items():
            if getattr(scope, name) != default:
                raise bad(name, "needs records: true")
        if scope.behaviour.delivery:
            raise bad("behaviour.delivery", "needs records: true")
        return
    if not 1 <= scope.max_records <= 3:
        raise bad("max_records", f"{scope.max_records} is outside 1..3")
    scopes.check_names("commit_policy", (scope.commit_policy,), delivery.POLICIES, "commit policy")
    scopes.check_names("offset_reset", (scope.offset_reset,), delivery.RESETS, "offset reset")
    scopes.check_names("behaviour.delivery", scope.behaviour.delivery, delivery.NAMES, "delivery switch")


def to_dict(scope: ConsumerScope) -> dict:
    """The scope as JSON; without records the record fields are left out (and an empty
    ``behaviour.delivery`` always), so every scope written before them reads the same."""
    d = scopes.to_dict(scope)
    if not d["behaviour"]["delivery"]:
        del d["behaviour"]["delivery"]
    if not scope.records:
        for name in ("records", *RECORD_DEFAULTS):
            del d[name]
    return d


_read = scopes.scope_reader(ConsumerScope, PROFILES, {
    "plan": scopes.list_of(scopes.record(Config, required=("assignors",))),
})


def from_dict(d: dict) -> ConsumerScope:
    """Build a scope from JSON-like data; unknown keys and bad values raise ScopeError
    naming the field (``scope.plan[1]: unknown key 'verison'; known: assignors, version``)."""
    return validate(_read(d))
