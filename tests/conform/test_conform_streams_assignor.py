"""Role streams-assignor (KIP-924 task assignors): the reference passes; each broken
example is flagged with its claim or property; external adapters are validated both ways;
the CLI's exit codes; the model's task-assignor hook leaves its default behaviour alone."""
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck import checker
from groupcheck.cli import app
from groupcheck.console import Limits
from groupcheck.conform import driver, verdict
from groupcheck.conform.roles.streams_assignor import claims as C
from groupcheck.conform.roles.streams_assignor import targets
from groupcheck.model.assignors import streams_tasks as st
from groupcheck.model.scopes import ScopeError
from groupcheck.model.streams_classic import MODEL
from groupcheck.model.streams_classic.scope import Config, StreamsScope, validate

SCRIPT = str(Path(__file__).parents[1] / "helpers" / "conform_streams_adapter_script.py")
SMALL = "forming-crashes"
QUICK = ["--role", "streams-assignor", "--scope", SMALL, "--walks", "3", "--progress-every", "1000"]


def run(target, scope=SMALL, walks=0):
    return driver.run_target(target, driver.Settings(walks=walks, progress_every=1e9, only=(scope,)),
                             Limits(100_000, 120, "4GiB"))


def conform(tmp_path, *args):
    result = CliRunner().invoke(app, ["conform", *args, "--out", str(tmp_path)])
    assert "Traceback" not in result.output
    result.flat = " ".join(result.output.split())      # the console wraps long lines
    return result


# ---- the reference and the broken examples ----
@pytest.mark.parametrize("scope", ["forming-crashes", "scale-up-down", "eager-to-cooperative"])
def test_the_reference_passes_and_is_judged(scope):
    r = run(targets.builtin("reference:streams-sticky"), scope, walks=10)
    assert r.divergences == [], [(d.property, d.message) for d in r.divergences]
    rows = {p["property"]: p for p in verdict.summary(r)["properties"]}
    for claim in ("every_task_active", "no_missing_process_id", "deterministic", "balanced_active_tasks"):
        assert rows[claim]["judged"] > 0 and rows[claim]["status"] == "held", rows[claim]
    assert rows["settles_fully_assigned"]["status"] == "held"


FLAGGED = [
    ("AssumesOneSubtopology", "no_unknown_task_id"),
    ("ActiveOnTwoClients", "no_active_task_assigned_multiple_times"),
    ("StandbyForEveryTask", "no_invalid_standby_task"),
    ("ListsOnlyBusyClients", "no_missing_process_id"),
    ("CountsOneTooMany", "no_unknown_process_id"),
    ("StandbyWithItsActive", "standby_not_with_active"),
    ("DropsLastTask", "every_task_active"),
    ("ShufflesClients", "deterministic"),
]


@pytest.mark.parametrize("cls, prop", FLAGGED)
def test_each_broken_task_assignor_is_flagged_with_its_claim(cls, prop):
    r = run(targets.python_assignor(f"groupcheck.conform.targets.broken.streams_assignors:{cls}"))
    assert r.divergences, f"{cls}: nothing flagged"
    assert r.divergences[0].property == prop, [(d.property, d.message) for d in r.divergences]


def test_kafkas_rejection_kills_the_leader_but_is_reported_by_the_named_claim():
    """An answer validateTaskAssignment rejects makes the leader throw StreamsException
    (Kafka 3.9); leader_never_fails leaves that to the claim naming the error."""
    r = run(targets.python_assignor("groupcheck.conform.targets.broken.streams_assignors:CountsOneTooMany"))
    assert [d.property for d in r.divergences] == ["no_unknown_process_id"]
    from groupcheck.conform.roles.streams_assignor.recorder import conform_model
    from groupcheck.model.core import replay
    rec = r.recorder
    rec.register()
    try:
        d = r.divergences[0]
        _, steps = replay(conform_model(rec), d.scope, d.path)
        failures = [m.failure for m in steps[-1].next.members if m.failure]
        assert failures and "returned a fatal error: UNKNOWN_PROCESS_ID" in failures[0]
    finally:
        rec.unregister()


