"""``groupcheck conform`` survives any target (issue 26, section 6): every role driven
through an adapter program (assignor, streams-assignor, group-coordinator) against a
target that hangs, exits mid-session, answers garbage or answers ok with a value of the
wrong shape, at every scope the role offers (enumerated from the role's own scenario
definitions, so a scope added later is covered). Each step the target left unanswered is
``info``: the scope's verdict and the transcript are written, the run goes on to the next
scope, never a traceback, and a run where nothing could be judged exits 3 (not proved)
saying the target never answered. A target answering a value of the right shape that is
wrong is judged: a divergence, exit 1.

The broken targets are ``conform_broken_adapter_script.py``; the role consumer-client has
no adapter program (its targets are librdkafka's, built in), so no target of it can be broken.
"""
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.conform import roles
from groupcheck.conform.roles.group_coordinator.scenarios import SCOPES as COORDINATOR_SCOPES
from groupcheck.conform.roles.assignor.targets import Target

SCRIPT = str(Path(__file__).parents[1] / "helpers" / "conform_broken_adapter_script.py")
INFO_KINDS = ("hang", "exit", "garbage", "wrong-shape")       # each answer is info
ANSWER_TIMEOUT = "0.3"                                       # seconds a hanging target is given per request
QUICK = ["--walks", "2", "--walk-length", "6", "--max-states", "3000", "--max-seconds", "120",
         "--progress-every", "1000", "--answer-timeout", ANSWER_TIMEOUT]
# the assignor role's scopes depend on the protocols an assignor supports: one assignor per
# kind of support, each run on the scopes no assignor before it offered
ASSIGNORS = {"roundrobin": "EAGER", "both": "EAGER+COOPERATIVE", "coop": "COOPERATIVE"}


def scope_plan(role: str) -> dict[str, list[str]]:
    """{assignor=PROTOCOLS: [scope name, ...]}: every scope the role offers, each once."""
    if role == "streams-assignor":
        target = Target("broken:roundrobin", None, "roundrobin", (), None)
        return {"roundrobin=EAGER": list(roles.get(role).scopes(target))}
    plan, covered = {}, set()
    for name, given in ASSIGNORS.items():
        target = Target(f"broken-x:{name}", None, name, tuple(given.split("+")), None)
        plan[f"{name}={given}"] = [s for s in roles.get(role).scopes(target) if s not in covered]
        covered |= set(plan[f"{name}={given}"])
    return plan


