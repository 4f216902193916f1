"""``groupcheck check``: explore protocols exhaustively (BFS) and by random walks.

What runs is a list of jobs (``protocols.Job``): with no protocol named, the main job
(every protocol's reference scopes, and every known-bug variant expected to be caught);
with a protocol, its reference scopes or the scope the options give (and, under a
profile that ships a known bug, the scope that shows it); with ``--variant``, one
known bug. ``runs`` runs and judges them, ``summary`` prints the result.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .. import runs, summary
from ..console import (
    MAX_MEMORY,
    MAX_SECONDS,
    MAX_STATES,
    PASSED,
    PROGRESS_EVERY,
    Limits,
    fail,
    interruptible,
    out,
)
from ..protocols import (
    PROTOCOLS,
    Job,
    UnknownProtocol,
    UnknownVariant,
    expected_jobs,
    get,
    reference_jobs,
    shipped_jobs,
    variant_job,
)
from ..scope_input import ASSIGNOR_HELP, trust_assignors
from ..scope_input import build_scopes as _scopes
from ..scope_input import one_protocol_options as _one_protocol_options
from ..scope_input import overrides as _overrides


def _variant(key: str, protocol: str | None, profile: str | None, scope: str | None, flags: dict) -> Job:
    """``--variant KEY``: the known bug at its own scope and behaviour; scope options,
    a profile or another protocol contradict it."""
    try:
        job = variant_job(key)
    except UnknownVariant as e:
        raise fail(f"--variant: {e}") from None
    given = ["--" + k.replace("_", "-") for k, v in flags.items() if v is not None]
    given += (["--scope"] if scope else []) + (["--profile"] if profile else [])
    if given:
        raise fail(f"--variant {key} runs the variant's own scope and behaviour; drop {' '.join(given)}")
    if protocol is not None and protocol != job.protocol.name:
        raise fail(f"--variant {key} is a {job.protocol.name} variant, not {protocol}'s")
    return job


def _jobs(protocol: str | None, variant: str | None, profile: str | None, scope: str | None,
          flags: dict) -> list[Job]:
    if variant is not None:
        return [_variant(variant, protocol, profile, scope, flags)]
    try:
        protocols = [get(protocol)] if protocol else [get(name) for name in PROTOCOLS]
    except UnknownProtocol as e:
        raise fail(str(e)) from None
    if protocol is None:          # the main job
        _one_protocol_options(protocols, flags, scope, profile)
        return [job for p in protocols for job in reference_jobs(p, _scopes(p, None, {})) + expected_jobs(p)]
    p = protocols[0]
    if profile is not None and profile not in p.profiles:
        raise fail(f"unknown profile {profile!r} for {p.name}; known: {', '.join(p.profiles)}")
    overrides = _overrides(p, scope, flags)
    jobs = reference_jobs(p, _scopes(p, profile, overrides))
    if profile is not None and not overrides:
        jobs += shipped_jobs(p, profile)
    return jobs


def _engine(engine: str, master: str, exact: bool, fairness: bool = False) -> None:
    """--engine and --master: a bad value exits 2; with spark, the session starts here."""
    if engine not in ("local", "spark"):
        raise fail(f"--engine: {engine!r} is not an engine; give local or spark")
    if engine == "local":
        return
    if exact:
        raise fail("--exact is not supported with --engine spark (it tells states apart by 64-bit fingerprints)")
    if fairness:
        raise fail("--fairness is not supported with --engine spark (it needs the graph of steps, kept locally)")
    from .. import sparkbfs
    try:
        sparkbfs.session(master)
    except sparkbfs.BadMaster as e:
        raise fail(f"--master: {e}") from None


def _takes(flag: str) -> str:
    """The protocols whose rooms take a scope flag (``Protocol.flags``), for its help."""
    return ", ".join(name for name, p in PROTOCOLS.items() if flag in p.flags)


def check(
    protocol: Optional[str] = typer.Argument(None, help=f"one of: {', '.join(PROTOCOLS)} (default: the main job)"),
    profile: Optional[str] = typer.Option(None, help="behaviour profile, e.g. kafka-3.5+ (see `groupcheck list`)"),
    scope: Optional[str] = typer.Option(None, "--scope", help="scope as JSON, or @file.json"),
    members: Optional[int] = typer.Option(None, help=f"{_takes('members')}: number of consumers"),
    partitions: Optional[str] = typer.Option(None, help=f"{_takes('partitions')}: partitions per topic, e.g. 2,1"),
    instances: Optional[int] = typer.Option(None, help=f"{_takes('instances')}: number of Kafka Streams instances"),
    tasks: Optional[int] = typer.Option(None, help=f"{_takes('tasks')}: number of tasks"),
    max_generation: Optional[int] = typer.Option(None, help="explore up to this generation"),
    budget: Optional[int] = typer.Option(None, help="faults and operations per run"),
    faults: Optional[str] = typer.Option(None, help="e.g. crash,pause,lose_response,timeout"),
    operations: Optional[str] = typer.Option(
        None, help="e.g. add_partition,delete_topic,subscription_change (streams-classic: bounce,scale_up,scale_down)"),
    plan: Optional[str] = typer.Option(
        None, help="configs in bounce order: 'range | cooperative-sticky,range' "
                   "(streams-classic: '2.3 | 3.9 upgrade.from=2.3 | 3.9')"),
    assignor: Optional[list[str]] = typer.Option(None, "--assignor", help=ASSIGNOR_HELP),
    variant: Optional[str] = typer.Option(
        None, help="run a known-bug variant at the scope that shows it, e.g. KAFKA-14639 (implies its protocol)"),
    walks: int = typer.Option(200, min=0, help="random walks after BFS"),
    walk_length: int = typer.Option(80, min=1, help="steps per walk"),
    seed: int = typer.Option(0, help="seed of the random walks"),
    symmetry: bool = typer.Option(True, help="symmetry reduction in BFS"),
    fairness: bool = typer.Option(False, "--fairness", help="also check settles_under_fairness: once faults stop, "
                                  "the group converges under weak fairness (BFS without symmetry reduction)"),
    exact: bool = typer.Option(False, "--exact", help="BFS keeps whole states to tell them apart, not 64-bit "
                               "fingerprints (no collision can hide a state; more memory)"),
    max_states: int = typer.Option(MAX_STATES, min=0, help="stop a search after this many distinct states "
                                   "(per search; 0: no limit)"),
    max_seconds: float = typer.Option(MAX_SECONDS, min=0, help="stop after this many seconds of wall time "
                                      "(whole command; 0: no limit)"),
    max_memory: str = typer.Option(MAX_MEMORY, help="stop once resident memory reaches this, e.g. 4GiB, 512MiB "
                                   "(whole command; 0: no limit)"),
    progress_every: float = typer.Option(PROGRESS_EVERY, min=0, help="seconds between progress lines on "
                                         "stderr when it is not a terminal (a terminal shows a bar)"),
    out_dir: Path = typer.Option(Path("groupcheck-out"), "--out", help="where counterexamples are written"),
    engine: str = typer.Option("local", help="where BFS runs: local (this process) or spark (level by level "
                               "on Spark; no can_settle; the walks stay local)"),
    master: str = typer.Option("local[*]", help="--engine spark: the Spark master, e.g. local[4], spark://host:7077"),
    spark_partitions: Optional[int] = typer.Option(None, min=1, help="--engine spark: partitions of the frontier "
                                                   "and the visited set (default: Spark's parallelism)"),
) -> None:
    """Explore protocols exhaustively (BFS) and by random walks, within limits.

    Exit 0 passed; 1 a property violated, or a known bug not caught; 2 bad options;
    3 not proved: a limit cut a search, or a scope is weak; 130 interrupted (Ctrl-C);
    143 by SIGTERM.
    """
    limits = Limits(max_states, max_seconds, max_memory)
    flags = {"members": members, "partitions": partitions, "instances": instances, "tasks": tasks,
             "max_generation": max_generation, "budget": budget, "faults": faults, "operations": operations,
             "plan": plan}
    trust_assignors(assignor)
    jobs = _jobs(protocol, variant, profile, scope, flags)
    _engine(engine, master, exact, fairness)
    settings = runs.Settings(symmetry, walks, walk_length, seed, progress_every, exact, engine, master,
                             spark_partitions, fairness=fairness)
    out.print(limits.line(), markup=False, highlight=False)
    with interruptible(limits.budget):
        outcomes = runs.run(jobs, settings, limits)
        out.print(summary.table(outcomes, limits))
        out.print(summary.legend(outcomes), markup=False, highlight=False)
        out.print(summary.witnesses(outcomes), markup=False, highlight=False)
        if summary.fingerprints(outcomes):
            out.print(summary.fingerprints(outcomes), markup=False, highlight=False)
        summary.counterexamples(outcomes, out_dir, seed)
    code = runs.exit_code(outcomes, limits)
    out.print(summary.summary(outcomes, code), markup=False, highlight=False)
    if code != PASSED:
        raise typer.Exit(code)