def test_ignoring_previous_owners_is_a_choice_and_kafka_withholding_keeps_tasks_single():
    r = run(targets.python_assignor("groupcheck.conform.targets.broken.streams_assignors:IgnoresPreviousOwners"), "eager-to-cooperative",
            walks=10)
    assert r.divergences == []
    rows = {p["property"]: p for p in verdict.summary(r)["properties"]}
    assert rows["revoke_before_reassign"]["status"] == "held" and rows["revoke_before_reassign"]["states"] > 100
    assert rows["settled_balanced"]["status"] == "not exercised"          # excluded: a choice
    assert rows["balanced_active_tasks"]["status"] == "not exercised"     # no balance contract stated


def test_the_regression_file_runs_green(tmp_path):
    r = run(targets.python_assignor("groupcheck.conform.targets.broken.streams_assignors:DropsLastTask"))
    _, written = verdict.write(r, tmp_path)
    test = next(t for i, _, t in written if "every_task_active" in i.name)
    assert "role='streams-assignor'" in test.read_text()
    green = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                           capture_output=True, text=True, cwd=Path(__file__).parents[2])
    assert green.returncode == 0, green.stdout[-2000:]
    itf = json.loads(next(i for i, _, _ in written if "every_task_active" in i.name).read_text())
    assert itf["#meta"]["conform"]["role"] == "streams-assignor"


# ---- the claims themselves ----
APP = {"tasks": [{"id": "0_0", "stateful": True}, {"id": "1_0", "stateful": False}],
       "clients": [{"process_id": p, "threads": 1, "consumers": [f"{p}-c"], "previous_active": [],
                    "previous_standby": [], "owned": [], "caught_up": [], "leaving": False}
                   for p in ("process-1", "process-2")],
       "configs": {"num_standby_replicas": 1}}


def answer(**placed):
    return {"assignment": [{"process_id": p.replace("_", "-"), "tasks": [{"id": t, "type": k} for t, k in ts]}
                           for p, ts in placed.items()]}


def test_each_claim_names_its_clause_and_kafkas_first_error():
    good = answer(process_1=[("0_0", "ACTIVE")], process_2=[("1_0", "ACTIVE"), ("0_0", "STANDBY")])
    assert {n: v for n, v in C.judge(APP, good, frozenset(["balanced"])).items() if v} == {}
    assert C.first_error(APP, good) is None
    cases = {
        "UNKNOWN_TASK_ID": answer(process_1=[("0_0", "ACTIVE"), ("0_9", "ACTIVE")], process_2=[("1_0", "ACTIVE")]),
        "ACTIVE_TASK_ASSIGNED_MULTIPLE_TIMES": answer(process_1=[("0_0", "ACTIVE")],
                                                      process_2=[("0_0", "ACTIVE"), ("1_0", "ACTIVE")]),
        "INVALID_STANDBY_TASK": answer(process_1=[("0_0", "ACTIVE"), ("1_0", "STANDBY")], process_2=[("1_0", "ACTIVE")]),
        "MISSING_PROCESS_ID": answer(process_1=[("0_0", "ACTIVE"), ("1_0", "ACTIVE")]),
        "UNKNOWN_PROCESS_ID": answer(process_1=[("0_0", "ACTIVE")], process_2=[("1_0", "ACTIVE")], process_3=[]),
    }
    for code, bad in cases.items():
        assert C.first_error(APP, bad) == code
        found = {n for n, v in C.judge(APP, bad, frozenset()).items() if v and v != C.NOT_APPLICABLE}
        assert found == {C.KAFKA_ERRORS[code]}, (code, found)
    dropped = answer(process_1=[("0_0", "ACTIVE")], process_2=[])
    assert C.first_error(APP, dropped) is None and C.every_task_active(APP, dropped, frozenset()) is not None
    lopsided = answer(process_1=[("0_0", "ACTIVE"), ("1_0", "ACTIVE")], process_2=[])
    assert C.balanced_active_tasks(APP, lopsided, frozenset(["balanced"])) is not None
    assert C.balanced_active_tasks(APP, lopsided, frozenset()) == C.NOT_APPLICABLE


# ---- external adapters ----
def test_an_external_adapter_is_judged_like_an_in_process_one(tmp_path):
    r = conform(tmp_path, "--adapter", shlex.join([sys.executable, SCRIPT, "ok"]), *QUICK)
    assert r.exit_code == 0, r.output
    data = json.loads((tmp_path / "conform" / "test-streams_sticky-js" / "verdict.json").read_text())
    rows = {p["property"]: p for p in data["properties"]}
    assert data["invocations"] > 0 and rows["balanced_active_tasks"]["judged"] > 0   # the hello's contract


