"""The command line on Kafka Streams (streams-classic): upgrade-plan's verdicts and
counterexamples, check with streams scopes and profiles, clear errors."""
from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.model.streams_classic import MODEL

runner = CliRunner()
SMALL = ["--instances", "2", "--tasks", "2"]


def run(*args):
    result = runner.invoke(app, list(args))
    return result, " ".join(result.output.split())     # the text, unwrapped


@pytest.mark.parametrize("args, prop", [
    (["--from", "0.10.2", "--to", "3.9", *SMALL], "leader_never_fails"),
    # KIP-429: one bounce from an EAGER 2.3 straight onto COOPERATIVE; needs 3 instances, 4 tasks
    (["--from", "2.3", "--to", "3.9", "--instances", "3", "--tasks", "4"], "revoke_before_reassign"),
])
def test_upgrade_plan_unsafe_writes_a_replayable_counterexample(tmp_path, args, prop):
    result, text = run("upgrade-plan", *args, "--out", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert "UNSAFE" in text and f"{prop} violated" in text and "claim: Claim:" in text
    assert "counterexample" in text and "Traceback" not in text
    [itf] = tmp_path.glob(f"streams-classic-upgrade-*-{prop}-*.itf.json")
    assert itf.with_suffix("").with_suffix(".txt").exists()
    trace = json.loads(itf.read_text())
    meta = trace["#meta"]
    assert meta["protocol"] == "streams-classic" and meta["violation"]["property"] == prop
    assert len(trace["states"]) == len(meta["path"])

    replayed, replay_text = run("replay", str(itf))
    assert replayed.exit_code == 1, replayed.output
    assert f"reproduced: {prop} violated at step {len(meta['path']) - 1}" in replay_text


@pytest.mark.parametrize("args", [
    ["--from", "0.10.2", "--to", "3.9", "--bounces", "2", *SMALL],
    ["--from", "2.4", "--to", "3.9", *SMALL],
])
def test_upgrade_plan_safe_exits_0_with_the_rebalance_count(tmp_path, args):
    result, text = run("upgrade-plan", *args, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "SAFE" in text and "UNSAFE" not in text
    assert "states explored:" in text and "rebalances: " in text
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_upgrade_plan_threads_make_each_instance_several_members(tmp_path):
    """--threads: num.stream.threads; the threads of an instance are members sharing its
    tasks, so the same plan explores more states than with one thread each."""
    def states(*extra: str) -> int:
        result, text = run("upgrade-plan", "--from", "2.4", "--to", "3.9", "--instances", "2", "--tasks", "2",
                           *extra, "--out", str(tmp_path))
        assert result.exit_code == 0, result.output
        return int(re.search(r"states explored: ([0-9,]+)", text).group(1).replace(",", ""))

    one = states()
    result, text = run("upgrade-plan", "--from", "2.4", "--to", "3.9", "--instances", "2", "--tasks", "2",
                       "--threads", "2", "--out", str(tmp_path))
    assert "2 instances x 2 threads" in text
    assert states("--threads", "2") > one


def test_upgrade_plan_shows_each_bounce():
    result, text = run("upgrade-plan", "--from", "0.10.2", "--to", "3.9", "--bounces", "2", *SMALL)
    assert "bounce 1" in text and "3.9 (upgrade.from=0.10.2)" in text and "bounce 2" in text


def test_check_streams_classic_on_a_small_scope_passes():
    scope = json.dumps({"instances": 2, "tasks": 2})
    result, text = run("check", "streams-classic", "--scope", scope, "--walks", "5")
    assert result.exit_code == 0, result.output
    claims = sum(1 for p in MODEL.properties if p.kind != "sometimes") + 1     # + no_deadlock
    assert "streams-classic" in text and "bfs" in text and f"{claims}/{claims}" in text
    assert "2 instances x 1 thread, 2 tasks, plan 2.3 > 3.9, sticky assignor" in text


def test_check_streams_classic_takes_profiles_flags_and_plans():
    result, text = run("check", "streams-classic", "--profile", "kip-268", *SMALL,
                       "--plan", "2.3 | 3.9 upgrade.from=2.3 | 3.9", "--walks", "5")
    assert result.exit_code == 0, result.output
    assert "kip-268" in text and "plan 2.3 > 3.9 (upgrade.from=2.3) > 3.9" in text


def test_list_shows_both_protocols_and_the_releases():
    result, text = run("list")
    assert result.exit_code == 0
    for word in ("consumer", "streams-classic", "leader_never_fails", "kafka-2.6+", "accepts upgrade.from"):
        assert word in text


@pytest.mark.parametrize("args, message", [
    (["upgrade-plan", "--from", "2.3", "--to", "3.9", "--profile", "nope"], "unknown profile 'nope'"),
    (["upgrade-plan", "--from", "9.9", "--to", "3.9"], "unknown Kafka Streams release '9.9'"),
    (["upgrade-plan", "--from", "3.9", "--to", "2.4"], "--to 2.4 is not newer than --from 3.9"),
    (["upgrade-plan", "--from", "2.3", "--to", "3.9", "--bounces", "3"], "--bounces 3: give 1 or 2"),
    (["upgrade-plan", "--from", "2.3", "--to", "3.9", "--bounces", "two"], "Invalid value for '--bounces'"),
    (["upgrade-plan", "--from", "2.3", "--to", "3.9", "--instances", "9"], "scope.instances: 9 is outside 1..5"),
    (["upgrade-plan", "--from", "2.3", "--to", "3.9", "--threads", "4"], "scope.threads: 4 thread(s) x 3 instances"),
    (["check", "streams-classic", "--profile", "kafka-3.5+"], "unknown profile 'kafka-3.5+' for streams-classic"),
    (["check", "streams-classic", "--members", "2"], "--members does not apply to streams-classic"),
    (["check", "consumer", "--tasks", "2"], "--tasks does not apply to consumer"),
    (["check", "streams-classic", "--plan", "2.3 | 3.9 upgrade.from"], "--plan: stage"),
    (["check", "streams-classic", "--plan", "2.3 | 9.9"], "unknown release '9.9'"),
    (["check", "streams-classic", "--scope", '{"profile": [1]}'], "scope.profile: expected a string, got a list"),
    (["check", "--instances", "2"], "scope options apply to one protocol"),
    (["check", "--profile", "kip-268"], "kip-268 is a profile of streams-classic"),
])
def test_bad_streams_options_exit_2_with_a_clear_message(args, message):
    result, text = run(*args)
    assert result.exit_code == 2, (args, result.output)
    assert message in text, (args, result.output)
    assert "Traceback" not in result.output
