"""A standalone reproduction script for a record divergence (issue 30: a record lost or
processed twice by real clients).

``write`` puts ``repro_<stem>.py`` next to the divergence's trace and regression file, as
``repro.py`` does for the group claims. The record layer runs the harness's own code --
the worker application (``targets/clients/worker.py``, ``app_records.py``), the process
group and its producer (``group.py``, ``records_io.py``), librdkafka's mock cluster
(``targets/librdkafka/mock*.py``) and the judge (``claims_records.py`` over
``model/delivery``) -- so the script carries that code verbatim instead of restating it:
each module's source, the import closure of those roots inside ``groupcheck`` (stdlib
and the client libraries outside it), is one JSON string, and a meta path finder in the
script serves them under their own names. It needs no groupcheck, only the client library
(kafka-python too for the harness's producer on a user's broker; confluent-kafka on the
mock). The script runs itself once per member as a worker (``--worker``), replays the
shrunk scenario (on ``--bootstrap HOST:PORT``, or on a mock cluster it starts for a
``librdkafka`` target), judges the records and prints expected vs observed.
Exit 1: it shows; 0: it does not; 2: bad usage or the broker could not be used.

Every value reaches the script as ``json.loads(<repr of a JSON string>)`` or as a ``repr``
in a comment line, never as code.
"""
from __future__ import annotations

import ast
import json
from functools import cache
from pathlib import Path

from jinja2 import Environment, StrictUndefined

from groupcheck.outputs import atomic_write_text

from ...dedupe import signature
from ...judgements import judgement

PACKAGE_ROOT = Path(__file__).resolve().parents[4]          # the folder holding groupcheck/
ROOTS = ("groupcheck.conform.roles.consumer_client.claims_records", "groupcheck.conform.targets.clients.worker",
         "groupcheck.conform.targets.clients.group", "groupcheck.conform.targets.clients.records_io",
         "groupcheck.conform.targets.librdkafka.mock_broker", "groupcheck.conform.dedupe")

# Each record claim as the model states it (model/delivery/claims.py; what the script prints as "expected").
RULES = {
    "no_record_lost": "every record below the group's committed offset was processed by a member that owned its "
                      "partition then (KafkaConsumer javadoc: otherwise 'the committed offset [gets] ahead of the "
                      "consumed position, which results in missing records')",
    "no_duplicate_without_failure": "a record is processed again only after a fault struck the member that processed "
                                    "it (KafkaConsumer javadoc: 'at-least-once ... in failure cases could be "
                                    "duplicated')",
    "commits_fenced_after_handover": "an offset commit of a partition reassigned to another member is refused "
                                     "(KAFKA-19779: the coordinator fences zombie commit requests)",
    "fetch_stops_at_revocation": "no record of a partition is returned to or processed by a member after its "
                                 "revocation started (ConsumerRebalanceListener#onPartitionsRevoked)",
}


def _file(module: str) -> tuple[Path, bool] | None:
    base = PACKAGE_ROOT / module.replace(".", "/")
    if (base / "__init__.py").is_file():
        return base / "__init__.py", True
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py"), False
    return None


def _imports(module: str, source: str, package: bool) -> list[str]:
    """The groupcheck modules ``source`` imports (relative imports resolved)."""
    here = module.split(".") if package else module.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
            out += [base] + [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names]
    return [m for m in out if m.split(".")[0] == "groupcheck"]


@cache
def sources() -> dict[str, list]:
    """module -> [is a package, its source] for the import closure of ``ROOTS``."""
    found: dict[str, list] = {}
    todo = list(ROOTS)
    while todo:
        module = todo.pop()
        located = None if module in found else _file(module)
        if located is None:
            continue
        path, package = located
        text = path.read_text(encoding="utf-8")
        found[module] = [package, text]
        parts = module.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))] + _imports(module, text, package)
    return dict(sorted(found.items()))


