"""What one exploration of Streams on the classic protocol covers, and which rules it follows.

The *plan* is a rolling upgrade: every instance starts on ``plan[0]`` and a bounce moves
one instance to the next configuration (a Kafka Streams release plus ``upgrade.from``).
The *profile* names the version-probing rules: ``release`` lets every release follow the
rules it shipped (the default, and what ``upgrade-plan`` uses); ``kip-268`` and
``kafka-2.6+`` make every release from 2.0 on follow one of them (see README.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .. import scopes
from ..assignors import streams_tasks
from ..scopes import ScopeError

from . import releases as rel

FAULTS = ("crash",)
OPERATIONS = ("bounce", "scale_up", "scale_down")
TASK_ASSIGNORS = ("sticky", "learner")


@dataclass(frozen=True)
class Config:
    """One instance configuration: the Kafka Streams release and ``upgrade.from``."""

    release: str = "3.9"
    upgrade_from: str | None = None

    def text(self) -> str:
        return self.release + (f" (upgrade.from={self.upgrade_from})" if self.upgrade_from else "")


@dataclass(frozen=True)
class Behaviour:
    """Every rule on which Kafka releases differ, plus the known bugs' switches.
    The defaults are each release's shipped behaviour."""

    # "release": each release's own rules; or KIP_268 / KAFKA_26 for every release >= 2.0
    probing: str = "release"
    # KAFKA-6054's fix: an instance with upgrade.from < 2.0 sends the old version.
    honour_upgrade_from: bool = True
    # KAFKA-8649's fix: a KIP-268 leader advertises the group's lowest supported version,
    # not its own.
    advertise_group_min: bool = True
    # KIP-268: the member that got an empty assignment downgrades and rejoins.
    follower_downgrades: bool = True
    # KIP-268: the leader triggers the final rebalance when everyone can use a newer version.
    leader_final_rebalance: bool = True


PROFILES: dict[str, Behaviour] = {
    "release": Behaviour(),
    rel.KIP_268: Behaviour(probing=rel.KIP_268),
    rel.KAFKA_26: Behaviour(probing=rel.KAFKA_26),
}


@dataclass(frozen=True)
class StreamsScope:
    instances: int = 3
    threads: int = 1                  # stream threads (group members) per instance
    tasks: int = 3
    standbys: int = 0                 # num.standby.replicas
    initial: int | None = None        # instances running at the start (None: all)
    plan: tuple[Config, ...] = (Config("2.3"), Config("3.9"))
    task_assignor: str = "sticky"     # "sticky" | "learner" (KIP-429's warm-up tasks) | a registered one
    start: str = "stable"             # "stable": the initial instances formed a settled group
    faults: tuple[str, ...] = ()
    operations: tuple[str, ...] = ("bounce",)
    budget: int = 0                   # faults and scale operations in one run
    max_generation: int = 16
    profile: str = "release"
    behaviour: Behaviour = field(default_factory=Behaviour)
    known_profiles: ClassVar[dict[str, Behaviour]] = PROFILES     # for scopes.profile_label

    @property
    def running(self) -> int:
        return self.instances if self.initial is None else self.initial

    @property
    def members(self) -> int:
        return self.instances * self.threads

    @property
    def all_tasks(self) -> int:
        return (1 << self.tasks) - 1


def family(scope: StreamsScope, name: str) -> str:
    """The probing rules release ``name`` follows in this scope."""
    own = rel.release(name).family
    if own == rel.PRE_PROBING or scope.behaviour.probing == "release":
        return own
    return scope.behaviour.probing


def with_profile(scope: StreamsScope, profile: str) -> StreamsScope:
    return scopes.with_profile(scope, profile, PROFILES)


def validate(scope: StreamsScope) -> StreamsScope:
    """Return ``scope`` if it can be explored, else raise ScopeError naming the field."""
    def bad(name: str, why: str) -> ScopeError:
        return ScopeError(f"scope.{name}: {why}")

    if not 1 <= scope.instances <= 5:
        raise bad("instances", f"{scope.instances} is outside 1..5")
    if not 1 <= scope.threads <= 3 or scope.members > 6:
        raise bad("threads", f"{scope.threads} thread(s) x {scope.instances} instances: at most 6 members")
    if not 1 <= scope.tasks <= 8:
        raise bad("tasks", f"{scope.tasks} is outside 1..8")
    if not 0 <= scope.standbys < scope.instances:
        raise bad("standbys", f"{scope.standbys}: give 0..instances-1")
    if scope.initial is not None and not 1 <= scope.initial <= scope.instances:
        raise bad("initial", f"{scope.initial} is outside 1..instances")
    if not scope.plan:
        raise bad("plan", "needs at least one configuration")
    for i, cfg in enumerate(scope.plan):
        if rel.ALIASES.get(cfg.release, cfg.release) not in rel.RELEASES:
            raise bad(f"plan[{i}].release", f"unknown release {cfg.release!r}; known: {', '.join(rel.RELEASES)}")
        if cfg.upgrade_from is not None and not rel.accepts_upgrade_from(cfg.release, cfg.upgrade_from):
            raise bad(f"plan[{i}].upgrade_from",
                      f"Kafka Streams {cfg.release} rejects upgrade.from={cfg.upgrade_from!r} "
                      f"(ConfigException at startup); see `groupcheck list` for the accepted values")
    if scope.task_assignor not in TASK_ASSIGNORS and scope.task_assignor not in streams_tasks.REGISTERED:
        raise bad("task_assignor", f"{scope.task_assignor!r}; known: {', '.join(streams_tasks.known())}")
    if scope.start not in ("empty", "stable"):
        raise bad("start", f"{scope.start!r}: give 'empty' or 'stable'")
    scopes.check_names("faults", scope.faults, FAULTS, "fault")
    scopes.check_names("operations", scope.operations, OPERATIONS, "operation")
    if not 0 <= scope.budget <= 4:
        raise bad("budget", f"{scope.budget} is outside 0..4")
    if not 1 <= scope.max_generation <= 30:
        raise bad("max_generation", f"{scope.max_generation} is outside 1..30")
    if scope.profile not in PROFILES and scope.profile != "custom":
        raise bad("profile", f"unknown profile {scope.profile!r}; known: {', '.join(PROFILES)}")
    if scope.behaviour.probing not in ("release", rel.KIP_268, rel.KAFKA_26):
        raise bad("behaviour.probing", f"{scope.behaviour.probing!r}; give release, kip-268 or kafka-2.6+")
    return scope


def to_dict(scope: StreamsScope) -> dict:
    return scopes.to_dict(scope)


_config = scopes.record(Config, required=("release",))


def _plan_entry(value, path: str) -> Config:
    """A plan entry: {"release": ..., "upgrade_from": ...}, or a release name alone."""
    return Config(value) if isinstance(value, str) else _config(value, path)


_read = scopes.scope_reader(StreamsScope, PROFILES, {"plan": scopes.list_of(_plan_entry)})


def from_dict(d: dict) -> StreamsScope:
    """Build a scope from JSON-like data; unknown keys and bad values raise ScopeError
    naming the field (``scope.plan[0]: missing 'release'``)."""
    return validate(_read(d))
