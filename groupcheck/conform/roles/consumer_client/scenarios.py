"""Scenarios: sequences of operations on the real group, drawn from the consumer model.

A scenario is a list of operations, each a JSON object ``{"op": name, ...args}``:

| op | args | what the driver does |
|---|---|---|
| ``join`` | member | start a consumer and subscribe (JoinGroup on its first poll) |
| ``close`` | member | Consumer.close(): revoke or lose, LeaveGroup |
| ``stall`` / ``resume`` | member | stop / restart polling it (max.poll.interval.ms expiry) |
| ``request_errors`` | api, errors | the next requests of ApiKey ``api`` fail with ``errors`` |
| ``rtt`` | ms, seconds | the coordinator answers ``ms`` late for ``seconds``, then on time |
| ``broker_down`` | seconds | the coordinator refuses connections for ``seconds``, then is up |
| ``wait`` | seconds | poll every live member for ``seconds`` |
| ``settle`` | max_s | poll until the assignment is stable (see Group.settle) |
| ``kill`` | member | SIGKILL the member's process (real clients on a broker only) |
| ``sigstop`` / ``sigcont`` | member | stop / continue the whole process, heartbeats included (idem) |
| ``commit`` | member | a synchronous OffsetCommit of what it owns (idem) |
| ``grow_topic`` | | a new topic the members' pattern subscription matches: the partitions grow (idem) |
| ``produce`` | count | the harness writes ``count`` numbered records to each partition (idem, records on) |
| ``hold`` | member | it processes one more record and blocks before committing it (idem, records on) |
| ``grab`` | member | poll returns it one more record and it blocks before processing it (idem, records on) |

``from_model`` takes a seeded random walk of the consumer model (model/consumer) at a
scope with the same number of members and partitions and projects each action the
real group can be told to do onto an operation; the protocol's own steps (deliver,
receive, heartbeat, rejoin after the first join) the real client does by itself:

| model action | operation |
|---|---|
| first ``join`` of a slot, ``restart`` | ``join`` (``restart`` after ``crash``: ``close`` the hung one first) |
| ``crash``, ``pause`` | ``stall`` (librdkafka has no crash without destroy; a hung process is the closest) |
| ``resume`` | ``resume`` |
| ``lose_response`` | ``request_errors SyncGroup [_TRANSPORT]`` (the broker drops the connection) |
| ``timeout`` | ``rtt`` 1500 ms for 2 s |
| ``bounce`` | ``close`` + ``join`` |

Beyond the model (it has no coordinator failover), a walk may add a coordinator fault
(``broker_down`` 2 s) or a fencing Heartbeat error (``request_errors Heartbeat
[UNKNOWN_MEMBER_ID]``). Every scenario ends with every member resumed and a ``settle``.

With ``processes=True`` (each consumer its own process on a real broker, which takes no
injected faults) the faults are real: ``crash`` is ``kill`` (and ``restart`` after it a
``join``: with static membership the same group.instance.id comes back), ``pause`` is
``sigstop`` or a poll ``stall`` (chosen by the seed), ``resume`` their end, ``timeout`` a
``sigstop`` / ``wait`` / ``sigcont`` of one member; ``lose_response`` is not projected;
a walk may add a ``commit`` of a running member.
"""
from __future__ import annotations

import random
import time

from groupcheck.model.consumer import MODEL, Config, ConsumerScope

from ...targets.librdkafka.client import Group
from ...targets.librdkafka.mock import API_KEYS, ERROR_CODES

OPS = {
    "join": {"member"}, "close": {"member"}, "stall": {"member"}, "resume": {"member"},
    "request_errors": {"api", "errors"}, "rtt": {"ms", "seconds"}, "broker_down": {"seconds"},
    "wait": {"seconds"}, "settle": {"max_s"},
    "kill": {"member"}, "sigstop": {"member"}, "sigcont": {"member"}, "commit": {"member"}, "grow_topic": set(),
    "produce": {"count"}, "hold": {"member"}, "grab": {"member"},
}
PROCESS_OPS = ("kill", "sigstop", "sigcont", "commit", "grow_topic", "produce", "hold", "grab")      # only where each member is a process
MOCK_OPS = ("request_errors", "rtt", "broker_down")         # only on librdkafka's mock cluster


class ScenarioError(ValueError):
    """A malformed scenario or operation; the message names what is wrong."""


