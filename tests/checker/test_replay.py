"""`replay` compares the recorded trace with what it reproduces: the violation
(property, message, step), each state's action_taken and fields; exit 1 iff a
violation reproduces. Counterexample files are never overwritten."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from groupcheck import traces
from groupcheck.checker import bfs
from groupcheck.cli import app
from groupcheck.model.consumer import MODEL
from groupcheck.model.scopes import profile_label
from groupcheck.properties.known_bugs.consumer import variant

runner = CliRunner()
BUGGY = variant("KIP-429-no-withholding").buggy_scope()
VIOLATION = bfs(MODEL, BUGGY).violation


def recorded(**meta) -> dict:
    """The trace `check` writes for the KIP-429-no-withholding counterexample."""
    base = {"profile": BUGGY.profile, "violation": {"property": VIOLATION.property,
                                                    "message": VIOLATION.message, "kind": VIOLATION.kind}}
    return json.loads(traces.itf.dumps(traces.build(MODEL, BUGGY, VIOLATION.path, {**base, **meta})))


def replay(tmp_path, trace: dict):
    f = tmp_path / "t.itf.json"
    f.write_text(json.dumps(trace))
    result = runner.invoke(app, ["replay", str(f)])
    return result, " ".join(result.output.split())


def test_the_trace_records_the_label_of_its_behaviour():
    meta = recorded()["#meta"]
    assert meta["profile_label"] == profile_label(BUGGY) == "kafka-3.5+ + withhold=false"
    keys = list(meta)
    assert keys.index("profile_label") == keys.index("profile") + 1


def test_a_faithful_trace_reproduces_as_recorded(tmp_path):
    result, text = replay(tmp_path, recorded())
    assert result.exit_code == 1, text
    steps = len(VIOLATION.path) - 1
    assert f"reproduced: {VIOLATION.property} violated at step {steps}, as recorded" in text
    assert f"every state matches the recorded trace ({steps + 1} states" in text
    assert "behaviour kafka-3.5+ + withhold=false" in text


def test_a_changed_message_is_shown_against_the_recorded_one(tmp_path):
    trace = recorded()
    trace["#meta"]["violation"]["message"] = "an old wording"
    result, text = replay(tmp_path, trace)
    assert result.exit_code == 1
    assert (f"violated at step {len(VIOLATION.path) - 1}: {VIOLATION.message}; the trace records "
            f"{VIOLATION.property} violated at step {len(VIOLATION.path) - 1} (an old wording)") in text


def test_a_violation_that_no_longer_reproduces_exits_0_and_says_so(tmp_path):
    trace = recorded()
    trace["#meta"]["scope"]["behaviour"]["withhold"] = True       # the reference: withholding fixes it
    result, text = replay(tmp_path, trace)
    assert result.exit_code == 0, text
    assert f"not reproduced: the trace records {VIOLATION.property} violated at step" in text
    assert "no property is violated along it" in text


def test_the_first_difference_is_named_with_a_count_of_the_others(tmp_path):
    trace = recorded()
    trace["states"][3]["consumers"][0]["generation"] = 7
    trace["states"][5]["action_taken"] = "something else"
    trace["states"][5]["budget"] = True            # true is not 0 or 1
    reproduced = trace["states"][5]["consumers"][1]["status"]
    del trace["states"][6]["consumers"][1]["status"]
    result, text = replay(tmp_path, trace)
    assert result.exit_code == 1
    generation = recorded()["states"][3]["consumers"][0]["generation"]
    assert (f"differs from the recorded trace (the model or the trace changed since it was written): "
            f"state 3, consumers[0].generation: recorded 7, reproduced {generation} "
            f"(and 3 more differences, in 3 states in all)") in text
    diffs = traces.differences(trace["states"], recorded()["states"])
    assert [(d.state, d.field) for d in diffs] == [
        (3, "consumers[0].generation"), (5, "action_taken"), (5, "budget"), (6, "consumers[1].status")]
    assert diffs[3].recorded is traces.ABSENT and diffs[3].reproduced == reproduced


def test_differences_point_into_maps_by_key_and_count_missing_states():
    a = [{"group": {"members": {"#map": [["m1", {"owned": {"#set": ["t0-0"]}}]]}}}, {"x": 1}]
    b = [{"group": {"members": {"#map": [["m1", {"owned": {"#set": []}}], ["m2", {}]]}}}]
    diffs = traces.differences(a, b)
    assert [d.text() for d in diffs] == [
        'state 0, group.members[m1].owned: recorded {"#set":["t0-0"]}, reproduced {"#set":[]}',
        "state 0, group.members[m2]: recorded (absent), reproduced {}",
        'state 1: recorded {"x":1}, reproduced (absent)']


def test_a_clean_trace_with_no_recorded_violation_exits_0(tmp_path):
    trace = recorded()
    del trace["#meta"]["violation"]
    trace["#meta"]["path"] = trace["#meta"]["path"][:8]
    trace["states"] = trace["states"][:8]
    result, text = replay(tmp_path, trace)
    assert result.exit_code == 0, text
    assert "no property is violated along this trace" in text and "every state matches" in text


def test_a_violation_the_trace_did_not_record_still_exits_1(tmp_path):
    trace = recorded()
    del trace["#meta"]["violation"]
    result, text = replay(tmp_path, trace)
    assert result.exit_code == 1
    assert "(the trace records no violation)" in text


def test_write_names_files_per_scope_and_never_overwrites(tmp_path):
    trace = recorded()
    first = traces.write(tmp_path, "consumer-custom-p", trace, "story\n")
    assert first[0].name.startswith("consumer-custom-p-") and first[0].name.endswith(".itf.json")
    assert traces.write(tmp_path, "consumer-custom-p", trace, "story\n") == first     # same content: kept
    other_scope = json.loads(json.dumps(trace))
    other_scope["#meta"]["scope"]["members"] = 3
    second = traces.write(tmp_path, "consumer-custom-p", other_scope, "story\n")
    assert second[0] != first[0] and second[0].name[:-9] != first[0].name[:-9]
    changed = traces.write(tmp_path, "consumer-custom-p", trace, "another story\n")
    assert changed[0].name == first[0].name.replace(".itf.json", "-2.itf.json")
    assert changed[1].name == first[1].name.replace(".txt", "-2.txt")
    assert first[1].read_text() == "story\n" and changed[1].read_text() == "another story\n"
    assert len(list(tmp_path.iterdir())) == 6


def test_two_check_runs_with_different_scopes_keep_both_counterexamples(tmp_path):
    written = set()
    for members in (2, 3):
        scope = {"members": members, "plan": [{"assignors": ["cooperative-sticky"]}], "faults": [],
                 "budget": 0, "behaviour": {"withhold": False}}
        f = tmp_path / f"scope{members}.json"
        f.write_text(json.dumps(scope))
        result = runner.invoke(app, ["check", "consumer", "--scope", f"@{f}", "--walks", "0",
                                     "--out", str(tmp_path / "out")])
        assert result.exit_code == 1, result.output
        written |= {p.name for p in (tmp_path / "out").iterdir()}
    assert len(written) == 4, written
