"""A standalone reproduction script for a divergence of real clients on a broker.

``write`` puts ``repro_<stem>.py`` next to the divergence's trace and regression file: a
script that needs no groupcheck, only the client library (kafka-python,
confluent-kafka or aiokafka). It runs itself once per member as a worker (the worker code of
``targets/clients/worker.py``, restated), creates a fresh topic on the broker given by
``--bootstrap HOST:PORT`` (the user starts Tansu or Kafka), replays the shrunk scenario
with the same waits (a settle waits until the clients' own assignments agree, at most
its budget), judges the events with claims.py's own text (inlined, as the assignor
scripts do) and prints the diverging claim's expected and observed. Exit 1: it shows;
0: it does not; 3: a settle never came and the claim is not about settling.

The script is the Jinja2 template groupcheck/templates/repro_consumer_client.py.txt;
every value reaches it as ``json.loads(<repr of a JSON string>)`` or as a ``repr`` in a
comment line, never as code.

kafkajs runs in Node.js, so its script is a Node script (``repro_<stem>.js``, template
repro_consumer_client_kafkajs.js.txt: needs only kafkajs): the worker is
adapters/node/consumer-worker.js verbatim, the harness restated in JavaScript, and the
judge restates only ``settles_fully_owned`` (the claim kafkajs diverged on: Tansu's R4);
another kafkajs claim gets no script. Values reach it as ``JSON.parse(<a JSON string>)``
and as JSON in comment lines (``ensure_ascii``: no raw line break can end a comment).
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from groupcheck.outputs import atomic_write_text

from ...dedupe import signature
from ...judgements import judgement
from . import claims as C

LIBRARIES = {"kafka-python": "kafka-python", "confluent-kafka": "confluent-kafka", "aiokafka": "aiokafka"}
NODE_CLAIMS = ("settles_fully_owned",)          # what the Node script's judge restates
NODE_WORKER = Path(__file__).resolve().parents[4] / "adapters" / "node" / "consumer-worker.js"

# Each claim as the protocol states it (what the script prints as "expected").
RULES = {
    "no_double_ownership": "no two live, current members own a partition at once (KIP-429: a partition is "
                           "reassigned only after its owner revoked it)",
    "revoke_before_reassign": "a partition is assigned to a member only once its previous owner has revoked it or "
                              "left the group (KIP-429; ConsumerCoordinator.onJoinPrepare)",
    "callbacks_consistent": "EAGER: on_partitions_revoked revokes everything owned, once, before the rejoin, and "
                            "on_partitions_assigned comes with nothing owned (Java ConsumerCoordinator.onJoinPrepare: "
                            "revoke all, then subscriptions.assignFromSubscribed(emptySet)); COOPERATIVE (KIP-429): "
                            "on_assign names only newly added partitions; no callback names a partition not owned",
    "lost_only_when_fenced": "on_partitions_lost only when the member was fenced: its session expired, it exceeded "
                             "max.poll.interval.ms, or the coordinator rejected its generation (KIP-429, "
                             "ConsumerRebalanceListener#onPartitionsLost)",
    "settles_fully_owned": "once faults stop, the group settles (a stopped member is removed after session.timeout.ms: "
                           "GroupCoordinator.onExpireHeartbeat, static or not, KIP-345) and every partition is owned "
                           "by exactly one live member",
    "converges_within_k": "a membership change settles within one rebalance (EAGER) or two (COOPERATIVE, KIP-429)",
    "commits_fenced": "an OffsetCommit with a generation behind the group's is refused (ILLEGAL_GENERATION / "
                      "UNKNOWN_MEMBER_ID / REBALANCE_IN_PROGRESS: GroupCoordinator.handleCommitOffsets)",
}


@cache
def _template(name: str = "repro_consumer_client.py.txt"):
    return Environment(loader=PackageLoader("groupcheck", "templates"), autoescape=False, undefined=StrictUndefined,
                       keep_trailing_newline=True).get_template(name)


@cache
def _claims_source() -> str:
    """claims.py's text without its ``__future__`` import: the script judges the clients'
    callbacks by the very functions the run judged them by."""
    text = Path(C.__file__).read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if line != "from __future__ import annotations")


def source(target: str, settings: dict, scenario: list[dict], claim: str, message: str,
           settle_budget_s: float) -> str | None:
    """The script's text (Python, or Node.js for kafkajs), or None when there is none for
    this client or claim."""
    node = settings["client"] == "kafkajs"
    if claim not in RULES or (settings["client"] not in LIBRARIES and not (node and claim in NODE_CLAIMS)):
        return None
    verdict = judgement(target, claim, signature(message))
    keep = ("client", "assignor", "static", "broken", "partitions", "session_timeout_ms", "heartbeat_interval_ms",
            "max_poll_interval_ms")
    data = {"target": target, "claim": claim, "message": message, "expected": RULES[claim],
            "settings": {k: settings[k] for k in keep}, "scenario": scenario,
            "settle_budget_s": round(min(settle_budget_s, settings.get("op_bound_s", settle_budget_s)), 1),
            "judgement": verdict["judgement"], "decided_by": verdict["decided_by"]}
    if node:
        worker = NODE_WORKER.read_text(encoding="utf-8").removeprefix("#!/usr/bin/env node\n")
        return _template("repro_consumer_client_kafkajs.js.txt").render(
            target_json=json.dumps(target), claim_json=json.dumps(claim), message_json=json.dumps(message),
            judgement_json=json.dumps(verdict["judgement"]), decided_by_json=json.dumps(verdict["decided_by"]),
            rule_json=json.dumps(RULES[claim]), data_literal=json.dumps(json.dumps(data)), worker_source=worker)
    return _template().render(
        client=settings["client"], needs=LIBRARIES[settings["client"]], target_repr=repr(target),
        claim_repr=repr(claim), message_repr=repr(message), judgement_repr=repr(verdict["judgement"]),
        decided_by_repr=repr(verdict["decided_by"]), rule=[repr(RULES[claim])], data_literal=repr(json.dumps(data)),
        claims_source=_claims_source())


def write(files: list[str], target: str, settings: dict, scenario: list[dict], claim: str, message: str,
          settle_budget_s: float) -> str | None:
    """Write the script next to ``files[0]`` (the divergence's ITF trace) as
    ``repro_<its stem>.py``; its path, or None (see ``source``)."""
    text = source(target, settings, scenario, claim, message, settle_budget_s)
    if text is None:
        return None
    trace = Path(files[0])
    suffix = ".js" if settings["client"] == "kafkajs" else ".py"
    path = trace.with_name("repro_" + trace.name.removesuffix(".itf.json").replace("-", "_") + suffix)
    atomic_write_text(path, text, force=True)
    return str(path)
