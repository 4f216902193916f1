"""Scenarios for the consumer-protocol group: JSON operations, validated strictly.

| op | args | what the driver does |
|---|---|---|
| ``join`` | member | a ``group.protocol=consumer`` Consumer subscribes (heartbeat at epoch 0) |
| ``close`` | member | Consumer.close(): revoke, leave (epoch -1) |
| ``unsubscribe`` / ``subscribe`` | member | leave the group keeping the handle / subscribe again |
| ``stall`` / ``resume`` | member | stop / restart polling it (``max.poll.interval.ms`` expiry) |
| ``heartbeat_errors`` | errors | the next ConsumerGroupHeartbeats (ApiKey 68) fail with ``errors`` |
| ``rtt`` | ms, seconds | the coordinator answers ``ms`` late for ``seconds`` |
| ``broker_down`` | seconds | the coordinator refuses connections for ``seconds`` |
| ``target`` | assignment | inject a target, ``{"c1": [0, 1], ...}`` (member names), or null: the mock's own |
| ``wait`` | seconds | poll every live member |
| ``settle`` | max_s | poll until stable (``ConsumerGroup.settled``) for the quiet time |

An operation on a member that is not running (or not subscribed, for ``unsubscribe``) is
recorded as skipped rather than failing, so the classic campaign's shrink, which deletes
operations one at a time, always gets a runnable scenario.
"""
from __future__ import annotations

import random

from . import scenarios as classic
from .scenarios import ScenarioError
from ...targets.librdkafka.mock_848 import CGH_ERRORS

OPS = {
    "join": {"member"}, "close": {"member"}, "unsubscribe": {"member"}, "subscribe": {"member"},
    "stall": {"member"}, "resume": {"member"}, "heartbeat_errors": {"errors"}, "rtt": {"ms", "seconds"},
    "broker_down": {"seconds"}, "target": {"assignment"}, "wait": {"seconds"}, "settle": {"max_s"},
}


def validate(scenario, members: int, partitions: int) -> list[dict]:
    """Check a scenario strictly; return it. Raises ScenarioError naming what is wrong."""
    if not isinstance(scenario, list) or not scenario:
        raise ScenarioError("a scenario is a non-empty list of operations")
    names = {f"c{i + 1}" for i in range(members)}
    limits = {"ms": 10_000, "seconds": 120, "max_s": 120}
    for i, op in enumerate(scenario):
        where = f"operation {i + 1}"
        name = op.get("op") if isinstance(op, dict) else None
        if name not in OPS:
            raise ScenarioError(f"{where}: an object whose 'op' is one of {', '.join(OPS)} is needed, not {op!r}")
        if op.keys() - {"op"} != OPS[name]:
            raise ScenarioError(f"{where}: {name} takes {sorted(OPS[name])}, got {sorted(op.keys() - {'op'})}")
        if op.get("member", "c1") not in names:
            raise ScenarioError(f"{where}: member must be one of {sorted(names)}, not {op['member']!r}")
        bad = [k for k, hi in limits.items() if k in op and (type(op[k]) not in (int, float) or not 0 <= op[k] <= hi)]
        if bad:
            raise ScenarioError(f"{where}: {bad[0]} must be a number 0..{limits[bad[0]]}, not {op[bad[0]]!r}")
        if name == "heartbeat_errors" and (not isinstance(op["errors"], list) or not 1 <= len(op["errors"]) <= 10
                                           or any(e not in CGH_ERRORS for e in op["errors"])):
            raise ScenarioError(f"{where}: errors must be 1..10 of {', '.join(CGH_ERRORS)}")
        if name == "target" and op["assignment"] is not None:
            a = op["assignment"]
            if not isinstance(a, dict) or not a or set(a) - names:
                raise ScenarioError(f"{where}: assignment must be null or an object over {sorted(names)}")
            flat = [p for ps in a.values() if isinstance(ps, list) for p in ps]
            if (any(not isinstance(ps, list) for ps in a.values())
                    or any(isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < partitions for p in flat)
                    or len(flat) != len(set(flat))):
                raise ScenarioError(f"{where}: assignment lists must hold distinct partitions 0..{partitions - 1}")
    return scenario