def test_a_schema_violation_of_an_adapter_is_info_exit_3_naming_the_path(tmp_path):
    r = conform(tmp_path, "--adapter", shlex.join([sys.executable, SCRIPT, "bad-result"]), *QUICK)
    assert r.exit_code == 3, r.output
    assert "invalid streams-assignor.assign.result message: $.assignment[0].tasks" in r.flat


def test_an_adapter_without_the_role_exits_2(tmp_path):
    r = conform(tmp_path, "--adapter", shlex.join([sys.executable, SCRIPT, "no-role"]), *QUICK)
    assert r.exit_code == 2 and "not streams-assignor" in r.flat


def test_the_driver_validates_what_it_sends():
    from groupcheck.conform.adapter import AdapterError, validate
    with pytest.raises(AdapterError, match=r"\$.clients\[0\]: 'leaving' is a required property"):
        bad = json.loads(json.dumps(APP))
        del bad["clients"][0]["leaving"]
        validate("streams-assignor.assign", bad, "groupcheck (driver)")
    validate("streams-assignor.assign", APP, "groupcheck (driver)")


# ---- the CLI ----
def test_cli_reference_and_all_pass_exit_0(tmp_path):
    r = conform(tmp_path, "--target", "all", *QUICK)
    assert r.exit_code == 0 and "target reference:streams-sticky" in r.flat and "PASSED" in r.flat, r.output


def test_cli_a_broken_assignor_exits_1_with_trace_and_regression(tmp_path):
    r = conform(tmp_path, "--assignor", "groupcheck.conform.targets.broken.streams_assignors:StandbyForEveryTask", *QUICK)
    assert r.exit_code == 1, r.output
    assert "DIVERGENCE no_invalid_standby_task in scope forming-crashes (bfs, 3 steps)" in r.flat
    where = tmp_path / "conform" / "python_groupcheck.conform.targets.broken.streams_assignors_StandbyForEveryTask"
    assert list(where.glob("*no_invalid_standby_task*.itf.json")) and list(where.glob("test_*.py"))


def test_cli_bad_input_exits_2_with_a_clear_message(tmp_path):
    r = conform(tmp_path, "--role", "streams-assignor", "--target", "reference:sticky")
    assert r.exit_code == 2 and "unknown streams-assignor target 'reference:sticky'" in r.flat
    r = conform(tmp_path, "--role", "streams-assignor")
    assert r.exit_code == 2 and "give --target NAME" in r.flat
    r = conform(tmp_path, "--role", "streams-assignor", "--assignor", "no_such_module:X")
    assert r.exit_code == 2 and "cannot import 'no_such_module'" in r.flat
    r = conform(tmp_path, "--role", "streams-assignor", "--assignor", "groupcheck.conform.targets.broken.streams_assignors:_answer")
    assert r.exit_code == 2 and "not a task assignor" in r.flat
    r = conform(tmp_path, "--role", "streams-assignor", "--target", "all", "--scope", "nope")
    assert r.exit_code == 2 and "unknown scope(s) nope" in r.flat


def test_cli_a_limit_exits_3(tmp_path):
    r = conform(tmp_path, "--target", "reference:streams-sticky", *QUICK, "--max-states", "50")
    assert r.exit_code == 3 and "incomplete (max-states)" in r.flat, r.output


# ---- the model's hook ----
def test_registering_a_task_assignor_leaves_the_default_unchanged():
    scope = StreamsScope(instances=2, tasks=2, standbys=1, plan=(Config("3.9"),), faults=("crash",), budget=1)
    before = checker.bfs(MODEL, scope).states
    seen = []

    def same_as_sticky(req):
        seen.append(req)
        return st.sticky(list(req.clients), req.tasks, req.standbys)

    st.register("test-sticky", same_as_sticky)
    try:
        mine = checker.bfs(MODEL, validate(StreamsScope(**{**scope.__dict__, "task_assignor": "test-sticky"})))
        assert checker.bfs(MODEL, scope).states == before          # the default: untouched
        assert seen and mine.states == before and mine.violation is None
    finally:
        st.unregister("test-sticky")
    assert "test-sticky" not in st.known()
    with pytest.raises(ScopeError, match="task_assignor"):
        validate(StreamsScope(task_assignor="test-sticky"))
    with pytest.raises(ValueError, match="built-in"):
        st.register("sticky", same_as_sticky)
