"""The Informal Trace Format (Apalache ADR-015), as Quint and Apalache write it.

A trace is ``{"#meta": {...}, "vars": [...], "states": [{...}, ...]}``; values are
JSON with ``{"#set": [...]}``, ``{"#map": [[k, v], ...]}``, ``{"#tup": [...]}`` and
``{"#bigint": "..."}`` for what JSON lacks. Each state carries the action that led
to it in ``action_taken`` (Quint's model-based-testing convention) and its index in
its own ``#meta``.
"""
from __future__ import annotations

import json
import math
from typing import Any

from .scopes import shorten

SAFE_INT = 2 ** 53
MAX_DEPTH = 64          # JSON nested deeper than this is refused (groupcheck's own nest ~12)
MAX_DIGITS = 400        # an integer literal longer than this is refused


class JsonError(ValueError):
    """Text that is not strict JSON; the message names what is wrong and where."""


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
            raise TraceError(f"#bigint {shorten(repr(value['#bigint']))} is not an integer") from None
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


def _constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonError(f"the number {text[:40]} is out of range")
    return value


def _int(text: str) -> int:
    if len(text) > MAX_DIGITS:
        raise JsonError(f"an integer of {len(text):,} digits is out of range (at most {MAX_DIGITS})")
    return int(text)


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (iteratively: no recursion limit);
    on the way, a string (or key) that cannot be written out as UTF-8 is refused: JSON's
    ``\\ud800`` escapes decode to an unpaired surrogate."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(v, str):
            _utf8(v)
        elif d <= MAX_DEPTH and isinstance(v, dict):
            stack.extend((x, d + 1) for x in (*v.keys(), *v.values()))
        elif d <= MAX_DEPTH and isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


def _utf8(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise JsonError(f"a string holds an unpaired surrogate ({text[e.start:e.end]!a}): not UTF-8") from None


def unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """An object's members as a dict; a key given twice is refused (Python's json keeps the
    last silently, so one of the two values would be ignored)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise JsonError(f"the key {shorten(json.dumps(k))} is given twice in one object; give each key once")
            seen.add(k)
    return out


def parse_json(text: str) -> Any:
    """Strict JSON: Python's ``json`` also takes NaN, Infinity and 1e400 (as inf) and a key
    given twice; this refuses them, integers over MAX_DIGITS digits and nesting deeper
    than MAX_DEPTH."""
    try:
        value = json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int,
                           object_pairs_hook=unique_keys)
    except JsonError:
        raise
    except json.JSONDecodeError as e:
        raise JsonError(f"not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise JsonError(f"nested more than {MAX_DEPTH} levels deep") from None
    if _depth(value) > MAX_DEPTH:
        raise JsonError(f"nested more than {MAX_DEPTH} levels deep")
    return value


def _expect(value: Any, kind: type, where: str) -> None:
    names = {dict: "an object", list: "a list", str: "a string"}
    if not isinstance(value, kind):
        raise TraceError(f"{where} must be {names[kind]}")


def load(text: str) -> dict:
    """Parse and sanity-check a trace; raise TraceError naming the problem."""
    try:
        tr = parse_json(text)
    except JsonError as e:
        raise TraceError(str(e)) from None
    if not isinstance(tr, dict):
        raise TraceError("a trace is a JSON object with #meta, vars and states")
    for key in ("vars", "states"):
        if key not in tr:
            raise TraceError(f"missing {key!r}")
    _expect(tr.get("#meta", {}), dict, "'#meta'")
    _expect(tr["vars"], list, "'vars'")
    for i, name in enumerate(tr["vars"]):
        _expect(name, str, f"vars[{i}]")
    _expect(tr["states"], list, "'states'")
    for i, state in enumerate(tr["states"]):
        _expect(state, dict, f"states[{i}]")
        _expect(state.get("#meta", {}), dict, f"states[{i}].#meta")
    return tr
