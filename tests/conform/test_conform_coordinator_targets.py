"""Role group-coordinator: external adapters (correct, schema-breaking, hanging), the
librdkafka-mock target on a small budget, CLI bad input and Ctrl-C, and one hand-built
answer sequence per claim (each claim's rule pinned: weaken it and a test here fails)."""
import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.conform.roles.group_coordinator import claims as C
from groupcheck.conform.roles.group_coordinator.campaign import Options, main, run_target
from groupcheck.conform.roles.group_coordinator.scenarios import SCOPES, model_steps, scenarios
from groupcheck.model.consumer.state import HeartbeatResponse, JoinGroupResponse, SyncGroupResponse

SCRIPT = Path(__file__).parents[1] / "helpers" / "conform_coordinator_adapter_script.py"


def _main(mode, tmp_path, n=3, timeout=10.0):
    said = []
    code = main([], f"{sys.executable} {SCRIPT} {mode}", None, Options(scenarios=n, out=tmp_path), timeout,
                said.append, said.append)
    return code, "\n".join(said)


# ---- external adapters ----
def test_external_correct_coordinator_passes(tmp_path):
    code, text = _main("ok", tmp_path, n=6)
    assert code == 0, text
    data = json.loads(next(tmp_path.glob("conform/group-coordinator/*/verdict.json")).read_text())
    assert data["requests"] > 20 and all(c["status"] == "held" for c in data["claims"].values()), text


def test_external_adapter_breaking_the_schema_is_info_exit_3(tmp_path):
    code, text = _main("invalid", tmp_path)
    assert code == 3, text
    assert "invalid group-coordinator.request.result message" in text and "Traceback" not in text


def test_external_adapter_that_hangs_is_info_not_judged_trace_kept(tmp_path):
    code, text = _main("hang", tmp_path, n=2, timeout=0.4)
    assert code == 3, text
    data = json.loads(next(tmp_path.glob("conform/group-coordinator/*/verdict.json")).read_text())
    assert data["info"] and "no reply to invoke within 0.4 s; killed" in data["info"][0]
    assert not any(c["judged_steps"] for c in data["claims"].values())
    kept = data["info_traces"][0]
    assert kept["transcript"] and kept["transcript"][-1][3] is None      # the unanswered call, kept


# ---- librdkafka's mock cluster ----
@pytest.mark.slow
def test_librdkafka_mock_divergences(tmp_path):
    """Measured: the mock predates KIP-394 (answers a JoinGroup without id NONE with a new
    id) and closes every join round on its timer (session.timeout.ms - 1 s), so a member
    joining a Stable group is answered before the old member could rejoin (same_held)."""
    pytest.importorskip("confluent_kafka")
    from groupcheck.conform.targets.librdkafka.mock_coordinator import MockCoordinator

    v = run_target(MockCoordinator(), "librdkafka-mock", Options(scenarios=3, shrink_tries=3, out=tmp_path),
                   lambda line: None, float("inf"))
    assert v.status("member_id_required") == "violated", v.text()
    assert v.status("same_held") == "violated", v.text()
    held = next(d for d in v.divergences if d["claim"] == "same_held")
    assert "JoinGroupResponse the model holds" in held["message"], v.text()
    assert held["judgement"] == "bug in the target" and "maybePrepareRebalance" in held["decided_by"]
    for claim in ("same_errors", "generation_rules", "leader_lists_members"):
        assert v.status(claim) == "held", v.text()


# ---- CLI ----
@pytest.mark.parametrize("args", [["--target", "nope"], ["--target", "broken:nope"], ["--target", "reference",
                                                                                      "--scenarios", "0"],
                                  ["--target", "reference", "--scenarios", "many"]])
def test_cli_bad_input_is_exit_2_without_traceback(args, tmp_path):
    r = CliRunner().invoke(app, ["conform", "--role", "group-coordinator", *args, "--out", str(tmp_path)])
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and r.exception is None or isinstance(r.exception, SystemExit)


