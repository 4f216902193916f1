"""The explorer's Python API (groupcheck.explorer): moving along and off a path, what it
shows of a state, searching from a state, exporting, and the read-only traces."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from groupcheck import traces
from groupcheck.checker import bfs
from groupcheck.explorer import ExploreError, Recording, Session, open_scope, open_trace, open_variant
from groupcheck.explorer import diff as diffs
from groupcheck.explorer import tables as state_tables
from groupcheck.protocols import variant_job
from groupcheck.model import itf
from groupcheck.model.core import replay

ROOT = Path(__file__).resolve().parents[2]


def _trace_file(tmp_path: Path, key: str) -> tuple[Path, list[int], str]:
    """A known bug's shortest counterexample written as groupcheck writes it."""
    job = variant_job(key)
    report = bfs(job.protocol.model, job.scope)
    v = report.violation
    tr = traces.build(job.protocol.model, job.scope, v.path,
                      {"violation": {"property": v.property, "message": v.message}})
    out = tmp_path / f"{key}.itf.json"
    out.write_text(itf.dumps(tr))
    return out, v.path, v.property


# ------------------------------------------------------------------ moving

def test_a_trace_opens_at_its_initial_state_with_its_path_ahead(tmp_path):
    f, path, prop = _trace_file(tmp_path, "KAFKA-13419")
    s = open_trace(f)
    assert isinstance(s, Session)
    assert (s.path, s.ahead, s.depth) == (path[:1], path[1:], 0)
    assert s.recorded["property"] == prop == "no_double_ownership"
    found = s.first_violation()            # along the way ahead, before walking it
    assert (found.property, found.step) == (prop, len(path) - 1)


def test_forward_follows_the_trace_and_back_undoes_a_step(tmp_path):
    f, path, _ = _trace_file(tmp_path, "KAFKA-13419")
    s = open_trace(f)
    s.forward().forward()
    assert s.path == path[:3] and s.ahead == path[3:]
    s.back()
    assert s.path == path[:2] and s.ahead == path[2:]
    s.take(path[2])                       # the step ahead, taken by index: the rest is kept
    assert s.ahead == path[3:]


def test_another_action_branches_and_drops_the_way_ahead(tmp_path):
    f, path, _ = _trace_file(tmp_path, "KAFKA-13419")
    s = open_trace(f).forward().forward()
    other = next(m.index for m in s.actions() if m.index != s.ahead[0])
    s.take(other)
    assert s.path == path[:3] + [other] and s.ahead == []


def test_goto_keeps_the_way_ahead_on_the_path_and_to_violation_goes_there(tmp_path):
    f, path, prop = _trace_file(tmp_path, "KAFKA-13419")
    s = open_trace(f).to_violation()
    assert s.path == path and s.ahead == []
    s.goto(path[:2])
    assert s.ahead == path[2:]
    status = {p.name: p for p in s.to_violation().properties()}[prop]
    assert status.status == "violated" and status.first_broken == len(path) - 1


def test_bad_moves_name_what_is_wrong():
    s = open_scope("consumer")
    n = len(s.actions())
    with pytest.raises(ExploreError, match=rf"action 99 is not enabled here; {n} action\(s\)"):
        s.take(99)
    with pytest.raises(ExploreError, match="step 1: action index 50 out of range"):
        s.goto([0, 50])
    with pytest.raises(ExploreError, match="initial-state index 3 out of range"):
        s.goto([3])
    assert s.path == [0]                 # a refused move leaves the session where it was


# ------------------------------------------------------------------ what a state shows

def test_each_action_says_which_property_its_step_would_break(tmp_path):
    f, path, prop = _trace_file(tmp_path, "KAFKA-13419")
    s = open_trace(f)
    s.goto(path[:-1])
    moves = s.actions()
    assert moves[path[-1]].breaks is not None and moves[path[-1]].breaks[0] == prop
    assert [m.index for m in moves] == list(range(len(moves)))
    assert all(m.text for m in moves)


def test_properties_at_a_state_cover_every_claim_and_judge_step_claims_on_the_step_in(tmp_path):
    f, path, prop = _trace_file(tmp_path, "KAFKA-12983")     # lost_only_when_fenced: a step claim
    s = open_trace(f)
    names = [p.name for p in s.properties()]
    assert names == [p.name for p in s.model.properties] + ["no_deadlock"]
    at_init = {p.name: p for p in s.properties()}
    assert at_init[prop].status == "not judged"
    s.to_violation()
    here = {p.name: p for p in s.properties()}
    assert here[prop].status == "violated" and here[prop].message
    s.back()
    assert {p.name: p for p in s.properties()}[prop].status == "holds"


