"""The command line: tables, exit codes, counterexample files, replay, clear errors."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.scope import to_dict
from groupcheck.properties.known_bugs.consumer import variant

runner = CliRunner()
TINY = ["--members", "2", "--budget", "0", "--max-generation", "2", "--walks", "5"]


def run(*args):
    return runner.invoke(app, list(args))


def test_check_passes_on_a_tiny_scope_and_prints_the_table():
    result = run("check", "consumer", *TINY)
    assert result.exit_code == 0, result.output
    assert "consumer" in result.output and "bfs" in result.output and "walks" in result.output
    claims = sum(1 for p in MODEL.properties if p.kind != "sometimes") + 1     # + no_deadlock
    assert f"{claims}/{claims}" in result.output


def test_check_writes_a_counterexample_and_exits_1(tmp_path):
    v = variant("KIP-429-no-withholding")
    scope = json.dumps(to_dict(v.buggy_scope()))
    result = run("check", "consumer", "--scope", scope, "--walks", "0", "--out", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert f"{v.expect} violated" in result.output
    [itf] = tmp_path.glob(f"consumer-custom-{v.expect}-*.itf.json")
    story = itf.with_suffix("").with_suffix(".txt")
    trace = json.loads(itf.read_text())
    assert trace["#meta"]["violation"]["property"] == v.expect
    assert trace["#meta"]["protocol"] == "consumer"
    assert len(trace["states"]) == len(trace["#meta"]["path"])
    assert trace["states"][0]["action_taken"] == "init"
    assert "onPartitionsAssigned" in story.read_text()

    replayed = run("replay", str(itf))
    assert replayed.exit_code == 1, replayed.output
    assert f"reproduced: {v.expect} violated at step {len(trace['states']) - 1}, as recorded" in replayed.output
    assert "every state matches the recorded trace" in replayed.output


def test_replay_of_a_clean_trace_exits_0(tmp_path):
    v = variant("KIP-429-no-withholding")
    buggy = json.dumps(to_dict(v.buggy_scope()))
    run("check", "consumer", "--scope", buggy, "--walks", "0", "--out", str(tmp_path))
    [itf] = tmp_path.glob(f"consumer-custom-{v.expect}-*.itf.json")
    trace = json.loads(itf.read_text())
    trace["#meta"]["scope"] = to_dict(v.reference_scope())     # same path, reference behaviour
    trace["#meta"]["path"] = trace["#meta"]["path"][:10]
    del trace["#meta"]["violation"]
    trace["states"] = trace["states"][:10]
    itf.write_text(json.dumps(trace))
    result = run("replay", str(itf))
    assert result.exit_code == 0, result.output
    assert "no property is violated along this trace" in result.output
    assert "every state matches the recorded trace (10 states" in result.output


def test_bad_options_exit_2_with_a_clear_message(tmp_path):
    cases = [
        (["check", "nosuch"], "unknown protocol 'nosuch'"),
        (["check", "consumer", "--partitions", "two"], "--partitions"),
        (["check", "consumer", "--members", "9"], "scope.members: 9 is outside 1..4"),
        (["check", "consumer", "--faults", "meteor"], "unknown fault 'meteor'"),
        (["check", "consumer", "--plan", "range | bogus"], "unknown assignor(s): bogus"),
        (["check", "consumer", "--plan", " "], "partition.assignment.strategy is empty"),
        (["check", "consumer", "--profile", "kafka-0.1"], "unknown profile 'kafka-0.1'"),
        (["check", "consumer", "--scope", "{nope"], "--scope: not JSON"),
        (["check", "consumer", "--scope", '{"wat": 1}'], "scope: unknown key 'wat'; known: members,"),
        (["replay", str(tmp_path / "missing.json")], "cannot read"),
    ]
    for args, message in cases:
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output, (args, result.output)
        assert "Traceback" not in result.output


def test_replay_rejects_malformed_traces(tmp_path):
    bad = tmp_path / "bad.json"
    for text, message in [("not json", "not JSON"), ("[]", "JSON object"),
                          ('{"vars": [], "states": [], "#meta": {}}', "#meta has no 'protocol'"),
                          ('{"vars": [], "states": [], "#meta": {"protocol": "consumer", "scope": {}, "path": [0, 99]}}',
                           "the path does not replay")]:
        bad.write_text(text)
        result = run("replay", str(bad))
        assert result.exit_code == 2, (text, result.output)
        assert message in result.output, (text, result.output)


def test_list_names_properties_profiles_and_variants():
    result = run("list")
    assert result.exit_code == 0
    for word in ("no_double_ownership", "kafka-3.5+", "kafka-3.1-3.4", "KAFKA-14639"):
        assert word in result.output
