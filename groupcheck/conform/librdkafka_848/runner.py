"""Run one consumer-protocol scenario on a fresh mock cluster and judge it."""
from __future__ import annotations

import time

from ..librdkafka.client import Listener
from ..librdkafka.runner import ScenarioRun
from .client import ConsumerGroup, Settings848
from .judge import judge
from .scenarios import execute, settle_budget


def run_scenario(scenario: list[dict], settings: Settings848, listener_class=Listener,
                 deadline: float | None = None, settle_quiet_s: float = 1.0) -> ScenarioRun:
    """Execute ``scenario``; always tear the group down; judge what ran. An operation that
    raises ends the scenario there (recorded as ``error``)."""
    start = time.monotonic()
    group = ConsumerGroup(settings, listener_class, deadline=deadline)
    error, complete = None, True
    try:
        for op in scenario:
            if deadline is not None and time.monotonic() >= deadline:
                complete = False
                break
            if op["op"] == "settle":
                op = {**op, "max_s": min(op["max_s"], settle_budget(settings))}
            execute(group, op, settle_quiet_s)
    except Exception as exc:  # noqa: BLE001 - reported with the scenario, never a traceback
        error = f"{type(exc).__name__}: {exc}"
    finally:
        group.shutdown()
    events = list(group.events)
    j = judge(events, partitions=settings.partitions, max_poll_interval_ms=settings.max_poll_interval_ms)
    rounds = [(e["args"]["rounds"], e["args"]["seconds"]) for e in events
              if e["kind"] == "op" and e["op"] == "settled" and e["args"]["ok"] and e["args"]["rounds"]]
    return ScenarioRun(scenario, events, j, time.monotonic() - start, rounds, complete, error)