def source(target: str, settings: dict, scenario: list[dict], claim: str, message: str,
           settle_budget_s: float) -> str | None:
    """The script's text, or None for a claim that is not a record claim, a client with no
    Python worker (kafkajs) or a scenario with an operation the script does not replay."""
    if claim not in RULES or settings["client"] not in ("kafka-python", "confluent-kafka", "aiokafka") \
            or any(op["op"] == "grow_topic" for op in scenario):
        return None
    verdict = judgement(target, claim, signature(message))
    data = {"target": target, "claim": claim, "message": message, "expected": RULES[claim], "settings": settings,
            "scenario": scenario, "settle_budget_s": round(settle_budget_s, 1)}
    return _template().render(
        target_repr=repr(target), claim_repr=repr(claim), message_repr=repr(message),
        judgement_repr=repr(verdict["judgement"]), decided_by_repr=repr(verdict["decided_by"]),
        needs=repr(_needs(settings)), data_literal=repr(json.dumps(data)),
        sources_literal=repr(json.dumps(sources())), modules=len(sources()))


def _needs(settings: dict) -> str:
    libs = {settings["client"], settings.get("harness") or "kafka-python"}
    return " ".join(sorted(libs))


def write(files: list[str], target: str, settings: dict, scenario: list[dict], claim: str, message: str,
          settle_budget_s: float) -> str | None:
    """Write the script next to ``files[0]`` (the ITF trace) as ``repro_<its stem>.py``; its
    path, or None (see ``source``)."""
    text = source(target, settings, scenario, claim, message, settle_budget_s)
    if text is None:
        return None
    trace = Path(files[0])
    path = trace.with_name("repro_" + trace.name.removesuffix(".itf.json").replace("-", "_") + ".py")
    atomic_write_text(path, text, force=True)
    return str(path)


@cache
def _template():
    return Environment(autoescape=False, undefined=StrictUndefined, keep_trailing_newline=True).from_string(TEMPLATE)


