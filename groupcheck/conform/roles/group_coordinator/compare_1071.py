"""A broker's StreamsGroupHeartbeat answers (KIP-1071, API 88) against the streams-group model's.

The counterpart of ``compare_848``: each scenario is a short list of heartbeats, sent over TCP
to the group's coordinator (the target's ``streams_group_heartbeat``, ``targets/broker/
kip1071.py``) and given to the model's coordinator (``model.streams_group.heartbeat``, one
profile, ``kafka-4.1`` by default), each side tracking what a Streams client would: the
member's last epoch, the epoch before it, and its last assigned tasks. A step:

    {"m": "A", "epoch": "join" | "current" | "previous" | "leave" | int,
     "owned": "assigned" | "none", "topology": "plain" | ...}     (the topology: joins only)

A join sends what Kafka's client sends on epoch 0 (GroupCoordinatorService#throwIfStreams-
GroupHeartbeatRequestIsInvalid): the topology, a rebalance timeout, the process id and three
empty task lists; a heartbeat its epoch and the three owned-task lists (all or none, as 4.1
requires), or none of them (``owned: "none"``); a leave epoch -1.

What is compared per step: the error code, the member id echoed, the member epoch, the
active / standby / warm-up tasks (None when not sent) and the status codes. Error messages
are kept, not compared (the words are the broker's). Epochs of successful answers are
compared *ranked* (each side's positive epochs numbered 1, 2, ... in value order), as in
``compare_848``: a broker's first group epoch is its own business, that a step moves the
epoch or keeps it is the protocol's. Which tasks a member gets is the assignor's choice
(``group.streams.assignors``): a difference only in *which* tasks, with the same number of
each kind on both sides, is judged freedom; any other difference where the protocol fixes the
answer is the broker's divergence.
"""
from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Callable

from groupcheck.model.streams_group import (ERRORS, PROFILES, STATUS_NAMES, Cluster, StreamsGroupHeartbeat,
                                            Subtopology, TopicInfo, Topology, heartbeat, new_group, task_index)

API_KEY = 88                        # StreamsGroupHeartbeat
SOURCE = "groupcheck-kip1071"       # the source topic every topology reads (made by CreateTopics)
PARTITIONS = 4
REBALANCE_TIMEOUT_MS = 30000
ERROR_NAMES = {code: name for name, code in ERRORS.items()}
MISSING_SOURCE_TOPICS = next(code for code, name in STATUS_NAMES.items() if name == "MISSING_SOURCE_TOPICS")
KEYS = ("error", "member_id", "epoch", "active", "standby", "warmup", "status")
TASK_KEYS = ("active", "standby", "warmup")


def names_for(nonce: str) -> dict[str, str]:
    """The topic names of one run: the source topic (exists), and per run a changelog and a
    source topic that do not exist yet (so MISSING_INTERNAL_TOPICS / MISSING_SOURCE_TOPICS
    are answered on a broker that keeps its topics)."""
    return {"source": SOURCE, "changelog": f"groupcheck-kip1071-{nonce}-store-changelog",
            "missing": f"groupcheck-kip1071-{nonce}-missing"}


def topologies(names: dict[str, str]) -> dict[str, Topology]:
    """The topologies the scenarios join with, by key."""
    src, plain = names["source"], Subtopology(subtopology_id="0", source_topics=(names["source"],))
    return {
        "plain": Topology(epoch=0, subtopologies=(plain,)),
        "plain-epoch-1": Topology(epoch=1, subtopologies=(plain,)),
        "other": Topology(epoch=0, subtopologies=(Subtopology(subtopology_id="1", source_topics=(src,)),)),
        "stateful": Topology(epoch=0, subtopologies=(plain._replace(
            state_changelog_topics=(TopicInfo(name=names["changelog"]),)),)),
        "changelog-partitions-set": Topology(epoch=0, subtopologies=(plain._replace(
            state_changelog_topics=(TopicInfo(name=names["changelog"], partitions=PARTITIONS),)),)),
        "missing-source": Topology(epoch=0, subtopologies=(Subtopology(subtopology_id="0",
                                                                       source_topics=(names["missing"],)),)),
    }


def J(m, topology="plain"):
    return {"m": m, "epoch": "join", "owned": "none", "topology": topology}


def H(m, epoch="current", owned="assigned"):
    return {"m": m, "epoch": epoch, "owned": owned}


