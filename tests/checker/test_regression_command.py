"""groupcheck regression: a counterexample becomes a pytest file that replays it."""
from __future__ import annotations

import json
import pprint
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.regression import Found, first_violation, violation_along
from groupcheck.model.consumer.scope import to_dict
from groupcheck.model.core import Model
from groupcheck.properties.known_bugs.consumer import variant

runner = CliRunner()
BUG = variant("KIP-429-no-withholding")


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """A real counterexample: the known bug's shortest trace, written by check."""
    out = tmp_path_factory.mktemp("out")
    scope = json.dumps(to_dict(BUG.buggy_scope()))
    result = runner.invoke(app, ["check", "consumer", "--scope", scope, "--walks", "0", "--out", str(out)])
    assert result.exit_code == 1, result.output
    return next(out.glob(f"consumer-custom-{BUG.expect}*.itf.json"))


def test_first_violation_finds_the_recorded_property_at_the_last_step(trace):
    meta = json.loads(trace.read_text())["#meta"]
    found = first_violation("consumer", meta["scope"], meta["path"])
    assert (found.property, found.step) == (BUG.expect, len(meta["path"]) - 1)
    assert first_violation("consumer", meta["scope"], meta["path"][:-1]) is None


def pointed_at_reference(text: str) -> str:
    """The written test with its scope swapped for the reference behaviour."""
    reference = pprint.pformat(to_dict(BUG.reference_scope()), width=100, sort_dicts=False)
    return re.sub(r"SCOPE = \{.*?\}\nPATH", lambda _: f"SCOPE = {reference}\nPATH", text, flags=re.S)


def test_the_written_tests_run_green_as_written_and_red_when_the_model_differs(trace, tmp_path):
    kept = tmp_path / "test_still_violated.py"
    fixed = tmp_path / "test_stays_fixed.py"
    for args, path in (([], kept), (["--fixed"], fixed)):
        result = runner.invoke(app, ["regression", str(trace), "-o", str(path), *args])
        assert result.exit_code == 0, result.output
        assert f"written: {path}" in " ".join(result.output.split())
    (tmp_path / "test_reference_still_violated.py").write_text(pointed_at_reference(kept.read_text()))
    (tmp_path / "test_reference_stays_fixed.py").write_text(pointed_at_reference(fixed.read_text()))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "."],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    outcomes = {name: status for status, name in re.findall(r"^(PASSED|FAILED) (test_\w+)\.py", run.stdout,
                                                                flags=re.M)}
    assert outcomes == {
        "test_still_violated": "PASSED",               # the bug is still caught at the same step
        "test_stays_fixed": "FAILED",                  # the model still has the bug
        "test_reference_still_violated": "FAILED",     # the reference behaviour: no violation any more
        "test_reference_stays_fixed": "PASSED",
    }, run.stdout
    assert "no property is violated along the path any more" in run.stdout


def test_without_output_the_test_goes_to_stdout(trace):
    result = runner.invoke(app, ["regression", str(trace)])
    assert result.exit_code == 0
    assert f"def test_{BUG.expect}_still_violated_at_step_" in result.stdout
    compile(result.stdout, "written.py", "exec")


def test_a_trace_recording_no_violation_needs_fixed(trace, tmp_path):
    data = json.loads(trace.read_text())
    del data["#meta"]["violation"]
    bare = tmp_path / "bare.itf.json"
    bare.write_text(json.dumps(data))
    result = runner.invoke(app, ["regression", str(bare)])
    assert result.exit_code == 2
    assert "records no violated property; give --fixed" in " ".join(result.output.split())
    missing = runner.invoke(app, ["regression", str(tmp_path / "missing.itf.json")])
    assert missing.exit_code == 2 and "cannot read" in missing.output


def test_a_path_ending_where_nothing_is_enabled_is_a_deadlock():
    """As the checker reports it: no action enabled at a state that is not a fine end."""
    def one_state(name, terminal_ok):
        return Model(name=name, init_states=lambda sc: (0,), actions=lambda sc, s: (), step=None, properties=(),
                     canonical=None, within_bounds=lambda sc, s: True, is_terminal_ok=lambda sc, s: terminal_ok,
                     view=None)
    stuck = one_state("stuck", False)
    assert violation_along(stuck, None, [0]) == Found("no_deadlock", "no action is enabled", 0)
    done = one_state("done", True)
    assert violation_along(done, None, [0]) is None


def test_an_existing_output_file_is_kept_unless_force(trace, tmp_path):
    """`regression -o` never replaces a file that is there: exit 2 naming --force, the
    file byte for byte as it was; --force replaces it."""
    path = tmp_path / "test_mine.py"
    path.write_text("# hand-written\n")
    result = runner.invoke(app, ["regression", str(trace), "-o", str(path)])
    assert result.exit_code == 2, result.output
    assert "--force" in result.output and "exists" in result.output
    assert path.read_text() == "# hand-written\n"
    result = runner.invoke(app, ["regression", str(trace), "-o", str(path), "--force"])
    assert result.exit_code == 0, result.output
    assert "def test_" in path.read_text()