def validate(scenario, members: int) -> list[dict]:
    """Check a scenario (a list of op objects) strictly; return it. Raises ScenarioError."""
    if not isinstance(scenario, list) or not scenario:
        raise ScenarioError("a scenario is a non-empty list of operations")
    names = {f"c{i + 1}" for i in range(members)}
    for i, op in enumerate(scenario):
        where = f"operation {i + 1}"
        if not isinstance(op, dict) or not isinstance(op.get("op"), str):
            raise ScenarioError(f"{where}: an object with a string 'op' is needed, not {op!r}")
        name = op["op"]
        if name not in OPS:
            raise ScenarioError(f"{where}: unknown op {name!r}; known: {', '.join(OPS)}")
        keys = set(op) - {"op"}
        if keys != OPS[name]:
            raise ScenarioError(f"{where}: {name} takes {sorted(OPS[name])}, got {sorted(keys)}")
        if "member" in op and op["member"] not in names:
            raise ScenarioError(f"{where}: member must be one of {sorted(names)}, not {op['member']!r}")
        for k in ("ms", "seconds", "max_s"):
            if k in op and (isinstance(op[k], bool) or not isinstance(op[k], (int, float))
                            or not 0 <= op[k] <= 120):
                raise ScenarioError(f"{where}: {k} must be a number 0..120, not {op[k]!r}")
        if name == "produce" and (isinstance(op["count"], bool) or not isinstance(op["count"], int)
                                  or not 1 <= op["count"] <= 1000):
            raise ScenarioError(f"{where}: count must be an integer 1..1000, not {op['count']!r}")
        if name == "request_errors":
            if op["api"] not in API_KEYS:
                raise ScenarioError(f"{where}: unknown api {op['api']!r}; known: {', '.join(API_KEYS)}")
            if (not isinstance(op["errors"], list) or not 1 <= len(op["errors"]) <= 10
                    or any(e not in ERROR_CODES for e in op["errors"])):
                raise ScenarioError(f"{where}: errors must be 1..10 of {', '.join(ERROR_CODES)}")
    return scenario


def from_model(seed: int, members: int, partitions: int, assignor: str, max_ops: int = 5,
               processes: bool = False) -> list[dict]:
    """A scenario projected from a seeded random walk of the consumer model (real faults
    on processes if ``processes``: see the module's docstring)."""
    if processes:
        return _from_model_processes(seed, members, partitions, assignor, max_ops)
    rng = random.Random(seed)
    scope = ConsumerScope(members=members, partitions=(min(partitions, 4),), plan=(Config((assignor,)),),
                          budget=3, faults=("crash", "pause", "lose_response", "timeout"))
    state = MODEL.init_states(scope)[0]
    running: set[int] = set()
    hung: set[int] = set()
    ops: list[dict] = []
    for _ in range(200):
        acts = MODEL.actions(scope, state)
        if not acts or len(ops) >= max_ops + members:
            break
        action = rng.choice(acts)
        state, _ = MODEL.step(scope, state, action)
        c = f"c{action.slot + 1}" if action.slot is not None else None
        kind = action.kind
        if kind == "join" and action.slot not in running:
            running.add(action.slot)
            ops.append({"op": "join", "member": c})
        elif kind == "restart" and action.slot in running:
            ops += [{"op": "close", "member": c}, {"op": "join", "member": c}]
            hung.discard(action.slot)
        elif kind in ("crash", "pause") and action.slot in running and action.slot not in hung:
            hung.add(action.slot)
            ops.append({"op": "stall", "member": c})
        elif kind == "resume" and action.slot in hung:
            hung.discard(action.slot)
            ops.append({"op": "resume", "member": c})
        elif kind == "lose_response" and running:
            ops.append({"op": "request_errors", "api": "SyncGroup", "errors": ["_TRANSPORT"]})
        elif kind == "timeout" and running:
            ops.append({"op": "rtt", "ms": 1500, "seconds": 2})
        elif kind == "bounce" and action.slot in running:
            ops += [{"op": "close", "member": c}, {"op": "join", "member": c}]
        else:
            continue
        if running and rng.random() < 0.1:
            ops.append(rng.choice([{"op": "broker_down", "seconds": 2},
                                   {"op": "request_errors", "api": "Heartbeat", "errors": ["UNKNOWN_MEMBER_ID"]}]))
        if rng.random() < 0.4:
            ops.append({"op": "wait", "seconds": round(rng.uniform(0.5, 4.0), 1)})
        if ops[-1]["op"] in ("join", "close") and rng.random() < (0.6 if len(running) == 1 else 0.3):
            ops.append({"op": "settle", "max_s": 60})   # a settled point: converges_within_k counts from here
    if not running:
        ops.insert(0, {"op": "join", "member": "c1"})
    return finish(ops)


