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


def decode(value: Any) -> Any:
    """An ITF value as plain Python: #set -> frozenset, #map -> dict, #tup -> tuple,
    #bigint -> int, a sequence -> tuple, a record -> dict (values decoded)."""
    if isinstance(value, list):
        return tuple(decode(v) for v in value)
    if not isinstance(value, dict):
        return value
    if "#bigint" in value:
        try:
            return int(value["#bigint"])
        except (TypeError, ValueError):
            raise TraceError(f"#bigint {value['#bigint']!r} is not an integer") from None
    if "#set" in value:
        return frozenset(_hashable(decode(v)) for v in value["#set"])
    if "#tup" in value:
        return tuple(decode(v) for v in value["#tup"])
    if "#map" in value:
        try:
            return {_hashable(decode(k)): decode(v) for k, v in value["#map"]}
        except (TypeError, ValueError):
            raise TraceError("#map entries must be [key, value] pairs") from None
    if "#unserializable" in value:
        return value["#unserializable"]
    return {k: decode(v) for k, v in value.items()}


def _hashable(v: Any) -> Any:
    return tuple(sorted(v.items())) if isinstance(v, dict) else v


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
