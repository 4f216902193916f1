"""``groupcheck check``: explore protocols exhaustively (BFS) and by random walks."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from .. import checker, traces
from ..console import err, fail, out, progress as _progress
from ..protocols import PROTOCOLS, Protocol, UnknownProtocol, get


def _csv(text: str | None) -> list[str] | None:
    return None if text is None else [x.strip() for x in text.split(",") if x.strip()]


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _scope_json(scope_json: str) -> dict:
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
    return d


def _overrides(protocol: Protocol, scope_json: str | None, flags: dict) -> dict:
    """The scope fields set by --scope and by the flags the protocol takes; a flag it
    does not take is an error naming the ones it does."""
    d = _scope_json(scope_json) if scope_json else {}
    for name, value in flags.items():
        if value is None:
            continue
        if name not in protocol.flags:
            takes = ", ".join(_flag(f) for f in protocol.flags)
            raise fail(f"{_flag(name)} does not apply to {protocol.name}; its scope flags are {takes} "
                       "(any other scope field: --scope JSON)")
        if name == "partitions":
            try:
                d["partitions"] = [int(x) for x in _csv(value)]
            except ValueError:
                raise fail(f"--partitions: {value!r} is not a comma-separated list of counts") from None
        elif name in ("faults", "operations"):
            d[name] = _csv(value)
        elif name == "plan":
            try:
                d["plan"] = [protocol.plan_stage(stage) for stage in value.split("|")]
            except ValueError as e:
                raise fail(f"--plan: {e}") from None
        else:
            d[name] = value
    return d


def _scopes(protocol: Protocol, profile: str | None, overrides: dict) -> dict[str, object]:
    model = protocol.model
    try:
        if overrides:
            base = model.scope_to_dict(model.default_scope())
            base.update(overrides)
            if profile is not None:
                base["profile"] = profile
            if (profile is not None or "profile" in overrides) and "behaviour" not in overrides:
                base.pop("behaviour", None)     # the profile's behaviour, not the default's
            scopes = {"custom": model.scope_from_dict(base)}
        else:
            scopes = protocol.default_scopes()
            if profile is not None:
                scopes = {name: protocol.with_profile(s, profile) for name, s in scopes.items()}
        for s in scopes.values():
            model.init_states(s)        # a scope whose start cannot be built fails here, not in BFS
        return scopes
    except ValueError as e:
        raise fail(str(e)) from None
    except TypeError as e:       # e.g. a JSON list where the scope wants a name
        raise fail(f"scope: malformed value ({e})") from None


def _one_protocol_options(protocols: list[Protocol], flags: dict, scope: str | None, profile: str | None) -> None:
    """Checking every protocol: scope options and profiles belong to one, so refuse them."""
    named = [k for k, v in flags.items() if v is not None]
    if named or scope:
        owner = next((p.name for p in protocols if set(named) <= set(p.flags)), protocols[0].name)
        given = " ".join([_flag(k) for k in named] + (["--scope"] if scope else []))
        raise fail(f"{given}: scope options apply to one protocol; name it, "
                   f"e.g. groupcheck check {owner} {given} ... (protocols: {', '.join(PROTOCOLS)})")
    if profile is not None:
        owners = [p.name for p in protocols if profile in p.profiles]
        hint = (f"{profile} is a profile of {owners[0]}: groupcheck check {owners[0]} --profile {profile}"
                if owners else "; ".join(f"{p.name}: {', '.join(p.profiles)}" for p in protocols))
        raise fail(f"--profile needs a protocol, the profiles differ ({hint})")


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


