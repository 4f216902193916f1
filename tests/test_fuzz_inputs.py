"""Fuzzing what groupcheck reads: Hypothesis mutates valid trace files and scope JSON
(wrong types at every field, deleted and unknown keys, NaN / Infinity / 1e400 / huge
integers / deep nesting spliced in, truncation, stray bytes, garbage). Whatever it
makes, `replay` and `check --scope @file` exit 0 or 1 (a valid input) or 2 with an
error message, never with a traceback."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from groupcheck import traces
from groupcheck.cli import app
from model.consumer import MODEL
from model.consumer.scope import ConsumerScope, to_dict

runner = CliRunner()
FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SCOPE = ConsumerScope(members=2, partitions=(1,), budget=0, max_generation=2)
TRACE = json.loads(traces.itf.dumps(traces.build(MODEL, SCOPE, [0, 0, 0, 0, 0], {
    "profile": SCOPE.profile, "violation": {"property": "no_double_ownership", "message": "m", "kind": "always"}})))
SCOPES = {
    "consumer": to_dict(SCOPE),
    "streams-classic": {"instances": 2, "tasks": 2, "plan": ["2.3", {"release": "3.9", "upgrade_from": "2.3"}],
                        "behaviour": {"probing": "release"}, "max_generation": 4},
}
# what Python's json accepts and strict JSON does not, and what must be bounded
LITERALS = ["NaN", "Infinity", "-Infinity", "1e400", "-1E999", "1" + "0" * 500, "[" * 80 + "]" * 80,
            '"\\ud800"', "true", "null", "-1", "0.5", "9007199254740993"]
SENTINEL = "\u0000SPLICE\u0000"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2 ** 70), 2 ** 70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)


def _nodes(value: Any, at: tuple = ()) -> list[tuple]:
    """The path of every node under ``value`` (keys and list indices)."""
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _nodes(v, at + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _nodes(v, at + (i,))
    return out


def _set(doc: Any, at: tuple, change) -> Any:
    """A copy of ``doc`` with the node at ``at`` replaced by ``change(node)`` (None: removed)."""
    if not at:
        return change(doc)
    head, rest = at[0], at[1:]
    copy = dict(doc) if isinstance(doc, dict) else list(doc)
    new = _set(copy[head], rest, change)
    if new is _REMOVE:
        del copy[head]
    else:
        copy[head] = new
    return copy


_REMOVE = object()


@st.composite
def mutated(draw, doc: Any, focus: tuple = ()) -> bytes:
    """``doc`` made malformed (or, now and then, still valid) in one of several ways."""
    nodes = [n for n in _nodes(doc) if n[:len(focus)] == focus] if draw(st.booleans()) else _nodes(doc)
    at = draw(st.sampled_from(nodes))
    how = draw(st.sampled_from(["retype", "delete", "add_key", "splice", "truncate", "insert", "garbage"]))
    if how == "retype":
        return json.dumps(_set(doc, at, lambda _: draw(json_values))).encode()
    if how == "delete" and at:
        return json.dumps(_set(doc, at, lambda _: _REMOVE)).encode()
    if how == "add_key":
        key, value = draw(st.text(max_size=8)), draw(json_values)
        return json.dumps(_set(doc, at, lambda v: {**v, key: value} if isinstance(v, dict) else [v, value])).encode()
    if how == "splice":
        text = json.dumps(_set(doc, at, lambda _: SENTINEL))
        return text.replace(json.dumps(SENTINEL), draw(st.sampled_from(LITERALS))).encode()
    data = json.dumps(doc).encode()
    if how == "truncate":
        return data[:draw(st.integers(0, len(data) - 1))]
    if how == "insert":
        i = draw(st.integers(0, len(data)))
        return data[:i] + draw(st.binary(min_size=1, max_size=3)) + data[i:]
    return draw(st.binary(max_size=64))


def _outcome(args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1, 2, 3), result.output     # 3: a valid scope cut by --max-states
    if result.exit_code == 2:
        assert result.output.startswith("error: ") and len(result.output) > 12, result.output
    return result.exit_code, result.output


@FUZZ
@given(st.data())
def _fuzz_replay(bad: set[bytes], data) -> None:
    raw = data.draw(mutated(TRACE, focus=("#meta",)))
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "t.itf.json"
        f.write_bytes(raw)
        code, _ = _outcome(["replay", str(f)])
    if code == 2:
        bad.add(raw)


@FUZZ
@given(st.data())
def _fuzz_check(bad: set[bytes], data) -> None:
    protocol = data.draw(st.sampled_from(sorted(SCOPES)))
    raw = data.draw(mutated(SCOPES[protocol]))
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "scope.json"
        f.write_bytes(raw)
        code, _ = _outcome(["check", protocol, "--scope", f"@{f}", "--walks", "0", "--max-states", "30",
                            "--out", tmp])
    if code == 2:
        bad.add(raw)


def test_replay_never_fails_on_a_malformed_trace():
    bad: set[bytes] = set()
    _fuzz_replay(bad)
    print(f"\nreplay: {len(bad)} distinct bad trace files rejected with exit 2")
    assert len(bad) >= 150


def test_check_never_fails_on_a_malformed_scope():
    bad: set[bytes] = set()
    _fuzz_check(bad)
    print(f"\ncheck --scope: {len(bad)} distinct bad scope files rejected with exit 2")
    assert len(bad) >= 150
