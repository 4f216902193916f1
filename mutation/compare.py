"""``python -m mutation.compare BEFORE_DIR AFTER_DIR``: the two campaigns' scores on the
same mutants (applicable and run in both, same stages compared), as markdown."""
from __future__ import annotations

import sys
from pathlib import Path

from . import report

DECIDED = ("killed", "limit", "survived")


def _main_verdict(r: report.Record) -> str:
    """The verdict of the main stage alone (so campaigns that ran different later
    stages compare like with like)."""
    main = next((s for s in r.stages if s["stage"] == "main"), None)
    if main is None:
        return ""
    return {"killed": "killed", "limit": "limit", "passed": "survived"}.get(main["outcome"], "")


def compare(before: list[report.Record], after: list[report.Record]) -> str:
    a = {r.name: r for r in after}
    common = [r.name for r in before if r.name in a and _main_verdict(r) and _main_verdict(a[r.name])]

    def score(records: dict[str, report.Record]) -> tuple[int, int]:
        killed = [n for n in common if _main_verdict(records[n]) == "killed"]
        prop = [n for n in killed if next(s for s in records[n].stages if s["stage"] == "main")["kind"] == "property"]
        return len(killed), len(prop)

    b = {r.name: r for r in before}
    (bk, bp), (ak, ap) = score(b), score(a)
    n = len(common)
    pct = (lambda k: f"{100.0 * k / n:.1f}%") if n else (lambda k: "-")
    lines = [
        "# Before / after, main job, on the same mutants", "",
        f"{n} mutants applicable at both commits and run through the main job in both campaigns.", "",
        "| | before | after |", "|---|---:|---:|",
        f"| killed by the main job | {bk} ({pct(bk)}) | {ak} ({pct(ak)}) |",
        f"| of which by a property violation | {bp} ({pct(bp)}) | {ap} ({pct(ap)}) |", "",
        "| mutant | before | after |", "|---|---|---|",
    ]
    for name in common:
        def cell(r: report.Record) -> str:
            main = next(s for s in r.stages if s["stage"] == "main")
            return f"{_main_verdict(r)}{': ' + main['killer'].replace('|', '/') if main['killer'] else ''}"
        lines.append(f"| `{name}` | {cell(b[name])} | {cell(a[name])} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    print(compare(report.load(Path(args[0])), report.load(Path(args[1]))), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
