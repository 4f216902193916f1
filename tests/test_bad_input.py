"""Bad input never ends in a traceback or in exit 1 (which means "violation found"):
`check --scope` (inline and @file) and `replay TRACE` exit 2 naming what was wrong."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck import traces
from groupcheck.cli import app
from model.consumer import MODEL
from model.consumer.scope import ConsumerScope

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