TEMPLATE = '''#!/usr/bin/env python3
# Standalone reproduction of a record divergence found by `groupcheck conform` (issue 30):
# real consumers, each its own OS process (this script run with --worker), process numbered records
# and commit them by a policy; the harness produces, applies the faults, reads the final offsets,
# and judges what happened to every record. It needs no groupcheck: the harness's and the judge's
# code travel below, verbatim ({{ modules }} modules of groupcheck, served by a finder), and only
# {{ needs }} must be installed (pip install {{ needs }}).
# Run: python3 THIS --bootstrap HOST:PORT   (a target on librdkafka's mock starts its own mock: no --bootstrap)
# Exit 1: the divergence shows; 0: it does not; 2: bad usage or the broker could not be used.
# Target: {{ target_repr }}; claim: {{ claim_repr }}
# Observed in the run: {{ message_repr }}
# Judgement: {{ judgement_repr }}
# Decided by: {{ decided_by_repr }}
import argparse
import importlib.abc
import importlib.util
import json
import os
import sys
import uuid

DATA = json.loads({{ data_literal }})
SOURCES = json.loads({{ sources_literal }})


class Vendored(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the groupcheck modules carried above under their own names, and refuses any other
    groupcheck module (an installed groupcheck is never used)."""

    def find_spec(self, name, path=None, target=None):
        if name in SOURCES:
            return importlib.util.spec_from_loader(name, self, is_package=SOURCES[name][0])
        if name.split(".")[0] == "groupcheck":      # never an installed groupcheck: only what travels here
            raise ImportError(name + " is not carried by this script")
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        package, text = SOURCES[module.__name__]
        where = os.path.join(os.path.dirname(os.path.abspath(__file__)), *module.__name__.split("."))
        module.__file__ = os.path.join(where, "__init__.py") if package else where + ".py"   # never read
        if package:
            module.__path__ = []
        exec(compile(text, module.__file__, "exec"), module.__dict__)


class UserBroker:
    """The broker given by --bootstrap: a fresh topic per run (CreateTopics)."""

    def __init__(self, bootstrap):
        self.bootstrap = bootstrap

    def new_topic(self, partitions):
        topic = "repro-" + uuid.uuid4().hex[:10]
        try:
            from confluent_kafka.admin import AdminClient, NewTopic
            AdminClient({"bootstrap.servers": self.bootstrap}).create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
        except ImportError:
            from kafka.admin import KafkaAdminClient, NewTopic
            admin = KafkaAdminClient(bootstrap_servers=self.bootstrap)
            try:
                admin.create_topics([NewTopic(topic, partitions, 1)])
            finally:
                admin.close()
        return topic, topic + "-group"

    def close(self):
        pass


def perform(group, op, budget_s):
    """One operation by the harness's real means (groupcheck's runner_broker.execute)."""
    name, member = op["op"], op.get("member")
    group.record("op", op=name, args={k: v for k, v in op.items() if k != "op"})
    if name == "join":
        group.join(member)
    elif name == "close":
        group.close(member)
    elif name in ("stall", "resume", "commit"):
        group.command(member, name)
    elif name in ("kill", "sigstop", "sigcont"):
        group.signal(member, name)
    elif name == "wait":
        group.wait(op["seconds"])
    elif name == "produce":
        group.produce(op["count"])
    elif name in ("hold", "grab"):
        group.hold(member, before_processing=name == "grab")
    elif name == "settle":
        ok, took = group.settle(min(op["max_s"], budget_s), 1.5)
        group.record("op", op="settled", args={"ok": ok, "max_s": op["max_s"], "seconds": round(took, 1)})
    else:
        raise ValueError(name + ": not an operation this script replays")


def replay(bootstrap):
    """Run the scenario; the judgement of its events, or an error line."""
    from groupcheck.conform.roles.consumer_client.claims_records import judge
    from groupcheck.conform.targets.clients import group as G
    G.worker_command = lambda client: [sys.executable, os.path.abspath(__file__), "--worker"]
    settings = G.Settings(**{k: v for k, v in DATA["settings"].items() if k in G.Settings.__dataclass_fields__})
    if settings.mock:
        from groupcheck.conform.targets.librdkafka.mock_broker import MockBroker
        broker = MockBroker(settings.group_protocol, settings.session_timeout_ms, settings.heartbeat_interval_ms)
        broker.open()
    elif bootstrap is None:
        return None, "this target runs on a broker you start: give --bootstrap HOST:PORT"
    else:
        broker = UserBroker(bootstrap)
    try:
        topic, group_id = broker.new_topic(settings.partitions)
        group = G.ProcessGroup(settings, broker.bootstrap, group_id, topic)
        print(settings.client + " (" + settings.assignor + ", policy " + settings.commit_policy + ") on "
              + broker.bootstrap + ", topic " + topic + "; " + str(len(DATA["scenario"])) + " operations", flush=True)
        try:
            for op in DATA["scenario"]:
                perform(group, op, DATA["settle_budget_s"])
        finally:
            try:
                group.shutdown()
            finally:
                group.kill_all()
        group.final_offsets()
        return judge(group.events, policy=settings.commit_policy, stride=settings.partitions), None
    finally:
        broker.close()


def main():
    sys.meta_path.insert(0, Vendored())
    if sys.argv[1:2] == ["--worker"]:
        from groupcheck.conform.targets.clients import worker
        worker.main(sys.argv[2:])
        return 0
    p = argparse.ArgumentParser(description="Reproduce a record divergence (" + DATA["claim"] + ")")
    p.add_argument("--bootstrap", help="HOST:PORT of a broker you started (Tansu or Kafka)")
    a = p.parse_args()
    try:
        j, error = replay(a.bootstrap)
    except KeyboardInterrupt:
        print("INTERRUPTED: every worker is stopped; nothing judged")
        return 130
    except Exception as e:  # noqa: BLE001 - one line, never a traceback
        j, error = None, type(e).__name__ + ": " + str(e)
    if j is None:
        print("error: " + error, file=sys.stderr)
        return 2
    from groupcheck.conform.dedupe import signature
    result = j.results[DATA["claim"]]
    print("claim:", DATA["claim"])
    print("expected:", DATA["expected"])
    print("observed in the run:", DATA["message"])
    print("records now:", json.dumps(j.tally.counts()))
    if result.violations:
        print("observed now:", "; ".join(v[2] for v in result.violations[:3]))
        same = any(signature(v[2]) == signature(DATA["message"]) for v in result.violations)
        print("REPRODUCED" + ("" if same else ", DIFFERENTLY: the claim fails, but not as in the run") + " (exit 1)")
        return 1
    print("observed now:", result.verdict(), "(" + str(result.checks) + " checks)")
    print("NOT REPRODUCED (exit 0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''