def test_the_diff_names_exactly_the_fields_the_step_changed(tmp_path):
    f, path, _ = _trace_file(tmp_path, "KAFKA-13419")
    s = open_trace(f)
    assert s.diff() == []                                  # the initial state
    for _ in range(len(path) - 1):
        s.forward()
        before = s.itf_state(s.last_step.prev)
        after = s.itf_state()
        changed = {c.field for c in s.diff()}
        expected = {f for f, _, _ in traces.changed_fields(
            {k: v for k, v in before.items() if k != "action_taken"},
            {k: v for k, v in after.items() if k != "action_taken"})}
        assert changed == expected


def test_a_changed_set_names_the_items_gained_and_lost():
    before = {"c": [{"owned": {"#set": ["t0-0", "t0-1"]}}]}
    after = {"c": [{"owned": {"#set": ["t0-1", "t0-2"]}}]}
    (change,) = diffs.changes(before, after)
    assert (change.field, change.added, change.removed) == ("c[0].owned", ("t0-2",), ("t0-0",))
    assert change.line() == "c[0].owned: {t0-0, t0-1} -> {t0-1, t0-2} (+t0-2 -t0-0)"


def _leaves(value, where=""):
    parts = traces._parts(value)
    if parts is None:
        yield where.lstrip(".")
        return
    for suffix, v in parts[1].items():
        yield from _leaves(v, where + suffix)


@pytest.mark.parametrize("key", ["KAFKA-13419", "KAFKA-8649", "KAFKA-20899", "KAFKA-16147"])
def test_the_tables_show_every_field_of_the_state_once(tmp_path, key):
    s = open_trace(_trace_file(tmp_path, key)[0]).to_violation()
    state = s.itf_state()
    cells = [c.path for t in s.tables() for row in t.rows for c in row if c.path]
    assert len(cells) == len(set(cells))
    # each leaf is shown by the cell of its own path or of a record or list holding it
    body = {k: v for k, v in state.items() if k != "action_taken"}
    for leaf in _leaves(body):
        assert any(leaf == c or leaf.startswith(c + ".") or leaf.startswith(c + "[") for c in cells), leaf


def test_a_table_cell_is_marked_changed_when_its_field_or_a_part_of_it_changed():
    changed = [diffs.Change("group.members[m2].joined", "false", "true")]
    assert diffs.touches("group.members[m2].joined", changed)
    assert diffs.touches("group.members[m2]", changed)
    assert not diffs.touches("group.members[m1].joined", changed)
    assert not diffs.touches("group.generation", changed)
    assert state_tables.text({"#set": []}) == "{}" and state_tables.text({"#tup": [1, "a"]}) == "(1, a)"


# ------------------------------------------------------------------ search from a state

def test_bfs_from_the_initial_state_finds_the_variants_shortest_counterexample(tmp_path):
    _, path, prop = _trace_file(tmp_path, "KAFKA-20442")
    s = open_variant("KAFKA-20442")
    result = s.run_to_violation("bfs", max_seconds=60)
    assert (result.property, len(result.path)) == (prop, len(path))
    assert s.path == result.path and s.first_violation().property == prop


def test_bfs_from_a_later_state_keeps_the_path_taken_so_far(tmp_path):
    f, path, prop = _trace_file(tmp_path, "KAFKA-20442")
    s = open_trace(f).forward().forward()
    taken = s.path
    result = s.run_to_violation("bfs")
    assert result.path[: len(taken)] == taken and result.property == prop
    assert len(result.path) <= len(path)                   # BFS from here cannot be longer


def test_a_search_within_a_correct_scope_is_complete_and_finds_nothing():
    s = open_scope("consumer", {"members": 2, "partitions": [1], "budget": 0})
    result = s.run_to_violation("bfs")
    assert result.path is None and result.complete and result.explored > 10
    assert "no violation reachable" in result.text()
    assert s.path == [0]


def test_walks_and_limits_report_what_they_explored():
    s = open_scope("consumer", {"members": 2, "partitions": [1], "budget": 0})
    result = s.run_to_violation("walks", count=20, length=20)
    assert result.path is None and not result.complete and 0 < result.explored <= 400
    cut = open_scope("consumer").run_to_violation("bfs", max_states=50)
    assert cut.cut == "max-states" and "stopped by max-states" in cut.text()
    with pytest.raises(ValueError, match="mode 'dfs'"):
        open_scope("consumer").run_to_violation("dfs")


# ------------------------------------------------------------------ export