def test_cli_ctrl_c_exits_130_with_the_verdict_written(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "from groupcheck.cli import main; main()", "conform", "--role",
                             "group-coordinator", "--target", "reference", "--scenarios", "3000",
                             "--out", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        for line in proc.stderr:
            if "scenarios" in line and "calls" in line:
                proc.send_signal(signal.SIGINT)
                break
        stdout, _ = proc.communicate()
    finally:
        watchdog.cancel()
    assert proc.returncode == 130, stdout
    assert "INTERRUPTED" in stdout and "Traceback" not in stdout
    assert list(tmp_path.glob("conform/group-coordinator/*/verdict.json"))


# ---- each claim's rule on hand-built answers ----
def _jr(to, gen=1, leader=1, members=(), protocol="range", error="NONE"):
    return JoinGroupResponse(to=to, error=error, generation=gen, member_id=to, leader=leader, protocol=protocol,
                             members=members)


def _tj(member_id, gen=1, leader="a", members=(), protocol="range", error="NONE", slot=0):
    return {"member": slot, "response": {"kind": "JoinGroupResponse", "to": member_id, "error": error,
                                         "generation": gen, "member_id": member_id, "leader": leader,
                                         "protocol": protocol, "members": list(members)}}


def _ctx():
    ctx = C.Context()
    ctx.learn(1, "a")
    ctx.learn(2, "b")
    return ctx


def test_same_held_flags_an_answer_the_model_holds_and_a_held_one_it_answers():
    assert C.same_held(_ctx(), ((0, _jr(1)),), [_tj("a")]) is None
    assert "answered member 1 JoinGroupResponse" in C.same_held(_ctx(), ((0, _jr(1)),), [_tj("a"), _tj("b", slot=1)])
    assert "held member 0 JoinGroupResponse" in C.same_held(_ctx(), ((0, _jr(1)),), [])


def test_member_id_required_wants_the_error_and_an_id():
    want = ((0, JoinGroupResponse(to=0, error="MEMBER_ID_REQUIRED", member_id=1)),)
    assert C.member_id_required(_ctx(), want, [_tj("x", gen=-1, error="MEMBER_ID_REQUIRED")]) is None
    assert "got NONE" in C.member_id_required(_ctx(), want, [_tj("x")])
    assert "member id ''" in C.member_id_required(_ctx(), want, [_tj("", gen=-1, error="MEMBER_ID_REQUIRED")])
    assert "held" in C.member_id_required(_ctx(), want, [])


def test_same_errors_compares_each_answer():
    want = ((0, HeartbeatResponse(to=1, error="REBALANCE_IN_PROGRESS")),)
    got = lambda e: [{"member": 0, "response": {"kind": "HeartbeatResponse", "to": "a", "error": e}}]  # noqa: E731
    assert C.same_errors(_ctx(), want, got("REBALANCE_IN_PROGRESS")) is None
    assert "NONE, model REBALANCE_IN_PROGRESS" in C.same_errors(_ctx(), want, got("NONE"))


def test_generation_rules_holds_one_offset():
    ctx = _ctx()
    assert C.generation_rules(ctx, ((0, _jr(1, gen=1)),), [_tj("a", gen=5)]) is None and ctx.offset == 4
    assert C.generation_rules(ctx, ((0, _jr(1, gen=2)),), [_tj("a", gen=6)]) is None
    assert "got generation 6, model 3" in C.generation_rules(ctx, ((0, _jr(1, gen=3)),), [_tj("a", gen=6)])


def test_same_protocol_and_its_not_exercised_case():
    assert C.same_protocol(_ctx(), ((0, _jr(1)),), [_tj("a")]) is None
    assert "'roundrobin' vs model 'range'" in C.same_protocol(_ctx(), ((0, _jr(1)),), [_tj("a", protocol="roundrobin")])
    assert C.same_protocol(_ctx(), (), []) is C.NA


def test_leader_lists_members_for_the_leader_only():
    meta = ()
    want = ((0, _jr(1, members=((1, meta), (2, meta)))), (1, _jr(2)))
    both = [{"member_id": "a", "metadata": ""}, {"member_id": "b", "metadata": ""}]
    assert C.leader_lists_members(_ctx(), want, [_tj("a", members=both), _tj("b", slot=1)]) is None
    assert "lists" in C.leader_lists_members(_ctx(), want, [_tj("a", members=both[:1]), _tj("b", slot=1)])
    assert "is not the leader" in C.leader_lists_members(_ctx(), want, [_tj("a", members=both),
                                                                       _tj("b", slot=1, members=both)])


def test_leader_kept_while_the_leader_rejoins():
    ctx = _ctx()
    ctx.leader = 1
    want = ((0, _jr(1, leader=1)), (1, _jr(2, leader=1)))
    assert C.leader_kept(ctx, want, [_tj("a", leader="a"), _tj("b", leader="a", slot=1)]) is None
    assert "still a member" in C.leader_kept(ctx, want, [_tj("a", leader="b"), _tj("b", leader="b", slot=1)])


def test_sync_returns_leader_assignment():
    want = ((1, SyncGroupResponse(to=2, error="NONE", generation=1, assignment=3)),)
    got = lambda a: [{"member": 1, "response": {"kind": "SyncGroupResponse", "to": "b", "error": "NONE",  # noqa: E731
                                                "assignment": a}}]
    assert C.sync_returns_leader_assignment(_ctx(), want, got("3")) is None
    assert "got '1', the leader gave '3'" in C.sync_returns_leader_assignment(_ctx(), want, got("1"))
    empty = ((1, SyncGroupResponse(to=2, error="NONE", generation=1, assignment=0)),)
    assert C.sync_returns_leader_assignment(_ctx(), empty, got("")) is None     # Kafka's empty = the model's 0


# ---- where the model departs from Kafka ----
def test_departures_are_marked_and_counted():
    """In 200 default scenarios some steps complete a join while an id is pending (Kafka
    waits, GroupMetadata.hasAllMembersJoined) or expire a member awaiting a response
    (Kafka does not, MemberMetadata.hasSatisfiedHeartbeat); a violation there ends the
    scenario unjudged. Pinned so the marking cannot silently vanish or spread."""
    marked = [s.departs for scope, path in scenarios(200) for s in model_steps(SCOPES[scope], path) if s.departs]
    assert sum("pending" in d for d in marked) == 42
    assert sum("hasSatisfiedHeartbeat" in d for d in marked) == 7
