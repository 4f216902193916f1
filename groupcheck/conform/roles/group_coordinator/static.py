"""Static members (KIP-345), and a made-up member id's JoinGroup, on a broker target:
named scenarios, each answer checked against a rule of Kafka's classic coordinator.

The consumer model has no static membership (no ``group.instance.id``), so these are not
paths of the model: they are short hand-written scenarios whose every expected answer is
a cited rule of Kafka 3.9's GroupCoordinator.scala / GroupMetadata.scala (branch 3.9;
the Java rewrite, GroupMetadataManager.classicGroupJoinToClassicGroup and
ClassicGroup.replaceStaticMember, keeps them). They run on a target over TCP that
speaks JoinGroup v5+ and LeaveGroup v3+ (the versions that carry group.instance.id).

``$a``/``$b`` in a request stand for member ids the broker handed out earlier in the
scenario, ``$g`` for the generation it answered; each step learns what it names.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from importlib.resources import files

from ...targets.broker.broker import MARGIN

CLAIM = "static_membership"
INSTANCE = "groupcheck-instance-0"
META = "static"


@dataclass(frozen=True)
class Step:
    slot: int               # the connection (0: the first process, 1: its restart, 2: an admin client)
    request: dict
    want: dict              # fields the one answer must have ("$a" etc. resolved)
    rule: str               # the Kafka source that fixes the answer
    learn: tuple = ()       # (name, answer field): e.g. ("$a", "member_id")
    differs: tuple = ()     # (answer field, name) the answer must NOT equal


def _join(member: str) -> dict:
    return {"kind": "JoinGroup", "member_id": member, "protocols": ["range"], "metadata": META,
            "group_instance_id": INSTANCE}


START = (
    Step(0, _join(""), {"error": "NONE"}, learn=(("$a", "member_id"), ("$g", "generation")),
         rule="GroupCoordinator.doNewMemberJoinGroup -> doStaticNewMemberJoinGroup -> addMemberAndRebalance: a "
              "static member's first JoinGroup is admitted at once, never MEMBER_ID_REQUIRED (requireKnownMemberId "
              "applies only in doDynamicNewMemberJoinGroup)"),
    Step(0, {"kind": "SyncGroup", "member_id": "$a", "generation": "$g", "group_instance_id": INSTANCE,
             "assignments": [{"member_id": "$a", "assignment": "1"}]}, {"error": "NONE", "assignment": "1"},
         rule="GroupCoordinator.doSyncGroup, CompletingRebalance, the leader: setAndPropagateAssignment"),
)
FENCED = "GroupCoordinator.validateCurrentMember: the instance id maps to another member id -> FENCED_INSTANCE_ID"

STATIC_REJOIN = START + (
    Step(1, _join(""), {"error": "NONE", "generation": "$g"}, learn=(("$b", "member_id"),),
         differs=(("member_id", "$a"),),
         rule="GroupCoordinator.doStaticNewMemberJoinGroup -> updateStaticMemberAndRebalance: a known instance "
              "id with an unknown member id gets a new member id that replaces the old one "
              "(GroupMetadata.replaceStaticMember); in Stable with the protocol unchanged, no rebalance: the "
              "current generation"),
    Step(2, {"kind": "Heartbeat", "member_id": "$a", "generation": "$g", "group_instance_id": INSTANCE},
         {"error": "FENCED_INSTANCE_ID"}, rule=FENCED + " (validateHeartbeat): the old process is fenced"),
    Step(2, {"kind": "OffsetCommit", "member_id": "$a", "generation": "$g", "offset": 5,
             "group_instance_id": INSTANCE}, {"error": "FENCED_INSTANCE_ID"},
         rule=FENCED + " (validateOffsetCommit): the old process cannot commit"),
    Step(2, {"kind": "Heartbeat", "member_id": "$b", "generation": "$g", "group_instance_id": INSTANCE},
         {"error": "NONE"}, rule="GroupCoordinator.handleHeartbeat, Stable, the current member id: NONE"),
    Step(2, {"kind": "SyncGroup", "member_id": "$b", "generation": "$g", "group_instance_id": INSTANCE,
             "assignments": []}, {"error": "NONE", "assignment": "1"},
         rule="GroupMetadata.replaceStaticMember keeps 'everything else unchanged' (the assignment); doSyncGroup, "
              "Stable: memberMetadata.assignment"),
)

STATIC_FENCED = START + (
    Step(2, {"kind": "Heartbeat", "member_id": "made-up-member", "generation": "$g",
             "group_instance_id": INSTANCE}, {"error": "FENCED_INSTANCE_ID"}, rule=FENCED + " (validateHeartbeat)"),
    Step(2, {"kind": "OffsetCommit", "member_id": "made-up-member", "generation": "$g", "offset": 6,
             "group_instance_id": INSTANCE}, {"error": "FENCED_INSTANCE_ID"}, rule=FENCED + " (validateOffsetCommit)"),
    Step(2, {"kind": "LeaveGroup", "member_id": "made-up-member", "group_instance_id": INSTANCE},
         {"error": "FENCED_INSTANCE_ID"},
         rule=FENCED + " (handleLeaveGroup, operation leave-group: the member's error)"),
    Step(2, {"kind": "DescribeGroups", "member_id": ""}, {"error": "NONE", "state": "Stable", "member_ids": ["$a"]},
         rule="a fenced request changes nothing: GroupMetadata.summary still Stable with the member"),
)

STATIC_LEAVE = START + (
    Step(2, {"kind": "LeaveGroup", "member_id": "", "group_instance_id": INSTANCE}, {"error": "NONE"},
         rule="GroupCoordinator.handleLeaveGroup: memberId UNKNOWN_MEMBER_ID with an instance id removes "
              "currentStaticMemberId (removeCurrentMemberFromGroup): NONE"),
    Step(2, {"kind": "DescribeGroups", "member_id": ""}, {"error": "NONE", "state": "Empty", "member_ids": []},
         rule="removeMemberAndUpdateGroup -> prepareRebalance; no member left, onCompleteJoin -> "
              "initNextGeneration: Empty (GroupMetadata.summary)"),
)

MADE_UP_JOIN = (
    Step(0, {"kind": "JoinGroup", "member_id": "", "protocols": ["range"], "metadata": META},
         {"error": "MEMBER_ID_REQUIRED"}, learn=(("$a", "member_id"),),
         rule="KIP-394: doDynamicNewMemberJoinGroup with requireKnownMemberId: MEMBER_ID_REQUIRED"),
    Step(0, {"kind": "JoinGroup", "member_id": "$a", "protocols": ["range"], "metadata": META},
         {"error": "NONE"}, learn=(("$g", "generation"),),
         rule="doCurrentMemberJoinGroup: a pending member is admitted (addMemberAndRebalance)"),
    Step(0, {"kind": "SyncGroup", "member_id": "$a", "generation": "$g",
             "assignments": [{"member_id": "$a", "assignment": "1"}]}, {"error": "NONE", "assignment": "1"},
         rule="GroupCoordinator.doSyncGroup, CompletingRebalance, the leader: setAndPropagateAssignment"),
    Step(2, {"kind": "JoinGroup", "member_id": "made-up-member", "protocols": ["range"], "metadata": META},
         {"error": "UNKNOWN_MEMBER_ID"},
         rule="GroupCoordinator.doCurrentMemberJoinGroup -> validateCurrentMember: !group.has(memberId) -> "
              "UNKNOWN_MEMBER_ID (a member id the coordinator never handed out is not admitted)"),
    Step(2, {"kind": "DescribeGroups", "member_id": ""}, {"error": "NONE", "state": "Stable", "member_ids": ["$a"]},
         rule="a refused JoinGroup changes nothing: GroupMetadata.summary still Stable with the one member"),
)

SCENARIOS = {"static-rejoin-replaces-the-member-id": STATIC_REJOIN,
             "static-wrong-member-id-is-fenced": STATIC_FENCED,
             "static-leave-by-instance-id": STATIC_LEAVE,
             "made-up-member-id-joins": MADE_UP_JOIN}


def repro_source(name: str, target_key: str, run: dict, violation: dict) -> str:
    """A standalone script (kafka-python only) replaying named scenario ``name`` up to its
    divergent step: ``run`` holds the broker's address, request versions and timers
    (``repro.run_of``). Data goes in as a JSON literal, the code is the fixed text
    groupcheck/templates/repro_named_scenario.py.txt."""
    steps = [{"slot": s.slot, "request": s.request, "want": s.want, "rule": s.rule, "learn": list(s.learn),
              "differs": list(s.differs)} for s in SCENARIOS[name][:violation["step"]]]
    data = {"scenario": name, "target": target_key, "bootstrap": run["bootstrap"], "versions": run["versions"],
            "session_ms": run["session_ms"], "rebalance_ms": run["rebalance_ms"], "steps": steps}
    header = ["#!/usr/bin/env python3",
              "# Standalone reproduction of a named group-coordinator scenario found by groupcheck",
              "# (needs only kafka-python: pip install kafka-python). Run: python3 THIS --bootstrap HOST:PORT",
              f"# Target: {target_key!r}; scenario: {name}; observed: {violation['message']!r}"]
    body = files("groupcheck").joinpath("templates/repro_named_scenario.py.txt").read_text()
    return "\n".join(header) + "\nimport json\n\nDATA = json.loads(" + repr(json.dumps(data)) + ")\n\n" + body


def unsupported(target) -> str:
    """Why the target cannot run these scenarios, or ""."""
    v = getattr(target, "versions", None)
    if v is None:
        return "static members are driven only over TCP (a broker target)"
    if v.get("JoinGroup", 0) < 5 or v.get("LeaveGroup", 0) < 3:
        return (f"{target.name} speaks JoinGroup v{v.get('JoinGroup')}, LeaveGroup v{v.get('LeaveGroup')}: "
                "group.instance.id needs JoinGroup v5+ and LeaveGroup v3+")
    return ""


def _resolve(value, known: dict):
    if isinstance(value, str) and value.startswith("$"):
        return known.get(value, f"unknown{value}")
    if isinstance(value, list):
        return [_resolve(v, known) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, known) for k, v in value.items()}
    return value


def check(step: Step, answers: list, known: dict) -> str | None:
    """The violation message of one step, or None."""
    if len(answers) != 1:
        return f"{step.request['kind']}: {len(answers)} answers, one expected ({step.rule})"
    got = answers[0]["response"]
    want = _resolve(step.want, known)
    bad = [f"{k} {got.get(k)!r}, Kafka {v!r}" for k, v in want.items() if got.get(k) != v]
    bad += [f"{k} {got.get(k)!r} is still {name}'s" for k, name in step.differs if got.get(k) == known.get(name)]
    return f"{step.request['kind']}: " + "; ".join(bad) + f" ({step.rule})" if bad else None


def run(target, name: str, group: str) -> dict:
    """One named scenario on a broker target: {"scenario", "steps", "violation"} (the first
    step that broke its rule: {"step", "message"}; the scenario ends there)."""
    out = {"scenario": name, "steps": 0, "violation": None, "transcript": []}
    target.setup("group-coordinator", {"group": group})
    known: dict = {}
    try:
        for i, step in enumerate(SCENARIOS[name], 1):
            req = _resolve(step.request, known)
            target._send(step.slot, req)
            # every step expects one answer: wait up to the rebalance timeout (a join round or a pending
            # sync ends by then in Kafka: InitialDelayedJoin, DelayedJoin, DelayedSync); how long it
            # took is recorded, not judged (Tansu holds a static member's first join and its leader's
            # SyncGroup 3 s each; Kafka answers that SyncGroup at once)
            start = time.monotonic()
            answers = target.wait(target.rebalance_ms / 1000 + MARGIN, want=1)
            out["steps"] += 1
            out["transcript"].append({"step": i, "member": step.slot, "request": req, "answers": answers,
                                      "seconds": round(time.monotonic() - start, 2)})
            message = check(step, answers, known)
            if message:
                out["violation"] = {"step": i, "message": message}
                break
            for key, field in step.learn:
                known[key] = answers[0]["response"].get(field)
    finally:
        target.teardown()
    return out