def L(m):
    return {"m": m, "epoch": "leave", "owned": "none"}


SCENARIOS = {
    "join-assigns": [J("A"), H("A")],
    "second-member-revoke-first": [J("A"), H("A"), J("B"), H("A"), H("A"), H("B"), H("B")],
    "lost-response": [J("A"), H("A"), J("B"), H("A"), H("A"), H("A", epoch="previous")],
    "stale-member-epoch": [J("A"), H("A"), H("A", epoch=99)],
    "leave": [J("A"), H("A"), J("B"), L("A"), H("B"), H("B")],
    "unknown-member": [J("A"), H("X", epoch=5, owned="none")],
    "group-not-found": [H("A", epoch=3, owned="none")],
    "topology-same-epoch-mismatch": [J("A"), J("B", topology="other")],
    "topology-higher-epoch": [J("A"), J("B", topology="plain-epoch-1")],
    "stale-topology": [J("A", topology="plain-epoch-1"), J("B")],
    "invalid-topology": [J("A", topology="changelog-partitions-set")],
    "missing-source-topics": [J("A", topology="missing-source")],
    "missing-internal-topics": [J("A", topology="stateful")],
}
# The steps each scenario is about (1-based; default: its last step).
FOCUS = {"join-assigns": (1, 2), "second-member-revoke-first": (3, 4, 5, 6, 7), "leave": (4, 5, 6)}

# Scenario -> what the protocol fixes (a difference at a focus step is a divergence unless
# it is only which tasks went where).
PROTOCOL = {
    "join-assigns": "a first member joining with a ready topology gets the new group epoch and every task "
                    "(KIP-1071 Request Handling: join bumps the group epoch, a new target assignment, "
                    "reconciliation with nothing to revoke)",
    "second-member-revoke-first": "a task moves only after its owner revoked it: the joining member gets "
                                  "the new epoch without the tasks still owned (UNRELEASED), the owner keeps "
                                  "its epoch until it reports the revocation (UNREVOKED), then both reach "
                                  "the target (CurrentAssignmentBuilder)",
    "lost-response": "a member repeating its previous epoch while owning a subset of its assignment is "
                     "answered, not fenced (GroupMetadataManager#throwIfStreamsGroupMemberEpochIsInvalid)",
    "stale-member-epoch": "an epoch above the member's is FENCED_MEMBER_EPOCH",
    "leave": "a leave (-1) is answered with epoch -1 and frees the member's tasks for the others",
    "unknown-member": "a heartbeat of a member id the group does not hold is UNKNOWN_MEMBER_ID",
    "group-not-found": "a heartbeat (epoch > 0) to a group that does not exist is GROUP_ID_NOT_FOUND",
    "topology-same-epoch-mismatch": "a join at the group's topology epoch with another topology is refused: "
                                    "INVALID_REQUEST 'Topology updates are not supported yet.' (4.1-4.4), "
                                    "STREAMS_INVALID_TOPOLOGY_EPOCH (the KIP; KAFKA-21370, 4.5)",
    "topology-higher-epoch": "a join with a higher topology epoch is refused by 4.1-4.5 ('Topology updates "
                             "are not supported yet.'); the KIP updates the topology at epoch + 1",
    "stale-topology": "a join with a lower topology epoch keeps the group's topology and is told "
                      "STALE_TOPOLOGY (Kafka; the KIP: STREAMS_TOPOLOGY_FENCED)",
    "invalid-topology": "a changelog topic with a partition count is STREAMS_INVALID_TOPOLOGY "
                        "(GroupCoordinatorService#throwIfInvalidTopology)",
    "missing-source-topics": "a topology whose source topic does not exist: the member joins, no task is "
                             "assigned, status MISSING_SOURCE_TOPICS (topology configuration)",
    "missing-internal-topics": "a topology whose changelog topic does not exist yet: no task is assigned, "
                               "status MISSING_INTERNAL_TOPICS, the broker creates it (topology configuration)",
}


def judgement_for(who: str) -> str:
    return f"divergence ({who}): the answer differs from the model's where the protocol fixes it"


FREEDOM = ("freedom: only which tasks went to which member differs, the same number of each kind on "
           "both sides (the broker's task assignor chooses; group.streams.assignors)")


