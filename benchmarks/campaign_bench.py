"""groupcheck campaign benchmark: walks per second in process (``--engine local``) and
on Spark in local mode (local[1], local[2]), on the same campaign; prints a markdown table.

    .venv/bin/python benchmarks/campaign_bench.py                  # 2,000 consumer walks of 80 steps
    .venv/bin/python benchmarks/campaign_bench.py --walks 500 --protocol consumer-group

Each engine runs in a fresh process. "campaign" is the wall time of ``run_campaign`` and
``output.finish`` (walks, Parquet, shrinking, traces, report); the Spark session's start
is timed apart. Peak memory is the largest resident set of the process and its children
(the JVM and Spark's Python workers), sampled every 50 ms. The outputs of every engine
are compared with the in-process ones (they must be equal)."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(args) -> None:
    """One engine's run, in this process; prints a JSON line."""
    sys.path.insert(0, str(ROOT))
    import psutil

    from groupcheck.campaign import output
    from groupcheck.campaign.engine import run_campaign, spark_session
    from groupcheck.protocols import get

    me, peak, stop = psutil.Process(), [0], threading.Event()

    def sample():
        while not stop.wait(0.05):
            total = 0
            for p in [me] + me.children(recursive=True):
                try:
                    total += p.memory_info().rss
                except psutil.Error:
                    pass
            peak[0] = max(peak[0], total)

    threading.Thread(target=sample, daemon=True).start()
    model = get(args.protocol).model
    scope = model.view.scope_to_dict(model.view.default_scope())
    started = time.perf_counter()
    master = None if args.engine == "local" else args.engine
    if master:
        spark_session(master)
    session = time.perf_counter() - started
    out = Path(args.out)
    started = time.perf_counter()
    results = run_campaign(args.protocol, scope, None, range(args.walks), args.length, out,
                           engine="local" if master is None else "spark", master=master or "local[*]")
    output.finish(out, results)
    seconds = time.perf_counter() - started
    stop.set()
    print(json.dumps({"engine": args.engine, "session": session, "seconds": seconds, "walks": results.walks,
                      "steps": results.steps, "states": results.distinct_states, "peak": peak[0]}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--protocol", default="consumer")
    ap.add_argument("--walks", type=int, default=2000)
    ap.add_argument("--length", type=int, default=80)
    ap.add_argument("--engine", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.engine:
        child(args)
        return
    from groupcheck.campaign import output
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYTHONPATH": str(ROOT)}
    rows, outs = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for engine in ("local", "local[1]", "local[2]"):
            out = Path(tmp) / engine.replace("[", "").replace("]", "")
            done = subprocess.run([sys.executable, __file__, "--protocol", args.protocol, "--walks", str(args.walks),
                                   "--length", str(args.length), "--engine", engine, "--out", str(out)],
                                  env=env, capture_output=True, text=True, check=True)
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
            outs[engine] = {name: output.read(out, name) for name in ("coverage", "violations", "distinct")}
    same = all(outs[e] == outs["local"] for e in outs)
    base = rows[0]["walks"] / rows[0]["seconds"]
    print(f"{args.walks:,} {args.protocol} walks of up to {args.length} steps ({rows[0]['steps']:,} steps, "
          f"{rows[0]['states']:,} distinct states); {os.cpu_count()} CPUs; outputs equal across engines: {same}\n")
    print("| engine | session start | campaign | walks/s | vs in-process | peak memory (process tree) |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        rate = r["walks"] / r["seconds"]
        name = "in-process (`--engine local`)" if r["engine"] == "local" else f"Spark `{r['engine']}`"
        start = "-" if r["engine"] == "local" else f"{r['session']:.1f} s"
        print(f"| {name} | {start} | {r['seconds']:.1f} s | {rate:,.0f} | {rate / base:.2f}x | "
              f"{r['peak'] / 2**20:,.0f} MiB |")
    spark1 = rows[1]["walks"] / rows[1]["seconds"]
    spark2 = rows[2]["walks"] / rows[2]["seconds"]
    print(f"\nspeed-up local[2] over local[1]: {spark2 / spark1:.2f}x")


if __name__ == "__main__":
    main()
