"""What one exploration of a KIP-1071 streams group covers.

``processes`` Streams processes run ``members_per_process`` consumers each; the topology
has one subtopology per entry of ``partitions`` (its source topic ``t<i>`` has that many
partitions), all stateful (a changelog topic each, created by the coordinator) or all
stateless. ``profile`` names the coordinator's rules (``profiles.py``: kip-1071,
kafka-4.1, kafka-4.5). Faults and budgeted operations spend ``budget``. ``static``: every client has a
``group.instance.id`` (its slot's), closes with epoch -2 and restarts into its old tasks;
the ``roll`` operation closes a client to restart it with the same topology (a rolling
bounce).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from .. import scopes
from ..scopes import ScopeError
from .coordinator_update import SWITCHES
from .profiles import PROFILES

FAULTS = ("lose_response", "session_timeout", "crash")
OPERATIONS = ("topology_update", "topic_change", "shutdown_request", "roll", "redeploy", "poll_timeout",
              "shutdown_leave", "failover")
# the most partitions a source topic may have: a scope's partition counts, and topic_change
# adds a partition to the first source topic only below it (step.can_add_partition)
MAX_PARTITIONS = 4


@dataclass(frozen=True)
class Rules:
    """What ``scopes.profile_label`` compares: the profile's name and the rules a scope
    switches (``switches``, names of ``coordinator_update.SWITCHES``; none: the profile's)."""

    profile: str
    switches: tuple[str, ...] = ()


@dataclass(frozen=True)
class StreamsGroupScope:
    processes: int = 2
    members_per_process: int = 1
    partitions: tuple[int, ...] = (2,)   # per subtopology: its source topic's partitions
    stateful: bool = False
    standbys: int = 0                    # num.standby.replicas
    warmups: int = 0                     # num.warmup.replicas (kip-1071 only: task offsets)
    profile: str = "kip-1071"
    faults: tuple[str, ...] = ()
    operations: tuple[str, ...] = ()
    budget: int = 0
    max_epoch: int = 10                  # explore while the group epoch is below it
    # rules switched away from the profile's (coordinator_update.SWITCHES): the known-bug
    # variants (properties/known_bugs/streams_group.py); empty for the reference
    switches: tuple[str, ...] = ()
    static: bool = False                 # static membership: instance ids, close with epoch -2
    # member slots (the first ``classic``) that start on the classic protocol, holding a
    # classic group; each may ``upgrade`` to the streams protocol (classic_clients.py)
    classic: int = 0
    known_profiles: ClassVar[dict] = {}     # for scopes.profile_label (filled below)

    @property
    def behaviour(self) -> "Rules":
        """The profile's rules by name (``profiles.py``) and the rules the scope switches."""
        return Rules(self.profile, self.switches)

    @property
    def members(self) -> int:
        return self.processes * self.members_per_process


StreamsGroupScope.known_profiles = {name: Rules(name) for name in PROFILES}


def validate(scope: StreamsGroupScope) -> StreamsGroupScope:
    """Return ``scope`` if it can be explored, else raise ScopeError naming the field."""
    def bad(name: str, why: str) -> ScopeError:
        return ScopeError(f"scope.{name}: {why}")

    if not 1 <= scope.processes <= 4:
        raise bad("processes", f"{scope.processes} is outside 1..4")
    if not 1 <= scope.members_per_process <= 3 or scope.members > 4:
        raise bad("members_per_process", f"{scope.members_per_process} x {scope.processes} processes: "
                  "give 1..3 and at most 4 members in all")
    if not 1 <= len(scope.partitions) <= 3:
        raise bad("partitions", f"{len(scope.partitions)} subtopologies: give 1..3 partition counts")
    for i, p in enumerate(scope.partitions):
        if not 1 <= p <= MAX_PARTITIONS:
            raise bad(f"partitions[{i}]", f"{p} is outside 1..{MAX_PARTITIONS}")
    if not 0 <= scope.standbys < scope.processes or (scope.standbys and not scope.stateful):
        raise bad("standbys", f"{scope.standbys}: give 0..processes-1, and standbys only with stateful: true")
    if scope.warmups and (not scope.stateful or scope.profile != "kip-1071"):
        raise bad("warmups", f"{scope.warmups}: warm-ups need stateful: true and profile kip-1071 "
                  "(kafka-4.1 rejects warm-up tasks and task offsets)")
    if not 0 <= scope.warmups <= 2:
        raise bad("warmups", f"{scope.warmups} is outside 0..2")
    if scope.profile not in PROFILES:
        raise bad("profile", f"unknown profile {scope.profile!r}; known: {', '.join(PROFILES)}")
    scopes.check_names("faults", scope.faults, FAULTS, "fault")
    scopes.check_names("operations", scope.operations, OPERATIONS, "operation")
    if not 0 <= scope.budget <= 4:
        raise bad("budget", f"{scope.budget} is outside 0..4")
    for i, name in enumerate(scope.switches):
        if name not in SWITCHES:
            raise bad(f"switches[{i}]", f"unknown switch {name!r}; known: {', '.join(SWITCHES)}")
    if not 0 <= scope.classic <= scope.members:
        raise bad("classic", f"{scope.classic} is outside 0..{scope.members} (the member slots)")
    if scope.classic and set(scope.operations) - {"failover"}:
        raise bad("classic", f"{scope.classic} classic members with operations {list(scope.operations)}: "
                  "classic members run with the failover operation only")
    if not 2 <= scope.max_epoch <= 30:
        raise bad("max_epoch", f"{scope.max_epoch} is outside 2..30")
    return scope


def with_profile(scope: StreamsGroupScope, profile: str) -> StreamsGroupScope:
    """``scope`` under ``profile``; a shipped profile rejects warm-up tasks and task
    offsets, so it runs the scope without warm-ups; ``kafka-4.1`` rejects instance ids
    ("Static membership is not yet supported."), so it runs it with dynamic members."""
    if profile not in PROFILES:
        raise ScopeError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    warmups = scope.warmups if profile == "kip-1071" else 0
    static = scope.static and profile != "kafka-4.1"
    return validate(replace(scope, profile=profile, warmups=warmups, static=static))


def to_dict(scope: StreamsGroupScope) -> dict:
    return scopes.to_dict(scope)


_read = scopes.fields_of(StreamsGroupScope)


def from_dict(d: dict) -> StreamsGroupScope:
    """Build a scope from JSON-like data; unknown keys and bad values raise ScopeError
    naming the field (``scope.partitions[0]: 5 is outside 1..4``)."""
    return validate(StreamsGroupScope(**_read(d, "scope")))
