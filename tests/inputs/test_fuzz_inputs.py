"""Fuzzing what groupcheck reads: Hypothesis mutates valid files the repo makes (a trace
written by `check`'s trace builder, scope JSON, a history, a Parquet history, a TLC
config and its MC module) and hands them to every command that reads them: `replay`,
`regression`, `explore` (its opening of a trace), `spec trace` (traces and histories),
`spec mc`, `trace-check` (JSON lines and Parquet), `check --scope @file` and `campaign
--scope @file`. Mutations: wrong types at every field, deleted, unknown and duplicated
keys, NaN / Infinity / 1e400 / huge integers / huge strings / deep nesting spliced in,
truncation, flipped and inserted bytes, non-UTF-8, garbage.

Whatever it makes, a command exits 0, 1 or 3 (a valid input) or 2 with exactly one
error line, never with a traceback. Each test keeps a tally (distinct inputs tried,
rejected with exit 2, and broken: a traceback, another exit code, not one error line)
and fails listing the broken ones."""
from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from groupcheck import traces
from groupcheck.checker import walk
from groupcheck.cli import app
from groupcheck.tracecheck import fleet
from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.scope import ConsumerScope, to_dict

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def fuzz(examples: int):
    return settings(max_examples=examples, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


SCOPE = ConsumerScope(members=2, partitions=(1,), budget=0, max_generation=2)
TRACE = json.loads(traces.itf.dumps(traces.build(MODEL, SCOPE, [0, 0, 0, 0, 0], {
    "profile": SCOPE.profile, "violation": {"property": "no_double_ownership", "message": "m", "kind": "always"}})))
SCOPES = {
    "consumer": to_dict(SCOPE),
    "streams-classic": {"instances": 2, "tasks": 2, "plan": ["2.3", {"release": "3.9", "upgrade_from": "2.3"}],
                        "behaviour": {"probing": "release"}, "max_generation": 4},
}
_HSCOPE = ConsumerScope(members=2, partitions=(2,), budget=0, max_generation=3)
HISTORY = [{"group": "g", "seq": i, "protocol": "consumer", "scope": to_dict(_HSCOPE), **e}
           for i, e in enumerate(fleet.observations("consumer", MODEL, _HSCOPE, walk(MODEL, _HSCOPE, 1, 40)[0]))]
# what Python's json accepts and strict JSON does not, and what must be bounded
LITERALS = ["NaN", "Infinity", "-Infinity", "1e400", "-1E999", "1" + "0" * 500, "[" * 80 + "]" * 80,
            '{"a":' * 70 + "1" + "}" * 70, '"\\ud800"', "true", "null", "-1", "0.5", "9007199254740993",
            "1000000000", json.dumps("x" * 2 ** 21), json.dumps("mod.evil:Class")]
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


_REMOVE = object()


def _set(doc: Any, at: tuple, change) -> Any:
    """A copy of ``doc`` with the node at ``at`` replaced by ``change(node)`` (_REMOVE: removed)."""
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


def _spliced(doc: Any, at: tuple, text: str) -> str:
    """``doc`` as JSON with the node at ``at`` written as ``text`` (any text, even invalid JSON)."""
    return json.dumps(_set(doc, at, lambda _: SENTINEL)).replace(json.dumps(SENTINEL), text)


def _duplicated(node: Any, value: Any) -> str:
    """An object's text with its first key given twice (the first time with ``value``)."""
    if isinstance(node, dict) and node:
        key = next(iter(node))
        return "{" + f"{json.dumps(key)}: {json.dumps(value)}, " + json.dumps(node)[1:]
    return json.dumps(node)


HOW = ["retype", "delete", "add_key", "duplicate", "splice", "truncate", "insert", "flip", "non_utf8", "garbage"]


@st.composite
def mutated(draw, doc: Any, focus: tuple = ()) -> bytes:
    """``doc`` made malformed (or, now and then, still valid) in one of several ways."""
    nodes = [n for n in _nodes(doc) if n[:len(focus)] == focus] if draw(st.booleans()) else _nodes(doc)
    at = draw(st.sampled_from(nodes))
    how = draw(st.sampled_from(HOW))
    if how == "retype":
        return json.dumps(_set(doc, at, lambda _: draw(json_values))).encode()
    if how == "delete" and at:
        return json.dumps(_set(doc, at, lambda _: _REMOVE)).encode()
    if how == "add_key":
        key, value = draw(st.text(max_size=8)), draw(json_values)
        return json.dumps(_set(doc, at, lambda v: {**v, key: value} if isinstance(v, dict) else [v, value])).encode()
    if how == "duplicate":
        node = doc
        for k in at:
            node = node[k]
        return _spliced(doc, at, _duplicated(node, draw(json_values))).encode()
    if how == "splice":
        return _spliced(doc, at, draw(st.sampled_from(LITERALS))).encode()
    return _bytes(draw, json.dumps(doc).encode(), how)


def _bytes(draw, data: bytes, how: str) -> bytes:
    """``data`` cut, flipped, with bytes inserted, made non-UTF-8, or replaced by garbage."""
    if how == "truncate":
        return data[:draw(st.integers(0, len(data) - 1))]
    i = draw(st.integers(0, len(data) - 1))
    if how == "insert":
        return data[:i] + draw(st.binary(min_size=1, max_size=3)) + data[i:]
    if how == "flip":
        return data[:i] + bytes([data[i] ^ draw(st.integers(1, 255))]) + data[i + 1:]
    if how == "non_utf8":
        return data[:i] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x00"])) + data[i:]
    return draw(st.binary(max_size=64))


@st.composite
def mutated_lines(draw, events: list[dict]) -> bytes:
    """A JSON-lines history with one line mutated, or the whole file's bytes."""
    if draw(st.booleans()):
        i = draw(st.integers(0, len(events) - 1))
        lines = [json.dumps(e).encode() for e in events]
        lines[i] = draw(mutated(events[i])).replace(b"\n", b" ")
        if draw(st.booleans()):
            lines.insert(i, lines[i])          # a line given twice
        return b"\n".join(lines) + b"\n"
    data = "".join(json.dumps(e) + "\n" for e in events).encode()
    return _bytes(draw, data, draw(st.sampled_from(["truncate", "insert", "flip", "non_utf8", "garbage"])))


# ------------------------------------------------------------------ running a command, judging its answer

@dataclass
class Tally:
    """What a fuzz test tried: distinct inputs, those rejected with exit 2, those broken."""
    name: str
    tried: set = field(default_factory=set)
    rejected: set = field(default_factory=set)
    broken: dict = field(default_factory=dict)      # input -> what was wrong

    def judge(self, raw: bytes, code: int, output: str, exception: BaseException | None) -> None:
        self.tried.add(raw)
        problem = _problem(code, output, exception)
        if problem:
            self.broken.setdefault(raw, problem)
        elif code == 2:
            self.rejected.add(raw)

    def report(self) -> None:
        print(f"\n{self.name}: {len(self.tried)} distinct inputs, {len(self.rejected)} rejected with exit 2, "
              f"{len(self.broken)} broken")
        shown = [f"{raw[:200]!r}: {why}" for raw, why in list(self.broken.items())[:5]]
        assert not self.broken, f"{len(self.broken)} inputs broke {self.name}:\n" + "\n".join(shown)


def _problem(code: int, output: str, exception: BaseException | None) -> str | None:
    if exception is not None and not isinstance(exception, SystemExit):
        return f"raised {type(exception).__name__}: {str(exception)[:200]}"
    if "Traceback" in output:
        return "a traceback: " + output[-300:]
    if code not in (0, 1, 2, 3):
        return f"exit {code}: {output[-300:]}"
    lines = [x for x in output.splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("error:")]
    if code == 2 and (len(errors) != 1 or lines[-1] != errors[0] or len(errors[0].strip()) < 10
                      or len(errors[0]) > 2500):      # the last line, whole: not wrapped onto the next
        return f"exit 2 without exactly one short error line: {output[-400:]}"
    return None


def _invoke(tally: Tally, raw: bytes, args: list[str]) -> int:
    result = runner.invoke(app, args)
    tally.judge(raw, result.exit_code, result.output, result.exception)
    return result.exit_code


def _with_file(tally: Tally, raw: bytes, name: str, args) -> None:
    """``raw`` written to ``name`` in a fresh folder; ``args(path, folder)`` the command line."""
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / name
        f.write_bytes(raw)
        _invoke(tally, raw, args(str(f), tmp))


# ------------------------------------------------------------------ traces

@pytest.mark.slow
def test_replay_never_fails_on_a_malformed_trace():
    tally = Tally("replay")

    @fuzz(150)
    @given(st.data())
    def run(data):
        raw = data.draw(mutated(TRACE, focus=("#meta",)))
        _with_file(tally, raw, "t.itf.json", lambda f, tmp: ["replay", f])
    run()
    tally.report()
    assert len(tally.rejected) >= 60


def test_regression_never_fails_on_a_malformed_trace():
    tally = Tally("regression")

    @fuzz(80)
    @given(st.data())
    def run(data):
        raw = data.draw(mutated(TRACE, focus=data.draw(st.sampled_from([("#meta",), ("#meta", "violation")]))))
        _with_file(tally, raw, "t.itf.json", lambda f, tmp: ["regression", f, "-o", f"{tmp}/test_r.py"])
    run()
    tally.report()
    assert len(tally.rejected) >= 30


def test_explore_never_fails_on_a_malformed_trace():
    """`explore TRACE` as far as it goes before serving: the trace opened (or refused)."""
    from groupcheck.commands.explore import _opener
    tally = Tally("explore")

    @fuzz(80)
    @given(st.data())
    def run(data):
        raw = data.draw(mutated(TRACE, focus=("#meta",)))
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / "t.itf.json"
            f.write_bytes(raw)
            said = io.StringIO()
            try:
                with contextlib.redirect_stderr(said):
                    _opener(str(f), None, None, None, {})
                code, exception = 0, None
            except (click.exceptions.Exit, typer.Exit) as e:
                code, exception = e.exit_code, None
            except BaseException as e:      # judged below: anything else is broken
                code, exception = -1, e
            tally.judge(raw, code, said.getvalue(), exception)
    run()
    tally.report()


@pytest.mark.slow
def test_spec_trace_never_fails_on_a_malformed_trace():
    tally = Tally("spec trace (trace)")

    @fuzz(60)
    @given(st.data())
    def run(data):
        raw = data.draw(mutated(TRACE, focus=("#meta",)))
        _with_file(tally, raw, "t.itf.json", lambda f, tmp: ["spec", "trace", f])
    run()
    tally.report()


# ------------------------------------------------------------------ scopes

@pytest.mark.slow
def test_check_never_fails_on_a_malformed_scope():
    tally = Tally("check --scope @file")

    @fuzz(150)
    @given(st.data())
    def run(data):
        protocol = data.draw(st.sampled_from(sorted(SCOPES)))
        raw = data.draw(mutated(SCOPES[protocol]))
        _with_file(tally, raw, "scope.json", lambda f, tmp: [
            "check", protocol, "--scope", f"@{f}", "--walks", "0", "--max-states", "30", "--out", tmp])
    run()
    tally.report()
    assert len(tally.rejected) >= 60


def test_campaign_never_fails_on_a_malformed_scope():
    tally = Tally("campaign --scope @file")

    @fuzz(40)
    @given(st.data())
    def run(data):
        raw = data.draw(mutated(SCOPES["consumer"]))
        _with_file(tally, raw, "scope.json", lambda f, tmp: [
            "campaign", "consumer", "--scope", f"@{f}", "--walks", "2", "--length", "5", "--out", f"{tmp}/run"])
    run()
    tally.report()


# ------------------------------------------------------------------ histories

@pytest.mark.slow
def test_trace_check_never_fails_on_a_malformed_history():
    tally = Tally("trace-check (JSON lines)")

    @fuzz(120)
    @given(st.data())
    def run(data):
        raw = data.draw(mutated_lines(HISTORY))
        _with_file(tally, raw, "h.jsonl", lambda f, tmp: ["trace-check", f, "--out", f"{tmp}/o", "--max-states",
                                                          "2000"])
    run()
    tally.report()
    assert len(tally.rejected) >= 40


def _parquet(raw_lines: bytes) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq
    lines = raw_lines.decode("utf-8", "replace").splitlines()
    table = pa.table({"group": ["g"] * len(lines), "seq": pa.array(range(len(lines)), pa.int64()), "event": lines})
    with tempfile.TemporaryDirectory() as tmp:
        pq.write_table(table, f"{tmp}/h.parquet")
        return Path(f"{tmp}/h.parquet").read_bytes()


VALID_PARQUET = _parquet("".join(json.dumps(e) + "\n" for e in HISTORY).encode())


@pytest.mark.slow
def test_trace_check_never_fails_on_a_malformed_parquet_history():
    tally = Tally("trace-check (Parquet)")

    @fuzz(60)
    @given(st.data())
    def run(data):
        if data.draw(st.booleans()):
            raw = _parquet(data.draw(mutated_lines(HISTORY)))
        else:
            raw = _bytes(data.draw, VALID_PARQUET, data.draw(st.sampled_from(["truncate", "insert", "flip", "garbage"])))
        _with_file(tally, raw, "h.parquet", lambda f, tmp: ["trace-check", f, "--out", f"{tmp}/o", "--max-states",
                                                            "2000"])
    run()
    tally.report()


def test_spec_trace_never_fails_on_a_malformed_history():
    tally = Tally("spec trace (history)")

    @fuzz(50)
    @given(st.data())
    def run(data):
        raw = data.draw(mutated_lines(HISTORY))
        _with_file(tally, raw, "h.jsonl", lambda f, tmp: ["spec", "trace", f, "--max-states", "2000"])
    run()
    tally.report()


# ------------------------------------------------------------------ spec folders: a TLC config and its MC module

@pytest.fixture(scope="module")
def spec_folder():
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "consumer"
        shutil.copytree(ROOT / "specs" / "consumer", folder)
        yield folder


@st.composite
def mutated_text(draw, text: str) -> bytes:
    """A text file with a line deleted, duplicated, or a value replaced, or its bytes mutated."""
    lines = text.splitlines()
    how = draw(st.sampled_from(["delete", "duplicate", "replace", "truncate", "insert", "flip", "non_utf8"]))
    i = draw(st.integers(0, len(lines) - 1))
    if how == "delete":
        return "\n".join(lines[:i] + lines[i + 1:]).encode()
    if how == "duplicate":
        return "\n".join(lines[:i + 1] + lines[i:]).encode()
    if how == "replace":
        words = lines[i].split()
        if words:
            j = draw(st.integers(0, len(words) - 1))
            words[j] = draw(st.sampled_from(["999999999999", "-1", '"x"', "{}", "<<", "\\*", "=", "CONSTANTS",
                                             "x" * 100_000, "{1, 2, 3}", "Init", "TRUE"]))
            lines[i] = " ".join(words)
        return "\n".join(lines).encode()
    return _bytes(draw, text.encode(), how)


@pytest.mark.slow
def test_spec_mc_never_fails_on_a_malformed_config_or_module(spec_folder):
    tally = Tally("spec mc")
    cfg, module = spec_folder / "MCConsumer.cfg", spec_folder / "MCConsumer.tla"
    good = {cfg: cfg.read_text(), module: module.read_text()}

    @fuzz(50)
    @given(st.data())
    def run(data):
        target = data.draw(st.sampled_from([cfg, module]))
        raw = data.draw(mutated_text(good[target]))
        try:
            target.write_bytes(raw)
            _invoke(tally, raw, ["spec", "mc", str(cfg), "--max-states", "30", "--no-states"])
        finally:
            target.write_text(good[target])
    run()
    tally.report()