class _Side:
    """What a Streams client keeps per member: epoch, previous epoch, assigned tasks."""

    def __init__(self, topologies: dict[str, Topology]):
        self.topologies = topologies
        self.epoch: dict[str, int] = {}
        self.prev: dict[str, int] = {}
        self.tasks: dict[str, tuple] = {}

    def request(self, group: str, step: dict) -> StreamsGroupHeartbeat:
        m, e = step["m"], step["epoch"]
        if e == "join":
            return StreamsGroupHeartbeat(group_id=group, member_id=m, member_epoch=0, process_id=f"process-{m}",
                                         rebalance_timeout_ms=REBALANCE_TIMEOUT_MS,
                                         topology=self.topologies[step["topology"]],
                                         active_tasks=(), standby_tasks=(), warmup_tasks=())
        epoch = {"leave": -1, "current": self.epoch.get(m, 0), "previous": self.prev.get(m, 0)}.get(e, e)
        owned = self.tasks.get(m, ((), (), ())) if step["owned"] == "assigned" else (None, None, None)
        return StreamsGroupHeartbeat(group_id=group, member_id=m, member_epoch=epoch, active_tasks=owned[0],
                                     standby_tasks=owned[1], warmup_tasks=owned[2])

    def answered(self, m: str, r) -> dict:
        """The answer ``r`` (a StreamsGroupHeartbeatResponse) as compared; the side moves on."""
        error = ERROR_NAMES.get(r.error_code, str(r.error_code))
        if error == "NONE" and r.member_epoch >= 0:
            if r.member_epoch != self.epoch.get(m):
                self.prev[m] = self.epoch.get(m, 0)
            self.epoch[m] = r.member_epoch
            if r.active_tasks is not None:
                self.tasks[m] = (r.active_tasks, r.standby_tasks or (), r.warmup_tasks or ())
        elif error in ("FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID") or r.member_epoch == -1:
            self.epoch[m], self.tasks[m] = 0, ((), (), ())
        tasks = {k: None if ts is None else sorted(f"{t.subtopology_id}_{p}" for t in ts for p in t.partitions)
                 for k, ts in zip(TASK_KEYS, (r.active_tasks, r.standby_tasks, r.warmup_tasks))}
        status = None if r.status is None else sorted(STATUS_NAMES.get(s.status_code, str(s.status_code))
                                                      for s in r.status)
        return {"m": m, "error": error, "message": r.error_message, "member_id": r.member_id,
                "epoch": r.member_epoch, **tasks, "status": status}


def run_steps(steps: list[dict], send: Callable, group: str, names: dict[str, str]) -> list[dict]:
    """The steps, each request given to ``send(member, request)`` (a response back)."""
    side, out = _Side(topologies(names)), []
    for step in steps:
        request = side.request(group, step)
        a = side.answered(step["m"], send(step["m"], request))
        out.append({**a, "sent_epoch": request.member_epoch})
    return out


def model_group(group_id: str, names: dict[str, str]):
    """The model's coordinator before the first heartbeat: no group, the cluster holding the
    source topic; the task index covers every topology's subtopologies."""
    index = task_index({s.subtopology_id: PARTITIONS for t in topologies(names).values() for s in t.subtopologies})
    return replace(new_group(group_id, index), dead=True), Cluster(topics=((names["source"], PARTITIONS),))


def run_model(steps: list[dict], profile: str, names: dict[str, str], group_id: str = "g") -> list[dict]:
    group, cluster = model_group(group_id, names)
    box = [group]

    def send(member, request):
        o = heartbeat(box[0], request, cluster, profile)
        box[0] = o.group
        return o.response
    return run_steps(steps, send, group_id, names)


def _ranked(answers: list[dict]) -> list[dict]:
    """Epochs of successful answers ranked; an error answer's epoch and member id are not
    compared (a client reads neither)."""
    positive = sorted({a["epoch"] for a in answers if a["error"] == "NONE" and a["epoch"] > 0})
    rank = {e: i + 1 for i, e in enumerate(positive)}
    return [dict(a, epoch=rank.get(a["epoch"], a["epoch"])) if a["error"] == "NONE"
            else dict(a, epoch=None, member_id=None) for a in answers]


def _placement_only(d: dict) -> bool:
    a, b = d["target"], d["model"]
    return all(a[k] == b[k] for k in KEYS if k not in TASK_KEYS) and \
        all(len(a[k] or ()) == len(b[k] or ()) and (a[k] is None) == (b[k] is None) for k in TASK_KEYS)


