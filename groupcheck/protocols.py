"""The protocols groupcheck knows, each with its model and its default scopes."""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field, replace
from typing import Callable

from groupcheck.model.core import Model
from groupcheck.model.scopes import shown_repr

from . import reference_scopes


@dataclass(frozen=True)
class Protocol:
    name: str
    model: Model
    default_scopes: Callable[[], dict[str, object]]   # name -> scope, run by `groupcheck check`
    profiles: tuple[str, ...]
    with_profile: Callable[[object, str], object]
    # one line describing a scope (the legend under `groupcheck check`'s table)
    scope_text: Callable[[object], str] = str
    # the scope fields `groupcheck check` sets from its flags (--members, --instances, ...)
    flags: tuple[str, ...] = ()
    # one stage of --plan ('range,cooperative-sticky' or '3.9 upgrade.from=2.3') as the
    # scope's JSON form; raises ValueError naming what is wrong
    plan_stage: Callable[[str], dict] = lambda text: {}
    # reference tables for `groupcheck list`: (title, columns, rows)
    reference: Callable[[], list[tuple[str, list[str], list[list[str]]]]] = field(default=lambda: [])
    # the known-bug variants (properties/known_bugs.py, streams_known_bugs.py, streams_group_known_bugs.py)
    variants: Callable[[], tuple] = lambda: ()
    # the sometimes-claims (witnesses) a scope cannot reach, with the reason, e.g.
    # {"sometimes_zombie": "no pause fault"}; every other witness must be reached
    out_of_reach: Callable[[object], dict[str, str]] = lambda scope: {}


@dataclass(frozen=True)
class Job:
    """One search ``groupcheck check`` runs: a named scope of one protocol, and what it
    must show. ``expect`` None: every property holds; a property name: the scope runs a
    known bug, and the job passes only when BFS finds a violation of exactly that one."""

    protocol: Protocol
    name: str                  # a reference scope's name, "custom", or a variant's key
    scope: object
    expect: str | None = None
    note: str = ""             # added to the scope's line in the legend


def reference_jobs(protocol: Protocol, scopes: dict[str, object]) -> list[Job]:
    return [Job(protocol, name, scope) for name, scope in scopes.items()]


def expected_jobs(protocol: Protocol) -> list[Job]:
    """Every known-bug variant at the scope that shows it, expected to be caught."""
    return [Job(protocol, v.key, v.buggy_scope(), v.expect, f"known bug: {v.title}")
            for v in protocol.variants()]


def shipped_jobs(protocol: Protocol, profile: str) -> list[Job]:
    """The variants whose behaviour is ``profile``'s (the bugs that release shipped), at
    the scope that shows each, under ``profile``: their violation is the honest answer."""
    jobs = []
    for v in protocol.variants():
        scope = protocol.with_profile(v.scope, profile)
        if scope.behaviour == v.behaviour:
            jobs.append(Job(protocol, v.key, scope, None, f"the scope that shows {v.key}, which {profile} ships"))
    return jobs


class UnknownVariant(ValueError):
    pass


def variant_job(key: str) -> Job:
    """The known-bug variant ``key`` at the scope that shows it, run as a plain check
    (its violation fails the run); the protocol follows from the key."""
    known = []
    for name in PROTOCOLS:
        protocol = get(name)
        for v in protocol.variants():
            if v.key == key:
                return Job(protocol, v.key, v.buggy_scope(), None, f"known bug: {v.title}")
        known.append(f"{name}: {', '.join(v.key for v in protocol.variants())}")
    raise UnknownVariant(f"unknown variant {shown_repr(key)}; known: {'; '.join(known)}")


def _consumer() -> Protocol:
    from groupcheck.model.consumer import MODEL
    from groupcheck.model.consumer.scope import PROFILES, from_dict, to_dict, with_profile

    from .api.custom import register_plan_assignors

    # a scope may name a user's own assignor (import path or entry point): groupcheck
    # registers it with the model's registry before the model reads the scope
    model = replace(MODEL, view=replace(MODEL.view, scope_from_dict=lambda d: from_dict(register_plan_assignors(d))))

    def text(scope) -> str:
        d = to_dict(scope)
        plan = " > ".join("+".join(stage["assignors"]) for stage in d["plan"])
        start = ", from a stable group" if d["start"] == "stable" else ""
        return (f"{d['members']} members, partitions {d['partitions']}, gen<={d['max_generation']}, "
                f"budget {d['budget']}, {plan}{start}")

    def stage(text: str) -> dict:
        return {"assignors": [x.strip() for x in text.split(",") if x.strip()]}

    def out_of_reach(scope) -> dict[str, str]:
        if "pause" not in scope.faults or scope.budget == 0:
            return {"sometimes_zombie": "no pause fault in the scope"}
        return {}

    return Protocol("consumer", model, reference_scopes.consumer, tuple(PROFILES), with_profile, text,
                    ("members", "partitions", "max_generation", "budget", "faults", "operations", "plan"), stage,
                    variants=lambda: _variants("known_bugs", "VARIANTS"), out_of_reach=out_of_reach)


