"""Run Apache Kafka's Java consumer (built by ``adapters/java/build.sh``) on Tansu through
the consumer-client harness, and count the records it lost or processed twice.

    GROUPCHECK_JAVA_CLIENT=/tmp/kafka-java-3.9 PYTHONPATH=. python adapters/java/handover.py \\
        --runs 5 --out /tmp/java-handover.json [--target cooperative-sticky+auto ...]
        [--scenario handover-while-producing | records-join | records-kill-after-hold ...]
        [--process-ms 5] [--max-poll-records 5]

Each run is one scenario on a fresh topic and group (``runner_broker.run_scenario``: one
worker process per member, ``targets/clients/group.py``), judged by
``roles/consumer_client/claims_records.py``. ``handover-while-producing`` is the cooperative
handover of the FINDING ``cooperative-auto-commit-redelivers``
(``properties/known_bugs/consumer.py``): c1 owns both partitions and is processing, c2 joins
while records keep coming, one partition moves. The application is slow on purpose (it
sleeps ``--process-ms`` per record, polls at most ``--max-poll-records``), so poll() keeps
returning records during the rebalance. One line per run on stdout; in ``--out`` (JSON, a
new file) every run with its duplicates and its events. Exit 0 when every run held every
claim, 1 when one did not, 2 on bad input, 3 when no broker started, 130 / 143 when
interrupted (what ran is kept).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

from groupcheck.console import BAD_INPUT, FAILED, NOT_PROVED, PASSED, signal_code
from groupcheck.conform.roles.consumer_client.runner_broker import run_scenario
from groupcheck.conform.roles.consumer_client.scenarios_broker import records_named
from groupcheck.conform.targets.clients.broker import Broker
from groupcheck.conform.targets.clients.group import JAVA_CLIENTS, Settings, worker_command

HANDOVER = ([{"op": "join", "member": "c1"}, {"op": "produce", "count": 20}, {"op": "settle", "max_s": 60},
             {"op": "join", "member": "c2"}]
            + [op for _ in range(12) for op in ({"op": "produce", "count": 2}, {"op": "wait", "seconds": 0.5})]
            + [{"op": "settle", "max_s": 60}, {"op": "produce", "count": 2}, {"op": "wait", "seconds": 4}])
SCENARIOS = {"handover-while-producing": HANDOVER, **{name: sc for name, sc, _ in records_named()}}
TARGETS = ("cooperative-sticky+auto", "cooperative-sticky+sync-on-revoke", "range+auto")
POLICIES = ("auto", "sync-on-revoke", "after-processing", "none")


class Interrupted(BaseException):      # not an Exception: the broker's "except Exception" lets it by
    def __init__(self, signum: int):
        self.signum = signum


def parse_target(text: str) -> Settings:
    """``ASSIGNOR+POLICY`` as Settings for the client java (two partitions)."""
    assignor, _, policy = text.partition("+")
    if assignor not in JAVA_CLIENTS["java"] or policy not in POLICIES:
        raise ValueError(f"target {text!r}: give ASSIGNOR+POLICY, ASSIGNOR one of "
                         f"{', '.join(JAVA_CLIENTS['java'])}, POLICY one of {', '.join(POLICIES)}")
    return Settings(client="java", assignor=assignor, commit_policy=policy, partitions=2)


def one_run(broker, target: str, scenario: str, run: int) -> dict:
    r = run_scenario(SCENARIOS[scenario], parse_target(target), broker)
    counts = r.records.tally.counts() if r.records else {}
    revokes = sum(1 for e in r.events if e["kind"] == "revoke")
    auto_commits = sum(1 for e in r.events if e["kind"] == "commit" and e.get("auto"))
    return {"target": target, "scenario": scenario, "run": run, "error": r.error, "seconds": round(r.seconds, 1),
            "violated": r.records.violated() if r.records else None, "counts": counts,
            "duplicates": sorted({(d[0], d[1]) for d in r.records.tally.duplicated}) if r.records else [],
            "revoke_callbacks": revokes, "auto_commits": auto_commits,
            "processed": sum(1 for e in r.events if e["kind"] == "processed"), "events": r.events}


def version(path: Path) -> str:
    """The kafka-clients version build.sh wrote, or "unknown"."""
    try:
        return path.read_text(errors="replace").strip()[:100]
    except OSError:
        return "unknown"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="adapters/java/handover.py")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--target", action="append", help=f"ASSIGNOR+POLICY (default: {', '.join(TARGETS)})")
    p.add_argument("--scenario", default="handover-while-producing", choices=sorted(SCENARIOS))
    p.add_argument("--process-ms", type=int, default=5)
    p.add_argument("--max-poll-records", type=int, default=5)
    p.add_argument("--out", required=True, help="a new JSON file for every run's figures")
    a = p.parse_args(argv)
    try:
        targets = a.target or list(TARGETS)
        for t in targets:
            parse_target(t)
        if not 1 <= a.runs <= 100 or not 0 <= a.process_ms <= 1000 or not 1 <= a.max_poll_records <= 10_000:
            raise ValueError("--runs 1..100, --process-ms 0..1000, --max-poll-records 1..10000")
        if Path(a.out).exists() or not Path(a.out).parent.is_dir():
            raise ValueError(f"--out {a.out}: give a new file in an existing folder (nothing is overwritten)")
        worker_command("java")
    except ValueError as e:
        print(f"handover: {e}", file=sys.stderr)
        return BAD_INPUT
    os.environ["GROUPCHECK_JAVA_PROCESS_MS"] = str(a.process_ms)
    os.environ["GROUPCHECK_JAVA_MAX_POLL_RECORDS"] = str(a.max_poll_records)

    def stop(signum, frame):
        raise Interrupted(signum)
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, stop)
    results, code, broker = [], PASSED, None
    try:
        try:
            broker = Broker().open()
        except Exception as e:  # noqa: BLE001 - Tansu did not start: one line, nothing ran
            print(f"handover: no broker: {type(e).__name__}: {e}", file=sys.stderr)
            return NOT_PROVED
        for target in targets:
            for run in range(1, a.runs + 1):
                res = one_run(broker, target, a.scenario, run)
                results.append(res)
                print(json.dumps({k: v for k, v in res.items() if k not in ("duplicates", "events")}), flush=True)
                if res["error"] or res["violated"]:
                    code = FAILED
    except Interrupted as e:
        code = signal_code(e.signum)
    finally:
        if broker is not None:
            broker.close()
        with open(a.out, "x") as f:
            json.dump({"scenario": a.scenario, "process_ms": a.process_ms, "max_poll_records": a.max_poll_records,
                       "client": version(Path(os.environ["GROUPCHECK_JAVA_CLIENT"]) / "VERSION"),
                       "runs": results}, f, indent=1)
    return code


if __name__ == "__main__":
    sys.exit(main())
