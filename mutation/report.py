"""Verdict records and the campaign report (``report.json`` and ``report.md``).

A mutant's verdict is one of:

* ``killed``: a stage failed because of it (``stage`` says which: main, properties, tests);
* ``limit``: no stage killed it, but the main job stopped at a limit, a weak scope or a
  bad-input exit (2/3), or a stage hit --max-seconds-per-stage: detected, not by a property;
* ``survived``: every stage run passed;
* ``n/a``: ``old`` does not occur exactly once in the base (the code changed);
* ``equivalent``: argued not to change reachable behaviour (not run, not scored);
* ``error``: the runner could not run it (copy or apply failed).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .mutant import Mutant


@dataclass
class Record:
    name: str
    family: str
    path: str
    old: str
    new: str
    why: str
    verdict: str                     # killed | limit | survived | n/a | equivalent | error
    stage: str = ""                  # the killing stage
    killer: str = ""                 # what killed it (property @ scope, test id, crash line)
    kind: str = ""                   # property | known-bug | crash | test
    seconds: float = 0.0
    stages: list[dict] = field(default_factory=list)   # every StageResult run, in order
    note: str = ""

    @classmethod
    def of(cls, m: Mutant, verdict: str, **kw) -> "Record":
        return cls(m.name, m.family, m.path, m.old, m.new, m.why, verdict, **kw)

    def same_mutant(self, m: Mutant) -> bool:
        return (self.name, self.old, self.new) == (m.name, m.old, m.new)


def by_property(r: Record) -> bool:
    """Killed by a property: a violation in the main job, or the properties stage."""
    return r.verdict == "killed" and (r.stage == "properties" or (r.stage == "main" and r.kind == "property"))


def totals(records: list[Record]) -> dict:
    scored = [r for r in records if r.verdict not in ("n/a", "equivalent", "error")]
    n = len(scored)

    def pct(k: int) -> float:
        return round(100.0 * k / n, 1) if n else 0.0

    killed = [r for r in scored if r.verdict == "killed"]
    main = [r for r in killed if r.stage == "main"]
    prop = [r for r in killed if by_property(r)]
    detected = killed + [r for r in scored if r.verdict == "limit"]
    return {
        "mutants": len(records),
        "applicable": n,
        "n/a": sum(r.verdict == "n/a" for r in records),
        "equivalent": sum(r.verdict == "equivalent" for r in records),
        "error": sum(r.verdict == "error" for r in records),
        "killed_by_main": len(main),
        "killed_by_main_property": sum(r.kind == "property" for r in main),
        "killed_by_property": len(prop),
        "killed_by_properties_stage": sum(r.stage == "properties" for r in killed),
        "killed_by_tests_stage": sum(r.stage == "tests" for r in killed),
        "killed": len(killed),
        "limit": sum(r.verdict == "limit" for r in scored),
        "detected": len(detected),
        "survived": sum(r.verdict == "survived" for r in scored),
        "score_main_pct": pct(len(main)),
        "score_property_pct": pct(len(prop)),
        "score_killed_pct": pct(len(killed)),
        "score_detected_pct": pct(len(detected)),
        "survivors": [{"name": r.name, "family": r.family, "why": r.why,
                       "stages_run": [s["stage"] for s in r.stages]}
                      for r in scored if r.verdict == "survived"],
    }


def write(out: Path, records: list[Record], meta: dict) -> None:
    """Write report.json and report.md into ``out`` (atomically, so an interrupt
    never leaves half a file)."""
    out.mkdir(parents=True, exist_ok=True)
    data = {"meta": meta, "totals": totals(records), "mutants": [asdict(r) for r in records]}
    _atomic(out / "report.json", json.dumps(data, indent=1) + "\n")
    _atomic(out / "report.md", markdown(records, meta))


def load(out: Path) -> list[Record]:
    path = out / "report.json"
    if not path.is_file():
        return []
    return [Record(**r) for r in json.loads(path.read_text())["mutants"]]


def _atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(records: list[Record], meta: dict) -> str:
    t = totals(records)
    lines = [
        "# Mutation campaign", "",
        f"base: `{meta.get('base', '')}` (commit `{meta.get('commit', '')}`), stages of the last run: "
        f"{', '.join(meta.get('stages', []))}{' (--full)' if meta.get('full') else ''}; "
        f"{meta.get('status', '')}", "",
        "| | count | % of applicable |", "|---|---:|---:|",
        f"| mutants in catalog run | {t['mutants']} | |",
        f"| n/a (old text absent in base) | {t['n/a']} | |",
        f"| equivalent (not scored) | {t['equivalent']} | |",
        f"| runner errors | {t['error']} | |",
        f"| **applicable** | **{t['applicable']}** | |",
        f"| killed by the main job | {t['killed_by_main']} | {t['score_main_pct']} |",
        f"| killed by a property (main-job violation or properties stage) | {t['killed_by_property']} "
        f"| {t['score_property_pct']} |",
        f"| killed by anything (main, properties, tests) | {t['killed']} | {t['score_killed_pct']} |",
        f"| detected incl. limit/weak/timeout | {t['detected']} | {t['score_detected_pct']} |",
        f"| survived | {t['survived']} | |", "",
        "## Mutants", "",
        "| mutant | family | verdict | stage | killer | s |", "|---|---|---|---|---|---:|",
    ]
    for r in records:
        lines.append(f"| `{r.name}` | {r.family} | {r.verdict} | {r.stage} | {_cell(r.killer or r.note)} "
                     f"| {r.seconds:.0f} |")
    surv = [r for r in records if r.verdict == "survived"]
    lines += ["", f"## Survivors ({len(surv)})", ""]
    for r in surv:
        ran = ", ".join(s["stage"] for s in r.stages)
        lines.append(f"* `{r.name}` ({r.family}, `{r.path}`; stages run and passed: {ran}): {r.why}")
    eq = [r for r in records if r.verdict == "equivalent"]
    if eq:
        lines += ["", "## Equivalent mutants", ""]
        lines += [f"* `{r.name}`: {r.note}" for r in eq]
    return "\n".join(lines) + "\n"
