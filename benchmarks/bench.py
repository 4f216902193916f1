"""groupcheck benchmark: prints a markdown report (speed goals live here, not in tests).

    .venv/bin/python benchmarks/bench.py            # full run (several minutes)
    .venv/bin/python benchmarks/bench.py --quick    # fewer seeds, no shrinking

Targets (issue #2): BFS >= 25,000 distinct states/s per core; walks >= 50,000
steps/s per core; every variant caught by BFS in <= 10 s; the shrunk Hypothesis
counterexample as short as BFS's; under 10% of Hypothesis test cases discarded.
The report gives the measured figures either way.
"""
from __future__ import annotations

import argparse
import multiprocessing
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from groupcheck.checker import bfs, walks  # noqa: E402
from groupcheck.protocols import get  # noqa: E402
from properties.known_bugs import VARIANTS  # noqa: E402
from properties.stateful import hunt  # noqa: E402


def bfs_rates(lines: list[str]) -> None:
    protocol = get("consumer")
    scope = protocol.default_scopes()["cooperative"]
    lines += ["### BFS and walks, default scope `consumer/cooperative`", "",
              "| measure | symmetry | states / steps | seconds | per second |", "|---|---|---:|---:|---:|"]
    for symmetry in (True, False):
        r = bfs(protocol.model, scope, symmetry=symmetry)
        lines.append(f"| BFS distinct states | {'on' if symmetry else 'off'} | {r.states:,} | {r.seconds:.2f} "
                     f"| {r.states / r.seconds:,.0f} |")
    w = walks(protocol.model, scope, seed=1, count=2000, length=80)
    lines.append(f"| random-walk steps (swarm, properties checked each step) | - | {w.states:,} | "
                 f"{w.seconds:.2f} | {w.states / w.seconds:,.0f} |")
    lines.append("")


def _shrink(job: tuple[str, int]) -> tuple[str, int | None, float]:
    """Shrink one variant's counterexample (worker process); Hypothesis's shrink time
    is capped at SHRINK_CAP seconds so the benchmark ends."""
    from hypothesis.internal.conjecture import engine
    engine.MAX_SHRINKING_SECONDS = SHRINK_CAP
    key, seed = job
    v = next(x for x in VARIANTS if x.key == key)
    started = time.perf_counter()
    h = hunt(get("consumer").model, v.buggy_scope(), seed=seed, max_examples=300, steps=100, shrink=True)
    return key, (len(h.path) - 1 if h.property else None), time.perf_counter() - started


SHRINK_CAP = 90


def variants(lines: list[str], seeds: int, shrink: bool) -> None:
    model = get("consumer").model
    rows, jobs = [], []
    for v in VARIANTS:
        r = bfs(model, v.buggy_scope())
        shortest = len(r.violation.path) - 1 if r.violation else None
        times, found, best = [], 0, None
        for seed in range(seeds):
            h = hunt(model, v.buggy_scope(), seed=seed, max_examples=300, steps=100, shrink=False)
            if h.property is not None:
                found += 1
                times.append(h.first_seconds)
                if best is None or len(h.path) < best[1]:
                    best = (seed, len(h.path))
        if shrink and best is not None:
            jobs.append((v.key, best[0]))
        rows.append((v, r, shortest, times, found))
    shrunk = {}
    if jobs:
        with multiprocessing.Pool(2) as pool:
            shrunk = {key: (n, secs) for key, n, secs in pool.map(_shrink, jobs)}
    lines += ["### Known-bug variants: time to first counterexample", "",
              f"Hypothesis: median of {seeds} seeds, up to 300 cases x 100 steps each, shrinking off for "
              f"timing; then the seed with the shortest first failure is shrunk (Hypothesis's shrink time "
              f"capped at {SHRINK_CAP} s).", "",
              "| variant | property (BFS) | BFS s | BFS states | BFS shortest | Hypothesis first failure s (median) "
              "| found by seeds | shrunk length (shrink s) |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for v, r, shortest, times, found in rows:
        median = f"{statistics.median(times):.2f}" if times else "not found"
        length = "-"
        if v.key in shrunk:
            n, secs = shrunk[v.key]
            length = f"{n} ({secs:.0f} s)" if n is not None else "not found"
        lines.append(f"| {v.key} | {r.violation.property if r.violation else 'NOT CAUGHT'} | {r.seconds:.2f} | "
                     f"{r.states:,} | {shortest} | {median} | {found}/{seeds} | {length} |")
    lines.append("")


def discards(lines: list[str]) -> None:
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                          "properties/test_consumer_stateful.py", "--hypothesis-show-statistics"],
                         cwd=ROOT, capture_output=True, text=True)
    passing = sum(int(n) for n in re.findall(r"(\d+) passing", out.stdout))
    invalid = sum(int(n) for n in re.findall(r"(\d+) invalid", out.stdout))
    total = passing + invalid + sum(int(n) for n in re.findall(r"(\d+) failing", out.stdout))
    share = 100 * invalid / total if total else 0.0
    lines += ["### Hypothesis test cases discarded", "",
              f"Reference state machines (`properties/test_consumer_stateful.py`): {invalid} invalid of {total} "
              f"test cases ({share:.1f}%).", ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 seeds, no shrinking")
    args = parser.parse_args()
    started = time.perf_counter()
    lines = [f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, Python {platform.python_version()}, "
             "one core per process.", ""]
    bfs_rates(lines)
    variants(lines, seeds=2 if args.quick else 5, shrink=not args.quick)
    discards(lines)
    lines.append(f"Benchmark wall time: {time.perf_counter() - started:.0f} s.")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
