"""A coordinator's ConsumerGroupHeartbeat answers (KIP-848) against the model coordinator's.

Each scenario is a short list of heartbeats, sent over TCP to a broker target's coordinator
(librdkafka's mock, or any broker that advertises API 68) and given to
``model.consumer_group.coordinator.heartbeat`` (one profile, ``kafka-4.1`` by default),
each side tracking what a client would: the member's last epoch, the epoch before it, and
its last assignment. A step:

    {"m": "A", "epoch": "join" | "current" | "previous" | "leave" | int,
     "owned": "assigned" | "none" | [partitions], "topics": ["t"] | None, "assignor": str | None}
    {"disconnect": "A"}      the target: close A's connection and open another (the model: nothing)

What is compared per step: the error, the member id echoed, the member epoch, and the
assignment (None when not sent). Absolute epochs differ by design (the mock creates a group
at epoch 1 and bumps it on the first join, ``rd_kafka_mock_cgrp_consumer_get``; Kafka starts
at 0), so epochs are compared *ranked*: each side's positive epochs numbered 1, 2, ... in
value order. ``DIFFERENCES`` holds the judgement of each scenario that differs on the mock:
whether the protocol fixes the answer (a divergence) or leaves it to the coordinator
(freedom); on another broker ``judgements_for`` words them for that broker.

The role drives; the target only offers effects (``targets/broker/broker.py``'s docstring:
``ensure_topic``, ``coordinator_for``, ``connect``). ``run_all`` is the loop (the
conformance ``campaign.run``: a deadline, Ctrl-C keeps what was found), ``main`` writes
the verdict (``campaign.write_verdict``). The scenarios are not shrunk: each is a
hand-written smallest case whose judgement is keyed by its name and its focus steps
(``FOCUS``); a shorter one would no longer be the case it judges.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Callable

from groupcheck.model import consumer_group as model_coordinator
from groupcheck.model.consumer_group import ERROR_NAMES, ConsumerGroupHeartbeat, TopicPartitions, new_group, partition_index
from groupcheck.model.wire.consumer_group_heartbeat import WireError

from ....console import BAD_INPUT, FAILED, INTERRUPTED, NOT_PROVED, PASSED, signal_code
from ... import campaign
from ...adapter import AdapterError
from ...targets.broker.broker import BrokerError

API_KEY = 68                    # ConsumerGroupHeartbeat: a broker that advertises it is compared
BROKER_TOPIC = "groupcheck-kip848"    # the topic every scenario subscribes to on the target
GROUP, TOPIC, PARTITIONS = "g", "t", 4
REBALANCE_TIMEOUT_MS = 30000


def J(m, **kw):
    return {"m": m, "epoch": "join", "owned": [], "topics": [TOPIC], **kw}


def H(m, owned="assigned", epoch="current", **kw):
    return {"m": m, "epoch": epoch, "owned": owned, **kw}


SCENARIOS = {
    "join-leave-epochs": [J("A"), H("A"), J("B"), H("A"), H("A"), H("B", owned=[]), H("B"),
                          H("B", epoch="leave", owned="none"), H("A")],
    "lost-response": [J("A"), H("A"), J("B"), H("A"), H("A"), H("A", epoch="previous")],
    "wrong-epoch": [J("A"), H("A"), H("A", epoch=99)],
    "unknown-member": [J("A"), H("A"), H("X", epoch=5, owned="none")],
    "unknown-member-full-request": [J("A"), H("A"), H("X", epoch=5, owned=[], topics=[TOPIC]), H("A")],
    "unknown-member-leave": [J("A"), H("A"), H("X", epoch="leave", owned="none")],
    "leave-answer": [J("A"), H("A"), H("A", epoch="leave", owned="none")],
    "rejoin-known-member": [J("A"), H("A"), J("B"), H("A"), H("A"), H("B", owned=[]), H("B"), J("A")],
    "unsupported-assignor": [J("A", assignor="no-such-assignor")],
    "range-three-members": [J("A"), H("A"), J("B"), H("A"), H("A"), H("B", owned=[]), H("B"), J("C"),
                            H("A"), H("B"), H("A"), H("B"), H("C", owned=[]), H("C"), H("C"),
                            H("A", epoch="leave", owned="none"), H("B"), H("C"), H("B"), H("C"), H("B"), H("C")],
    "disconnect-then-join": [J("A"), H("A"), {"disconnect": "A"}, J("B")],
}
# The steps each scenario is about (1-based; default: its last step). Other differences in a
# scenario are another scenario's (e.g. every second join shows join-leave-epochs' answer).
FOCUS = {"join-leave-epochs": (3, 4, 5, 6, 7, 8, 9), "unknown-member-full-request": (3, 4),
         "range-three-members": tuple(range(9, 23))}

# Scenario -> (what the protocol fixes, the judgement when the answers differ).
DIFFERENCES = {
    "join-leave-epochs": (
        "a new member with nothing to revoke is answered at once with the new target's epoch and "
        "its assignment minus partitions still owned by others (CurrentAssignmentBuilder: no "
        "revocation -> STABLE / UNRELEASED_PARTITIONS at the target epoch)",
        "divergence (mock, low impact): the mock answers the join with epoch 0 and no assignment "
        "until every target partition is free (rd_kafka_mock_cgrp_consumer_member_needs_assignment); "
        "librdkafka copes, but the member's epoch is 0, not the group epoch, meanwhile"),
    "lost-response": (
        "GroupMetadataManager#throwIfConsumerGroupMemberEpochIsInvalid (model: epochs.validate_member_epoch): a member that repeats its previous epoch "
        "while owning a subset of its assignment (it lost the response) is answered, not fenced",
        "divergence (mock): rd_kafka_mock_cgrp_consumer_member_next_assignment fences any epoch other "
        "than the current one: a lost response fences the member (on_lost, rejoin) on the mock, not on Kafka"),
    "unknown-member-full-request": (
        "an unknown member id with epoch > 0 is UNKNOWN_MEMBER_ID and changes nothing",
        "divergence (mock): rd_kafka_mock_cgrp_consumer_member_add adds the unknown id as a new member "
        "when topic names are sent, bumps the group epoch, then answers FENCED_MEMBER_EPOCH; the ghost "
        "member takes a share of the target (the others are revoked) until its session times out"),
    "unknown-member-leave": (
        "a leave (-1) of an unknown member id is UNKNOWN_MEMBER_ID (consumerGroupLeave)",
        "agreement expected; a difference would be the mock's"),
    "leave-answer": (
        "the answer to a leave echoes the member id and the epoch sent (-1)",
        "divergence (mock, cosmetic): the mock answers MemberId null (the member is destroyed before "
        "the response is written); librdkafka does not read it on a leave"),
    "rejoin-known-member": (
        "a known member that sends epoch 0 again is answered with its full assignment (the KIP, and "
        "Kafka after KAFKA-19233) or fenced (Kafka 4.0 / 4.1 past epoch 1: FENCED_MEMBER_EPOCH, then it "
        "rejoins); never with 'no change'",
        "divergence (mock): the mock accepts the epoch-0 heartbeat of a known member at its current epoch "
        "and, its assignment being unchanged since the last answer, sends none: a client that dropped "
        "its partitions (a failed leave, then subscribe) is told it owns nothing at an epoch where the "
        "coordinator counts it as owning them; those partitions are consumed by no one until the "
        "target changes (seen with real clients: NOT_COORDINATOR on the leave heartbeat of unsubscribe)"),
    "unsupported-assignor": (
        "an unknown ServerAssignor is UNSUPPORTED_ASSIGNOR (throwIfConsumerGroupHeartbeatRequestIsInvalid)",
        "divergence (mock, low impact): the mock ignores ServerAssignor and always uses its own range"),
    "range-three-members": (
        "nothing about which member gets which partition beyond the chosen assignor's contract",
        "freedom: the mock's range (\"isn't replicating any given broker assignor\", "
        "rd_kafka_mock_cgrp_consumer_target_assignment_calculate_range) orders members by join order and "
        "is not sticky; Kafka's server range assignor (model/assignors/consumer_group_range.py) differs in "
        "who gets the extra partition and keeps more in place. Both keep revoke-before-assign."),
    "disconnect-then-join": (
        "a partition is given to a new owner only after its previous owner revoked it; a connection "
        "closing changes no member's assignment (the coordinator keeps members until their session ends)",
        "divergence (mock): rd_kafka_mock_cgrps_consumer_connection_closed forgets the member's current "
        "assignment when its connection closes, so rd_kafka_mock_cgrp_consumer_member_next_assignment_can_bump_epoch "
        "lets the new member take partitions the disconnected member still owns: two members own them "
        "until the first one heartbeats again (revoke_before_reassign)"),
    "wrong-epoch": ("an epoch that is neither current nor previous is FENCED_MEMBER_EPOCH", "agreement expected"),
    "unknown-member": ("an unknown member id is UNKNOWN_MEMBER_ID", "agreement expected"),
}


def advertises(target) -> bool:
    """The target is a broker that advertised ConsumerGroupHeartbeat (API 68) in ApiVersions."""
    return API_KEY in getattr(target, "advertised", {})


def judgements_of(target) -> dict:
    """The mock's own judgements (they name its code) when the target is librdkafka's mock,
    else ``judgements_for`` its name."""
    return DIFFERENCES if target.judgements_key == "librdkafka-mock" else judgements_for(target.name)


def judgements_for(who: str) -> dict:
    """``DIFFERENCES`` for a coordinator other than librdkafka's mock (whose code the judgement
    texts name): what the protocol fixes is the same; a difference there is ``who``'s
    divergence, and freedom stays freedom."""
    return {name: (fixed, judgement if judgement.startswith("freedom") else
                   f"divergence ({who}): the answer differs from the model's where the protocol fixes it")
            for name, (fixed, judgement) in DIFFERENCES.items()}


class _Side:
    """What a client keeps per member: epoch, previous epoch, assignment."""

    def __init__(self):
        self.epoch: dict[str, int] = {}
        self.prev: dict[str, int] = {}
        self.assigned: dict[str, list[int]] = {}

    def fields(self, step: dict) -> dict:
        m = step["m"]
        e = step["epoch"]
        epoch = {"join": 0, "leave": -1, "current": self.epoch.get(m, 0), "previous": self.prev.get(m, 0)}.get(e, e)
        owned = step["owned"]
        owned = None if owned == "none" else (self.assigned.get(m, []) if owned == "assigned" else owned)
        topics = step.get("topics")
        joining = e == "join" or (e == "current" and epoch == 0)   # still joining: the full request again
        if joining and e != "join":
            topics, owned = [TOPIC], owned or []
        return {"member_id": m, "member_epoch": epoch, "topics": topics, "owned": owned,
                "rebalance_timeout_ms": REBALANCE_TIMEOUT_MS if joining else -1,
                "assignor": step.get("assignor")}

    def answered(self, m: str, error: str, epoch: int, assignment) -> None:
        if error == "NONE":
            if epoch != self.epoch.get(m):
                self.prev[m] = self.epoch.get(m, 0)
            self.epoch[m] = epoch
            if assignment is not None:
                self.assigned[m] = assignment
        elif error in ("FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID"):
            self.epoch[m], self.assigned[m] = 0, []


def run_target(steps: list[dict], target, group: str, topic_id: str) -> list[dict]:
    """The steps on ``target``'s coordinator of ``group`` (a new group), one connection per
    member (``target.connect``), subscribed to ``BROKER_TOPIC`` (``topic_id``: its id)."""
    address = target.coordinator_for(group)
    side, out = _Side(), []
    conns: dict = {}
    try:
        for step in steps:
            if "disconnect" in step:
                conns.pop(step["disconnect"]).close()
                out.append({"disconnect": step["disconnect"]})
                continue
            m = step["m"]
            f = side.fields(step)
            conn = conns.get(m) or conns.setdefault(m, target.connect(address))
            owned = None if f["owned"] is None else ({topic_id: f["owned"]} if f["owned"] else {})
            r = conn.heartbeat(group_id=group, member_id=m, member_epoch=f["member_epoch"],
                               rebalance_timeout_ms=f["rebalance_timeout_ms"],
                               topic_names=None if f["topics"] is None else [BROKER_TOPIC],
                               topic_regex=None if f["topics"] is None else "",   # librdkafka's dialect
                               server_assignor=f["assignor"], owned=owned)
            assignment = None if r.assignment is None else sorted(p for ps in r.assignment.values() for p in ps)
            error = ERROR_NAMES.get(r.error_code, str(r.error_code))
            side.answered(m, error, r.member_epoch, assignment)
            out.append({"m": m, "sent_epoch": f["member_epoch"], "error": error, "member_id": r.member_id,
                        "epoch": r.member_epoch, "assignment": assignment})
    finally:
        for c in conns.values():
            c.close()
    return out


def run_model(steps: list[dict], profile: str) -> list[dict]:
    side, out = _Side(), []
    group = new_group(GROUP, partition_index(((TOPIC, PARTITIONS),)))
    cluster = model_coordinator.Cluster(((TOPIC, PARTITIONS),))
    for step in steps:
        if "disconnect" in step:
            out.append({"disconnect": step["disconnect"]})
            continue
        m = step["m"]
        f = side.fields(step)
        req = ConsumerGroupHeartbeat(
            group_id=GROUP, member_id=m, member_epoch=f["member_epoch"],
            rebalance_timeout_ms=f["rebalance_timeout_ms"],
            subscribed_topic_names=None if f["topics"] is None else tuple(f["topics"]),
            server_assignor=f["assignor"] or ("range" if step["epoch"] == "join" else None),
            topic_partitions=None if f["owned"] is None else (
                (TopicPartitions(TOPIC, tuple(f["owned"])),) if f["owned"] else ()))
        o = model_coordinator.heartbeat(group, req, cluster, profile)
        group = o.group
        r = o.response
        assignment = None if r.assignment is None else sorted(p for tp in r.assignment for p in tp.partitions)
        error = ERROR_NAMES[r.error_code]
        side.answered(m, error, r.member_epoch, assignment)
        out.append({"m": m, "sent_epoch": f["member_epoch"], "error": error, "member_id": r.member_id,
                    "epoch": r.member_epoch, "assignment": assignment})
    return out


def _ranked(answers: list[dict]) -> list[dict]:
    """Epochs of successful answers ranked; an error answer's epoch and member id are not
    compared (a client reads neither: Kafka writes 0 / null, the mock -1 or the epoch sent)."""
    positive = sorted({a["epoch"] for a in answers if a.get("error") == "NONE" and a["epoch"] > 0})
    rank = {e: i + 1 for i, e in enumerate(positive)}
    return [a if "epoch" not in a else dict(a, epoch=rank.get(a["epoch"], a["epoch"])) if a["error"] == "NONE"
            else dict(a, epoch=None, member_id=None) for a in answers]


def compare(name: str, target, topic_id: str, profile: str = "kafka-4.1", judgements: dict | None = None) -> dict:
    """Scenario ``name`` on both sides (the target's on a new group); the differing focus
    steps (ranked epochs), judged by ``judgements`` (default: ``judgements_of(target)``)."""
    steps = SCENARIOS[name]
    group = f"gc848-{name}-{time.time_ns()}"
    theirs, model = run_target(steps, target, group, topic_id), run_model(steps, profile)
    rt, rk = _ranked(theirs), _ranked(model)
    keys = ("error", "member_id", "epoch", "assignment")
    diffs = [{"step": i + 1, "request": steps[i], "target": {k: a.get(k) for k in keys},
              "model": {k: b.get(k) for k in keys}}
             for i, (a, b) in enumerate(zip(rt, rk)) if any(a.get(k) != b.get(k) for k in keys)]
    focus = FOCUS.get(name, (len(steps),))
    diffs = [d for d in diffs if d["step"] in focus]
    fixed, judgement = (judgements_of(target) if judgements is None else judgements).get(name, ("", ""))
    return {"scenario": name, "target": target.name, "steps": steps, "profile": profile, "target_answers": theirs,
            "model_answers": model, "differences": diffs, "focus": focus, "protocol": fixed,
            "judgement": judgement if diffs else "agree",
            "divergence": bool(diffs) and judgement.startswith("divergence")}


def run_all(target, profile: str = "kafka-4.1", deadline: float = math.inf,
            progress: Callable[[str], None] = lambda line: None) -> tuple[list[dict], str | None]:
    """Every scenario on ``target`` (an opened broker target), through the conformance loop;
    (the comparisons, why the loop stopped early or None). A connection lost or an answer
    that cannot be read is a BrokerError naming the broker (one line, exit 2)."""
    judgements, results = judgements_of(target), []
    try:
        topic_id = target.ensure_topic(BROKER_TOPIC, PARTITIONS)
        hooks = campaign.Hooks(
            run=lambda name, dl: compare(name, target, topic_id, profile, judgements),
            divergences=lambda r: [("kip848", r["scenario"])] if r["divergence"] else [],
            diverged=lambda key, r, name: r, record=results.append,
            after=lambda n, r: progress(f"[{target.name}] KIP-848 {r['scenario']}: {verdict_word(r)}"))
        cut = campaign.run(SCENARIOS, hooks, deadline)
    except (OSError, WireError) as e:
        raise BrokerError(f"broker {target.address}: KIP-848 scenarios: {e}") from None
    return results, cut


def verdict_word(r: dict) -> str:
    return "agree" if not r["differences"] else "DIVERGES" if r["divergence"] else "differs (freedom)"


def text(target_name: str, results: list[dict], cut: str | None) -> str:
    """The table: one line per scenario, its first difference and judgement."""
    lines = [f"KIP-848 ConsumerGroupHeartbeat: {target_name} against the model, {len(results)} of "
             f"{len(SCENARIOS)} scenarios" + (f"; stopped: {cut}" if cut else "")]
    for r in results:
        lines.append(f"{r['scenario']:28} {verdict_word(r)}")
        if r["differences"]:
            first = r["differences"][0]
            lines.append(f"  step {first['step']} {json.dumps(first['request'])}: {target_name} {first['target']} "
                         f"model {first['model']}")
            lines.append(f"  {r['judgement']}")
    return "\n".join(lines) + "\n"


def exit_code(results: list[dict], cut: str | None) -> int:
    if cut == "interrupted":
        return INTERRUPTED
    if any(r["divergence"] for r in results):
        return FAILED
    return NOT_PROVED if cut else PASSED


def main(profile: str, out: Path, say: Callable[[str], None] = print, target=None,
         max_seconds: float | None = None) -> int:
    """Every scenario on ``target`` (default: librdkafka's mock, started and stopped here);
    the verdict (``verdict.json``, ``verdict.txt``) under ``out``; the table said; the exit
    code: 1 a difference the protocol fixes, 2 the broker could not be used, 3 a time limit
    came first, 130 / 143 interrupted by SIGINT / SIGTERM (the scenarios compared so far are
    written)."""
    from groupcheck.model.consumer_group import PROFILES
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    if target is None:
        from ...targets.librdkafka.mock_coordinator import MockCoordinator
        target = MockCoordinator()
    start = time.monotonic()
    deadline = start + max_seconds if max_seconds else math.inf
    results, cut = [], None
    with campaign.signals_interrupt() as stopped:      # SIGINT / SIGTERM: what was compared is written
        try:
            target.open()
            results, cut = run_all(target, profile, deadline)
        except KeyboardInterrupt:                      # before the loop began (``run`` catches it within)
            cut = "interrupted"
        except AdapterError as e:                      # the broker could not be used: one line, exit 2
            say(f"error: {e}")
            return BAD_INPUT
        finally:
            target.close()
    data = {"target": target.name, "note": getattr(target, "note", ""), "profile": profile,
            "seconds": round(time.monotonic() - start, 2), "cut": cut or "", "scenarios": len(results),
            "divergences": sum(r["divergence"] for r in results), "kip848": results}
    report = text(target.name, results, cut)
    path = campaign.write_verdict(out, data, report)
    say(report.rstrip("\n"))
    say(f"written {path}")
    code = exit_code(results, cut)
    return signal_code(stopped[0]) if code == INTERRUPTED and stopped else code
