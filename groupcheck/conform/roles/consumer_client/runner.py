"""Run one scenario on a fresh mock cluster and judge it."""
from __future__ import annotations

import time
from dataclasses import dataclass

from ...targets.librdkafka.client import Group, Listener, Settings, cooperative
from .claims import Judgement, judge
from .scenarios import execute, settle_budget


@dataclass
class ScenarioRun:
    scenario: list
    events: list
    judgement: Judgement
    seconds: float
    rounds: list            # (rounds, seconds) per settle that saw generations move
    complete: bool          # False: a deadline cut it short (what ran is still judged)
    error: str | None = None


def run_scenario(scenario: list[dict], settings: Settings, listener_class=Listener,
                 deadline: float | None = None, settle_quiet_s: float = 1.0) -> ScenarioRun:
    """Execute ``scenario`` on a new group; always tear the group down; judge what ran.
    An operation that raises ends the scenario there (recorded as ``error``)."""
    start = time.monotonic()
    group = Group(settings, listener_class, deadline=deadline)
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
    events = [e for e in group.events]
    j = judge(events, cooperative=cooperative(settings.assignor), partitions=settings.partitions,
              max_poll_interval_ms=settings.max_poll_interval_ms)
    rounds = [(e["args"]["rounds"], e["args"]["seconds"]) for e in events
              if e["kind"] == "op" and e["op"] == "settled" and e["args"]["ok"] and e["args"]["rounds"]]
    return ScenarioRun(scenario, events, j, time.monotonic() - start, rounds, complete, error)