def _streams_classic() -> Protocol:
    from groupcheck.model.streams_classic import MODEL
    from groupcheck.model.streams_classic import releases as rel
    from groupcheck.model.streams_classic.scope import PROFILES, with_profile

    def text(scope) -> str:
        running = f" ({scope.initial} running at the start)" if scope.initial is not None else ""
        threads = f"{scope.threads} thread{'s' if scope.threads > 1 else ''}"
        standbys = f", {scope.standbys} standby" if scope.standbys else ""
        plan = " > ".join(c.text() for c in scope.plan)
        if len(scope.plan) > 1 and "bounce" not in scope.operations:
            plan += " (no bounce: 'bounce' is not in operations)"
        others = [o for o in scope.operations if o != "bounce"]
        ops = f", operations {','.join(others)}" if others else ""
        faults = f", faults {','.join(scope.faults)}" if scope.faults else ", no faults"
        start = "" if scope.start == "stable" else ", from an empty group"
        return (f"{scope.instances} instances{running} x {threads}, {scope.tasks} tasks{standbys}, "
                f"plan {plan}, {scope.task_assignor} assignor{ops}{faults}, budget {scope.budget}, "
                f"gen<={scope.max_generation}{start}")

    def stage(text: str) -> dict:
        words = [w for w in re.split(r"[\s,()]+", text) if w]
        if not words:
            raise ValueError("a stage is empty; give a release, e.g. '2.3 | 3.9 upgrade.from=2.3 | 3.9'")
        out: dict = {"release": words[0], "upgrade_from": None}
        for w in words[1:]:
            key, _, value = w.partition("=")
            if key != "upgrade.from" or not value or out["upgrade_from"] is not None:
                raise ValueError(f"stage {shown_repr(text.strip())}: give a release, optionally followed by "
                                 "upgrade.from=X, e.g. '3.9 upgrade.from=2.3'")
            out["upgrade_from"] = value
        return out

    def reference():
        rows = []
        for name, r in rel.RELEASES.items():
            accepted = [v for v in rel.UPGRADE_FROM if rel.accepts_upgrade_from(name, v)]
            first = rel.UPGRADE_FROM.index(accepted[0]) if accepted else 0
            if len(accepted) > 2 and rel.UPGRADE_FROM[first:first + len(accepted)] == tuple(accepted):
                values = f"{accepted[0]} .. {accepted[-1]}"
            else:
                values = ", ".join(accepted) or "-"
            rows.append([name, f"v{r.latest}", r.family, rel.rebalance_protocol(name, None), values])
        return [("Kafka Streams releases (model/streams_classic/releases.py)",
                 ["release", "metadata", "version probing", "rebalance", "accepts upgrade.from"], rows)]

    return Protocol("streams-classic", MODEL, reference_scopes.streams_classic, tuple(PROFILES), with_profile, text,
                    ("instances", "tasks", "max_generation", "budget", "faults", "operations", "plan"), stage,
                    reference, variants=lambda: _variants("streams_known_bugs", "STREAMS_VARIANTS"),
                    out_of_reach=_streams_out_of_reach)


def _streams_out_of_reach(scope) -> dict[str, str]:
    from groupcheck.model.streams_classic.step import first_version
    far = {}
    if scope.task_assignor != "learner":
        far["some_warmup_caught_up"] = f"the {scope.task_assignor} assignor has no warm-up tasks"
    if "bounce" not in scope.operations or not _can_probe(scope, first_version):
        far["some_thread_downgraded"] = ("no bounce meets a group that can answer with a lower version (a v3+ "
                                         "one, or a 2.0+ leader facing a future subscription)")
    return far


def _can_probe(scope, first_version) -> bool:
    """Some bounce brings a thread whose subscription version the instances still on the
    previous configuration answer with a lower one a thread can adopt: both v3+ (KIP-268's
    version fields), or a future version met by a leader that probes (2.0+)."""
    from groupcheck.model.streams_classic import releases as rel
    for j in range(1, len(scope.plan)):
        old, new = first_version(scope, j - 1), first_version(scope, j)
        before = rel.release(scope.plan[j - 1].release)
        probes = before.family != rel.PRE_PROBING and new > before.latest
        if new > old and (old >= rel.EARLIEST_PROBEABLE_VERSION or probes):
            return True
    return False


def _variants(module: str, name: str) -> tuple:
    """properties/<module>.py's known-bug variants; none when groupcheck was installed
    without the properties/ folder."""
    try:
        return getattr(importlib.import_module(f"groupcheck.properties.{module}"), name)
    except ImportError:
        return ()


