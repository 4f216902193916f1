"""Rolling-upgrade plans as Kafka's upgrade notes prescribe them (KIP-268, KIP-429).

``upgrade_plan(frm, to, bounces)`` gives the configurations an instance goes through:
one bounce straight onto ``to``, or two bounces, the first with the ``upgrade.from`` value
the upgrade notes prescribe and the second without it.
"""
from __future__ import annotations

from dataclasses import replace

from . import releases as rel
from .scope import PROFILES, Config, ScopeError, StreamsScope, validate


def upgrade_from_value(frm: str) -> str:
    """The ``upgrade.from`` value naming release ``frm``'s line ("2.6.0" -> "2.6")."""
    return "2.6" if frm in ("2.6.0", "2.6.1") else frm


def upgrade_plan(frm: str, to: str, bounces: int = 1) -> tuple[Config, ...]:
    for name in (frm, to):
        if rel.ALIASES.get(name, name) not in rel.RELEASES:
            raise ScopeError(f"unknown Kafka Streams release {name!r}; known: {', '.join(rel.RELEASES)}")
    if not rel.later(rel.ALIASES.get(frm, frm), rel.ALIASES.get(to, to)):
        raise ScopeError(f"--to {to} is not newer than --from {frm}")
    if bounces == 1:
        return (Config(frm), Config(to))
    if bounces == 2:
        value = upgrade_from_value(frm)
        if not rel.accepts_upgrade_from(to, value):
            raise ScopeError(f"Kafka Streams {to} does not accept upgrade.from={value!r}, so there is no "
                             f"two-bounce path from {frm}; its upgrade notes prescribe one rolling bounce")
        return (Config(frm), Config(to, value), Config(to))
    raise ScopeError(f"--bounces {bounces}: give 1 or 2")


def upgrade_scope(frm: str, to: str, bounces: int = 1, *, instances: int = 3, tasks: int = 4,
                  crash: bool = False, profile: str = "release", max_generation: int = 30,
                  threads: int = 1) -> StreamsScope:
    """A running group of ``instances`` (each with ``threads`` stream threads) on ``frm``,
    upgraded by the plan; with ``crash`` any one instance may also crash (and restart)
    once, at any point."""
    if profile not in PROFILES:
        raise ScopeError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    scope = StreamsScope(instances=instances, threads=threads, tasks=tasks, plan=upgrade_plan(frm, to, bounces),
                         faults=("crash",) if crash else (), budget=1 if crash else 0,
                         max_generation=max_generation)
    return validate(replace(scope, profile=profile, behaviour=PROFILES[profile]))
