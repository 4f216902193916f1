"""``groupcheck regression``: turn a counterexample trace into a pytest regression test."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from .. import traces
from groupcheck.model.scopes import shown_repr

from ..checker import CHECKER_CLAIMS
from ..console import err, fail, out
from ..outputs import OutputError, atomic_write_text, free_file
from ..protocols import Protocol
from ..regression import first_violation, render
from ..scope_input import ASSIGNOR_HELP, trust_assignors


def _recorded(trace: Path) -> tuple[Protocol, list[int], dict, int | None]:
    """The trace's protocol, path, #meta and lasso ``loop``, once ``traces.load`` found it replayable."""
    try:
        rec = traces.load(trace)
    except traces.ReplayError as e:
        raise fail(str(e)) from None
    return rec.protocol, rec.path, rec.trace["#meta"], rec.loop


def _free(output: Path, force: bool) -> None:
    try:
        free_file(output, force=force, option="-o")
    except OutputError as e:
        raise fail(str(e)) from None


def command(
    trace: Path = typer.Argument(..., help="an ITF trace written by groupcheck check"),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="write the test here (default: stdout); an "
                                          "existing file is kept unless --force"),
    force: bool = typer.Option(False, "--force", help="replace the -o file if it exists"),
    fixed: bool = typer.Option(False, "--fixed",
                               help="assert no property is violated along the path (the bug stays fixed)"),
    assignor: Optional[list[str]] = typer.Option(None, "--assignor", help=ASSIGNOR_HELP),
) -> None:
    """Turn a counterexample trace into a pytest regression test.

    The test replays the trace's path and asserts that its violation still happens at
    the same step (or, with --fixed, that nothing is violated along it); a lasso
    (settles_under_fairness, ITF "loop") is re-judged as a lasso, as replay does, and a
    can_settle trace at its last state. An existing
    -o file is never replaced (exit 2) unless --force; the file is written whole."""
    trust_assignors(assignor)
    if output is not None:
        _free(output, force)          # before the work: a file that is there is refused at once
    protocol, path, meta, loop = _recorded(trace)
    recorded = (meta.get("violation") or {}).get("property")
    if not fixed and not recorded:
        raise fail(f"{trace}: #meta records no violated property; give --fixed to assert none happens")
    expected = None if fixed else recorded
    settle = recorded == "can_settle"          # judged at the path's end, also by a --fixed test
    known = [p.name for p in protocol.model.properties] + list(CHECKER_CLAIMS)
    if expected is not None and expected not in known:
        raise fail(f"{trace}: #meta.violation.property: {shown_repr(expected)} is not a property of the "
                   f"{protocol.name} model ({', '.join(known)})")
    try:
        text = render(trace.name, protocol.name, meta["scope"], path, expected, loop, settle)
    except ValueError as e:
        raise fail(f"{trace}: {e}") from None
    now = first_violation(protocol.name, meta["scope"], path, loop, settle)
    if (now is None) != (expected is None) or (now and (now.property, now.step) != (expected, len(path) - 1)):
        seen = f"{now.property} at step {now.step}" if now else "no violation"
        err.print(f"[yellow]note:[/] the model now shows {seen} along this path: the test fails until that changes")
    if output is None:
        sys.stdout.write(text)
        return
    try:
        atomic_write_text(output, text, force=force)
    except OutputError as e:          # taken since the check above
        raise fail(f"-o: {e}") from None
    except OSError as e:
        raise fail(f"-o: cannot write {output}: {e.strerror}") from None
    claim = "no property is violated along the path" if fixed else f"{recorded} at step {len(path) - 1}"
    out.print(f"written: {output} (asserts {claim})", markup=False, highlight=False)
