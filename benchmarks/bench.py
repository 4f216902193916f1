"""groupcheck benchmark: prints a markdown report (speed goals live here, not in tests).

    .venv/bin/python benchmarks/bench.py            # full run (several minutes)
    .venv/bin/python benchmarks/bench.py --quick    # fewer seeds, no shrinking

    .venv/bin/python benchmarks/bench.py --protocol streams-classic   # one protocol
    .venv/bin/python benchmarks/bench.py --memory   # adds BFS memory (about 3 minutes of CPU more)
    .venv/bin/python benchmarks/bench.py --memory --protocol none   # BFS memory only

Targets: BFS >= 25,000 distinct states/s per core; walks >= 50,000
steps/s per core; every variant caught by BFS in <= 10 s; the shrunk Hypothesis
counterexample as short as BFS's; under 10% of Hypothesis test cases discarded.
The streams-classic rows give BFS speed on a Streams upgrade scope, its known-bug
variants, and the upgrade plans `groupcheck upgrade-plan` answers. The streams-group rows
(KIP-1071) give BFS speed on its topology-update scope and its known-bug variants; the
consumer-group rows (KIP-848) the same on its largest scope (online-downgrade) and its
variants and findings.
The record-layer rows (issue 30) give the states and BFS time of each reference scope
with ``records: true`` against the same scope with the layer off.
The report gives the measured figures either way. ``--memory`` (opt-in, as it takes about
three minutes of CPU, more wall time on a busy machine) measures the peak resident memory
BFS adds over the first 1,000,000 states of the large consumer example (target: 200 MiB
per million states), with fingerprints and with ``--exact``, each in a fresh process.
"""
from __future__ import annotations

import argparse
import multiprocessing
import json
import platform
import resource
import re
import statistics
import subprocess
import sys
import time
from dataclasses import fields, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from groupcheck.checker import bfs, resident, walks  # noqa: E402
from groupcheck.protocols import PROTOCOLS, get  # noqa: E402
from groupcheck.scope_input import build_scopes, overrides  # noqa: E402
from groupcheck.model.streams_classic.plans import upgrade_scope  # noqa: E402
from groupcheck.properties.stateful import hunt  # noqa: E402
RATE_SCOPES = {"consumer": lambda: get("consumer").default_scopes()["cooperative"],
               "streams-classic": lambda: upgrade_scope("2.4", "3.9", 1, instances=3, tasks=3),
               "streams-group": lambda: get("streams-group").default_scopes()["topology-update"],
               "consumer-group": lambda: get("consumer-group").default_scopes()["online-downgrade"]}
RATE_NAMES = {"consumer": "`consumer/cooperative`", "streams-classic": "Streams one bounce 2.4 -> 3.9, 3 instances, 3 tasks",
              "streams-group": "`streams-group/topology-update` (KIP-1071's rolling topology update)",
              "consumer-group": "`consumer-group/online-downgrade` (KIP-848, classic and consumer clients; this model's "
                                "canonical form drops member ids and incarnations but permutes no clients)"}


def bfs_rates(lines: list[str], name: str) -> None:
    protocol = get(name)
    scope = RATE_SCOPES[name]()
    lines += [f"#### BFS and walks, {RATE_NAMES[name]}", "",
              "| measure | symmetry | states / steps | seconds | per second |", "|---|---|---:|---:|---:|"]
    for symmetry, exact in ((True, False), (False, False), (True, True)):
        r = bfs(protocol.model, scope, symmetry=symmetry, exact=exact)
        what = "BFS distinct states, whole states kept (`--exact`)" if exact else "BFS distinct states"
        lines.append(f"| {what} | {'on' if symmetry else 'off'} | {r.states:,} | {r.seconds:.2f} "
                     f"| {r.states / r.seconds:,.0f} |")
    w = walks(protocol.model, scope, seed=1, count=2000, length=80)
    lines.append(f"| random-walk steps (swarm, properties checked each step) | - | {w.states:,} | "
                 f"{w.seconds:.2f} | {w.states / w.seconds:,.0f} |")
    lines.append("")


def records_cost(lines: list[str], name: str) -> None:
    """What the record layer (issue 30) costs: each reference scope with ``records: true`` against
    the same scope with the layer off (the record fields back at their defaults)."""
    protocol = get(name)
    scopes = {k: s for k, s in protocol.default_scopes().items() if getattr(s, "records", False)}
    if not scopes:
        return
    record_fields = ("records", "max_records", "commit_policy", "offset_reset")
    lines += [f"#### The record layer ({name}): reference scopes with records on and off", "",
              "| scope | records | BFS distinct states | seconds | states / s |", "|---|---|---:|---:|---:|"]
    for key, scope in scopes.items():
        off = replace(scope, **{f.name: f.default for f in fields(scope) if f.name in record_fields})
        for on, s in ((False, off), (True, scope)):
            r = bfs(protocol.model, s)
            lines.append(f"| `{key}` | {'on' if on else 'off'} | {r.states:,} | {r.seconds:.2f} "
                         f"| {r.states / r.seconds:,.0f} |")
    lines.append("")


