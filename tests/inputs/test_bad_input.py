"""Bad input never ends in a traceback or in exit 1 (which means "violation found"):
`check --scope` (inline and @file) and `replay TRACE` exit 2 naming what was wrong."""
from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck import traces
from groupcheck.cli import app
from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.scope import ConsumerScope, to_dict

runner = CliRunner()
SCOPE = ConsumerScope(members=2, partitions=(1,), budget=0, max_generation=2)


def run(*args: str):
    result = runner.invoke(app, list(args))
    return result, " ".join(result.output.split())


def assert_exit_2(result, text: str, message: str) -> None:
    assert result.exit_code == 2, text
    assert text.startswith("error: ") and message in text, text
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output


# every kind of bad file, as --scope @file and as a trace
BAD_FILES = [
    (b"\xff\xfe{\x00}", "is not UTF-8 text (byte 0xff at offset 0)"),
    (bytes(range(256)), "is not UTF-8 text (byte 0x80 at offset 128)"),
    (b'{"members": 2}\x00', "not JSON: Extra data at line 1 column 15"),
    (b"", "is empty"),
    (b" \n\t ", "is empty"),
    (b'{"members": 1e400}', "the number 1e400 is out of range"),
    (b'{"members": -1E999}', "the number -1E999 is out of range"),
    (b'{"members": Infinity}', "Infinity is not a JSON number"),
    (b'{"members": [-Infinity]}', "-Infinity is not a JSON number"),
    (b'{"behaviour": {"withhold": NaN}}', "NaN is not a JSON number"),
    (b'{"plan": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested more than 64 levels deep"),
    (b'{"x": ' + b"[" * 70 + b"]" * 70 + b"}", "nested more than 64 levels deep"),
    (b'{"members": 1' + b"0" * 5000 + b"}", "an integer of 5,001 digits is out of range"),
    (b'{"members": 2', "not JSON: Expecting ',' delimiter at line 1 column 14"),
    (b"\xef\xbb\xbf{}", "not JSON: Unexpected UTF-8 BOM"),
]


@pytest.mark.parametrize("data, message", BAD_FILES)
def test_bad_scope_files_exit_2(tmp_path, data, message):
    f = tmp_path / "scope.json"
    f.write_bytes(data)
    result, text = run("check", "consumer", "--scope", f"@{f}", "--walks", "0")
    assert_exit_2(result, text, message)


@pytest.mark.parametrize("data, message", BAD_FILES)
def test_bad_trace_files_exit_2(tmp_path, data, message):
    f = tmp_path / "trace.itf.json"
    f.write_bytes(data)
    result, text = run("replay", str(f))
    assert_exit_2(result, text, message)


@pytest.mark.parametrize("args, message", [
    (["--scope", ""], "--scope: empty"),
    (["--scope", "@"], "--scope @: give a file name after @"),
    (["--scope", "@."], "--scope: . is a folder; give a file"),
    (["--scope", "@/no/such/file.json"], "cannot read /no/such/file.json: No such file or directory"),
    (["--scope", "[1]"], "--scope: give a JSON object"),
    (["--scope", '{"members": NaN}'], "--scope: NaN is not a JSON number"),
    (["--scope", '{"partitions": [Infinity]}'], "Infinity is not a JSON number"),
    (["--scope", '{"members": 2.0}'], "scope.members: expected an integer, got 2.0"),
    (["--scope", '{"members": 99999999999999999999}'], "scope.members: 99999999999999999999 is out of range"),
    (["--scope", '{"partitions": "12"}'], 'scope.partitions: expected a list, got "12"'),
    (["--scope", '{"behaviour": {"withhold": "no"}}'], 'scope.behaviour.withhold: expected true or false, got "no"'),
    (["--scope", '{"plan": [{"assignors": ["range"], "verison": 2}]}'],
     "scope.plan[0]: unknown key 'verison'; known: assignors, version"),
    (["--partitions", "2,,1"], "--partitions: '2,,1' has an empty item"),
    (["--partitions", "2,1,"], "--partitions: '2,1,' has an empty item"),
    (["--partitions", "2,x"], "--partitions: '2,x' is not a comma-separated list of counts"),
    (["--partitions", "٢"], "is not a comma-separated list of counts"),
    (["--faults", "crash,,pause"], "--faults: 'crash,,pause' has an empty item"),
    (["--operations", ",add_partition"], "--operations: ',add_partition' has an empty item"),
    (["--faults", "crash,pause,crash"], "scope.faults: 'crash' listed more than once"),
    (["--scope", '{"operations": ["delete_topic", "delete_topic"]}'], "scope.operations: 'delete_topic' listed more than once"),
])
def test_bad_scope_options_exit_2(args, message):
    result, text = run("check", "consumer", *args, "--walks", "0")
    assert_exit_2(result, text, message)


def test_a_streams_scope_is_as_strict():
    for scope, message in [('{"tasks": true}', "scope.tasks: expected an integer, got true"),
                           ('{"plan": ["2.3", {"release": "3.9", "upgrade.from": "2.3"}]}',
                            "scope.plan[1]: unknown key 'upgrade.from'; known: release, upgrade_from"),
                           ('{"faults": ["crash", "crash"]}', "scope.faults: 'crash' listed more than once"),
                           ('{"operations": ["scale_up", "bounce"], "faults": ["kill"]}', "scope.faults: unknown fault 'kill'")]:
        result, text = run("check", "streams-classic", "--scope", scope, "--walks", "0")
        assert_exit_2(result, text, message)


def valid_trace(path: list[int] | None = None) -> dict:
    return traces.build(MODEL, SCOPE, path or [0, 0, 0, 0], {"profile": SCOPE.profile})


def write(tmp_path: Path, trace: dict) -> str:
    f = tmp_path / "trace.itf.json"
    f.write_text(json.dumps(trace))
    return str(f)


def with_meta(**changes) -> dict:
    tr = valid_trace()
    tr["#meta"].update(changes)
    return tr


@pytest.mark.parametrize("trace, message", [
    (with_meta(protocol=1), "#meta.protocol: expected a string, got 1"),
    (with_meta(protocol=True), "#meta.protocol: expected a string, got true"),
    (with_meta(protocol="kafka"), "unknown protocol 'kafka'; known: consumer, streams-classic"),
    (with_meta(scope=[]), "#meta.scope: expected an object, got a list"),
    (with_meta(scope={"members": "2"}), '#meta.scope.members: expected an integer, got "2"'),
    (with_meta(scope={"plan": [{"assignors": ["range"], "verison": 2}]}),
     "#meta.scope.plan[0]: unknown key 'verison'; known: assignors, version"),
    (with_meta(path="0,0"), '#meta.path: expected a list, got "0,0"'),
    (with_meta(path=[0, True]), "#meta.path[1]: expected an integer, got true"),
    (with_meta(path=[0, 1.0]), "#meta.path[1]: expected an integer, got 1.0"),
    (with_meta(path=[0, -1]), "#meta.path[1]: -1 is negative"),
    (with_meta(path=[]), "#meta.path: empty"),
    (with_meta(path=[0] * 20_000), "#meta.path: 20,000 entries; replay takes at most 10,000 steps"),
    (with_meta(path=[0, 99]), "the path does not replay: step 1: action index 99 out of range"),
    (with_meta(path=[0, 2 ** 60]), "#meta.path[1]: 1152921504606846976 is out of range"),
    (with_meta(violation="no_double_ownership"), "#meta.violation: expected an object"),
    (with_meta(violation={"property": 3, "message": "x"}), "#meta.violation.property: expected a string, got 3"),
    ({**valid_trace(), "states": [1, 2]}, "states[0] must be an object"),
    ({**valid_trace(), "states": {}}, "'states' must be a list"),
    ({**valid_trace(), "vars": "action_taken"}, "'vars' must be a list"),
    ({**valid_trace(), "vars": [1]}, "vars[0] must be a string"),
    ({**valid_trace(), "#meta": []}, "'#meta' must be an object"),
    ({"vars": [], "states": []}, "#meta has no 'protocol', 'scope', 'path': it is not a groupcheck trace"),
    ({"#meta": {"format": "ITF", "source": "spec.qnt"}, "vars": ["n"], "states": [{"n": {"#bigint": "0"}}]},
     "#meta has no 'protocol', 'scope', 'path': it comes from 'spec.qnt', not groupcheck"),
])
def test_bad_traces_exit_2_naming_the_field(tmp_path, trace, message):
    result, text = run("replay", write(tmp_path, trace))
    assert_exit_2(result, text, message)


def test_a_directory_is_not_a_trace(tmp_path):
    result, text = run("replay", str(tmp_path))
    assert_exit_2(result, text, "is a folder; give a file")


# ------------------------------------------------------------------ what is not a file, or too much of one

ROOT = Path(__file__).resolve().parents[2]
READERS = [("replay", "{f}"), ("regression", "{f}"), ("spec", "trace", "{f}"), ("spec", "mc", "{f}"),
           ("trace-check", "{f}", "--out", "{tmp}/tc"), ("check", "consumer", "--scope", "@{f}"),
           ("explore", "{f}")]


def _subprocess(tmp: Path, args) -> subprocess.CompletedProcess:
    """The CLI in a child with a memory cap and a watchdog: before the fix, /dev/zero was
    read to the end of memory and a FIFO waited for a writer."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2 ** 30, 2 * 2 ** 30))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "4000"}
    try:
        return subprocess.run([sys.executable, "-m", "groupcheck.cli", *args], cwd=tmp, env=env, capture_output=True,
                              text=True, timeout=60, preexec_fn=cap)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(args)}: still running after 60 s")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["/dev/zero", "socket", "huge"])
@pytest.mark.parametrize("reader", READERS, ids=[" ".join(r[:2]) for r in READERS])
def test_not_a_regular_file_or_too_large_is_one_line_exit_2(tmp_path, kind, reader):
    if kind == "socket":
        f = tmp_path / "h.jsonl"
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(f))
        listener.close()                   # the socket file stays
    elif kind == "huge":
        f = tmp_path / "h.jsonl"
        with f.open("wb") as out:      # sparse: no disk used
            out.truncate(300 * 2 ** 20)
    else:
        f = Path(kind)
    r = _subprocess(tmp_path, [a.format(f=f, tmp=tmp_path) for a in reader])
    lines = [x for x in (r.stdout + r.stderr).splitlines() if x.strip()]
    assert r.returncode == 2, lines
    assert lines == [lines[0]] and lines[0].startswith("error:"), lines
    assert ("not a regular file" if kind != "huge" else "is larger than") in lines[0], lines


def _feed(fifo: Path, data: bytes) -> threading.Thread:
    """A writer on ``fifo`` (as ``--scope @<(make-scope)`` gives the shell's pipe)."""
    def write() -> None:
        try:
            with open(fifo, "wb") as f:
                f.write(data)
        except BrokenPipeError:            # the reader stopped at its cap
            pass
    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


def test_a_scope_through_a_pipe_is_read(tmp_path):
    fifo = tmp_path / "scope.json"
    os.mkfifo(fifo)
    _feed(fifo, json.dumps({"members": 1, "partitions": [1]}).encode())
    r = _subprocess(tmp_path, ["check", "consumer", "--scope", f"@{fifo}", "--walks", "0"])
    assert r.returncode in (0, 3) and "consumer/custom: 1 member" in r.stdout, (r.stdout, r.stderr)


def test_a_pipe_is_read_only_up_to_the_cap(tmp_path):
    from groupcheck import files
    fifo = tmp_path / "scope.json"
    os.mkfifo(fifo)
    _feed(fifo, b" " * 5000)
    with pytest.raises(files.InputError, match="larger than"):
        files.read_text(fifo, max_bytes=1000)


# ------------------------------------------------------------------ a 20 MB value is shown in ~200 characters

HUGE = "x" * 20 * 2 ** 20


def _one_short_line(result) -> str:
    """The one error line (trace-check prints its table first, then the line)."""
    assert result.exit_code == 2, result.output[:500]
    assert len(result.output) < 4000, result.output[:4000]
    lines = [x for x in result.output.splitlines() if x.startswith("error: ")]
    assert len(lines) == 1 and "xxxxx" in lines[0], result.output
    return lines[0]


@pytest.mark.parametrize("scope", [{"profile": HUGE}, {"faults": [HUGE]}, {HUGE: 1}, {"plan": [{"assignors": [HUGE]}]},
                                   {"members": HUGE}])
def test_a_huge_value_in_a_scope_file_is_shown_short(tmp_path, scope):
    f = tmp_path / "scope.json"
    f.write_text(json.dumps(scope))
    _one_short_line(runner.invoke(app, ["check", "consumer", "--scope", f"@{f}", "--walks", "0"]))


@pytest.mark.parametrize("args", [["--faults", HUGE], ["--partitions", HUGE], ["--partitions", "1" * 50_000],
                                  ["--plan", HUGE], ["--profile", HUGE]])
def test_a_huge_flag_value_is_shown_short(args):
    if args[1] == "1" * 50_000:
        result = runner.invoke(app, ["check", "consumer", *args, "--walks", "0"])
        assert result.exit_code == 2 and "out of range" in result.output and len(result.output) < 1000, result.output
        return
    _one_short_line(runner.invoke(app, ["check", "consumer", *args, "--walks", "0"]))


@pytest.mark.parametrize("meta", [{"protocol": HUGE}, {"violation": {"property": HUGE, "message": "m"}},
                                  {"scope": {**to_dict(SCOPE), "profile": HUGE}}])
def test_a_huge_value_in_a_trace_is_shown_short(tmp_path, meta):
    tr = valid_trace()
    tr["#meta"].update(meta)
    args = ["regression", write(tmp_path, tr)] if "violation" in meta else ["replay", write(tmp_path, tr)]
    _one_short_line(runner.invoke(app, args))


@pytest.mark.parametrize("field", ["protocol", "kind"])
def test_a_huge_value_in_a_history_is_shown_short(tmp_path, field):
    event = {**history_event(), field: HUGE}
    f = tmp_path / "h.jsonl"
    f.write_text(json.dumps(event) + "\n" + json.dumps({**event, "seq": 1, "protocol": "consumer"}) + "\n")
    line = _one_short_line(runner.invoke(app, ["trace-check", str(f), "--out", str(tmp_path / "o")]))
    assert field != "kind" or "known kinds: assigned, revoked, lost" in line


# ------------------------------------------------------------------ numbers, {} and duplicate keys named as such

@pytest.mark.parametrize("args, message", [
    (["--partitions", "1000000000"], "scope.partitions: [1000000000] is out of range: give 1-3 topics of 1-4"),
    (["--partitions", "1" * 30], "--partitions: " + "1" * 30 + " is out of range"),
    (["--members", "1000000000"], "scope.members: 1000000000 is outside 1..4"),
    (["--scope", "{}"], "--scope: {} sets no field"),
    (["--scope", '{"members": 2, "members": 3}'], 'the key "members" is given twice in one object'),
    (["--scope", '{"plan": [{"assignors": ["range"], "assignors": ["range"]}]}'], 'the key "assignors" is given twice'),
])
def test_numbers_empty_and_duplicate_scopes_are_named(args, message):
    result, text = run("check", "consumer", *args, "--walks", "0")
    assert_exit_2(result, text, message)


def test_a_duplicate_key_in_a_trace_is_refused(tmp_path):
    text = json.dumps(valid_trace()).replace('"#meta": {', '"#meta": {"protocol": "consumer", ', 1)
    f = tmp_path / "t.itf.json"
    f.write_text(text)
    result, out = run("replay", str(f))
    assert_exit_2(result, out, 'the key "protocol" is given twice in one object')


def test_a_flag_overriding_a_scope_field_says_so(tmp_path):
    result = runner.invoke(app, ["check", "consumer", "--scope", '{"members": 2, "budget": 0}', "--members", "1",
                                 "--walks", "0", "--max-states", "20", "--out", str(tmp_path)])
    assert result.exit_code in (0, 3), result.output
    notes = [x for x in result.output.splitlines() if x.startswith("note: --members overrides")]
    assert notes == ["note: --members overrides the --scope field members (2 -> 1)"], result.output


# ------------------------------------------------------------------ histories: extra fields ignored, unknown kinds named

def history_event() -> dict:
    return {"group": "g", "seq": 0, "protocol": "consumer", "scope": to_dict(SCOPE), "kind": "assigned",
            "client": "C1", "partitions": []}


def _valid_history(tmp_path: Path, extra: dict, kind: str | None = None) -> Path:
    from groupcheck.checker import walk
    from groupcheck.tracecheck import fleet
    scope = ConsumerScope(members=2, partitions=(2,), budget=0, max_generation=3)
    path, _, _ = walk(MODEL, scope, 1, 40)
    events = fleet.observations("consumer", MODEL, scope, path)
    assert events
    lines = [{"group": "g", "seq": i, "protocol": "consumer", "scope": to_dict(scope), **e, **extra}
             for i, e in enumerate(events)]
    if kind is not None:
        lines[-1]["kind"] = kind
    f = tmp_path / "h.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return f


def test_a_history_with_extra_fields_is_still_valid(tmp_path):
    f = _valid_history(tmp_path, {"host": "broker-1.example", "thread": "main"})
    result = runner.invoke(app, ["trace-check", str(f), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output


def test_a_history_with_an_unknown_kind_names_it_and_the_known_kinds(tmp_path):
    f = _valid_history(tmp_path, {}, kind="teleported")
    result, text = run("trace-check", str(f), "--out", str(tmp_path / "o"))
    assert result.exit_code == 2 and text.count("error: ") == 1, text
    assert 'error: group g: seq 1: unknown event kind "teleported" for consumer; known kinds: assigned, revoked, ' \
           'lost' in text, text


def test_a_history_line_with_a_duplicate_key_is_refused(tmp_path):
    f = tmp_path / "h.jsonl"
    f.write_text(json.dumps(history_event())[:-1] + ', "kind": "lost"}\n')
    result, text = run("trace-check", str(f), "--out", str(tmp_path / "o"))
    assert_exit_2(result, text, 'h.jsonl:1: the key "kind" is given twice in one object')


def test_a_parquet_history_whose_text_is_not_utf8_is_one_line_exit_2(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    f = tmp_path / "h.parquet"
    pq.write_table(pa.table({"group": ["g"], "seq": pa.array([0], pa.int64()),
                             "event": [json.dumps(history_event())]}), f, compression="none")
    data = f.read_bytes()
    f.write_bytes(data.replace(b'"assigned"', b'"assign\xffd"'))
    result, text = run("trace-check", str(f), "--out", str(tmp_path / "o"))
    assert_exit_2(result, text, "not a history Parquet file with an 'event' column of JSON text")
