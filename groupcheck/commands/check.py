"""``groupcheck check``: explore protocols exhaustively (BFS) and by random walks."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from .. import checker, traces
from ..console import err, fail, out, progress as _progress
from ..protocols import PROTOCOLS, UnknownProtocol, get
from ..scope_input import build_scopes as _scopes, one_protocol_options as _one_protocol_options, overrides as _overrides


def check(
    protocol: Optional[str] = typer.Argument(None, help=f"one of: {', '.join(PROTOCOLS)} (default: all)"),
    profile: Optional[str] = typer.Option(None, help="behaviour profile, e.g. kafka-3.5+ (see `groupcheck list`)"),
    scope: Optional[str] = typer.Option(None, "--scope", help="scope as JSON, or @file.json"),
    members: Optional[int] = typer.Option(None, help="consumer: number of consumers"),
    partitions: Optional[str] = typer.Option(None, help="consumer: partitions per topic, e.g. 2,1"),
    instances: Optional[int] = typer.Option(None, help="streams-classic: number of Kafka Streams instances"),
    tasks: Optional[int] = typer.Option(None, help="streams-classic: number of tasks"),
    max_generation: Optional[int] = typer.Option(None, help="explore up to this generation"),
    budget: Optional[int] = typer.Option(None, help="faults and operations per run"),
    faults: Optional[str] = typer.Option(None, help="e.g. crash,pause,lose_response,timeout"),
    operations: Optional[str] = typer.Option(
        None, help="e.g. add_partition,delete_topic,subscription_change (streams: bounce,scale_up,scale_down)"),
    plan: Optional[str] = typer.Option(
        None, help="configs in bounce order: 'range | cooperative-sticky,range' (streams: '2.3 | 3.9 upgrade.from=2.3 | 3.9')"),
    walks: int = typer.Option(200, min=0, help="random walks after BFS"),
    walk_length: int = typer.Option(80, min=1, help="steps per walk"),
    seed: int = typer.Option(0, help="seed of the random walks"),
    symmetry: bool = typer.Option(True, help="symmetry reduction in BFS"),
    max_states: Optional[int] = typer.Option(None, min=1, help="stop BFS after this many states"),
    out_dir: Path = typer.Option(Path("groupcheck-out"), "--out", help="where counterexamples are written"),
) -> None:
    """Explore protocols exhaustively (BFS) and by random walks; exit 1 on a violation."""
    try:
        protocols = [get(protocol)] if protocol else [get(name) for name in PROTOCOLS]
    except UnknownProtocol as e:
        raise fail(str(e)) from None
    flags = {"members": members, "partitions": partitions, "instances": instances, "tasks": tasks,
             "max_generation": max_generation, "budget": budget, "faults": faults, "operations": operations,
             "plan": plan}
    if protocol is None:
        _one_protocol_options(protocols, flags, scope, profile)
    for p in protocols:
        if profile is not None and profile not in p.profiles:
            raise fail(f"unknown profile {profile!r} for {p.name}; known: {', '.join(p.profiles)}")
    work = [(p, _scopes(p, profile, _overrides(p, scope, flags))) for p in protocols]
    table = Table(title="groupcheck check")
    for col in ("protocol", "profile", "scope", "mode", "states", "depth", "held", "time"):
        table.add_column(col, justify="right" if col in ("states", "depth", "time") else "left")
    found = []
    legend: list[str] = []
    for p, scopes in work:
        for name, sc in scopes.items():
            model = p.model
            with _progress() as bar:
                task = bar.add_task(f"{p.name}/{name} BFS", total=None, unit="states")
                report = checker.bfs(model, sc, symmetry=symmetry, max_states=max_states,
                                     progress=lambda n, d: bar.update(task, completed=n))
            reports = [report]
            if report.violation is None and walks:
                with _progress() as bar:
                    task = bar.add_task(f"{p.name}/{name} walks", total=walks, unit="walks")
                    reports.append(checker.walks(model, sc, seed=seed, count=walks, length=walk_length,
                                                 progress=lambda n: bar.update(task, completed=n)))
            for r in reports:
                held = f"{len(r.held)}/{len(r.checked)}" + ("" if r.violation is None else f" ✗ {r.violation.property}")
                states = f"{r.states:,}" + ("" if r.complete or r.violation else " (cut)")
                if r.mode == "walks":
                    states = f"{r.walks} walks, {r.states:,} steps"
                table.add_row(p.name, getattr(sc, "profile", ""), name, r.mode,
                              states, str(r.depth), held, f"{r.seconds:.1f}s")
                if r.violation is not None:
                    found.append((p, name, sc, r))
            legend.append(f"  {p.name}/{name}: {p.scope_text(sc)}")
    out.print(table)
    out.print("scopes:\n" + "\n".join(legend), markup=False, highlight=False)
    for p, name, sc, r in found:
        v = r.violation
        meta = {"profile": getattr(sc, "profile", ""), "seed": seed, "mode": r.mode,
                "violation": {"property": v.property, "message": v.message, "kind": v.kind}}
        text = traces.story(p.model, sc, v.path, f"{v.property}: {v.message}")
        out.print(f"\n[bold red]{v.property} violated[/] in {p.name}/{name}: {escape(v.message)}")
        out.print(text, markup=False, highlight=False)
        try:
            paths = traces.write(out_dir, f"{p.name}-{name}-{v.property}",
                                 traces.build(p.model, sc, v.path, meta), text)
        except OSError as e:
            err.print(f"[bold red]error:[/] cannot write the counterexample to {escape(str(out_dir))}: {e.strerror}")
            continue
        out.print(f"written: {paths[0]}  {paths[1]}", markup=False, highlight=False)
    if found:
        raise typer.Exit(1)


