"""``groupcheck upgrade-plan``: is a Kafka Streams rolling upgrade safe?

The answer comes from the model: BFS over ``model.streams_classic.plans.upgrade_scope``,
a settled group of instances on ``--from`` upgraded by the plan Kafka's upgrade notes
prescribe, over every bounce order and every interleaving of the rebalance steps.
It also counts the rebalances the upgrade takes: the group generations from the start
to every state where the plan is complete and the group has settled.

Exit codes as for ``check``: 0 safe, 1 unsafe (the counterexample is written first),
2 bad options (an unknown release, a plan Kafka rejects), 3 not proved (a limit cut the
search before anything was violated), 130 interrupted (Ctrl-C), 143 by SIGTERM
(what was explored is reported, a counterexample found is written). The limits are
``check``'s: states, wall time and resident memory.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from groupcheck.model.streams_classic import (MODEL, PROFILES, UP, StreamsScope, first_version, quiescent,
                                              rebalance_protocol, upgrade_scope)

from . import checker, traces
from .console import (
    FAILED,
    MAX_MEMORY,
    MAX_SECONDS,
    MAX_STATES,
    NOT_PROVED,
    PASSED,
    PROGRESS_EVERY,
    Limits,
    Ticker,
    err,
    fail,
    interruptible,
    out,
    stop_code,
)


def finished(scope: StreamsScope, state) -> bool:
    """The plan is complete (every instance runs the last configuration) and the group
    has settled (no protocol step left)."""
    last = len(scope.plan) - 1
    return quiescent(scope, state) and all(i.status == UP and i.stage == last for i in state.instances)


@dataclass
class Answer:
    report: checker.Report
    rebalances: set[int]          # generations from the start to each finished state
    finished: int                 # distinct finished states
    at_bound: bool                # some run reached scope.max_generation, where exploration stops


def analyse(scope: StreamsScope, *, max_states: int | None = None, on_progress=None,
            budget: checker.Budget | None = None) -> Answer:
    """BFS over ``scope``, counting the rebalances on the way to every finished state."""
    start = min(s.group.generation for s in MODEL.init_states(scope))
    rebalances: set[int] = set()
    seen = {"finished": 0, "at_bound": False}

    def visit(state) -> None:
        if state.group.generation >= scope.max_generation:
            seen["at_bound"] = True
        if finished(scope, state):
            seen["finished"] += 1
            rebalances.add(state.group.generation - start)

    report = checker.bfs(MODEL, scope, max_states=max_states, progress=on_progress, on_state=visit, budget=budget)
    return Answer(report, rebalances, seen["finished"], seen["at_bound"])


def explain(name: str) -> str:
    """One line on what property ``name`` claims, and where the claim comes from."""
    if name == "no_deadlock":
        return "the group got stuck: no step is enabled, yet it has not settled"
    doc = " ".join(MODEL.property(name).doc.split())
    source = doc.split(":", 1)[0] if 0 < doc.find(":") < 60 else ""
    at = doc.find("Claim")
    claim = doc[at:] if at >= 0 else doc.split(". ")[0].rstrip(".") + "."
    return claim + (f" ({source})" if source else "")


def _plan_table(scope: StreamsScope) -> Table:
    table = Table(show_header=True, box=None, padding=(0, 2))
    for col in ("step", "configuration", "subscribes with", "rebalance protocol"):
        table.add_column(col)
    for stage, cfg in enumerate(scope.plan):
        step = "start" if stage == 0 else f"bounce {stage}"
        what = (f"every instance runs {cfg.text()}" if stage == 0
                else f"one instance at a time restarts on {cfg.text()}")
        table.add_row(step, what, f"v{first_version(scope, stage)}",
                      rebalance_protocol(cfg.release, cfg.upgrade_from))
    return table


def _verdict(answer: Answer, scope: StreamsScope, limits: Limits) -> int:
    """Print the verdict and what was explored; return the exit code (0: safe)."""
    r, v = answer.report, answer.report.violation
    if v is not None:
        out.print(f"\nverdict: [bold red]UNSAFE[/]: {v.property} is violated after {len(v.path) - 1} steps")
    elif r.complete:
        out.print("\nverdict: [bold green]SAFE[/]: every property holds over every bounce order "
                  "and every interleaving of the rebalance steps")
    else:
        word = "INTERRUPTED" if r.cut == "interrupted" else "NOT PROVED"
        out.print(f"\nverdict: [bold yellow]{word}[/]: no violation in the first {r.states:,} states; "
                  f"{escape(limits.value(r.cut))} stopped the search, so this is not a proof", highlight=False)
    out.print(f"states explored: {r.states:,} (depth {r.depth}, {r.transitions:,} transitions) in {r.seconds:.1f}s",
              highlight=False)
    if v is not None:
        return FAILED
    if answer.rebalances:
        low, high = min(answer.rebalances), max(answer.rebalances)
        more = f" (or more: runs stop at generation {scope.max_generation})" if answer.at_bound else ""
        more += "" if r.complete else " so far"
        out.print(f"rebalances: {low}-{high}{more} (group generations from the start until the upgrade "
                  f"has settled, over {answer.finished:,} settled end states)", highlight=False)
    else:
        out.print("rebalances: no run completed the plan and settled within the search", highlight=False)
    if r.complete:
        return PASSED
    return stop_code(limits.budget) if r.cut == "interrupted" else NOT_PROVED


def _counterexample(scope: StreamsScope, v: checker.Violation, out_dir: Path, meta: dict, stem: str) -> None:
    out.print(f"\n[bold red]{v.property} violated[/]: {escape(v.message)}")
    out.print(f"  claim: {escape(explain(v.property))}", highlight=False)
    text = traces.story(MODEL, scope, v.path, f"{v.property}: {v.message}")
    out.print(text, markup=False, highlight=False)
    meta = {**meta, "violation": {"property": v.property, "message": v.message, "kind": v.kind}}
    try:
        paths = traces.write(out_dir, stem, traces.build(MODEL, scope, v.path, meta), text)
    except OSError as e:
        err.print(f"[bold red]error:[/] cannot write the counterexample to {escape(str(out_dir))}: {e.strerror}")
    else:
        out.print(f"written: {paths[0]}  {paths[1]}  (groupcheck replay {paths[0]})", markup=False,
                  highlight=False)


def command(
    frm: str = typer.Option(..., "--from", help="the Kafka Streams release the group runs now, e.g. 0.10.2"),
    to: str = typer.Option(..., "--to", help="the release to upgrade to, e.g. 3.9"),
    bounces: int = typer.Option(1, help="1: straight onto --to; 2: first with upgrade.from=--from, then without"),
    instances: int = typer.Option(3, help="Kafka Streams instances (1-5)"),
    tasks: int = typer.Option(4, help="tasks (1-8)"),
    threads: int = typer.Option(1, help="stream threads per instance (num.stream.threads; 1-3, at most 6 in all)"),
    crash: bool = typer.Option(False, "--crash", help="any one instance may also crash (and restart) once"),
    profile: str = typer.Option("release", help=f"version-probing rules: {', '.join(PROFILES)}"),
    out_dir: Path = typer.Option(Path("groupcheck-out"), "--out", help="where a counterexample is written"),
    max_states: int = typer.Option(MAX_STATES, min=0, help="stop BFS after this many distinct states (0: no limit)"),
    max_seconds: float = typer.Option(MAX_SECONDS, min=0, help="stop after this many seconds of wall time "
                                      "(0: no limit)"),
    max_memory: str = typer.Option(MAX_MEMORY, help="stop once resident memory reaches this, e.g. 4GiB, 512MiB "
                                   "(0: no limit)"),
    progress_every: float = typer.Option(PROGRESS_EVERY, min=0, help="seconds between progress lines on "
                                         "stderr when it is not a terminal (a terminal shows a bar)"),
) -> None:
    """Is a Kafka Streams rolling upgrade safe over every bounce order?

    Exit 0 safe; 1 unsafe; 2 bad options; 3 not proved: a limit cut the search;
    130 interrupted (Ctrl-C); 143 by SIGTERM.
    """
    limits = Limits(max_states, max_seconds, max_memory)
    try:
        scope = upgrade_scope(frm, to, bounces, instances=instances, tasks=tasks, crash=crash, profile=profile,
                              threads=threads)
        MODEL.init_states(scope)
    except ValueError as e:      # ScopeError, or a start that cannot be built
        raise fail(str(e)) from None
    n = len(scope.plan) - 1
    crashes = ", one crash" if crash else ""
    threads_text = f" x {scope.threads} threads" if scope.threads > 1 else ""
    out.print(f"[bold]Kafka Streams rolling upgrade {escape(frm)} -> {escape(to)}[/]: {n} rolling "
              f"bounce{'s' if n > 1 else ''}, {scope.instances} instances{threads_text}, {scope.tasks} tasks{crashes}, "
              f"profile {profile}", highlight=False)
    out.print(_plan_table(scope))
    out.print(limits.line(), markup=False, highlight=False)

    with interruptible(limits.budget):
        with Ticker("upgrade-plan bfs", "states", progress_every) as tick:
            answer = analyse(scope, max_states=limits.max_states, on_progress=tick, budget=limits.budget)
        code = _verdict(answer, scope, limits)
        v = answer.report.violation
        if v is not None:
            meta = {"profile": scope.profile, "mode": "bfs",
                    "upgrade": {"from": frm, "to": to, "bounces": bounces, "crash": crash}}
            _counterexample(scope, v, out_dir, meta, f"{MODEL.name}-upgrade-{frm}-to-{to}-{bounces}-bounce-{v.property}")
    if limits.budget.interrupted:
        code = stop_code(limits.budget)
    if code:
        raise typer.Exit(code)