def _from_model_processes(seed: int, members: int, partitions: int, assignor: str, max_ops: int) -> list[dict]:
    rng = random.Random(seed)
    scope = ConsumerScope(members=members, partitions=(min(partitions, 4),), plan=(Config((assignor,)),),
                          budget=3, faults=("crash", "pause", "timeout"))
    state = MODEL.init_states(scope)[0]
    ops: list[dict] = []
    for _ in range(200):
        acts = MODEL.actions(scope, state)
        if not acts or len(ops) >= max_ops + members:
            break
        action = rng.choice(acts)
        state, _ = MODEL.step(scope, state, action)
        c = f"c{action.slot + 1}" if action.slot is not None else None
        kind = action.kind
        if kind in ("join", "restart"):
            ops.append({"op": "join", "member": c})
        elif kind == "crash":
            ops.append({"op": "kill", "member": c})
        elif kind == "pause":
            ops.append({"op": rng.choice(("sigstop", "stall")), "member": c})
        elif kind == "resume":
            ops += [{"op": "sigcont", "member": c}, {"op": "resume", "member": c}]
        elif kind == "timeout" and c:
            ops += [{"op": "sigstop", "member": c}, {"op": "wait", "seconds": round(rng.uniform(1.0, 3.0), 1)},
                    {"op": "sigcont", "member": c}]
        elif kind == "bounce" and c:
            ops += [{"op": "close", "member": c}, {"op": "join", "member": c}]
        else:
            continue
        if c and rng.random() < 0.15:
            ops.append({"op": "commit", "member": c})
        if rng.random() < 0.4:
            ops.append({"op": "wait", "seconds": round(rng.uniform(1.0, 8.0), 1)})
        if ops[-1]["op"] in ("join", "close") and rng.random() < 0.4:
            ops.append({"op": "settle", "max_s": 60})
    ops = normalise(ops)
    if not any(op["op"] == "join" for op in ops):
        ops.insert(0, {"op": "join", "member": "c1"})
    return finish(ops)


def finish(ops: list[dict]) -> list[dict]:
    """Continue and resume every member left stopped or stalled, then settle."""
    hung: set[str] = set()
    stopped: set[str] = set()
    for op in ops:
        name, m = op["op"], op.get("member")
        if name == "stall":
            hung.add(m)
        elif name == "sigstop":
            stopped.add(m)
        elif name == "sigcont":
            stopped.discard(m)
        elif name in ("resume", "close", "join", "kill"):
            hung.discard(m)
            if name != "resume":
                stopped.discard(m)
    tail = ([{"op": "sigcont", "member": m} for m in sorted(stopped)]
            + [{"op": "resume", "member": m} for m in sorted(hung)])
    return ops + tail + [{"op": "settle", "max_s": 60}]


def normalise(ops: list[dict]) -> list[dict]:
    """Drop operations a shorter scenario made meaningless (close / stall / resume / commit /
    hold / grab of a member not running, a second join of a running member), so every candidate runs."""
    running: set[str] = set()
    hung: set[str] = set()
    stopped: set[str] = set()
    out = []
    for op in ops:
        m = op.get("member")
        name = op["op"]
        if name == "join":
            if m in running:
                continue
            running.add(m)
        elif name in ("close", "kill"):
            if m not in running:
                continue
            running.discard(m)
            hung.discard(m)
            stopped.discard(m)
        elif name == "sigstop":
            if m not in running or m in stopped:
                continue
            stopped.add(m)
        elif name == "sigcont":
            if m not in stopped:
                continue
            stopped.discard(m)
        elif name in ("commit", "hold", "grab"):
            if m not in running or m in stopped:
                continue
        elif name == "stall":
            if m not in running or m in hung:
                continue
            hung.add(m)
        elif name == "resume":
            if m not in hung:
                continue
            hung.discard(m)
        out.append(op)
    return out


def execute(group: Group, op: dict, settle_quiet_s: float) -> None:
    """Perform one operation on the group, recorded as an ``op`` event (and, for close
    and settle, a second event when it completes)."""
    name = op["op"]
    args = {k: v for k, v in op.items() if k != "op"}
    group.record("op", op=name, args=args)
    if name == "join":
        group.join(op["member"])
        group.wait(0.2)
    elif name == "close":
        group.close(op["member"])
        group.record("op", op="closed", args=args)
    elif name == "stall":
        group.stall(op["member"])
    elif name == "resume":
        group.resume(op["member"])
    elif name == "request_errors":
        group.mock.push_request_errors(op["api"], op["errors"])
    elif name == "rtt":
        group.mock.broker_rtt(1, int(op["ms"]))
        group.wait(op["seconds"])
        group.mock.broker_rtt(1, 0)
    elif name == "broker_down":
        group.mock.broker_down(1)
        group.wait(op["seconds"])
        group.mock.broker_up(1)
    elif name == "wait":
        group.wait(op["seconds"])
    elif name == "settle":
        start_gen = max((m.last_sample[0] for m in group.members.values()), default=-1)
        ok, took = group.settle(op["max_s"], settle_quiet_s)
        end_gen = max((m.last_sample[0] for m in group.members.values()), default=-1)
        group.record("op", op="settled", args={"ok": ok, "max_s": op["max_s"], "seconds": round(took, 3),
                                               "rounds": max(0, end_gen - start_gen)})


def settle_budget(settings) -> float:
    """The longest a settle may take: a stall expiring plus four JoinGroup rounds."""
    return settings.max_poll_interval_ms / 1000 + 4 * settings.session_timeout_ms / 1000 + 5


def wall_time_bound(scenario: list[dict], settings) -> float:
    """An upper bound of one scenario's wall time, for progress and limits."""
    total = 0.0
    for op in scenario:
        total += {"settle": min(op.get("max_s", 0), settle_budget(settings)), "wait": op.get("seconds", 0),
                  "rtt": op.get("seconds", 0), "broker_down": op.get("seconds", 0)}.get(op["op"], 1.0)
    return total + 5


def now() -> float:
    return time.monotonic()
