"""``groupcheck campaign``: many seeded swarm walks of one protocol and scope, in process
or as Spark tasks; violations deduplicated and shrunk; Parquet datasets, ITF traces and
an HTML report in one run folder (``groupcheck.campaign``)."""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from ..campaign import output
from ..campaign.engine import ENGINES, run_campaign
from ..checker import Budget
from ..console import FAILED, PROGRESS_EVERY, err, fail, interruptible, out, stop_code
from ..outputs import folder_for_command
from ..protocols import PROTOCOLS, UnknownProtocol, get
from ..scope_input import ASSIGNOR_HELP, build_scopes, trust_assignors
from ..scope_input import overrides as _overrides
from ..sparksession import BadMaster, check_master
from .check import _variant


def _scope(protocol: str | None, variant: str | None, profile: str | None, scope: str | None, flags: dict):
    """(protocol name, scope object): the variant's, the flags' custom scope, or the
    protocol's default scope (under ``profile``)."""
    if variant is not None:
        job = _variant(variant, protocol, profile, scope, flags)
        return job.protocol, job.scope
    if protocol is None:
        raise fail(f"name a protocol ({', '.join(PROTOCOLS)}) or a known bug with --variant KEY")
    try:
        p = get(protocol)
    except UnknownProtocol as e:
        raise fail(str(e)) from None
    if profile is not None and profile not in p.profiles:
        raise fail(f"unknown profile {profile!r} for {p.name}; known: {', '.join(p.profiles)}")
    given = _overrides(p, scope, flags)
    if given:
        return p, build_scopes(p, profile, given)["custom"]
    sc = p.model.view.default_scope()
    try:
        return p, (p.with_profile(sc, profile) if profile is not None else sc)
    except ValueError as e:
        raise fail(str(e)) from None