def _shrink(job: tuple[str, str, int]) -> tuple[str, int | None, int | None, int | None, float]:
    """Shrink one variant's counterexample (worker process); Hypothesis's shrink time
    is capped at SHRINK_CAP seconds so the benchmark ends. Returns Hypothesis's shrunk
    length, the length after ``stateful.prune``'s deletion pass and after
    ``stateful.tighten``'s windowed searches."""
    from hypothesis.internal.conjecture import engine
    engine.MAX_SHRINKING_SECONDS = SHRINK_CAP
    name, key, seed = job
    v = next(x for x in get(name).variants if x.key == key)
    started = time.perf_counter()
    h = hunt(get(name).model, v.buggy_scope(), seed=seed, max_examples=300, steps=v.hunt_steps,
             shrink=True)
    if h.property is None:
        return key, None, None, None, time.perf_counter() - started
    return key, len(h.path) - 1, len(h.pruned) - 1, len(h.tightened) - 1, time.perf_counter() - started


SHRINK_CAP = 90


def variants(lines: list[str], name: str, seeds: int, shrink: bool) -> None:
    model = get(name).model
    rows, jobs = [], []
    for v in get(name).variants:
        r = bfs(model, v.buggy_scope())
        shortest = len(r.violation.path) - 1 if r.violation else None
        times, found, best = [], 0, None
        for seed in range(seeds):
            h = hunt(model, v.buggy_scope(), seed=seed, max_examples=300, steps=v.hunt_steps,
                     shrink=False)
            if h.property is not None:
                found += 1
                times.append(h.first_seconds)
                if best is None or len(h.path) < best[1]:
                    best = (seed, len(h.path))
        if shrink and best is not None:
            jobs.append((name, v.key, best[0]))
        rows.append((v, r, shortest, times, found))
    shrunk = {}
    if jobs:
        with multiprocessing.Pool(2) as pool:
            shrunk = {key: (n, pruned, tight, secs) for key, n, pruned, tight, secs in pool.map(_shrink, jobs)}
    lines += [f"#### Known-bug variants ({name}): time to first counterexample", "",
              f"Hypothesis: median of {seeds} seeds, up to 300 cases x 100 steps each (a variant may name fewer steps), shrinking off for "
              f"timing; then the seed with the shortest first failure is shrunk (Hypothesis's shrink time "
              f"capped at {SHRINK_CAP} s), then a deterministic deletion pass (`stateful.prune`) on the shrunk path, "
              f"then `stateful.tighten` (bounded BFS windows along that path: a shrinker of the path found, "
              f"not a search from the initial state).", "",
              "| variant | property (BFS) | BFS s | BFS states | BFS shortest | Hypothesis first failure s (median) "
              "| found by seeds | shrunk length / after prune / after tighten (s) |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for v, r, shortest, times, found in rows:
        median = f"{statistics.median(times):.2f}" if times else "not found"
        length = "-"
        if v.key in shrunk:
            n, pruned, tight, secs = shrunk[v.key]
            length = f"{n} / {pruned} / {tight} ({secs:.0f} s)" if n is not None else "not found"
        lines.append(f"| {v.key} | {r.violation.property if r.violation else 'NOT CAUGHT'} | {r.seconds:.2f} | "
                     f"{r.states:,} | {shortest} | {median} | {found}/{seeds} | {length} |")
    lines.append("")


STATEFUL = {"consumer": "properties/test_consumer_stateful.py",
            "streams-classic": "properties/test_streams_stateful.py",
            "streams-group": "properties/test_streams_group_stateful.py",
            "consumer-group": "properties/test_consumer_group_stateful.py"}


def discards(lines: list[str], name: str) -> None:
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                          STATEFUL[name], "--hypothesis-show-statistics"],
                         cwd=ROOT, capture_output=True, text=True)
    passing = sum(int(n) for n in re.findall(r"(\d+) passing", out.stdout))
    invalid = sum(int(n) for n in re.findall(r"(\d+) invalid", out.stdout))
    total = passing + invalid + sum(int(n) for n in re.findall(r"(\d+) failing", out.stdout))
    share = 100 * invalid / total if total else 0.0
    lines += ["#### Hypothesis test cases discarded", "",
              f"Reference state machines (`{STATEFUL[name]}`): {invalid} invalid of {total} "
              f"test cases ({share:.1f}%).", ""]