def compare(name: str, target_answers: list[dict], model_answers: list[dict], who: str, profile: str) -> dict:
    """Scenario ``name``'s differing focus steps, judged."""
    steps = SCENARIOS[name]
    rt, rm = _ranked(target_answers), _ranked(model_answers)
    focus = FOCUS.get(name, (len(steps),))
    diffs = [{"step": i + 1, "request": steps[i], "target": {k: a.get(k) for k in KEYS},
              "model": {k: b.get(k) for k in KEYS}}
             for i, (a, b) in enumerate(zip(rt, rm)) if i + 1 in focus and any(a.get(k) != b.get(k) for k in KEYS)]
    freedom = bool(diffs) and all(_placement_only(d) for d in diffs)
    judgement = "agree" if not diffs else FREEDOM if freedom else judgement_for(who)
    return {"scenario": name, "steps": steps, "profile": profile, "target": target_answers, "model": model_answers,
            "differences": diffs, "focus": focus, "protocol": PROTOCOL[name], "judgement": judgement,
            "divergence": bool(diffs) and not freedom}


def run(target, who: str, profile: str = "kafka-4.1") -> list[dict]:
    """Every scenario on ``target`` (a broker target that advertises API 88: its
    ``ensure_topics`` and ``streams_group_heartbeat``), each in a new group, compared with the
    model under ``profile``."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    names = names_for(str(time.time_ns()))
    target.ensure_topics({names["source"]: PARTITIONS})
    out = []
    try:
        _await_source_topic(target, names)
        for name, steps in SCENARIOS.items():
            group = f"gc1071-{name}-{time.time_ns()}"
            got = run_steps(steps, lambda m, rq, group=group: target.streams_group_heartbeat(group, m, rq),
                            group, names)
            out.append({**compare(name, got, run_model(steps, profile, names, group), who, profile), "names": names})
    finally:
        target.close_streams_members()
    return out


def _await_source_topic(target, names: dict[str, str], tries: int = 20) -> None:
    """A topic just created may not be in the coordinator's metadata yet: a probe member joins
    a probe group until its answer no longer says MISSING_SOURCE_TOPICS (at most ``tries``
    times, 0.25 s apart), then leaves. A broker that never sees it shows it in the scenarios.
    A source topic already there with another partition count than ``PARTITIONS`` (the probe
    is given its tasks: one per partition) is a BrokerError (one line, exit 2)."""
    from ...targets.broker.broker import BrokerError
    group = f"gc1071-probe-{time.time_ns()}"
    plain = topologies(names)["plain"]
    join = StreamsGroupHeartbeat(group_id=group, member_id="probe", member_epoch=0, process_id="process-probe",
                                 rebalance_timeout_ms=REBALANCE_TIMEOUT_MS, topology=plain,
                                 active_tasks=(), standby_tasks=(), warmup_tasks=())
    for _ in range(tries):
        r = target.streams_group_heartbeat(group, "probe", join)
        if r.error_code == 0:
            target.streams_group_heartbeat(group, "probe", StreamsGroupHeartbeat(
                group_id=group, member_id="probe", member_epoch=-1))
        missing = any(s.status_code == MISSING_SOURCE_TOPICS for s in r.status or ())
        tasks = sum(len(t.partitions) for t in r.active_tasks or ())
        if r.error_code == 0 and not missing and tasks not in (0, PARTITIONS):
            raise BrokerError(f"{names['source']} has {tasks} partitions (the probe member was given {tasks} "
                              f"tasks); the KIP-1071 scenarios need {PARTITIONS}")
        if r.error_code != 0 or not missing:
            return
        time.sleep(0.25)


def table(results: list[dict]) -> list[str]:
    """One line per scenario (and the first difference of one that differs)."""
    lines = []
    for r in results:
        d = r["differences"]
        lines.append(f"  KIP-1071 {r['scenario']}: " + ("agree" if not d else (
            "DIVERGES" if r["divergence"] else "differs (freedom)") + f" at step {d[0]['step']}: {r['judgement']}"))
        if d:
            lines.append(f"    step {d[0]['step']} {json.dumps(d[0]['request'])}: target {d[0]['target']} "
                         f"model {d[0]['model']}")
        if r.get("repro"):
            lines.append(f"    written: {r['repro']}")
    return lines
