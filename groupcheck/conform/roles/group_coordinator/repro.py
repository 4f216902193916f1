"""A standalone reproduction script for a group-coordinator divergence found over TCP.

``write`` puts ``repro_<stem>.py`` next to the divergence's trace: a script that needs
only kafka-python (no groupcheck) and replays the shrunk scenario's calls against a
broker (``--bootstrap HOST:PORT``, default the run's): one socket per member, the
requests at the versions the run used, the waits the run had, member ids and the
generation offset learned from the broker's answers. Per step it prints the answers the
model expects and the ones observed; the last (divergent) step decides: "reproduced"
(exit 1) or "not reproduced" (exit 0). Every datum goes into the script as
``json.loads(<repr of a JSON string>)``: no string from a transcript is pasted as code.
The script's code is the fixed text groupcheck/templates/repro_group_coordinator.py.txt.
"""
from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from ....outputs import atomic_write_text
from groupcheck.model.wire import group_coordinator_json as wire
from ...targets.broker.broker import MARGIN, QUIET
from .claims import CLAIMS
from .scenarios import SCOPES, model_steps


def steps_data(scope: str, path: list[int], transcript=()) -> list[dict]:
    """The calls of the path as plain data, member ids as the model's ints (the script
    maps them to the broker's), each with the answers the model expects and those the
    run observed (``transcript``: the runner's [index, f, value, answers], one per step up
    to the divergent one, which is the script's last)."""
    same = lambda mid: mid  # noqa: E731
    seen = [row[3] for row in transcript]       # one row per step, in order (probes share their step's index)
    steps = model_steps(SCOPES[scope], path)
    if transcript:          # the run ended at the divergent step: a probe after it shares its index
        steps = steps[:len(seen)]
    out = []
    for n, step in enumerate(steps):
        call = step.call
        d = {"index": step.index, "call": call.f, "member": call.slot,
             "expected": [{"member": s, **wire.response_json(r, same)} for s, r in step.expected],
             "observed_in_run": seen[n] if n < len(seen) else None}
        if call.f == "request":
            d["request"] = wire.request_json(call.request, same)
        elif call.f == "advance":
            d.update(reason=call.reason, members=list(call.members))
        out.append(d)
    return out


def source(claim: str, message: str, target_key: str, bootstrap: str, run: dict, steps: list[dict],
           judgement: str = "", decided_by: str = "") -> str:
    """The script's text. ``run``: versions, session_ms, rebalance_ms, join_wait_s;
    ``judgement`` and ``decided_by``: the divergence's record in judgements.json."""
    doc = (CLAIMS[claim].__doc__ or "").strip().splitlines()
    data = {"claim": claim, "message": message, "target": target_key, "bootstrap": bootstrap, **run,
            "steps": steps}
    header = ["#!/usr/bin/env python3",
              "# Standalone reproduction of a group-coordinator divergence found by groupcheck",
              "# (needs only kafka-python: pip install kafka-python). Run: python3 THIS --bootstrap HOST:PORT",
              f"# Target: {target_key!r}; claim: {claim}",
              f"# Observed in the run: {message!r}",
              "# Judgement: " + (repr(judgement) if judgement else
                                 "(to be written: a bug in the target, a documented choice, or the model)"),
              *([f"# Decided by: {decided_by!r}"] if decided_by else []),
              "# The claim and the Kafka source that decides it:"]
    header += ["#   " + line.strip() for line in doc]
    return "\n".join(header) + "\nimport json\n\nDATA = json.loads(" + repr(json.dumps(data)) + ")\n" + body()


def run_of(target) -> dict:
    """What the script needs of the run: the broker's address, versions and timers."""
    return {"bootstrap": target._where(), "versions": dict(target.versions), "session_ms": target.session_ms,
            "rebalance_ms": target.rebalance_ms, "join_wait_s": target.request_deadline("JoinGroup"),
            "quiet_s": QUIET, "margin_s": MARGIN}


def body() -> str:
    """The script's code after DATA (groupcheck/templates/repro_group_coordinator.py.txt)."""
    return "\n" + files("groupcheck").joinpath("templates/repro_group_coordinator.py.txt").read_text()


def write(where: Path, stem: str, target, target_key: str, r, judged: dict | None = None) -> Path | None:
    """The script of divergence ``r`` (a ScenarioResult) if ``target`` is a broker over TCP;
    ``judged``: its judgement (``judgements.judgement``), written in the header."""
    if not hasattr(target, "versions"):
        return None
    claim, message, step, _ = r.violation
    run = run_of(target)
    path = where / f"repro_{stem}.py"
    text = source(claim, message, target_key, run.pop("bootstrap"), run,
                  steps_data(r.scope, r.path[:step + 1], r.transcript),
                  judgement=(judged or {}).get("judgement", ""), decided_by=(judged or {}).get("decided_by", ""))
    atomic_write_text(path, text, force=True)
    return path