def _pytest(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_the_exported_test_asserts_the_violation_and_passes(tmp_path):
    f, path, prop = _trace_file(tmp_path, "KAFKA-13419")
    s = open_trace(f).to_violation()
    s.take(0) if s.actions() else None                     # a step past the violation is cut off
    out = s.export_test(tmp_path / "test_exported.py")
    text = out.read_text()
    written = {}
    exec(compile(text.split("\n\n\ndef ")[0], str(out), "exec"), written)   # PROTOCOL, SCOPE, PATH
    assert (written["PROTOCOL"], written["PATH"]) == ("consumer", path)
    assert f"test_{prop}_still_violated_at_step_{len(path) - 1}" in text
    run = _pytest(out)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_exported_test_of_a_clean_path_asserts_nothing_is_violated(tmp_path):
    s = open_scope("consumer").take(0)
    out = s.export_test(tmp_path / "test_clean.py")
    assert "test_no_property_violated_along_the_path" in out.read_text()
    run = _pytest(out)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_exported_itf_reopens_on_the_same_path(tmp_path):
    f, path, prop = _trace_file(tmp_path, "KAFKA-8649")
    s = open_trace(f).to_violation()
    again = open_trace(s.export_itf(tmp_path / "again.itf.json"))
    assert again.path + again.ahead == path and again.recorded["property"] == prop


# ------------------------------------------------------------------ read-only and bad input

QUINT = {"#meta": {"source": "quint"}, "vars": ["x", "owners"],
         "states": [{"#meta": {"index": 0}, "x": 0, "owners": {"#map": [["p0", "a"]]}},
                    {"#meta": {"index": 1}, "action_taken": "move", "x": 1, "owners": {"#map": [["p0", "b"]]}}]}


def test_a_foreign_trace_opens_read_only_with_diffs(tmp_path):
    f = tmp_path / "quint.itf.json"
    f.write_text(json.dumps(QUINT))
    r = open_trace(f)
    assert isinstance(r, Recording) and "no groupcheck #meta" in r.note
    v = r.forward().view()
    assert v["readonly"] and v["action"] == "move" and v["actions"] == []
    assert [d["field"] for d in v["diff"]] == ["x", "owners[p0]"]          # in the state's own field order
    with pytest.raises(ValueError, match="state 5 out of range 0..1"):
        r.goto(5)


def test_a_groupcheck_trace_that_no_longer_replays_opens_read_only(tmp_path):
    f, path, _ = _trace_file(tmp_path, "KAFKA-13419")
    tr = json.loads(f.read_text())
    tr["#meta"]["path"] = [0, 99]
    f.write_text(json.dumps(tr))
    r = open_trace(f)
    assert isinstance(r, Recording) and "does not replay" in r.note
    assert len(r.states) == len(path)


@pytest.mark.parametrize("content, message", [
    ("not json", "not valid JSON|Expecting value|JSON"),
    ('{"states": []}', "missing 'vars'"),
    ('{"vars": [], "states": []}', "'states' is empty"),
])
def test_a_file_that_is_not_a_trace_is_refused_with_its_name(tmp_path, content, message):
    f = tmp_path / "bad.itf.json"
    f.write_text(content)
    with pytest.raises(ExploreError, match=message) as e:
        open_trace(f)
    assert "bad.itf.json" in str(e.value)


def test_scopes_profiles_and_protocols_that_do_not_exist_are_named():
    with pytest.raises(ExploreError, match="unknown protocol"):
        open_scope("nope")
    with pytest.raises(ExploreError, match="unknown profile 'x'"):
        open_scope("consumer", profile="x")
    with pytest.raises(ExploreError, match="scope: .*members"):
        open_scope("consumer", {"members": "two"})
    with pytest.raises(ExploreError, match="unknown variant"):
        open_variant("KAFKA-0")
    with pytest.raises(ExploreError, match="file|No such|not found|does not exist"):
        open_trace("/nonexistent/x.itf.json")


def test_the_view_is_json_and_agrees_with_the_api(tmp_path):
    f, path, prop = _trace_file(tmp_path, "KAFKA-16147")
    s = open_trace(f).to_violation()
    v = json.loads(json.dumps(s.view()))
    assert v["path"] == path and v["first_violation"]["property"] == prop
    assert [p["name"] for p in v["properties"]] == [p.name for p in s.properties()]
    assert len(v["actions"]) == len(s.actions()) and len(v["history"]) == len(path)
    assert any(cell["changed"] for t in v["tables"] for row in t["rows"] for cell in row)
    first, steps = replay(s.model, s.scope, path)
    assert v["state"] == s.itf_state(steps[-1].next)


@pytest.mark.parametrize("mode", ["bfs", "walks"])
def test_a_search_from_a_state_that_already_violates_answers_this_state(tmp_path, mode):
    f, path, prop = _trace_file(tmp_path, "KAFKA-13419")       # a state claim, broken at the last step
    s = open_trace(f).to_violation()
    result = s.run_to_violation(mode)
    assert (result.path, result.property, result.explored) == (path, prop, 0)
    assert f"violated {len(path) - 1} steps from the initial state" in result.text()