def run(tmp_path: Path, *args: str):
    """The CLI in process; a crash (any exception but the exit) fails the test with its traceback."""
    result = CliRunner().invoke(app, ["conform", *args, "--out", str(tmp_path)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"conform crashed: {result.exception!r}\n{result.output}") from result.exception
    assert "Traceback" not in result.output
    return result


def adapter(role: str, kind: str, *assignors: str) -> list[str]:
    return ["--role", role, "--adapter", shlex.join([sys.executable, SCRIPT, role, kind, *assignors])]


def verdict(where: Path) -> dict:
    found = list(where.glob("conform/*/verdict.json"))
    assert len(found) == 1, found
    return json.loads(found[0].read_text())


@pytest.mark.slow
@pytest.mark.parametrize("kind", INFO_KINDS)
@pytest.mark.parametrize("role", ["assignor", "streams-assignor"])
def test_a_broken_target_is_info_at_every_scope_and_the_run_goes_on(role, kind, tmp_path):
    plan = scope_plan(role)
    for assignor, names in plan.items():
        where = tmp_path / assignor.split("=")[0]
        r = run(where, *adapter(role, kind, assignor), *[a for n in names for a in ("--scope", n)], *QUICK)
        assert r.exit_code == 3, r.output
        assert "BROKEN TARGET: every answer was info" in r.output
        assert "NOT PROVED: the target never gave an answer that could be judged" in r.output
        data = verdict(where)
        assert [s["name"] for s in data["scopes"]] == names        # every scope ran, past the first broken one
        for s in data["scopes"]:
            assert not s["not_run"], s
            assert s["info_steps"] > 0, s                           # each scope met info answers
        assert data["info"] > 0 and data["judged_answers"] == 0 and data["divergences"] == []
        if role == "assignor" and assignor == "roundrobin=EAGER":    # said why each scope stopped
            infos = " ".join(s["info"] for s in data["scopes"])
            assert "info 3 times in a row" in infos and "while the group formed" in infos, infos
        folder = next(where.glob("conform/*/verdict.json")).parent     # the logs sit beside the verdict
        transcript = (folder / data["adapter_log"]["transcript"]).read_text().splitlines()
        assert (folder / data["adapter_log"]["stderr"]).exists()
        lost = [json.loads(line)["message"] for line in transcript if json.loads(line)["dir"] == "!"]
        assert lost and data["adapter_log"]["restarts"] >= 1       # killed, started again for the next step
        assert len(lost) == data["info"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", INFO_KINDS)
def test_a_broken_coordinator_is_info_in_every_scenario_and_the_run_goes_on(kind, tmp_path):
    r = run(tmp_path, *adapter("group-coordinator", kind), "--scenarios", "4", *QUICK)
    assert r.exit_code == 3, r.output
    assert "BROKEN TARGET: every scenario ended in info" in r.output
    assert "NOT PROVED: the target never gave an answer that could be judged" in r.output
    where = next(tmp_path.glob("conform/group-coordinator/*"))
    data = json.loads((where / "verdict.json").read_text())
    assert data["scenarios"] == 4 and data["info_scenarios"] == 4 and data["broken"]
    assert {t["scope"] for t in data["info_traces"]} == set(COORDINATOR_SCOPES)    # every scope of the role
    assert all(t["transcript"] and t["transcript"][-1][3] is None for t in data["info_traces"])
    assert not any(c["judged_steps"] for c in data["claims"].values())
    assert all(i.startswith("step ") for i in data["info"]), data["info"]      # restarted and opened again
    assert '"dir": "!"' in (where / "adapter-transcript.jsonl").read_text()


def test_max_seconds_bounds_a_run_against_a_hanging_target(tmp_path):
    r = run(tmp_path, *adapter("assignor", "hang"), *QUICK, "--max-seconds", "1")
    assert r.exit_code == 3, r.output
    scopes = verdict(tmp_path)["scopes"]
    assert scopes[0]["info_steps"] > 0 and scopes[-1]["not_run"] == "--max-seconds 1 came first", scopes


@pytest.mark.slow
@pytest.mark.parametrize("role", ["assignor", "streams-assignor"])
def test_a_wrong_answer_of_the_right_shape_is_judged_a_divergence(role, tmp_path):
    plan = scope_plan(role)
    for assignor, names in plan.items():
        where = tmp_path / assignor.split("=")[0]
        r = run(where, *adapter(role, "wrong-answer", assignor), *[a for n in names for a in ("--scope", n)],
                *QUICK, "--walks", "0")
        assert r.exit_code == 1, r.output
        data = verdict(where)
        assert [s["name"] for s in data["scopes"]] == names and data["divergences"], r.output
        assert data["info"] == 0


def test_a_coordinator_answering_another_requests_kind_is_a_divergence(tmp_path):
    r = run(tmp_path, *adapter("group-coordinator", "wrong-answer"), "--scenarios", "4", *QUICK)
    assert r.exit_code == 1, r.output
    assert "DIVERGENCE same_held" in r.output


@pytest.mark.parametrize("cls", ["Raises", "ReturnsGarbage"])
def test_an_in_process_assignor_that_raises_or_returns_garbage_is_judged_at_every_scope(cls, tmp_path):
    """In process, an exception or a malformed answer is a definite ``fail`` (the divergence
    assignor_answers); a scope whose group cannot form without an answer is not run, says why."""
    r = run(tmp_path, "--assignor", f"tests.helpers.conform_broken_inprocess:{cls}", *QUICK, "--walks", "0")
    assert r.exit_code == 1, r.output
    data = verdict(tmp_path)
    names = scope_plan("assignor")["roundrobin=EAGER"]
    assert [s["name"] for s in data["scopes"]] == names
    stable = [s for s in data["scopes"] if s["not_run"]]
    assert stable and all("answered fail while the group formed" in s["not_run"] for s in stable)
    assert any(d["property"] == "assignor_answers" for d in data["divergences"])


@pytest.mark.slow
@pytest.mark.parametrize("role", ["assignor", "streams-assignor", "group-coordinator"])
def test_a_target_that_hangs_on_setup_is_info_and_the_run_goes_on(role, tmp_path):
    r = run(tmp_path, *adapter(role, "hang-setup"), "--scenarios", "2", *QUICK, "--max-seconds", "20")
    assert r.exit_code == 3, r.output
    assert "the target never gave an answer that could be judged" in r.output
    assert "no reply to setup within 0.3 s" in r.output


def test_an_in_process_coordinator_answering_garbage_is_info_in_every_scenario(tmp_path):
    r = run(tmp_path, "--role", "group-coordinator", "--scenarios", "4", *QUICK,
            "--coordinator", "tests.helpers.conform_broken_inprocess:CoordinatorAnswersGarbage")
    assert r.exit_code == 3, r.output
    assert "BROKEN TARGET" in r.output and "invalid group-coordinator.request.result message" in r.output
    data = json.loads(next(tmp_path.glob("conform/group-coordinator/*/verdict.json")).read_text())
    assert data["info_scenarios"] == 4


def test_a_target_flooding_replies_to_other_requests_is_info_within_the_answer_timeout(tmp_path):
    """In a subprocess with a watchdog: without the deadline check the driver reads the flood forever."""
    argv = [sys.executable, "-m", "groupcheck.cli", "conform", *adapter("assignor", "flood"), "--scope",
            "kip-792-zombies", "--scope", "member-order", *QUICK, "--out", str(tmp_path)]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "no reply to invoke within 0.3 s" in r.stdout and "Traceback" not in r.stdout + r.stderr
    assert [s["name"] for s in verdict(tmp_path)["scopes"]] == ["kip-792-zombies", "member-order"]
