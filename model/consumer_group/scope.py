"""What one exploration of a KIP-848 consumer group covers.

``members`` consumers (Java clients with ``group.protocol=consumer``) subscribe to topics
``t0``, ``t1``, ... with ``partitions[i]`` partitions each; the coordinator assigns them with
the server assignor ``assignor`` (``uniform``, ``range``: the clients' ``group.remote.assignor``)
under the rules of ``profile`` (``profiles.py``). ``regex``: the clients subscribe with the
pattern ``t.*`` (a SubscribedTopicRegex) instead of topic names. ``static``: every client has a
``group.instance.id`` (its slot's) and closes with epoch -2. ``joiners``: the last slots start
down and join with the ``join`` operation.

Faults and budgeted operations spend ``budget``. Faults: ``lose_response`` (a heartbeat
response never arrives), ``session_timeout`` (a live member's session expires),
``crash`` (the process dies), ``stall`` (the application stops polling while it reconciles,
so the coordinator's rebalance timeout may fire). Operations: ``join``, ``leave`` (close for
good), ``roll`` (close and restart: a rolling bounce), ``subscription_change`` (a client
subscribes to one more topic), ``topic_change`` (t0 gains a partition), ``failover`` (a new
coordinator loads the log), ``downgrade`` (a client closes and restarts as a classic consumer:
a rolling downgrade, ``classic_world.py``). ``switches``: rules switched away from the reference, the
coordinator's (``coordinator_update.SWITCHES``), the client's (``member.CLIENT_SWITCHES``) and the
record layer's (``delivery_steps.SWITCHES``): the known-bug variants (properties/known_bugs/consumer_group.py).

The record layer (issue 30, ``delivery_steps.py``): ``records`` turns it on: each partition a
log of at most ``max_records`` records (``produce``), each client an application that polls
and processes them, committing by ``commit_policy`` (``auto``: Kafka's default
enable.auto.commit=true; ``sync-on-revoke``: commitSync in onPartitionsRevoked;
``after-processing``: commitSync after each record; ``none``) and starting a partition with
no committed offset at ``offset_reset`` (auto.offset.reset). Off (the default), the four
fields keep their defaults, ``to_dict`` leaves them out, and every state is as before.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from .. import scopes
from ..scopes import ScopeError
from .coordinator_update import SWITCHES
from .delivery_steps import SWITCHES as DELIVERY_SWITCHES
from .member import CLIENT_SWITCHES
from .migration_state import MIGRATION_SWITCHES, POLICIES
from .profiles import PROFILES

FAULTS = ("lose_response", "session_timeout", "crash", "stall")
OPERATIONS = ("join", "leave", "roll", "subscription_change", "topic_change", "failover", "downgrade")
ASSIGNORS = ("uniform", "range")
COMMIT_POLICIES = ("auto", "sync-on-revoke", "after-processing", "none")
OFFSET_RESETS = ("earliest", "latest")
# the record fields and their defaults: with records off they keep these and to_dict omits them
RECORD_DEFAULTS = {"max_records": 2, "commit_policy": "auto", "offset_reset": "earliest"}


@dataclass(frozen=True)
class Rules:
    """What ``scopes.profile_label`` compares: the profile's name and the switched rules."""

    profile: str
    switches: tuple[str, ...] = ()


@dataclass(frozen=True)
class ConsumerGroupScope:
    members: int = 2
    partitions: tuple[int, ...] = (2,)   # per topic t0, t1, ...
    assignor: str = "uniform"
    regex: bool = False
    static: bool = False
    joiners: int = 0                     # the last ``joiners`` slots start down (operation join)
    profile: str = "kip-848"
    faults: tuple[str, ...] = ()
    operations: tuple[str, ...] = ()
    budget: int = 0
    max_epoch: int = 10                  # explore while the group epoch is below it
    switches: tuple[str, ...] = ()
    # the first ``classic`` slots start as classic consumers of a STABLE classic group and may
    # ``upgrade`` (classic_world.py); ``migration_policy``: group.consumer.migration.policy
    classic: int = 0
    migration_policy: str = "bidirectional"
    # the record layer (issue 30): off by default, and then every field below keeps its default
    records: bool = False
    max_records: int = 2                 # records per partition the run may produce (1..3)
    commit_policy: str = "auto"          # COMMIT_POLICIES
    offset_reset: str = "earliest"       # auto.offset.reset: OFFSET_RESETS
    known_profiles: ClassVar[dict] = {}

    @property
    def behaviour(self) -> Rules:
        return Rules(self.profile, self.switches)


ConsumerGroupScope.known_profiles = {name: Rules(name) for name in PROFILES}


