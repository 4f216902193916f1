"""``groupcheck replay``: re-run a trace through the model and re-check every property."""
from __future__ import annotations

from pathlib import Path

import typer

from model.core import Step, check_state, check_step, replay as replay_path

from .. import traces
from ..console import err, fail, out


def command(trace: Path = typer.Argument(..., help="an ITF trace written by groupcheck")) -> None:
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


