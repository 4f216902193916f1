"""What ``groupcheck check`` prints after its jobs: the table, the scopes, the witnesses,
the counterexamples (written to files) and the summary with the exit code."""
from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from rich.table import Table

from groupcheck.model.scopes import profile_label

from . import traces
from .console import FAILED, INTERRUPTED, NOT_PROVED, PASSED, TERMINATED, Limits, err, out
from .runs import TINY, Outcome

EXITS = {PASSED: "PASSED", FAILED: "FAILED", NOT_PROVED: "NOT PROVED", INTERRUPTED: "INTERRUPTED",
         TERMINATED: "TERMINATED"}
EXIT_MEANING = {
    PASSED: "every job held or caught its known bug",
    FAILED: "a property was violated, or a known bug was not caught",
    NOT_PROVED: "nothing violated, but a search was incomplete or a scope weak",
    INTERRUPTED: "interrupted (Ctrl-C); the rows above are what was explored",
    TERMINATED: "interrupted (SIGTERM); the rows above are what was explored",
}
COLUMNS = ("protocol", "profile", "scope", "mode", "states", "transitions", "depth", "result", "time")
NUMERIC = ("states", "transitions", "depth", "time")


def _result(o: Outcome, r, limits: Limits) -> str:
    held = f"{len(r.held)}/{len(r.checked)}"
    if r.violation is not None:
        if o.verdict == "caught":
            return f"caught (expected): {r.violation.property}"
        expected = f" (expected {o.job.expect})" if o.job.expect else ""
        return f"✗ {r.violation.property}{expected}"
    inside = f" in {r.cut_in}" if r.cut_in else ""
    if r.cut == "interrupted":
        return f"interrupted{inside}: {held} not violated so far"
    if r.cut is not None:
        return f"incomplete ({limits.value(r.cut)}{inside}): {held} not violated so far"
    if o.job.expect is not None:
        return f"MISSED: expected {o.job.expect}"
    if o.verdict == "weak" and r.mode == "bfs":
        return f"weak: {held} held"
    return f"held {held}"


def table(outcomes: list[Outcome], limits: Limits) -> Table:
    t = Table(title="groupcheck check")
    for col in COLUMNS:
        t.add_column(col, justify="right" if col in NUMERIC else "left")
    for o in outcomes:
        head = (o.job.protocol.name, profile_label(o.job.scope), o.job.name)
        if not o.reports:
            t.add_row(*head, "-", "", "", "", "not run", "")
        for r in o.reports:
            states = f"{r.walks} walks" if r.mode == "walks" else f"{r.states:,}"
            t.add_row(*head, r.mode, states, f"{r.transitions:,}", str(r.depth), _result(o, r, limits),
                      f"{r.seconds:.1f}s")
    return t


def legend(outcomes: list[Outcome]) -> str:
    lines = ["scopes:"]
    for o in outcomes:
        note = f" ({o.job.note})" if o.job.note else ""
        lines.append(f"  {o.label}: {o.job.protocol.scope_text(o.job.scope)}{note}")
    return "\n".join(lines)


def witnesses(outcomes: list[Outcome]) -> str:
    """Each scope's sometimes-claims (witnesses) and whether BFS reached them."""
    lines = [f"witnesses (sometimes claims, BFS; a scope missing one in its reach, or under {TINY} states, is weak):"]
    for o in outcomes:
        if not o.reports:
            continue
        bfs = o.reports[0]
        far = o.job.protocol.out_of_reach(o.job.scope)
        marks = []
        for name, hit in bfs.witnessed.items():
            if hit:
                marks.append(f"{name} reached")
            elif name in far:
                marks.append(f"{name} not reached (out of reach: {far[name]})")
            else:
                marks.append(f"{name} {'NOT' if o.verdict == 'weak' else 'not'} reached")
        stop = (" - BFS stopped at a violation" if bfs.violation is not None
                else " - BFS stopped early" if bfs.cut is not None else "")
        lines.append(f"  {o.label}: {', '.join(marks) or 'none'}{stop}")
    return "\n".join(lines)


def fingerprints(outcomes: list[Outcome]) -> str:
    """How BFS told states apart and, as TLC reports it, the chance that two distinct
    states shared a 64-bit fingerprint so that one was never explored (summed over the
    searches: a bound, for fingerprints that behave like random numbers). "" when no BFS ran."""
    searches = [r for o in outcomes for r in o.reports if r.mode == "bfs" and r.states]
    if not searches:
        return ""
    if all(r.exact for r in searches):
        return "visited states: kept whole (--exact), so no fingerprint collision can hide one"
    states = sum(r.states for r in searches if not r.exact)
    chance = sum(r.collision or 0.0 for r in searches)
    return (f"visited states: 64-bit fingerprints; fingerprint collision probability <= {chance:.1g} "
            f"({states:,} states, n^2/2^65 per search; --exact keeps whole states)")


def counterexamples(outcomes: list[Outcome], out_dir: Path, seed: int) -> None:
    """Write every violation found; print the story of each unexpected one. A known bug
    caught as expected goes to ``out_dir/expected`` with a one-line note."""
    for o in outcomes:
        v = o.violation
        if v is None:
            continue
        model, sc, expected = o.job.protocol.model, o.job.scope, o.verdict == "caught"
        mode = next(r.mode for r in o.reports if r.violation is v)
        meta = {"profile": getattr(sc, "profile", ""), "seed": seed, "mode": mode,
                "violation": {"property": v.property, "message": v.message, "kind": v.kind}}
        if o.job.expect is not None:
            meta["expected"] = o.job.expect
        if not v.path:              # NotSettled: the start itself failed, there is no path
            out.print(f"\n[bold red]{v.property} violated[/] in {escape(o.label)}: {escape(v.message)} "
                      "(no counterexample file: no state to start from)")
            continue
        text = traces.story(model, sc, v.path, f"{v.property}: {v.message}", v.loop)
        if expected:
            out.print(f"\n[green]{escape(o.label)}: caught (expected)[/]: {v.property} after "
                      f"{len(v.path) - 1} steps", highlight=False)
        else:
            out.print(f"\n[bold red]{v.property} violated[/] in {escape(o.label)}: {escape(v.message)}")
            out.print(text, markup=False, highlight=False)
        where = out_dir / "expected" if expected else out_dir
        try:
            paths = traces.write(where, f"{o.job.protocol.name}-{o.job.name}-{v.property}",
                                 traces.build(model, sc, v.path, meta, v.loop), text)
        except OSError as e:
            err.print(f"[bold red]error:[/] cannot write the counterexample to {escape(str(where))}: {e.strerror}")
            continue
        out.print(f"written: {paths[0]}  {paths[1]}", markup=False, highlight=False)


def summary(outcomes: list[Outcome], code: int) -> str:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.verdict] = counts.get(o.verdict, 0) + 1
    names = {"caught": "caught (expected)"}
    lines = ["", "summary: " + ", ".join(f"{n} {names.get(v, v)}" for v, n in counts.items())]
    for o in outcomes:
        if o.detail and o.verdict != "not run":
            lines.append(f"  {o.verdict}: {o.label}: {o.detail}")
    skipped: dict[str, list[str]] = {}
    for o in outcomes:
        if o.verdict == "not run":
            skipped.setdefault(o.detail, []).append(o.label)
    for detail, labels in skipped.items():
        lines.append(f"  not run: {', '.join(labels)}: {detail}")
    lines.append(f"{EXITS[code]} (exit {code}): {EXIT_MEANING[code]}")
    return "\n".join(lines)
