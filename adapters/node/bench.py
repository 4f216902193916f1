"""Invocations per second of the kafkajs adapter over its stdio pipe.

    python adapters/node/bench.py [--calls N] [--rounds R] [--driver]

Starts ``node adapters/node/adapter.js`` (no shell), opens, sets up roundrobin, then
times N ``invoke f=assign`` round trips (one request written, its reply read and
parsed, no pipelining) for each scenario size, R rounds each, and prints the median
and the range. Start-up (process spawn to hello) is timed separately. ``--driver``
makes the round trips through the conformance driver's ``ProcessAdapter`` instead,
which also validates each request and reply against the schemas in Python.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import time
from pathlib import Path

ADAPTER = Path(__file__).resolve().parent / "adapter.js"


def scenario(members: int, topics: int, partitions: int) -> dict:
    names = [f"t{i}" for i in range(topics)]
    return {"topics": dict.fromkeys(names, partitions),
            "members": [{"member_id": f"consumer-{i:03d}", "topics": names, "owned_partitions": [],
                         "generation": -1, "user_data": None} for i in range(1, members + 1)]}


class Session:
    def __init__(self):
        self.proc = subprocess.Popen([shutil.which("node") or "node", str(ADAPTER)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self.id = 0

    def ask(self, request: dict) -> dict:
        request = {**request, "id": self.id}
        self.id += 1
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if reply["type"] != "ok":
            raise SystemExit(f"{request['op']}: {reply}")
        return reply

    def close(self) -> None:
        self.ask({"op": "close"})
        self.proc.wait(timeout=30)


class Driven:
    """The same session through groupcheck.conform.targets.adapter.process.ProcessAdapter."""

    def __init__(self):
        from groupcheck.conform.targets.adapter.process import ProcessAdapter
        self.adapter = ProcessAdapter([shutil.which("node") or "node", str(ADAPTER)])

    def ask(self, request: dict) -> dict:
        op = request["op"]
        if op == "open":
            hello = self.adapter.open()
            return {"value": {"version": hello.version, **hello.extra}}
        if op == "setup":
            out = self.adapter.setup(request["role"], request["config"])
        else:
            out = self.adapter.invoke(request["role"], request["f"], request["value"])
        if not out.ok:
            raise SystemExit(f"{op}: {out}")
        return {"value": out.value}

    def close(self) -> None:
        self.adapter.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--driver", action="store_true", help="go through the conformance driver's ProcessAdapter")
    args = parser.parse_args()
    Session_ = Driven if args.driver else Session

    starts = []
    for _ in range(args.rounds):
        t = time.perf_counter()
        s = Session_()
        hello = s.ask({"op": "open", "protocol": 1})["value"]
        starts.append(time.perf_counter() - t)
        s.close()
    print(f"kafkajs {hello['version']} on {hello['runtime']}{' via ProcessAdapter' if args.driver else ''}: start-up to hello "
          f"median {statistics.median(starts) * 1000:.0f} ms (range {min(starts) * 1000:.0f}-{max(starts) * 1000:.0f})")

    s = Session_()
    s.ask({"op": "open", "protocol": 1})
    s.ask({"op": "setup", "role": "assignor", "config": {"assignor": "roundrobin"}})
    for members, topics, partitions in [(2, 2, 2), (3, 2, 4), (10, 5, 20)]:
        request = {"op": "invoke", "role": "assignor", "f": "assign", "value": scenario(members, topics, partitions)}
        for _ in range(50):                                       # warm up the JIT
            s.ask(request)
        rates = []
        for _ in range(args.rounds):
            t = time.perf_counter()
            for _ in range(args.calls):
                s.ask(request)
            rates.append(args.calls / (time.perf_counter() - t))
        print(f"assign {members} members x {topics} topics x {partitions} partitions: "
              f"median {statistics.median(rates):,.0f} invocations/s (range {min(rates):,.0f}-{max(rates):,.0f}; "
              f"{args.rounds} rounds of {args.calls})")
    s.close()


if __name__ == "__main__":
    main()
