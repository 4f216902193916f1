"""Benchmarks of ``groupcheck conform`` (a script, not a timed test).

    python benchmarks/conform_bench.py            # every built-in target, the broken examples, an adapter
    python benchmarks/conform_bench.py --role group-coordinator    # the coordinator role's tables

Per target: raw invocations per second (the implementation called on the distinct inputs
one scope produced, no cache), BFS states and walk steps per second through the
conformance model (the implementation as the leader's assignor, answers cached), and,
where a divergence exists, the time to the first one (BFS, the scopes in their default
order), and the length a walk found it at before and after shrinking next to BFS's
shortest.
"""
from __future__ import annotations

import argparse
import platform
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from groupcheck import checker  # noqa: E402
from groupcheck.console import Limits  # noqa: E402
from groupcheck.conform import driver  # noqa: E402
from groupcheck.conform.roles.assignor import targets  # noqa: E402
from groupcheck.conform.roles.assignor.role import Recorder, conform_model  # noqa: E402
from groupcheck.conform.roles.assignor.scenarios import scopes  # noqa: E402

SCOPE = "kip-792-zombies"
LIMITS = lambda: Limits(200_000, 600, "4GiB")  # noqa: E731


def throughput(target) -> dict:
    rec = Recorder(target)
    model = conform_model(rec)
    sc = scopes(target)[SCOPE]
    t0 = time.perf_counter()
    report = checker.bfs(model, sc)
    bfs_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    walks = checker.walks(model, sc, count=100, length=60)
    walk_s = time.perf_counter() - t0
    inputs = [c.argument for c in rec.calls.values()]
    adapter = target.make()
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < 2.0:
        for arg in inputs:
            adapter.invoke("assignor", "assign", arg)
            n += 1
    raw_s = time.perf_counter() - t0
    rec.close()
    return {"inputs": len(inputs), "inv_per_s": n / raw_s, "bfs_states": report.states,
            "bfs_per_s": report.states / bfs_s, "walk_per_s": walks.states / walk_s}


def first_divergence(target, only=()) -> dict | None:
    t0 = time.perf_counter()
    run = driver.run_target(target, driver.Settings(walks=0, progress_every=1e9, only=only), LIMITS())
    if not run.divergences:
        return None
    d = min(run.divergences, key=lambda d: d.found_after)
    return {"property": d.property, "scope": d.scope_name, "seconds": d.found_after, "bfs_len": len(d.path) - 1,
            "total_s": time.perf_counter() - t0}


def walk_shrink(target, scope: str, prop: str) -> dict | None:
    run = driver.run_target(target, driver.Settings(walks=2000, walk_length=80, progress_every=1e9, only=(scope,),
                                                    bfs=False), LIMITS())
    d = next((d for d in run.divergences if d.property == prop), None)
    if d is None:
        return None
    return {"raw": d.raw_length, "shrunk": len(d.path) - 1, "seconds": d.found_after}


