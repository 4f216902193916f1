"""``groupcheck replay``: re-run a trace through the model, re-check every property
along it, and compare what it reproduces with what the trace recorded.

Outcomes (exit 1 if and only if a violation reproduces):

* 1 ``reproduced``: a property is violated along the path; the output says whether it
  is the recorded violation (property, message, step) or what differs from it;
* 0 ``not reproduced``: the trace records a violation, but no property is violated
  when its path is replayed through the current model (a fix, or a model change);
* 0 ``no violation``: the trace records none and none is found;
* 2 the trace cannot be read, is not a groupcheck trace, or its path does not replay.

Whatever the verdict, every state's ``action_taken`` and fields are compared with the
reproduced ones: the first difference (state index, field path, recorded and
reproduced value) is shown with a count of the others.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from groupcheck.model.core import first_violation
from groupcheck.model.core import replay as replay_path
from groupcheck.model.scopes import profile_label

from .. import liveness, traces
from ..console import FAILED, fail, out
from ..scope_input import ASSIGNOR_HELP, trust_assignors


def _verdict(recorded: dict | None, recorded_at: int, found: tuple[str, str, int] | None) -> str:
    """One line on what reproduced, against what the trace recorded."""
    was = (f"{recorded['property']} violated at step {recorded_at} ({recorded['message']})"
           if recorded else None)
    if found is None:
        if was:
            return f"[bold yellow]not reproduced:[/] the trace records {escape(was)}; replayed through " \
                   "the current model, no property is violated along it"
        return "[green]no property is violated along this trace[/]"
    prop, message, at = found
    line = f"[bold red]reproduced:[/] {prop} violated at step {at}"
    if recorded is None:
        return line + " (the trace records no violation)"
    if (prop, message, at) == (recorded["property"], recorded["message"], recorded_at):
        return line + ", as recorded"
    return line + escape(f": {message}; the trace records {was}")


def _comparison(diffs: list[traces.Difference], states: int) -> str:
    if not diffs:
        return f"every state matches the recorded trace ({states} states: action_taken and fields)"
    others = len(diffs) - 1
    in_states = len({d.state for d in diffs})
    more = f" (and {others} more difference{'s' * (others != 1)}, in {in_states} state" \
           f"{'s' * (in_states != 1)} in all)" if others else ""
    return (f"the replay differs from the recorded trace (the model or the trace changed since it "
            f"was written): {diffs[0].text()}{more}")


def command(trace: Path = typer.Argument(..., help="an ITF trace written by groupcheck check or upgrade-plan"),
            assignor: Optional[list[str]] = typer.Option(None, "--assignor", help=ASSIGNOR_HELP)) -> None:
    """Replay a trace, re-check every property along it, compare it with the recording.

    Exit 1 if a property is violated on replay; 0 if none is (the output says when
    the recorded violation did not reproduce); 2 if the trace cannot be replayed.
    """
    trust_assignors(assignor)
    try:
        rec = traces.load(trace)
    except traces.ReplayError as e:
        raise fail(str(e)) from None
    model, sc, path = rec.protocol.model, rec.scope, rec.path
    out.print(f"replaying {trace}: {model.name}, {len(path) - 1} steps, behaviour {profile_label(sc)}\n"
              f"scope: {rec.protocol.scope_text(sc)}", markup=False, highlight=False)
    first, steps = replay_path(model, sc, path)
    found = first_violation(model, sc, first, steps)
    if found is None and rec.loop is not None:     # a lasso: is its cycle still fair and unsettled?
        why = liveness.judge_lasso(model, sc, [first] + [s.next for s in steps], [s.action for s in steps], rec.loop)
        found = ("settles_under_fairness", why, len(path) - 1) if why else None
    verdict = f"{found[0]}: {found[1]}" if found else None
    shown = path[: found[2] + 1] if found else path
    loop = rec.loop if found is not None and found[0] == "settles_under_fairness" else None
    out.print(traces.story(model, sc, shown, verdict, loop), markup=False, highlight=False)
    reproduced = traces.build(model, sc, path, {})["states"]
    diffs = traces.differences(rec.trace["states"], traces.as_json(reproduced))
    out.print(_comparison(diffs, len(path)), markup=False, highlight=False)
    out.print(_verdict(rec.violation, len(path) - 1, found), highlight=False)
    if found:
        raise typer.Exit(FAILED)
