"""Real TLC, groupcheck's BFS and ``spec mc`` on every TLC model of specs/ (issue 28's
closing table): for each ``MC*.cfg``, TLC's distinct states and seconds (one worker, the
JVM's start included), the model's BFS without symmetry on the same scope (the manifest's)
and its seconds, and ``spec mc``'s seconds (groupcheck's evaluator). Each side stops at its
first violation, as TLC does; on a liveness config (PROPERTY FairSettles*) the BFS column is
``check --fairness``'s search and verdict, and ``spec mc`` checks all but the liveness claim; the BFS and ``spec mc`` stop at MAX_STATES (shown as ">").
Prints a Markdown table; run one process at a time.

    python benchmarks/tlc_table.py                          # every config of every spec
    python benchmarks/tlc_table.py specs/consumer           # one folder (or .cfg files)
    python benchmarks/tlc_table.py --no-spec-mc specs/consumer
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from groupcheck.checker import bfs  # noqa: E402
from groupcheck.spec import fairness, manifest, tlc, tlc_config, tlc_replay  # noqa: E402
from groupcheck.spec.tla_context import SpecError  # noqa: E402


MAX_STATES = 300_000


def _bundle(cfg: Path) -> manifest.Bundle | None:
    try:
        return manifest.load(cfg.parent.name, cfg.parent)
    except ValueError:
        return None


def row(cfg: Path, spec_mc: bool) -> list[str]:
    r = tlc.run(cfg)
    verdict = r.error and f"error: {r.error[:60]}" or (f"{r.claim} broken" if r.violation else "held")
    cells = [cfg.stem, verdict, f"{r.distinct:,}" if r.distinct is not None else "", f"{r.seconds:.1f}"]
    bundle = _bundle(cfg)
    found = bundle and tlc_replay.scope_of(bundle, cfg.stem)
    if found:
        started = time.perf_counter()
        if fairness.fair_claim(cfg):       # a liveness config: check --fairness's search, then its verdict
            report = fairness.model_verdict(bundle, found[0])      # liveness configs are small
            said = " (lasso)" if report.violation is not None else " (holds)"
        else:
            report, said = bfs(bundle.model, found[0], symmetry=False, max_states=MAX_STATES), ""
        cells += [f"{'>' if report.cut else ''}{report.states:,}{said}", f"{time.perf_counter() - started:.1f}"]
    else:
        cells += ["", ""]
    if spec_mc:
        try:
            started = time.perf_counter()
            run = tlc_config.run(tlc_config.read(cfg), max_states=MAX_STATES)
            left = f" ({', '.join(run.left_to_tlc)} left to TLC)" if run.left_to_tlc else ""
            cells += [f"{'>' if run.cut else ''}{run.states:,}{left}", f"{time.perf_counter() - started:.1f}"]
        except SpecError as e:
            cells += [f"error: {str(e)[:60]}", ""]
    else:
        cells += ["", ""]
    return cells


def main(argv: list[str]) -> None:
    spec_mc = "--no-spec-mc" not in argv
    paths = [Path(a) for a in argv if not a.startswith("--")]
    cfgs = tlc.configs(paths, lambda: [c for f in manifest.folders().values() for c in sorted(f.glob("MC*.cfg"))])
    print("| config | TLC | TLC distinct states | TLC s (1 worker) | BFS states (no symmetry) | BFS s "
          "| spec mc states | spec mc s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for cfg in cfgs:
        print("| " + " | ".join(row(cfg, spec_mc)) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
