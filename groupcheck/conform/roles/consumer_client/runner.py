"""Run one scenario on a fresh mock cluster and judge it: ``run_scenario`` for classic
consumers, ``run_scenario_848`` for ``group.protocol=consumer`` (KIP-848) ones."""
from __future__ import annotations

import time
from dataclasses import dataclass

from ...targets.librdkafka.client import Group, Listener, Settings, cooperative
from ...targets.librdkafka.client_848 import ConsumerGroup, Settings848
from . import scenarios, scenarios_848
from .claims import Judgement, judge
from .claims_848 import judge as judge_848


@dataclass
class ScenarioRun:
    scenario: list
    events: list
    judgement: Judgement
    seconds: float
    rounds: list            # (rounds, seconds) per settle that saw generations move
    complete: bool          # False: a deadline cut it short (what ran is still judged)
    error: str | None = None
    records: object = None  # claims_records.RecordJudgement when the members processed records


def _perform(group, scenario: list[dict], ops, deadline: float | None, quiet_s: float) -> tuple:
    """(error, complete): the operations in order (``ops``: the protocol's scenarios module)
    until one raises (it ends the scenario, recorded as ``error``) or the deadline passes;
    the group is always torn down."""
    error, complete = None, True
    try:
        for op in scenario:
            if deadline is not None and time.monotonic() >= deadline:
                complete = False
                break
            if op["op"] == "settle":
                op = {**op, "max_s": min(op["max_s"], ops.settle_budget(group.settings))}
            ops.execute(group, op, quiet_s)
    except Exception as exc:  # noqa: BLE001 - reported with the scenario, never a traceback
        error = f"{type(exc).__name__}: {exc}"
    finally:
        group.shutdown()
    return error, complete


def _rounds(events: list) -> list:
    return [(e["args"]["rounds"], e["args"]["seconds"]) for e in events
            if e["kind"] == "op" and e["op"] == "settled" and e["args"]["ok"] and e["args"]["rounds"]]


def run_scenario(scenario: list[dict], settings: Settings, listener_class=Listener,
                 deadline: float | None = None, settle_quiet_s: float = 1.0) -> ScenarioRun:
    """Execute ``scenario`` on a new classic group; judge what ran."""
    start = time.monotonic()
    group = Group(settings, listener_class, deadline=deadline)
    error, complete = _perform(group, scenario, scenarios, deadline, settle_quiet_s)
    events = list(group.events)
    j = judge(events, cooperative=cooperative(settings.assignor), partitions=settings.partitions,
              max_poll_interval_ms=settings.max_poll_interval_ms)
    return ScenarioRun(scenario, events, j, time.monotonic() - start, _rounds(events), complete, error)


def run_scenario_848(scenario: list[dict], settings: Settings848, listener_class=Listener,
                     deadline: float | None = None, settle_quiet_s: float = 1.0) -> ScenarioRun:
    """Execute ``scenario`` on a new consumer-protocol group; judge what ran."""
    start = time.monotonic()
    group = ConsumerGroup(settings, listener_class, deadline=deadline)
    error, complete = _perform(group, scenario, scenarios_848, deadline, settle_quiet_s)
    events = list(group.events)
    j = judge_848(events, partitions=settings.partitions, max_poll_interval_ms=settings.max_poll_interval_ms,
                  heartbeat_errors_observed=group.observes_heartbeat_errors)
    return ScenarioRun(scenario, events, j, time.monotonic() - start, _rounds(events), complete, error)