def streams_assignor() -> None:
    """Role streams-assignor: the reference's throughput over every scenario, and the
    first divergence (BFS) and a shrunk walk counterexample of broken task assignors."""
    from groupcheck.conform.roles.streams_assignor import targets as st_targets
    from groupcheck.conform.roles.streams_assignor.recorder import Recorder as SRecorder

    print("\n#### Role streams-assignor\n")
    target = st_targets.builtin("reference:streams-sticky")
    t0 = time.perf_counter()
    run = driver.run_target(target, driver.Settings(walks=100, walk_length=60, progress_every=1e9), LIMITS())
    wall = time.perf_counter() - t0
    states = sum(r.states for s in run.scopes for r in s.reports if r.mode == "bfs")
    walks = sum(r.states for s in run.scopes for r in s.reports if r.mode == "walks")
    rec = SRecorder(target)
    inputs = [c.argument for c in run.recorder.calls.values()]
    adapter = target.make()
    t1, n = time.perf_counter(), 0
    while time.perf_counter() - t1 < 2.0:
        for arg in inputs:
            adapter.invoke("streams-assignor", "assign", arg)
            n += 1
    raw = n / (time.perf_counter() - t1)
    rec.close()
    print("| target | scenarios | distinct inputs | invocations | raw invocations/s | BFS states | walk steps | "
          "scenarios/s | states/s | wall s | divergences |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {target.name} | {len(run.scopes)} | {len(run.recorder.calls):,} | {run.recorder.invocations:,} | "
          f"{raw:,.0f} | {states:,} | {walks:,} | {len(run.scopes) / wall:.2f} | {states / wall:,.0f} | {wall:.1f} | "
          f"{len(run.divergences)} |", flush=True)
    print("\n| broken task assignor (scope forming-crashes) | property | scope | first divergence s | BFS shortest | walk: found at | "
          "shrunk to | walk s |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for cls in ("ActiveOnTwoClients", "DropsLastTask", "StandbyWithItsActive", "ListsOnlyBusyClients"):
        spec = f"python:groupcheck.conform.targets.broken.streams_assignors:{cls}"
        f = first_divergence(st_targets.resolve(spec), only=("forming-crashes",))   # start: empty
        if f is None:
            print(f"| {cls} | - | - | none | - | - | - | - |", flush=True)
            continue
        w = walk_shrink(st_targets.resolve(spec), f["scope"], f["property"])
        walk = f"{w['raw']} | {w['shrunk']} | {w['seconds']:.2f}" if w else "not found | - | -"
        print(f"| {cls} | {f['property']} | {f['scope']} | {f['seconds']:.2f} | {f['bfs_len']} | {walk} |", flush=True)
def coordinator_tables(reference_n: int = 200, mock_n: int = 6) -> None:
    """Role group-coordinator: reference and external-process throughput, the mock's seconds
    per request, and for each broken coordinator the time to its first divergence and the
    divergent scenario's length in steps (raw, shrunk)."""
    import tempfile

    from groupcheck.conform.targets.broken.coordinators import BROKEN
    from groupcheck.conform.roles.group_coordinator import campaign as gc_campaign
    from groupcheck.conform.roles.group_coordinator import targets as gc_targets
    from groupcheck.conform.targets.inprocess.coordinator import ReferenceCoordinator

    out = Path(tempfile.mkdtemp(prefix="gc-bench-"))
    run = lambda t, key, n, **kw: gc_campaign.run_target(  # noqa: E731
        t, key, gc_campaign.Options(scenarios=n, out=out / key.replace(":", "-"), **kw), lambda line: None,
        float("inf"))
    print("#### Role group-coordinator: throughput\n")
    print("| target | scenarios | calls | seconds | scenarios/s | calls/s | s per call | scenarios/min |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    script = Path(__file__).resolve().parents[1] / "tests" / "helpers" / "conform_coordinator_adapter_script.py"
    rows = [("reference", ReferenceCoordinator(), reference_n),
            ("reference (external process)", gc_targets.external(shlex.join([sys.executable, str(script), "ok"]),
                                                                 10.0), reference_n)]
    try:
        from groupcheck.conform.targets.librdkafka.mock_coordinator import MockCoordinator
        rows.append(("librdkafka-mock (no shrinking)", MockCoordinator(), mock_n))
        rows.append(("librdkafka-mock", MockCoordinator(), mock_n))
    except ImportError as e:       # confluent-kafka / kafka-python missing
        print(f"| librdkafka-mock | not run: {e} |")
    for label, t, n in rows:
        v = run(t, label.split()[0] + ("-ext" if "external" in label else ""), n,
                **({"shrink_tries": 10} if label == "librdkafka-mock" else
                   {"max_divergences": 0} if "no shrinking" in label else {}))
        print(f"| {label} | {v.scenarios} | {v.requests} | {v.seconds:.2f} | {v.scenarios / v.seconds:,.1f} | "
              f"{v.requests / v.seconds:,.0f} | {v.seconds / max(1, v.requests):.3f} | "
              f"{60 * v.scenarios / v.seconds:,.0f} |", flush=True)
        for d in v.divergences:
            print(f"|   divergence {d['claim']} | {d['raw_steps']} steps raw | shrunk to {d['steps']} | | | | | |")
    print("\n#### Role group-coordinator: broken coordinators (first divergence, shrinking)\n")
    print("| coordinator | claim | first divergence s | scenarios run | raw steps | shrunk steps | total s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, cls in sorted(BROKEN.items()):
        v = run(cls(), f"broken:{name}", 60, max_divergences=1)
        d = v.divergences[0] if v.divergences else None
        print(f"| {name} | {d['claim'] if d else 'none'} | {v.first_divergence_s} | {v.scenarios} | "
              f"{d['raw_steps'] if d else '-'} | {d['steps'] if d else '-'} | {v.seconds:.2f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="all")
    ap.add_argument("--role", default="all", choices=("all", "assignor", "streams-assignor", "group-coordinator"),
                    help="all: assignor, then streams-assignor, then group-coordinator")
    args = ap.parse_args()
    if args.role == "streams-assignor":
        streams_assignor()
        return
    if args.role == "group-coordinator":
        started = time.perf_counter()
        print(f"Measured on {platform.machine()}, Python {platform.python_version()}, one process.\n")
        coordinator_tables()
        print(f"\nBenchmark wall time: {time.perf_counter() - started:.0f} s.")
        return
    names = targets.builtin_names() if args.targets == "all" else args.targets.split(",")
    started = time.perf_counter()
    print(f"Measured on {platform.machine()}, Python {platform.python_version()}, one process.\n")
    print(f"#### Throughput (scope `{SCOPE}`)\n")
    print("| target | distinct inputs | raw invocations/s | BFS states | BFS states/s | walk steps/s |")
    print("|---|---:|---:|---:|---:|---:|")
    script = Path(__file__).resolve().parents[1] / "tests" / "helpers" / "conform_adapter_script.py"
    adapter_targets = targets.adapter_targets(shlex.join([sys.executable, str(script), "ok"]), 10.0)
    for t in [targets.builtin(n) for n in names] + adapter_targets:
        r = throughput(t)
        label = t.name + (" (external process)" if t.spec.startswith("adapter:") else "")
        print(f"| {label} | {r['inputs']:,} | {r['inv_per_s']:,.0f} | {r['bfs_states']:,} | {r['bfs_per_s']:,.0f} | "
              f"{r['walk_per_s']:,.0f} |", flush=True)

    print("\n#### Time to the first divergence (BFS, default scopes in order) and shrinking of walk counterexamples\n")
    print("| target | property | scope | first divergence s | BFS shortest | walk: found at | shrunk to | walk s |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    cases = [("kafka-python:roundrobin", None), ("kafka-python:cooperative-sticky", None)]
    cases += [(f"python:groupcheck.conform.targets.broken.assignors:{c}", None) for c in
              ("TrustsStaleUserData", "MovesOwnedAtOnce", "TrustsStaleClaims", "AssumesEqualSubscriptions",
               "IgnoresSubscription", "ShufflesMembers")]
    for spec, _ in cases:
        t = targets.resolve(spec)
        f = first_divergence(t)
        if f is None:
            print(f"| {spec} | - | - | none | - | - | - | - |", flush=True)
            continue
        w = walk_shrink(targets.resolve(spec), f["scope"], f["property"])
        walk = (f"{w['raw']} | {w['shrunk']} | {w['seconds']:.2f}" if w else "not found | - | -")
        print(f"| {spec.replace('python:groupcheck.conform.targets.broken.assignors:', '')} | {f['property']} | {f['scope']} | "
              f"{f['seconds']:.2f} | {f['bfs_len']} | {walk} |", flush=True)
    if args.role == "all":
        streams_assignor()
        coordinator_tables()
    print(f"\nBenchmark wall time: {time.perf_counter() - started:.0f} s.")


if __name__ == "__main__":
    main()