PLANS = (("0.10.2", "3.9", 1), ("0.10.2", "3.9", 2), ("2.3", "3.9", 1), ("2.3", "3.9", 2), ("2.4", "3.9", 1),
         ("3.9", "next", 1))


def upgrade_plans(lines: list[str]) -> None:
    """What `groupcheck upgrade-plan` answers (3 instances, 4 tasks, every bounce order)."""
    model = get("streams-classic").model
    lines += ["#### Upgrade plans (3 instances, 4 tasks, every bounce order and interleaving)", "",
              "| plan | verdict | property | BFS states | seconds | states/s |", "|---|---|---|---:|---:|---:|"]
    for frm, to, bounces in PLANS:
        r = bfs(model, upgrade_scope(frm, to, bounces))
        verdict = "unsafe" if r.violation else "safe"
        prop = r.violation.property if r.violation else "-"
        lines.append(f"| {frm} -> {to}, {bounces} bounce{'s' if bounces > 1 else ''} | {verdict} | {prop} | "
                     f"{r.states:,} | {r.seconds:.1f} | {r.states / max(r.seconds, 1e-9):,.0f} |")
    lines.append("")


MEMORY_STATES = 1_000_000
LARGE = {"members": 3, "partitions": "2,1", "budget": 2, "faults": "crash,pause,lose_response"}
# the large consumer example: check consumer --members 3 --partitions 2,1 --budget 2 --faults crash,pause,lose_response


def high_water() -> int:
    """This process's peak resident memory, in bytes: VmHWM, the high-water mark of its own
    address space (``ru_maxrss`` would also count the parent's resident memory at the fork
    of a process that then ran exec: Linux keeps it across exec, and the benchmark's
    parent holds a few hundred MiB by then)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024      # Linux: KiB


def memory_run(exact: bool) -> dict:
    """One BFS over the first MEMORY_STATES states of the large consumer example, in this
    (fresh) process: its peak resident memory growth and CPU time."""
    protocol = get("consumer")
    scope = build_scopes(protocol, None, overrides(protocol, None, LARGE))["custom"]
    protocol.model.init_states(scope)
    before = resident()
    cpu = time.process_time()
    r = bfs(protocol.model, scope, max_states=MEMORY_STATES, exact=exact)
    cpu = time.process_time() - cpu
    peak = high_water()
    return {"states": r.states, "depth": r.depth, "cpu": cpu, "growth": peak - before}


def memory(lines: list[str]) -> None:
    lines += ["#### BFS memory, the large consumer example", "",
              f"`check consumer --members 3 --partitions 2,1 --budget 2 --faults crash,pause,lose_response`, "
              f"first {MEMORY_STATES:,} states, each run in a fresh process: peak resident memory growth "
              "during BFS (target: 200 MiB per million states).", "",
              "| store | states | depth | CPU s | peak RSS growth | MiB per million states |",
              "|---|---:|---:|---:|---:|---:|"]
    for exact in (False, True):
        out = subprocess.run([sys.executable, __file__, "--memory-run", "exact" if exact else "fingerprints"],
                             cwd=ROOT, capture_output=True, text=True, check=True)
        m = json.loads(out.stdout)
        mib = m["growth"] / 2 ** 20
        lines.append(f"| {'whole states (`--exact`)' if exact else 'fingerprints'} | {m['states']:,} | {m['depth']} "
                     f"| {m['cpu']:.0f} | {mib:,.0f} MiB | {mib * 1e6 / m['states']:,.0f} |")
    lines.append("")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 seeds, no shrinking")
    parser.add_argument("--protocol", choices=["all", "none", *PROTOCOLS], default="all")
    parser.add_argument("--memory", action="store_true", help="add BFS memory on the large consumer example "
                        "(about 3 minutes of CPU)")
    parser.add_argument("--memory-run", choices=["fingerprints", "exact"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_run:             # one measurement, in the fresh process memory() starts
        print(json.dumps(memory_run(args.memory_run == "exact")))
        return
    started = time.perf_counter()
    lines = [f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, Python {platform.python_version()}, "
             "one core per process.", ""]
    for name in PROTOCOLS:
        if args.protocol in ("all", name):
            lines += [f"### {name}", ""]
            bfs_rates(lines, name)
            records_cost(lines, name)
            if not get(name).variants:      # no known-bug variants (nor Hypothesis suite) yet
                continue
            variants(lines, name, seeds=2 if args.quick else 5, shrink=not args.quick)
            if name == "streams-classic":
                upgrade_plans(lines)
            discards(lines, name)
    if args.memory:
        memory(lines)
    lines.append(f"Benchmark wall time: {time.perf_counter() - started:.0f} s.")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