def command(
    protocol: Optional[str] = typer.Argument(None, help=f"one of: {', '.join(PROTOCOLS)}"),
    profile: Optional[str] = typer.Option(None, help="behaviour profile, e.g. kafka-3.5+ (see `groupcheck list`)"),
    scope: Optional[str] = typer.Option(None, "--scope", help="scope as JSON, or @file.json"),
    members: Optional[int] = typer.Option(None, help="consumer: number of consumers"),
    partitions_flag: Optional[str] = typer.Option(None, "--topic-partitions",
                                                  help="consumer: partitions per topic, e.g. 2,1 (check's --partitions)"),
    instances: Optional[int] = typer.Option(None, help="streams-classic: number of Kafka Streams instances"),
    tasks: Optional[int] = typer.Option(None, help="streams-classic: number of tasks"),
    max_generation: Optional[int] = typer.Option(None, help="explore up to this generation"),
    budget: Optional[int] = typer.Option(None, help="faults and operations per run"),
    faults: Optional[str] = typer.Option(None, help="e.g. crash,pause,lose_response,timeout"),
    operations: Optional[str] = typer.Option(None, help="e.g. add_partition,leave (streams-classic: bounce,scale_up)"),
    plan: Optional[str] = typer.Option(None, help="configs in bounce order, as `groupcheck check --plan`"),
    assignor: Optional[list[str]] = typer.Option(None, "--assignor", help=ASSIGNOR_HELP),
    variant: Optional[str] = typer.Option(None, help="a known-bug variant at the scope that shows it, e.g. KAFKA-13419"),
    walks: int = typer.Option(1000, min=1, help="walks to run"),
    length: int = typer.Option(80, min=1, help="steps per walk (at most)"),
    seed: int = typer.Option(0, min=0, help="the first walk's seed; walk i has seed SEED+i"),
    engine: str = typer.Option("local", help="local (in process) or spark"),
    master: str = typer.Option("local[*]", help="Spark master (engine spark)"),
    partitions: Optional[int] = typer.Option(None, min=1, help="Spark tasks per batch of walks (default: the "
                                             "master's parallelism)"),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="the run folder (default: groupcheck-out/"
                                           "campaign-PROTOCOL-seedS-TIME); one that is not empty is kept: the "
                                           "run goes to OUT-2, OUT-3, ... beside it"),
    force: bool = typer.Option(False, "--force", help="write into --out even if it is not empty, replacing the "
                               "files and datasets this run writes"),
    progress_every: float = typer.Option(PROGRESS_EVERY, min=0, help="seconds between progress lines on "
                                         "stderr when it is not a terminal (a terminal shows a bar)"),
) -> None:
    """Run many seeded swarm walks; deduplicate and shrink the violations; write Parquet
    datasets (violations, coverage, distinct), ITF traces and report.html.

    Exit 0 no violation; 1 violations found; 2 bad options; 130 interrupted by Ctrl-C, 143
    by SIGTERM (what the walks done found is written).
    """
    if engine not in ENGINES:
        raise fail(f"--engine: {engine!r} is not an engine; give one of {', '.join(ENGINES)}")
    if engine == "local" and partitions is not None:
        raise fail("--partitions applies to --engine spark")
    if engine == "spark":
        try:
            import pyspark  # noqa: F401
        except ImportError:
            raise fail("--engine spark needs pyspark (pip install pyspark; Java 17)") from None
        try:
            check_master(master)
        except BadMaster as e:
            raise fail(f"--master: {e}") from None
    flags = {"members": members, "partitions": partitions_flag, "instances": instances, "tasks": tasks,
             "max_generation": max_generation, "budget": budget, "faults": faults, "operations": operations,
             "plan": plan}
    trust_assignors(assignor)
    p, sc = _scope(protocol, variant, profile, scope, flags)
    scope_dict = p.model.view.scope_to_dict(sc)
    run = out_dir or Path("groupcheck-out") / f"campaign-{p.name}-seed{seed}-{time.strftime('%Y%m%dT%H%M%S')}"
    run = folder_for_command(run, force=force)
    limits = Budget()
    if engine == "spark":
        # the session first: SparkContext installs its own Ctrl-C handler (cancel every job),
        # which interruptible() below replaces with ours (finish the batch under way, write it)
        from ..campaign.engine import spark_session
        try:
            spark_session(master)
        except BadMaster as e:
            raise fail(f"--master: {e}") from None
    bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed:,}/{task.total:,} walks"),
                   TextColumn("{task.fields[violations]:,} violations"), TimeElapsedColumn(),
                   console=err, transient=True, disable=not err.is_terminal)
    with interruptible(limits), bar:
        task = bar.add_task(f"campaign {p.name}", total=walks, violations=0)
        last = [time.monotonic()]

        def progress(done: int, found: int) -> None:
            if err.is_terminal:
                bar.update(task, completed=done, violations=found)
            elif time.monotonic() - last[0] >= progress_every:     # CI logs, pipes: a line now and then
                last[0] = time.monotonic()
                print(f"progress campaign {p.name}: {done:,}/{walks:,} walks, {found:,} violations, "
                      f"{limits.elapsed():.1f} s", file=sys.stderr, flush=True)

        results = run_campaign(p.name, scope_dict, profile, range(seed, seed + walks), length, run, engine=engine,
                               master=master, partitions=partitions, budget=limits, progress=progress)
        s = output.finish(run, results)
    out.print(f"{results.walks:,} walks, {results.steps:,} steps, {results.distinct_states:,} distinct states, "
              f"{len(results.violations):,} violating walks, {len(results.distinct)} distinct violations "
              f"(engine {engine})", markup=False, highlight=False)
    for d in s["distinct_violations"]:
        out.print(f"[bold red]{escape(d['property'])}[/] x{d['count']}: {escape(d['shrunk_message'])} "
                  f"(found at depth {d['depth']}, shrunk to {d['shrunk_depth']} steps): {escape(d['trace'])}",
                  highlight=False)
    out.print(f"written: {run}/ (violations/, coverage/, distinct/, traces/, report.html, summary.json)",
              markup=False, highlight=False)
    if results.interrupted:      # before the violations: exit 1 would say the walks asked for all ran
        out.print(f"interrupted ({limits.cause()}): {results.walks:,} of {walks:,} walks ran; what they found is "
                  f"written", markup=False, highlight=False)
        raise typer.Exit(stop_code(limits))
    if results.distinct:
        raise typer.Exit(FAILED)
