"""The streams-classic room: Kafka Streams over the classic protocol (version probing,
KIP-268, KIP-429's cooperative Streams, ``model/streams_classic``) as every tool sees it.

Its reference scopes reach version probing under each family, rolling bounces with and
without ``upgrade.from``, stream threads, standbys and warm-up tasks (each scope's comment
names what it is there for).
"""
from __future__ import annotations

import re
from dataclasses import replace

from groupcheck.model.scopes import shown_repr
from groupcheck.model import streams_classic as rel
from groupcheck.model.streams_classic import MODEL, PROFILES, Config, StreamsScope, first_version, with_profile
from groupcheck.properties.known_bugs import streams_classic as known_bugs

from ..tracecheck.observe import described
from .base import Protocol


def reference_scopes() -> dict[str, object]:
    """The scopes the main job explores (``groupcheck check``)."""
    def under(profile: str, scope: StreamsScope) -> StreamsScope:
        return replace(scope, profile=profile, behaviour=PROFILES[profile])

    return {
        # one rolling bounce; a 2.0 leader answers the 2.3 subscriptions by version probing
        # (KIP-268's empty assignment; 2.4 -> 3.9 follows next-version's 2.6+ rules)
        "bounce-2.0-2.3": StreamsScope(instances=3, tasks=3, plan=(Config("2.0"), Config("2.3"))),
        # KIP-429's two bounces: eager (upgrade.from=2.3) first, then cooperative
        "two-bounce-2.3-3.9": StreamsScope(instances=2, tasks=3,
                                           plan=(Config("2.3"), Config("3.9", "2.3"), Config("3.9")),
                                           faults=("crash",), budget=1),
        # the first of those bounces at the size where skipping upgrade.from shows (3 instances,
        # 4 tasks): a COOPERATIVE member under an EAGER 2.3 leader keeps a task given away
        "first-bounce-2.3-3.9": StreamsScope(instances=3, tasks=4, plan=(Config("2.3"), Config("3.9", "2.3"))),
        # KIP-268's two bounces from before version probing (upgrade.from=0.10.2 sends v2)
        "two-bounce-0.10.2-2.0": StreamsScope(instances=2, tasks=2, plan=(Config("0.10.2"), Config("2.0", "0.10.2"),
                                                                          Config("2.0"))),
        # the KIP-268 test plan's simulated next metadata version
        "next-version": StreamsScope(instances=3, tasks=3, plan=(Config("3.9"), Config("next"))),
        # 2.0 -> next under each probing family: KIP-268's text, and Kafka 2.6+'s rules
        "kip-268-2.0-next": under("kip-268", StreamsScope(instances=3, tasks=3, plan=(Config("2.0"), Config("next")))),
        "kafka-2.6+-2.0-next": under("kafka-2.6+", StreamsScope(instances=3, tasks=3,
                                                               plan=(Config("2.0"), Config("next")))),
        # version probing with two threads per instance: a 2.3 leader answers a 2.4 member
        # (KAFKA-8649's prevTasks fix decides what each thread of an instance gets)
        "threads-probing": StreamsScope(instances=2, threads=2, tasks=2, plan=(Config("2.3"), Config("2.4", "2.3")),
                                        max_generation=12),
        # two stream threads per instance: members of one instance share its tasks
        "threads": StreamsScope(instances=2, threads=2, tasks=3, plan=(Config("2.4"), Config("3.9"))),
        # standby replicas with the sticky assignor, a crash and a scale-down
        "standbys": StreamsScope(instances=3, tasks=3, standbys=1, plan=(Config("3.9"),), faults=("crash",),
                                 operations=("scale_down",), budget=1),
        # KIP-429's warm-up (learner) tasks under scale-up, scale-down and a crash
        "warm-ups": StreamsScope(instances=3, initial=2, tasks=3, standbys=1, plan=(Config("3.9"),),
                                 task_assignor="learner", operations=("scale_up", "scale_down"),
                                 faults=("crash",), budget=2),
    }


def scope_text(scope) -> str:
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


def plan_stage(text: str) -> dict:
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


def reference() -> list[tuple[str, list[str], list[list[str]]]]:
    """The releases the model knows, for ``groupcheck list``."""
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


def out_of_reach(scope) -> dict[str, str]:
    far = {}
    if scope.task_assignor != "learner":
        far["some_warmup_caught_up"] = f"the {scope.task_assignor} assignor has no warm-up tasks"
    if "bounce" not in scope.operations or not _can_probe(scope):
        far["some_thread_downgraded"] = ("no bounce meets a group that can answer with a lower version (a v3+ "
                                         "one, or a 2.0+ leader facing a future subscription)")
    return far


def _can_probe(scope) -> bool:
    """Some bounce brings a thread whose subscription version the instances still on the
    previous configuration answer with a lower one a thread can adopt: both v3+ (KIP-268's
    version fields), or a future version met by a leader that probes (2.0+)."""
    for j in range(1, len(scope.plan)):
        old, new = first_version(scope, j - 1), first_version(scope, j)
        before = rel.release(scope.plan[j - 1].release)
        probes = before.family != rel.PRE_PROBING and new > before.latest
        if new > old and (old >= rel.EARLIEST_PROBEABLE_VERSION or probes):
            return True
    return False


PROTOCOL = Protocol(
    name="streams-classic",
    package="streams_classic",
    model=MODEL,
    default_scopes=reference_scopes,
    profiles=tuple(PROFILES),
    with_profile=with_profile,
    scope_text=scope_text,
    flags=("instances", "tasks", "max_generation", "budget", "faults", "operations", "plan"),
    plan_stage=plan_stage,
    reference=reference,
    variants=known_bugs.VARIANTS,
    out_of_reach=out_of_reach,
    observer=described,
    observed={k: ("client", "text") for k in ("assign", "receive", "failed", "leader_failed", "shutdown")},
    fleet=None,                 # trace-check --generate makes no streams-classic histories
    spec_mapping="groupcheck.spec.mapping.streams_classic",
)
