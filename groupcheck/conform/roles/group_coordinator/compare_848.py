"""The mock coordinator's ConsumerGroupHeartbeat answers against the model coordinator's.

Each scenario is a short list of heartbeats, sent over TCP to librdkafka's mock
(``targets/librdkafka/heartbeat.py``) and given to ``model.consumer_group.coordinator.heartbeat`` (one profile,
``kafka-4.1`` by default), each side tracking what a client would: the member's last epoch,
the epoch before it, and its last assignment. A step:

    {"m": "A", "epoch": "join" | "current" | "previous" | "leave" | int,
     "owned": "assigned" | "none" | [partitions], "topics": ["t"] | None, "assignor": str | None}
    {"disconnect": "A"}      the mock: close A's connection and open another (the model: nothing)

What is compared per step: the error, the member id echoed, the member epoch, and the
assignment (None when not sent). Absolute epochs differ by design (the mock creates a group
at epoch 1 and bumps it on the first join, ``rd_kafka_mock_cgrp_consumer_get``; Kafka starts
at 0), so epochs are compared *ranked*: each side's positive epochs numbered 1, 2, ... in
value order. ``DIFFERENCES`` holds the judgement of each scenario that differs: whether the
protocol fixes the answer (a divergence) or leaves it to the coordinator (freedom).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from groupcheck.model import consumer_group as model_coordinator
from groupcheck.model.consumer_group import ERROR_NAMES, ConsumerGroupHeartbeat, TopicPartitions, new_group, partition_index

from ....outputs import atomic_write_text
from ...targets.librdkafka.mock import MockCluster
from ...targets.librdkafka.mock_848 import ConsumerGroupMock
from ...targets.librdkafka.heartbeat import Connection

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


def run_mock(steps: list[dict]) -> list[dict]:
    """The steps on a fresh mock cluster of one broker."""
    with MockCluster(brokers=1) as mc:
        mc.topic_create(TOPIC, PARTITIONS)
        mc.coordinator_set(GROUP, 1)
        ConsumerGroupMock(mc).set_timeouts(30000, 3000)
        return run_tcp(steps, mc.bootstraps)


def run_tcp(steps: list[dict], address: str, group: str = GROUP, topic: str = TOPIC,
            topic_id: str | None = None) -> list[dict]:
    """The steps over TCP to the coordinator at ``address`` (``host:port``), one connection
    per member, as group ``group`` subscribed to ``topic`` (with ``PARTITIONS``, it must exist
    there; the model's ``TOPIC``). ``topic_id``: its id when known (Metadata v10+), else
    learnt from the first assignment."""
    side, out = _Side(), []
    conns: dict[str, Connection] = {}
    try:
        for step in steps:
            if "disconnect" in step:
                conns.pop(step["disconnect"]).close()
                out.append({"disconnect": step["disconnect"]})
                continue
            m = step["m"]
            f = side.fields(step)
            conn = conns.get(m) or conns.setdefault(m, Connection(address))
            owned = None if f["owned"] is None else ({topic_id: f["owned"]} if topic_id and f["owned"] else {})
            r = conn.heartbeat(group_id=group, member_id=m, member_epoch=f["member_epoch"],
                               rebalance_timeout_ms=f["rebalance_timeout_ms"],
                               topic_names=None if f["topics"] is None else [topic],
                               topic_regex=None if f["topics"] is None else "",   # librdkafka's dialect
                               server_assignor=f["assignor"], owned=owned)
            assignment = None
            if r.assignment is not None:
                topic_id = topic_id or next(iter(r.assignment), None)
                assignment = sorted(p for ps in r.assignment.values() for p in ps)
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


def compare(name: str, profile: str = "kafka-4.1", run: Callable[[list[dict]], list[dict]] = run_mock,
            judgements: dict | None = None) -> dict:
    """Run scenario ``name`` on both sides (``run``: the target's, default a fresh mock);
    the differing focus steps (ranked epochs), judged by ``judgements`` (default: the mock's,
    ``DIFFERENCES``)."""
    steps = SCENARIOS[name]
    mock, model = run(steps), run_model(steps, profile)
    rm, rk = _ranked(mock), _ranked(model)
    keys = ("error", "member_id", "epoch", "assignment")
    diffs = [{"step": i + 1, "request": steps[i], "mock": {k: a.get(k) for k in keys},
              "model": {k: b.get(k) for k in keys}}
             for i, (a, b) in enumerate(zip(rm, rk)) if any(a.get(k) != b.get(k) for k in keys)]
    focus = FOCUS.get(name, (len(steps),))
    diffs = [d for d in diffs if d["step"] in focus]
    fixed, judgement = (DIFFERENCES if judgements is None else judgements).get(name, ("", ""))
    return {"scenario": name, "steps": steps, "profile": profile, "mock": mock, "model": model, "differences": diffs,
            "focus": focus, "protocol": fixed, "judgement": judgement if diffs else "agree",
            "divergence": bool(diffs) and judgement.startswith("divergence")}


def main(profile: str, out: Path, say: Callable[[str], None] = print) -> int:
    """Every scenario; the table; exit 1 when a difference the protocol fixes was seen."""
    from groupcheck.model.consumer_group import PROFILES
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    results = [compare(n, profile) for n in SCENARIOS]
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "coordinator.json", json.dumps(results, indent=1) + "\n", force=True)
    for r in results:
        d = r["differences"]
        say(f"{r['scenario']:28} {'agree' if not d else ('DIVERGES' if r['divergence'] else 'differs (freedom)')}")
        if d:
            first = d[0]
            say(f"  step {first['step']} {json.dumps(first['request'])}: mock {first['mock']} model {first['model']}")
            say(f"  {r['judgement']}")
    say(f"written {out / 'coordinator.json'}")
    return 1 if any(r["divergence"] for r in results) else 0