def validate(scope: ConsumerGroupScope) -> ConsumerGroupScope:
    """Return ``scope`` if it can be explored, else raise ScopeError naming the field."""
    def bad(name: str, why: str) -> ScopeError:
        return ScopeError(f"scope.{name}: {why}")

    if not 1 <= scope.members <= 4:
        raise bad("members", f"{scope.members} is outside 1..4")
    if not 1 <= len(scope.partitions) <= 2:
        raise bad("partitions", f"{len(scope.partitions)} topics: give 1..2 partition counts")
    for i, p in enumerate(scope.partitions):
        if not 1 <= p <= 4:
            raise bad(f"partitions[{i}]", f"{p} is outside 1..4")
    if scope.assignor not in ASSIGNORS:
        raise bad("assignor", f"unknown server assignor {scope.assignor!r}; known: {', '.join(ASSIGNORS)}")
    if scope.profile not in PROFILES:
        raise bad("profile", f"unknown profile {scope.profile!r}; known: {', '.join(PROFILES)}")
    if scope.regex and scope.profile == "kafka-3.7":
        raise bad("regex", "kafka-3.7 rejects SubscribedTopicRegex (\"SubscribedTopicRegex is not supported yet.\")")
    if not 0 <= scope.joiners < scope.members:
        raise bad("joiners", f"{scope.joiners} is outside 0..members-1")
    if scope.joiners and "join" not in scope.operations:
        raise bad("joiners", f"{scope.joiners} joiners need the join operation")
    scopes.check_names("faults", scope.faults, FAULTS, "fault")
    scopes.check_names("operations", scope.operations, OPERATIONS, "operation")
    if "subscription_change" in scope.operations and (len(scope.partitions) < 2 or scope.regex):
        raise bad("operations", "subscription_change needs two topics (partitions: [n, m]) and names, not regex")
    if not 0 <= scope.budget <= 4:
        raise bad("budget", f"{scope.budget} is outside 0..4")
    known = tuple(SWITCHES) + tuple(CLIENT_SWITCHES) + tuple(MIGRATION_SWITCHES) + DELIVERY_SWITCHES
    for i, name in enumerate(scope.switches):
        if name not in known:
            raise bad(f"switches[{i}]", f"unknown switch {name!r}; known: {', '.join(known)}")
        if name in DELIVERY_SWITCHES and not scope.records:
            raise bad(f"switches[{i}]", f"{name} is a record-layer rule: it needs records: true")
    if not 0 <= scope.classic <= scope.members - scope.joiners:
        raise bad("classic", f"{scope.classic} is outside 0..{scope.members - scope.joiners} (the slots that start)")
    if (scope.classic or "downgrade" in scope.operations) and (
            scope.static or scope.regex or set(scope.operations) - {"leave", "downgrade"}):
        raise bad("classic", "classic members run without static membership, regex, or operations other than "
                             "leave and downgrade")
    if scope.migration_policy not in POLICIES:
        raise bad("migration_policy", f"{scope.migration_policy!r} is not one of {', '.join(POLICIES)}")
    if not 2 <= scope.max_epoch <= 30:
        raise bad("max_epoch", f"{scope.max_epoch} is outside 2..30")
    _validate_records(scope, bad)
    return scope


def _validate_records(scope: ConsumerGroupScope, bad) -> None:
    """The record fields: set only with ``records`` on (so that omitting them from JSON while
    off loses nothing), in range, and named from the known lists."""
    if not scope.records:
        for name, default in RECORD_DEFAULTS.items():
            if getattr(scope, name) != default:
                raise bad(name, "needs records: true")
        return
    if not 1 <= scope.max_records <= 3:
        raise bad("max_records", f"{scope.max_records} is outside 1..3")
    if scope.commit_policy not in COMMIT_POLICIES:
        raise bad("commit_policy", f"unknown commit policy {scope.commit_policy!r}; known: {', '.join(COMMIT_POLICIES)}")
    if scope.offset_reset not in OFFSET_RESETS:
        raise bad("offset_reset", f"unknown offset reset {scope.offset_reset!r}; known: {', '.join(OFFSET_RESETS)}")
    if scope.classic or "downgrade" in scope.operations:
        raise bad("records", "the record layer runs without classic members (classic: 0, no downgrade)")


def with_profile(scope: ConsumerGroupScope, profile: str) -> ConsumerGroupScope:
    """``scope`` under ``profile``; kafka-3.7 rejects regexes, so it runs a regex scope with names."""
    if profile not in PROFILES:
        raise ScopeError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    regex = scope.regex and profile != "kafka-3.7"
    return validate(replace(scope, profile=profile, regex=regex))


def to_dict(scope: ConsumerGroupScope) -> dict:
    """The scope as JSON data; with records off the record fields are left out (they hold their
    defaults then), so scopes written before the record layer read and write the same."""
    d = scopes.to_dict(scope)
    if not scope.records:
        for name in ("records",) + tuple(RECORD_DEFAULTS):
            del d[name]
    return d


_read = scopes.fields_of(ConsumerGroupScope)


def from_dict(d: dict) -> ConsumerGroupScope:
    """Build a scope from JSON-like data; unknown keys and bad values raise ScopeError naming the field."""
    return validate(ConsumerGroupScope(**_read(d, "scope")))


__all__ = ["ASSIGNORS", "COMMIT_POLICIES", "FAULTS", "OFFSET_RESETS", "OPERATIONS", "ConsumerGroupScope", "Rules", "from_dict", "to_dict", "validate",
           "with_profile"]
