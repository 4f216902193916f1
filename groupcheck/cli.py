"""groupcheck's command line: check, replay, list.

Exit codes: 0 every property held; 1 a property was violated (the counterexample is
written first); 2 bad options or files.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from model.core import Step, check_state, check_step, replay as replay_path

from . import checker, traces
from .protocols import PROTOCOLS, UnknownProtocol, get

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Check Kafka group rebalance protocols against their KIPs.")
out = Console(width=None if sys.stdout.isatty() else 120)
err = Console(stderr=True)


def fail(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}")
    return typer.Exit(2)


def _csv(text: str | None) -> list[str] | None:
    return None if text is None else [x.strip() for x in text.split(",") if x.strip()]


def _overrides(scope_json: str | None, members, partitions, max_generation, budget, faults, operations,
               plan) -> dict:
    d: dict = {}
    if scope_json:
        raw = scope_json
        if raw.startswith("@"):
            try:
                raw = Path(raw[1:]).read_text()
            except OSError as e:
                raise fail(f"--scope: cannot read {raw[1:]}: {e.strerror}") from None
        try:
            d = json.loads(raw)
        except json.JSONDecodeError as e:
            raise fail(f"--scope: not JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(d, dict):
            raise fail("--scope: give a JSON object, e.g. '{\"members\": 3}'")
    if members is not None:
        d["members"] = members
    if partitions is not None:
        try:
            d["partitions"] = [int(x) for x in _csv(partitions)]
        except ValueError:
            raise fail(f"--partitions: {partitions!r} is not a comma-separated list of counts") from None
    if max_generation is not None:
        d["max_generation"] = max_generation
    if budget is not None:
        d["budget"] = budget
    if faults is not None:
        d["faults"] = _csv(faults)
    if operations is not None:
        d["operations"] = _csv(operations)
    if plan is not None:
        d["plan"] = [{"assignors": _csv(stage)} for stage in plan.split("|")]
    return d


def _scopes(protocol, profile: str | None, overrides: dict) -> dict[str, object]:
    model = protocol.model
    try:
        if overrides:
            base = model.scope_to_dict(model.default_scope())
            base.update(overrides)
            if profile is not None:
                base["profile"] = profile
                base.pop("behaviour", None)
            return {"custom": model.scope_from_dict(base)}
        scopes = protocol.default_scopes()
        if profile is not None:
            scopes = {name: protocol.with_profile(s, profile) for name, s in scopes.items()}
        return scopes
    except ValueError as e:
        raise fail(str(e)) from None


def _scope_text(model, scope) -> str:
    d = model.scope_to_dict(scope)
    plan = " > ".join("+".join(stage["assignors"]) for stage in d.get("plan", []))
    start = ", from a stable group" if d.get("start") == "stable" else ""
    return (f"{d.get('members')} members, partitions {d.get('partitions')}, gen<={d.get('max_generation')}, "
            f"budget {d.get('budget')}, {plan}{start}")


def _progress() -> Progress:
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                    TextColumn("{task.completed:,} {task.fields[unit]}"), TimeElapsedColumn(),
                    console=err, transient=True, disable=not err.is_terminal)


@app.command()
def check(
    protocol: Optional[str] = typer.Argument(None, help=f"one of: {', '.join(PROTOCOLS)} (default: all)"),
    profile: Optional[str] = typer.Option(None, help="behaviour profile, e.g. kafka-3.5+ (see `groupcheck list`)"),
    scope: Optional[str] = typer.Option(None, "--scope", help="scope as JSON, or @file.json"),
    members: Optional[int] = typer.Option(None, help="number of consumers"),
    partitions: Optional[str] = typer.Option(None, help="partitions per topic, e.g. 2,1"),
    max_generation: Optional[int] = typer.Option(None, help="explore up to this generation"),
    budget: Optional[int] = typer.Option(None, help="faults and operations per run"),
    faults: Optional[str] = typer.Option(None, help="e.g. crash,pause,lose_response,timeout"),
    operations: Optional[str] = typer.Option(None, help="e.g. add_partition,delete_topic,subscription_change"),
    plan: Optional[str] = typer.Option(None, help="configs in bounce order: 'range | cooperative-sticky,range'"),
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
    for p in protocols:
        if profile is not None and profile not in p.profiles:
            raise fail(f"unknown profile {profile!r} for {p.name}; known: {', '.join(p.profiles)}")
    overrides = _overrides(scope, members, partitions, max_generation, budget, faults, operations, plan)
    table = Table(title="groupcheck check")
    for col in ("protocol", "profile", "scope", "mode", "states", "depth", "held", "time"):
        table.add_column(col, justify="right" if col in ("states", "depth", "time") else "left")
    found = []
    legend: list[str] = []
    for p in protocols:
        for name, sc in _scopes(p, profile, overrides).items():
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
            legend.append(f"  {p.name}/{name}: {_scope_text(model, sc)}")
    out.print(table)
    out.print("scopes:\n" + "\n".join(legend), markup=False, highlight=False)
    for p, name, sc, r in found:
        v = r.violation
        meta = {"profile": getattr(sc, "profile", ""), "seed": seed, "mode": r.mode,
                "violation": {"property": v.property, "message": v.message, "kind": v.kind}}
        text = traces.story(p.model, sc, v.path, f"{v.property}: {v.message}")
        paths = traces.write(out_dir, f"{p.name}-{name}-{v.property}",
                             traces.build(p.model, sc, v.path, meta), text)
        out.print(f"\n[bold red]{v.property} violated[/] in {p.name}/{name}: {v.message}")
        out.print(text, markup=False, highlight=False)
        out.print(f"written: {paths[0]}  {paths[1]}")
    if found:
        raise typer.Exit(1)


@app.command()
def replay(trace: Path = typer.Argument(..., help="an ITF trace written by groupcheck")) -> None:
    """Replay a trace through the model and re-check every property along it."""
    try:
        protocol, sc, path, tr = traces.load(trace)
    except traces.ReplayError as e:
        raise fail(str(e)) from None
    model = protocol.model
    first, steps = replay_path(model, sc, path)
    recorded = tr.get("states", [])
    derived = [model.state_to_itf(sc, first)] + [model.state_to_itf(sc, s.next) for s in steps]
    for i, state in enumerate(derived):
        if i < len(recorded):
            rec = {k: v for k, v in recorded[i].items() if k not in ("#meta", "action_taken")}
            if rec != state:
                err.print(f"[yellow]note:[/] state {i} differs from the recorded one "
                          "(the model changed since the trace was written)")
                break
    broken = check_state(model, sc, first)
    at = 0
    for i, s in enumerate(steps, start=1):
        if broken:
            break
        broken = check_state(model, sc, s.next) + check_step(model, sc, Step(s.prev, s.action, s.index, s.next, s.events))
        at = i
    verdict = f"{broken[0][0]}: {broken[0][1]}" if broken else None
    out.print(traces.story(model, sc, path[: at + 1] if broken else path, verdict), markup=False, highlight=False)
    if broken:
        out.print(f"[bold red]reproduced:[/] {broken[0][0]} violated at step {at}")
        raise typer.Exit(1)
    out.print("[green]no property is violated along this trace[/]")


@app.command(name="list")
def list_() -> None:
    """Protocols, behaviour profiles, properties and known-bug variants."""
    for name in PROTOCOLS:
        p = get(name)
        out.print(f"[bold]{name}[/]  profiles: {', '.join(p.profiles)}")
        table = Table(show_header=True)
        table.add_column("property")
        table.add_column("kind")
        table.add_column("enforces")
        for prop in p.model.properties:
            table.add_row(prop.name, prop.kind, " ".join(prop.doc.split())[:110] + "...")
        out.print(table)
    try:
        from properties.known_bugs import VARIANTS
    except ImportError:
        return
    table = Table(title="known-bug variants (properties/known_bugs.py)")
    table.add_column("key")
    table.add_column("what")
    table.add_column("caught by")
    for v in VARIANTS:
        table.add_row(v.key, v.title, v.expect)
    out.print(table)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
