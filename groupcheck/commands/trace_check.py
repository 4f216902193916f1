"""``groupcheck trace-check``: validate recorded histories, one per group, against the model.

    groupcheck trace-check HISTORY... [--engine local|spark] [--master local[*]] --out DIR
    groupcheck trace-check --generate DIR [--groups N] [--seed S] [--protocols a,b]

Each group's history (JSON lines or Parquet; ``groupcheck/tracecheck/__init__.py`` gives the
format) is searched for a path of the model that emits exactly its observations
(``valid``, with the claims broken along that path), none (``invalid``, with the first
event no interleaving explains) or ``unknown`` (a bound was hit). Writes
``DIR/verdicts.parquet`` and ``DIR/report.html`` (a DIR that is not empty is kept: the run
goes to ``DIR-2``, ``DIR-3``, ... unless ``--force``). Exit 1 if a group is invalid or breaks a
property, 2 on bad input (the message names the file and line; a bad --master), 3 if a
bound left a group ``unknown`` (groupcheck's "not proved"), 130 on Ctrl-C and 143 on
SIGTERM (the groups judged so far are written), 0 otherwise.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..checker import Budget
from ..console import (
    BAD_INPUT, FAILED, NOT_PROVED, PASSED, PROGRESS_EVERY, Ticker, err, fail, interruptible, out, progress, stop_code,
)
from ..files import InputError
from ..outputs import folder_for_command
from ..scope_input import ASSIGNOR_HELP, trust_assignors
from ..sparksession import BadMaster, check_master


def command(
    inputs: Optional[list[Path]] = typer.Argument(None, help="History files: JSON lines (.jsonl) or Parquet (.parquet)."),
    engine: str = typer.Option("local", help="local (in-process) or spark."),
    master: str = typer.Option("local[*]", help="Spark master, with --engine spark."),
    out_dir: Path = typer.Option(Path("trace-check"), "--out", help="Where verdicts.parquet and report.html go. A "
                                 "folder that is not empty is kept: the run goes to OUT-2, OUT-3, ... beside it."),
    force: bool = typer.Option(False, "--force", help="Write into --out (or --generate's folder) even if it is not "
                               "empty, replacing the files this run writes."),
    max_states: int = typer.Option(200_000, help="Per group: the (state, position) pairs the search may keep."),
    max_seconds: float = typer.Option(0.0, help="Per group: seconds the search may take (0: no limit)."),
    generate: Optional[Path] = typer.Option(None, help="Write a synthetic fleet into this directory instead."),
    groups: int = typer.Option(100, help="With --generate: how many groups."),
    seed: int = typer.Option(0, help="With --generate: the seed (same seed, same files)."),
    protocols: str = typer.Option("consumer-group,consumer", help="With --generate: the protocols, comma-separated."),
    progress_every: float = typer.Option(PROGRESS_EVERY, min=0, help="Seconds between progress lines on stderr "
                                         "when it is not a terminal (a terminal shows a bar)."),
    assignor: Optional[list[str]] = typer.Option(None, "--assignor", help=ASSIGNOR_HELP),
) -> None:
    """Validate recorded group histories against the model (trace validation), or generate a fleet."""
    trust_assignors(assignor)
    if generate is not None:
        _generate(generate, groups, seed, protocols, force)
        return
    if not inputs:
        raise fail("give history files (JSON lines or Parquet), or --generate DIR")
    if engine not in ("local", "spark"):
        raise fail(f"--engine must be local or spark, not {engine!r}")
    if max_states < 1:
        raise fail("--max-states must be at least 1")
    from ..tracecheck import engine as eng
    limit = max_seconds or None
    out_dir = folder_for_command(out_dir, force=force)      # before the run: an unwritable --out fails now
    started = time.perf_counter()
    budget = Budget()
    try:
        if engine == "local":
            with interruptible(budget), Ticker("trace-check", "groups", progress_every, more="groups read") as tick:
                rows = eng.run_local(inputs, max_states, limit, tick, budget)
        else:
            check_master(master)
            eng.precheck(inputs)
            with err.status(f"validating on Spark ({master})"):
                rows = eng.run_spark(inputs, max_states, limit, master=master, check_input=False)
    except InputError as e:
        raise fail(str(e)) from None
    except BadMaster as e:
        raise fail(f"--master: {e}") from None
    seconds = time.perf_counter() - started
    eng.write_verdicts(rows, out_dir / "verdicts.parquet")
    eng.write_report(rows, out_dir / "report.html")
    _print(rows, seconds, out_dir)
    if budget.interrupted:      # the groups judged are written; the one under way is unknown (interrupted)
        out.print(f"interrupted ({budget.cause()}): {len(rows):,} groups judged, the rest not; their verdicts "
                  f"are written", markup=False, highlight=False)
        raise typer.Exit(stop_code(budget))
    errors = [r for r in rows if r["verdict"] == "error"]
    if errors:
        raise fail(f"group {errors[0]['group']}: {errors[0]['error']}"
                   + (f" (and {len(errors) - 1} more groups)" if len(errors) > 1 else ""))
    if eng.failed(rows):
        raise typer.Exit(FAILED)
    raise typer.Exit(NOT_PROVED if any(r["verdict"] == "unknown" for r in rows) else PASSED)


def _print(rows: list[dict], seconds: float, out_dir: Path) -> None:
    from ..tracecheck.engine import VERDICTS, summary
    s = summary(rows)
    table = Table(title=f"trace-check: {len(rows)} groups in {seconds:.1f} s")
    table.add_column("protocol")
    for v in VERDICTS:
        table.add_column(v, justify="right")
    for p, counts in sorted(s["verdicts"].items()):
        table.add_row(p, *(str(counts[v]) for v in VERDICTS))
    out.print(table)
    if s["violations"]:
        out.print("properties broken: " + ", ".join(f"{p} ({n} groups)" for p, n in s["violations"].items()))
    for r in [r for r in rows if r["verdict"] == "invalid"][:5]:
        out.print(escape(f"invalid {r['group']}: {r['explained']} of {r['events']} events explained; "
                         f"first unexplained {r['first_unexplained']}"), highlight=False)
    out.print(f"wrote {out_dir / 'verdicts.parquet'} and {out_dir / 'report.html'}")


def _generate(directory: Path, groups: int, seed: int, protocols: str, force: bool) -> None:
    from ..tracecheck import fleet
    protos = tuple(p.strip() for p in protocols.split(",") if p.strip())
    unknown = [p for p in protos if p not in fleet.known()]
    if unknown or not protos:
        raise fail(f"--protocols: the fleet knows {', '.join(fleet.known())}; got {protocols!r}")
    if groups < 1:
        raise fail("--groups must be at least 1")
    directory = folder_for_command(directory, force=force, option="--generate")
    with progress() as bar:
        task = bar.add_task("generating groups", total=groups, unit="groups")
        manifest = fleet.generate(directory, groups, seed, protos, progress=lambda n: bar.update(task, completed=n))
    kinds: dict[str, int] = {}
    for g in manifest["groups"]:
        k = g["injected"].split(":")[0]
        kinds[k] = kinds.get(k, 0) + 1
    out.print(f"wrote {groups} groups ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}) to "
              f"{directory}/histories.jsonl, histories.parquet and manifest.json")
    raise typer.Exit(PASSED)


__all__ = ["command", "BAD_INPUT"]
