"""One scenario on a real broker: a fresh topic and group, one process per member,
every operation performed by real means (``group.py``), judged by the consumer-client
judge (``claims.py``, the same claims as on librdkafka's mock; ``claims_848.py`` for
members with ``group.protocol=consumer``) and, with a commit policy, by the record judge
(``claims_records.py``). The broker is Tansu or a given one (``clients/broker.py``), or
librdkafka's mock cluster (``librdkafka/mock_broker.py``): ``open_broker``."""
from __future__ import annotations

import time

from groupcheck.conform.roles.consumer_client.claims import judge
from groupcheck.conform.roles.consumer_client.claims_848 import judge as judge_848
from groupcheck.conform.roles.consumer_client.claims_records import judge as judge_records
from groupcheck.conform.roles.consumer_client.runner import ScenarioRun
from groupcheck.conform.roles.consumer_client.scenarios import MOCK_OPS

from ...targets.clients.group import ProcessGroup, Settings

COOPERATIVE = ("cooperative-sticky",)


def open_broker(settings: Settings, bootstrap: str | None = None, log_dir=None):
    """The scenario's broker, opened: librdkafka's mock cluster when ``settings.mock`` (its
    KIP-848 group's session and heartbeat set from ``settings``), else Tansu or ``bootstrap``."""
    if settings.mock:
        from ...targets.librdkafka.mock_broker import MockBroker
        return MockBroker(settings.group_protocol, settings.session_timeout_ms, settings.heartbeat_interval_ms).open()
    from ...targets.clients.broker import Broker
    return Broker(bootstrap, log_dir=log_dir).open()


def settle_budget(s: Settings) -> float:
    """The longest a settle may take: a stall or a dead member expiring plus four
    JoinGroup rounds (a round on Tansu lasts about half a session timeout)."""
    return max(s.max_poll_interval_ms, s.session_timeout_ms) / 1000 + 4 * s.session_timeout_ms / 1000 + 5


def execute(group: ProcessGroup, op: dict, settle_quiet_s: float) -> None:
    """Perform one operation, recorded as an ``op`` event (close and settle: a second one)."""
    name, m = op["op"], op.get("member")
    args = {k: v for k, v in op.items() if k != "op"}
    if name in MOCK_OPS:
        raise ValueError(f"{name} is a fault of librdkafka's mock cluster; a real broker takes none")
    group.record("op", op=name, args=args)
    if name == "join":
        group.join(m)
    elif name == "close":
        group.close(m)
        group.record("op", op="closed", args=args)
    elif name in ("stall", "resume", "commit"):
        group.command(m, name)
    elif name in ("kill", "sigstop", "sigcont"):
        group.signal(m, name)
    elif name == "wait":
        group.wait(op["seconds"])
    elif name == "produce":
        group.produce(op["count"])
    elif name in ("hold", "grab"):
        group.hold(m, before_processing=name == "grab")
    elif name == "grow_topic":
        topic = group.grow()
        group.record("op", op="grown", args={"topic": topic, "partitions": group.partitions})
    elif name == "settle":
        def gen():
            return max((w.sample.get("generation", -1) for w in group.members.values()), default=-1)
        start_gen = gen()
        wait = min(op["max_s"], settle_budget(group.settings), group.settings.op_bound_s)
        ok, took = group.settle(wait, settle_quiet_s)
        group.record("op", op="settled", args={"ok": ok, "max_s": op["max_s"], "wait_s": round(wait, 1),
                                               "seconds": round(took, 1), "rounds": max(0, gen() - start_gen),
                                               "cut": not ok and group.past_deadline()})


def run_scenario(scenario: list[dict], settings: Settings, broker, deadline: float | None = None,
                 settle_quiet_s: float = 1.5) -> ScenarioRun:
    """Execute ``scenario`` on a fresh topic of ``broker`` (``broker.Broker``); always stop
    every worker; judge what ran. An operation that raises ends the scenario there."""
    start = time.monotonic()
    topic, group_id = broker.new_topic(settings.partitions)
    grows = any(op["op"] == "grow_topic" for op in scenario)     # then members subscribe by pattern
    group = ProcessGroup(settings, broker.bootstrap, group_id, topic, deadline,
                         create_topic=broker.create_topic if grows else None)
    error, complete = None, True
    try:
        for op in scenario:
            if deadline is not None and time.monotonic() >= deadline:
                complete = False
                break
            execute(group, op, settle_quiet_s)
    except Exception as exc:  # noqa: BLE001 - reported with the scenario, never a traceback
        error = f"{type(exc).__name__}: {exc}"
    finally:
        try:
            group.shutdown()
        finally:
            group.kill_all()
    if settings.commit_policy:
        try:
            group.final_offsets()
        except Exception as exc:  # noqa: BLE001 - reported with the scenario
            error = error or f"final offsets: {type(exc).__name__}: {exc}"
    events = group.events
    if settings.group_protocol == "consumer":
        j = judge_848(events, partitions=settings.partitions, max_poll_interval_ms=settings.max_poll_interval_ms)
    else:
        j = judge(events, cooperative=settings.assignor in COOPERATIVE, partitions=settings.partitions,
                  max_poll_interval_ms=settings.max_poll_interval_ms, session_timeout_ms=settings.session_timeout_ms,
                  heartbeat_interval_ms=settings.heartbeat_interval_ms)
    rounds = [(e["args"]["rounds"], e["args"]["seconds"]) for e in events
              if e["kind"] == "op" and e["op"] == "settled" and e["args"]["ok"] and e["args"]["rounds"]]
    records = (judge_records(events, policy=settings.commit_policy, stride=settings.partitions)
               if settings.commit_policy else None)
    return ScenarioRun(scenario, events, j, time.monotonic() - start, rounds, complete, error, records)