def _streams_group() -> Protocol:
    from groupcheck.model.streams_group import MODEL
    from groupcheck.model.streams_group.profiles import PROFILES
    from groupcheck.model.streams_group.scope import with_profile

    def text(scope) -> str:
        kind = "stateful" if scope.stateful else "stateless"
        extra = (f", {scope.standbys} standby" if scope.standbys else "") + (
            f", {scope.warmups} warm-up" if scope.warmups else "")
        changes = ",".join(scope.faults + scope.operations) or "none"
        kind += ", static" if scope.static else ""
        extra += f", {scope.classic} classic" if scope.classic else ""
        return (f"{scope.processes} processes x {scope.members_per_process} members, {kind} partitions "
                f"{list(scope.partitions)}{extra}, faults/operations {changes}, budget {scope.budget}, "
                f"epoch<{scope.max_epoch}, {scope.profile}")

    def out_of_reach(scope) -> dict[str, str]:
        far = {}
        if not (scope.stateful and scope.warmups):
            far["warmup_promoted"] = "no warm-up tasks (stateful tasks and warmups > 0)"
        if "topology_update" not in scope.operations or scope.budget == 0:
            far["topology_update_completes"] = "no topology_update operation in the scope"
        elif scope.profile != "kip-1071":
            far["topology_update_completes"] = f"{scope.profile} rejects topology updates"
        if not scope.stateful and "topic_change" not in scope.operations:
            far["not_ready_then_ready"] = "stateless, and no topic_change operation"
        if not scope.static or scope.budget == 0 or "roll" not in scope.operations:
            far["static_rejoin_keeps_tasks"] = "no static members closing to restart (static and roll)"
        elif scope.profile == "kafka-4.1":
            far["static_rejoin_keeps_tasks"] = "kafka-4.1 rejects instance ids"
        if not scope.classic:
            far["migration_completes"] = "no classic members (classic: 0)"
        return far

    def variants() -> tuple:
        # the switched-rule bugs, then the findings (Kafka's own rules the properties reject)
        return (_variants("streams_group_known_bugs", "STREAMS_GROUP_VARIANTS")
                + _variants("streams_group_known_bugs", "FINDINGS"))

    return Protocol("streams-group", MODEL, reference_scopes.streams_group, tuple(PROFILES), with_profile, text,
                    ("budget", "faults", "operations"), variants=variants, out_of_reach=out_of_reach)


def _consumer_group() -> Protocol:
    from groupcheck.model.consumer_group import MODEL
    from groupcheck.model.consumer_group.profiles import PROFILES
    from groupcheck.model.consumer_group.scope import with_profile

    def text(scope) -> str:
        subs = "regex" if scope.regex else "names"
        extra = (", static" if scope.static else "") + (f", {scope.joiners} joining" if scope.joiners else "")
        if scope.classic:
            extra += f", {scope.classic} classic (policy {scope.migration_policy})"
        changes = ",".join(scope.faults + scope.operations) or "none"
        switched = f", switches {','.join(scope.switches)}" if scope.switches else ""
        return (f"{scope.members} members, partitions {list(scope.partitions)}, {scope.assignor}, {subs}{extra}, "
                f"faults/operations {changes}, budget {scope.budget}, epoch<{scope.max_epoch}, {scope.profile}{switched}")

    def out_of_reach(scope) -> dict[str, str]:
        far = {}
        if "lose_response" not in scope.faults or scope.budget == 0:
            far["lost_response_recovered"] = "no lose_response fault in the scope"
        if not scope.static or "roll" not in scope.operations or scope.budget == 0:
            far["static_rejoin_keeps_assignment"] = "no static members closing to restart (static and roll)"
        if not (scope.classic or {"roll", "crash", "downgrade"} & set(scope.faults + scope.operations)
                and scope.budget):
            far["rolling_bounce_completes"] = "no client restarts (roll, crash, downgrade, or a classic one upgrading)"
        if not scope.classic:
            far["migration_completes"] = "no classic consumers to upgrade (classic: 0)"
        if "downgrade" not in scope.operations or scope.budget == 0:
            far["downgrade_completes"] = "no downgrade operation in the scope"
        if sum(scope.partitions) < 2 or scope.members - scope.joiners < 1 or scope.members < 2:
            far["revocation_completes"] = "one partition or one member: nothing moves between members"
        return far

    def variants() -> tuple:
        return (_variants("consumer_group_known_bugs", "CONSUMER_GROUP_VARIANTS")
                + _variants("consumer_group_known_bugs", "FINDINGS"))

    return Protocol("consumer-group", MODEL, reference_scopes.consumer_group, tuple(PROFILES), with_profile, text,
                    ("budget", "faults", "operations"), variants=variants, out_of_reach=out_of_reach)


PROTOCOLS: dict[str, Callable[[], Protocol]] = {"consumer": _consumer, "streams-classic": _streams_classic,
                                                "streams-group": _streams_group, "consumer-group": _consumer_group}


class UnknownProtocol(ValueError):
    pass


def get(name: str) -> Protocol:
    if name not in PROTOCOLS:
        raise UnknownProtocol(f"unknown protocol {shown_repr(name)}; known: {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]()
