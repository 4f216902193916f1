"""The Informal Trace Format (Apalache ADR-015), as Quint and Apalache write it.

A trace is ``{"#meta": {...}, "vars": [...], "states": [{...}, ...]}``; values are
JSON with ``{"#set": [...]}``, ``{"#map": [[k, v], ...]}``, ``{"#tup": [...]}`` and
``{"#bigint": "..."}`` for what JSON lacks. Each state carries the action that led
to it in ``action_taken`` (Quint's model-based-testing convention) and its index in
its own ``#meta``.
"""
from __future__ import annotations

import json
from typing import Any

SAFE_INT = 2 ** 53


class TraceError(ValueError):
    """A trace file that cannot be read; the message names what is wrong."""


def number(n: int) -> Any:
    return n if -SAFE_INT < n < SAFE_INT else {"#bigint": str(n)}


def itf_set(items) -> dict:
    return {"#set": sorted(items)}


def itf_map(pairs) -> dict:
    return {"#map": [[k, v] for k, v in pairs]}


def trace(meta: dict, states: list[dict], actions: list[str]) -> dict:
    """Assemble a trace; ``actions[i]`` is what led to ``states[i]`` ("init" first)."""
    if len(states) != len(actions):
        raise ValueError("one action per state is needed")
    out_states = []
    for i, (state, action) in enumerate(zip(states, actions)):
        out_states.append({"#meta": {"index": i}, "action_taken": action, **state})
    vars_ = ["action_taken"] + (list(states[0]) if states else [])
    return {"#meta": {"format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
                      "source": "groupcheck", **meta},
            "vars": vars_, "states": out_states}


def dumps(tr: dict) -> str:
    return json.dumps(tr, indent=1, sort_keys=False)


def load(text: str) -> dict:
    """Parse and sanity-check a trace; raise TraceError naming the problem."""
    try:
        tr = json.loads(text)
    except json.JSONDecodeError as e:
        raise TraceError(f"not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(tr, dict):
        raise TraceError("a trace is a JSON object with #meta, vars and states")
    for key in ("vars", "states"):
        if key not in tr:
            raise TraceError(f"missing {key!r}")
    if not isinstance(tr["states"], list):
        raise TraceError("'states' must be a list")
    if not isinstance(tr.get("#meta", {}), dict):
        raise TraceError("'#meta' must be an object")
    return tr