def test_a_write_cut_short_leaves_no_half_test_file(trace, tmp_path, monkeypatch):
    """A disk that fills mid-write: exit 2, and neither a half file where there was none
    nor a half file over the one that was there (--force)."""
    from tests.helpers.interrupted_writes import half_writes
    fresh, kept = tmp_path / "test_new.py", tmp_path / "test_kept.py"
    kept.write_text("# hand-written\n")
    with half_writes(monkeypatch):
        a = runner.invoke(app, ["regression", str(trace), "-o", str(fresh)])
        b = runner.invoke(app, ["regression", str(trace), "-o", str(kept), "--force"])
    assert a.exit_code == 2 and b.exit_code == 2, (a.output, b.output)
    assert not fresh.exists()
    assert kept.read_text() == "# hand-written\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_kept.py"]      # no temporary left


def test_a_lasso_trace_gives_a_test_that_re_judges_its_cycle(tmp_path):
    """A settles_under_fairness trace (ITF ``loop``, from check --fairness): the written test
    passes as written (the cycle is still fair and never converges), its --fixed twin fails,
    and a loop that does not close a cycle is no counterexample."""
    from groupcheck.properties.known_bugs import streams_group
    from groupcheck.protocols import get

    v = streams_group.variant("lost-response-strands-task")
    scope = json.dumps(get("streams-group").model.view.scope_to_dict(v.buggy_scope()))
    out = tmp_path / "out"
    result = runner.invoke(app, ["check", "streams-group", "--scope", scope, "--fairness", "--walks", "0",
                                 "--out", str(out)])
    assert result.exit_code == 1, result.output
    [itf] = out.glob("streams-group-*-settles_under_fairness-*.itf.json")
    trace = json.loads(itf.read_text())
    meta, loop = trace["#meta"], trace["loop"]
    tests = tmp_path / "tests"
    tests.mkdir()
    for args, name in (([], "test_lasso_still_violated.py"), (["--fixed"], "test_lasso_stays_fixed.py")):
        written = runner.invoke(app, ["regression", str(itf), "-o", str(tests / name), *args])
        assert written.exit_code == 0, written.output
        assert ("note:" in written.output) == bool(args), written.output    # --fixed: the lasso is still there
    assert f"LOOP = {loop}" in (tests / "test_lasso_still_violated.py").read_text()
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "."],
                         cwd=tests, capture_output=True, text=True, timeout=300)
    outcomes = {name: status for status, name in re.findall(r"^(PASSED|FAILED) (test_\w+)\.py", run.stdout,
                                                                flags=re.M)}
    assert outcomes == {"test_lasso_still_violated": "PASSED", "test_lasso_stays_fixed": "FAILED"}, run.stdout
    found = first_violation("streams-group", meta["scope"], meta["path"], loop)
    assert (found.property, found.step) == ("settles_under_fairness", len(meta["path"]) - 1), found
    assert first_violation("streams-group", meta["scope"], meta["path"], len(meta["path"]) - 2) is None


def test_a_can_settle_trace_gives_a_test_that_judges_the_last_state(tmp_path):
    """can_settle is the checker's claim on the path's last state (no settled state reachable
    without a fault): the written test passes as written, its --fixed twin fails, and one
    step short of the end the group can still settle."""
    from groupcheck.properties.known_bugs import streams_group
    from groupcheck.protocols import get

    v = streams_group.variant("lost-response-strands-task")
    scope = json.dumps(get("streams-group").model.view.scope_to_dict(v.buggy_scope()))
    out = tmp_path / "out"
    result = runner.invoke(app, ["check", "streams-group", "--scope", scope, "--walks", "0", "--out", str(out)])
    assert result.exit_code == 1, result.output
    [itf] = out.glob("streams-group-*-can_settle-*.itf.json")
    meta = json.loads(itf.read_text())["#meta"]
    tests = tmp_path / "tests"
    tests.mkdir()
    for args, name in (([], "test_settle_still_violated.py"), (["--fixed"], "test_settle_stays_fixed.py")):
        written = runner.invoke(app, ["regression", str(itf), "-o", str(tests / name), *args])
        assert written.exit_code == 0, written.output
        assert ("note:" in written.output) == bool(args), written.output
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "."],
                         cwd=tests, capture_output=True, text=True, timeout=300)
    outcomes = {name: status for status, name in re.findall(r"^(PASSED|FAILED) (test_\w+)\.py", run.stdout,
                                                                flags=re.M)}
    assert outcomes == {"test_settle_still_violated": "PASSED", "test_settle_stays_fixed": "FAILED"}, run.stdout
    found = first_violation("streams-group", meta["scope"], meta["path"], settle=True)
    assert (found.property, found.step) == ("can_settle", len(meta["path"]) - 1), found
    assert first_violation("streams-group", meta["scope"], meta["path"][:-1], settle=True) is None
