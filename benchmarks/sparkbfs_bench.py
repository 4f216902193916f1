"""BFS in process vs BFS on Spark (``groupcheck check --engine spark``) on one scope.

    SPARK_LOCAL_IP=127.0.0.1 .venv/bin/python benchmarks/sparkbfs_bench.py
    .venv/bin/python benchmarks/sparkbfs_bench.py --protocol consumer --scope cooperative --masters 'local[1]' 'local[2]'

Each engine runs in a fresh process; a thread samples, every 0.2 s, the resident memory
of that process and all its children (the JVM and Spark's Python workers), and the peak
is reported. Prints a markdown table: distinct states, depth, seconds, states/s, peak
memory. The states and depth must agree between the engines.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _tree_rss(proc) -> int:
    import psutil
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def child(protocol: str, scope_name: str, engine: str, master: str) -> None:
    """Run one search in this process; print its figures as JSON."""
    import os

    import psutil

    from groupcheck import checker
    from groupcheck.protocols import get

    me, peak, done = psutil.Process(), [0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(me))
            time.sleep(0.2)

    threading.Thread(target=sample, daemon=True).start()
    p = get(protocol)
    scope = p.default_scopes()[scope_name]
    if engine == "spark":
        from groupcheck import sparkbfs
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        sparkbfs.session(master)
        started = time.perf_counter()
        report = sparkbfs.spark_bfs(protocol, p.model.view.scope_to_dict(scope), master=master)
    else:
        started = time.perf_counter()
        report = checker.bfs(p.model, scope)
    seconds = time.perf_counter() - started
    done.set()
    peak[0] = max(peak[0], _tree_rss(me))
    print(json.dumps({"states": report.states, "depth": report.depth, "transitions": report.transitions,
                      "seconds": seconds, "peak": peak[0], "complete": report.complete}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--protocol", default="consumer")
    parser.add_argument("--scope", default="cooperative")
    parser.add_argument("--masters", nargs="*", default=["local[1]", "local[2]"])
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.protocol, args.scope, *args.child)
        return
    rows = []
    for engine, master in [("local", "none"), *(("spark", m) for m in args.masters)]:
        out = subprocess.run([sys.executable, __file__, "--protocol", args.protocol, "--scope", args.scope,
                              "--child", engine, master], capture_output=True, text=True)
        if out.returncode:
            sys.exit(f"{engine} {master} failed:\n{out.stderr[-3000:]}")
        r = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append((engine if engine == "local" else f"spark {master}", r))
        print(f"{rows[-1][0]}: {r}", file=sys.stderr, flush=True)
    print(f"`{args.protocol}/{args.scope}` (session start not counted; peak: the process and its children)\n")
    print("| engine | states | depth | seconds | states/s | peak memory |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in rows:
        print(f"| {name} | {r['states']:,} | {r['depth']} | {r['seconds']:.1f} | {r['states'] / r['seconds']:,.0f} "
              f"| {r['peak'] / 2 ** 20:,.0f} MiB |")
    if len({(r["states"], r["depth"]) for _, r in rows}) != 1:
        sys.exit("the engines disagree on states or depth")


if __name__ == "__main__":
    main()