def generate(seed: int, members: int, partitions: int, max_ops: int = 6) -> list[dict]:
    """A seeded walk over the operations: joins first, then membership changes, faults
    and injected targets (swaps and revocations), each target followed by a settle and a
    return to the mock's own assignment; ends with everyone resumed and a settle."""
    rng = random.Random(seed)
    names = [f"c{i + 1}" for i in range(members)]
    running: list[str] = []
    hung: set[str] = set()
    ops: list[dict] = [{"op": "join", "member": names[0]}]
    running.append(names[0])
    for _ in range(max_ops):
        idle = [n for n in names if n not in running]
        ok = [n for n in running if n not in hung]
        kind = rng.choice(["join", "join", "close", "unsubscribe", "stall", "target", "target", "errors", "fault"])
        if kind == "join" and idle:
            running.append(idle[0])
            ops.append({"op": "join", "member": idle[0]})
        elif kind == "close" and len(ok) > 1:
            m = rng.choice(ok)
            running.remove(m)
            ops.append({"op": "close", "member": m})
        elif kind == "unsubscribe" and len(ok) > 1:
            m = rng.choice(ok)
            ops += [{"op": "unsubscribe", "member": m}, {"op": "wait", "seconds": 1.0},
                    {"op": "subscribe", "member": m}]
        elif kind == "stall" and len(ok) > 1:
            m = rng.choice(ok)
            hung.add(m)
            ops.append({"op": "stall", "member": m})
            if rng.random() < 0.5:
                ops.append({"op": "wait", "seconds": rng.choice([2.0, 7.0])})
                hung.discard(m)
                ops.append({"op": "resume", "member": m})
        elif kind == "target" and ok:
            ops.append({"op": "settle", "max_s": 30})
            shuffled = list(range(partitions))
            rng.shuffle(shuffled)
            holders = sorted(ok)
            rng.shuffle(holders)
            cut = sorted(rng.sample(range(partitions + 1), len(holders) - 1)) if len(holders) > 1 else []
            bounds = [0] + cut + [partitions]
            target = {h: sorted(shuffled[bounds[i]:bounds[i + 1]]) for i, h in enumerate(holders)}
            ops += [{"op": "target", "assignment": target}, {"op": "settle", "max_s": 30},
                    {"op": "target", "assignment": None}]
        elif kind == "errors":
            ops.append({"op": "heartbeat_errors", "errors": [rng.choice(
                ["FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID", "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR",
                 "_TRANSPORT"])] * rng.choice([1, 3])})
            if len(ok) > 1 and rng.random() < 0.5:     # the error lands on a leave / rejoin
                m = rng.choice(ok)
                ops += [{"op": "unsubscribe", "member": m}, {"op": "wait", "seconds": 1.0},
                        {"op": "subscribe", "member": m}]
        elif kind == "fault":
            ops.append(rng.choice([{"op": "broker_down", "seconds": 2}, {"op": "rtt", "ms": 1500, "seconds": 2}]))
            if idle and rng.random() < 0.5:             # a join while the others reconnect
                running.append(idle[0])
                ops.append({"op": "join", "member": idle[0]})
        else:
            continue
        if rng.random() < 0.3:
            ops.append({"op": "wait", "seconds": round(rng.uniform(0.3, 2.0), 1)})
    return classic.finish(ops)


def execute(group, op: dict, settle_quiet_s: float) -> None:
    """Perform one operation (the classic driver's for the ones both targets share)."""
    name = op["op"]
    m = op.get("member")
    running = m in group.members and not group.members[m].closed
    if name in ("close", "stall", "resume", "unsubscribe", "subscribe") and not running or \
            name == "unsubscribe" and not group.members[m].extra.get("subscribed") or \
            name == "subscribe" and group.members[m].extra.get("subscribed") or \
            name == "join" and running:
        group.record("op", op="skipped", args={"op": name, "member": m})
        return
    if name == "heartbeat_errors":
        group.record("op", op=name, args={"errors": op["errors"]})
        group.cg.push_heartbeat_errors(op["errors"])
    elif name == "target":
        used = group.set_target(op["assignment"])
        group.record("op", op=name, args={"assignment": op["assignment"], "member_ids": used})
    elif name in ("unsubscribe", "subscribe"):
        group.record("op", op=name, args={"member": m})
        getattr(group, name)(m)
        group.wait(0.2)
    else:
        classic.execute(group, op, settle_quiet_s)


def settle_budget(settings) -> float:
    """The longest a settle may take: a stall expiring, a session timing out, a margin."""
    return (settings.max_poll_interval_ms + settings.session_timeout_ms) / 1000 + 10
