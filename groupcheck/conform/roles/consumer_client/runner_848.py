"""Run one consumer-protocol scenario on a fresh mock cluster and judge it."""
from __future__ import annotations

import time

from ...targets.librdkafka.client import Listener
from .runner import ScenarioRun
from ...targets.librdkafka.client_848 import ConsumerGroup, Settings848
from .claims_848 import judge
from .scenarios_848 import execute, settle_budget


def _perform(group: ConsumerGroup, scenario: list[dict], deadline: float | None, quiet_s: float) -> tuple:
    """(error, complete): the operations in order until one raises or the deadline passes."""
    for op in scenario:
        if deadline is not None and time.monotonic() >= deadline:
            return None, False
        try:
            execute(group, {**op, "max_s": min(op["max_s"], settle_budget(group.settings))}
                    if op["op"] == "settle" else op, quiet_s)
        except Exception as exc:  # noqa: BLE001 - reported with the scenario, never a traceback
            return f"{type(exc).__name__}: {exc}", True
    return None, True


def run_scenario(scenario: list[dict], settings: Settings848, listener_class=Listener,
                 deadline: float | None = None, settle_quiet_s: float = 1.0) -> ScenarioRun:
    """Execute ``scenario`` on a new group (always torn down); judge what ran. An operation
    that raises ends the scenario there (recorded as ``error``)."""
    start = time.monotonic()
    group = ConsumerGroup(settings, listener_class, deadline=deadline)
    try:
        error, complete = _perform(group, scenario, deadline, settle_quiet_s)
    finally:
        group.shutdown()
    settles = [e["args"] for e in group.events if e["kind"] == "op" and e["op"] == "settled"]
    return ScenarioRun(scenario, list(group.events),
                       judge(group.events, partitions=settings.partitions,
                             max_poll_interval_ms=settings.max_poll_interval_ms,
                             heartbeat_errors_observed=group.observes_heartbeat_errors),
                       time.monotonic() - start, [(a["rounds"], a["seconds"]) for a in settles if a["ok"] and a["rounds"]],
                       complete, error)
