"""How fast `groupcheck trace-check` validates groups: the local engine against Spark.

Generates a fleet (``groupcheck.tracecheck.fleet``: consumer-group and consumer groups,
some from known-bug variants, some corrupted), then validates it with the local engine
and with Spark (``--master``, default local[2]): a cold run (the session started inside
the timing, as the CLI does) and a warm one (the session already up). Peak memory is the
largest resident set of this process and its children (Spark's JVM and Python workers),
sampled every 50 ms.

    python benchmarks/tracecheck_bench.py                      # 200 groups, local[2]
    python benchmarks/tracecheck_bench.py --groups 1000 --master 'local[4]'

Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from groupcheck.tracecheck import engine, fleet  # noqa: E402


class Peak:
    """The largest resident set of this process tree while the block runs."""

    def __enter__(self):
        self.peak, self.done = 0, threading.Event()
        me = psutil.Process()

        def sample():
            while not self.done.is_set():
                total = 0
                for p in [me] + me.children(recursive=True):
                    try:
                        total += p.memory_info().rss
                    except psutil.Error:
                        pass
                self.peak = max(self.peak, total)
                time.sleep(0.05)
        self.thread = threading.Thread(target=sample, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--groups", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--max-states", type=int, default=200_000)
    args = ap.parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        t = time.perf_counter()
        manifest = fleet.generate(d, args.groups, args.seed)
        gen = time.perf_counter() - t
        events = sum(g["events"] for g in manifest["groups"])
        src = [d / "histories.jsonl"]
        rows = []
        with Peak() as p:
            t = time.perf_counter()
            local = engine.run_local(src, args.max_states)
            rows.append(("local (in-process)", time.perf_counter() - t, p))
        with Peak() as p:
            t = time.perf_counter()
            cold = engine.run_spark(src, args.max_states, master=args.master)
            rows.append((f"spark {args.master}, cold (session started)", time.perf_counter() - t, p))
        spark = engine.spark_session(args.master)
        spark.range(1).count()
        with Peak() as p:
            t = time.perf_counter()
            warm = engine.run_spark(src, args.max_states, spark=spark)
            rows.append((f"spark {args.master}, warm (session up)", time.perf_counter() - t, p))
        spark.stop()
    strip = lambda rs: [{k: v for k, v in r.items() if k != "seconds"} for r in rs]   # noqa: E731
    assert strip(local) == strip(cold) == strip(warm), "the engines disagree"
    summary = engine.summary(local)
    in_search = sum(r["seconds"] for r in local)
    print(f"{args.groups} groups, {events:,} events (generated in {gen:.1f} s); verdicts {summary['verdicts']}; "
          f"validation alone {in_search:.2f} s (sum over groups, local); {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} at the end\n")
    print("| engine | seconds | groups/s | peak memory (process tree) |")
    print("|---|---:|---:|---:|")
    for name, seconds, p in rows:
        print(f"| {name} | {seconds:.2f} | {args.groups / seconds:,.0f} | {p.peak / 2**20:,.0f} MiB |")


if __name__ == "__main__":
    main()
