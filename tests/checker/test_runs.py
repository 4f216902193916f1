"""`groupcheck check`'s jobs: limits, weak scopes, witnesses, known bugs expected to be
caught (the main job), --variant, profiles that ship a known bug, exit codes."""
from __future__ import annotations

from dataclasses import replace

import pytest
from typer.testing import CliRunner

from groupcheck import runs
from groupcheck.checker import bfs
from groupcheck.cli import app
from groupcheck.console import Limits
from groupcheck.protocols import PROTOCOLS, Job, get, shipped_jobs
from groupcheck.model.consumer import MODEL
from groupcheck.model.streams_classic import MODEL as STREAMS
from groupcheck.properties.known_bugs.consumer import REF, variant

runner = CliRunner()
NO_WALKS = runs.Settings(walks=0)


def run(*args):
    result = runner.invoke(app, list(args))
    return result, " ".join(result.output.split())     # the text, unwrapped


def limits(max_states: int = 0) -> Limits:
    return Limits(max_states, 0, "0")


# --- limits --------------------------------------------------------------------------

def test_every_run_states_its_limits():
    result, text = run("check", "consumer", "--members", "2", "--budget", "0", "--max-generation", "2",
                       "--walks", "0", "--max-states", "5000", "--max-seconds", "60", "--max-memory", "3GiB")
    assert result.exit_code == 0, result.output
    assert "limits: 5,000 states per search (--max-states); 60 s (--max-seconds) and 3 GiB resident" in text


BIG = ["--members", "3", "--partitions", "2,1", "--budget", "2", "--faults", "crash,pause,lose_response"]


@pytest.mark.parametrize("args, named", [
    (["--max-states", "50"], "--max-states 50"),
    ([*BIG, "--max-seconds", "0.5"], "--max-seconds 0.5"),     # millions of states: cut at half a second
])
def test_a_limit_reached_exits_3_names_it_and_keeps_the_partial_result(args, named):
    result, text = run("check", "consumer", "--walks", "0", *args)
    assert result.exit_code == 3, result.output
    n = sum(1 for p in MODEL.properties if p.kind != "sometimes") + 1          # + no_deadlock
    assert f"incomplete ({named}): {n}/{n} not violated so far" in text
    assert f"{named} stopped bfs after" in text and f"transitions); none of its {n} properties violated so far" in text
    assert "not a proof" in text and "NOT PROVED (exit 3)" in text and f"held {n}/{n}" not in text


def test_a_limit_of_the_whole_command_leaves_the_later_jobs_not_run():
    # any process is larger than 1 MiB: no search can start
    result, text = run("check", "consumer", "--walks", "0", "--max-memory", "1MiB")
    assert result.exit_code == 3, result.output
    names = ", ".join(f"consumer/{name}" for name in get("consumer").default_scopes())
    assert f"not run: {names}: --max-memory 1 MiB stopped the command before it began" in text
    assert "NOT PROVED (exit 3)" in text


@pytest.mark.parametrize("value", ["lots", "4XB", "-1GiB"])
def test_a_bad_memory_size_exits_2(value):
    result, text = run("check", "consumer", "--max-memory", value)
    assert result.exit_code == 2, result.output
    assert f"--max-memory: '{value}' is not a size" in text and "Traceback" not in result.output


def test_plain_progress_lines_go_to_stderr_when_it_is_not_a_terminal():
    result = runner.invoke(app, ["check", "consumer", "--faults", "pause", "--max-generation", "2", "--walks", "3",
                                 "--progress-every", "0"])
    assert result.exit_code == 0, result.output
    lines = [x for x in result.stderr.splitlines() if x.startswith("progress consumer/custom bfs:")]
    assert lines and all("states, depth" in x and "states/s" in x for x in lines)
    assert "progress consumer/custom walks: 3/3 walks" in result.stderr
    assert "progress" not in result.stdout


def test_upgrade_plan_cut_by_a_limit_is_not_proved():
    result, text = run("upgrade-plan", "--from", "2.4", "--to", "3.9", "--instances", "2", "--tasks", "2",
                       "--max-states", "300")
    assert result.exit_code == 3, result.output
    assert "NOT PROVED" in text and "--max-states 300 stopped the search, so this is not a proof" in text
    assert "SAFE" not in text.replace("NOT PROVED", "")


# --- witnesses and weak scopes -------------------------------------------------------

def test_witnesses_are_printed_with_whether_they_were_reached():
    result, text = run("check", "consumer", "--faults", "pause", "--max-generation", "2", "--walks", "0")
    assert result.exit_code == 0, result.output
    assert "consumer/custom: sometimes_settled reached, sometimes_zombie reached" in text


def test_a_tiny_scope_is_weak_not_a_plain_pass():
    result, text = run("check", "streams-classic", "--instances", "1", "--tasks", "1", "--plan", "3.9",
                       "--walks", "2")
    assert result.exit_code == 3, result.output
    n = sum(1 for p in STREAMS.properties if p.kind != "sometimes") + 2        # + no_deadlock, can_settle
    assert f"weak: {n}/{n} held" in text and "only 1 state (fewer than 100)" in text
    assert "NOT PROVED (exit 3)" in text


def test_a_witness_in_reach_not_reached_makes_the_scope_weak():
    # a pause fault can make a zombie, but the group cannot settle below generation 2
    result, text = run("check", "consumer", "--faults", "pause", "--max-generation", "1", "--walks", "0")
    assert result.exit_code == 3, result.output
    assert "sometimes_settled NOT reached" in text and "witness sometimes_settled not reached" in text


def test_a_witness_out_of_the_scopes_reach_is_shown_but_does_not_weaken_it():
    result, text = run("check", "consumer", "--faults", "crash", "--max-generation", "2", "--walks", "0")
    assert result.exit_code == 0, result.output
    assert "sometimes_zombie not reached (out of reach: no pause fault in the scope)" in text


def test_weakness_counts_every_witness_the_protocol_does_not_rule_out():
    consumer = get("consumer")
    scope = replace(consumer.model.view.default_scope(), faults=("crash",), max_generation=2)   # no pause: no zombie
    held = runs.run_job(Job(consumer, "crash", scope), NO_WALKS, limits())
    assert held.verdict == "held"
    blind = replace(consumer, out_of_reach=lambda s: {})
    assert runs.weakness(Job(blind, "crash", scope), held.reports[0]) == [
        "witness sometimes_zombie not reached", "witness sometimes_killed_before_commit not reached"]
    assert runs.weakness(Job(consumer, "crash", scope), held.reports[0]) == []   # both out of reach


# --- known bugs: expected violations, --variant, shipped profiles --------------------

def test_an_expected_violation_is_caught_and_a_missed_one_fails():
    consumer = get("consumer")
    v = variant("KIP-429-no-withholding")
    caught = runs.run_job(Job(consumer, v.key, v.buggy_scope(), v.expect), NO_WALKS, limits())
    assert caught.verdict == "caught" and caught.violation.property == v.expect
    missed = runs.run_job(Job(consumer, v.key, v.reference_scope(), v.expect), NO_WALKS, limits())
    assert missed.verdict == "missed"
    assert missed.detail == (f"expected {v.key} to violate {v.expect}; "
                             f"BFS explored {missed.reports[0].states:,} states and found none")
    other = runs.run_job(Job(consumer, v.key, v.buggy_scope(), "settles_fully_owned"), NO_WALKS, limits())
    assert other.verdict == "missed" and f"BFS found {v.expect} first" in other.detail
    assert runs.exit_code([caught], limits()) == 0
    assert runs.exit_code([caught, missed], limits()) == 1


def test_an_expected_violation_cut_by_a_limit_is_not_proved():
    v = variant("KAFKA-14639")
    cut = runs.run_job(Job(get("consumer"), v.key, v.buggy_scope(), v.expect), NO_WALKS, limits(max_states=500))
    assert cut.verdict == "incomplete" and cut.detail.startswith(f"expected {v.key} to violate {v.expect}, not found yet")
    assert runs.exit_code([cut], limits()) == 3


def _small_consumer(monkeypatch, variants):
    """`groupcheck check` over the consumer alone, with one small reference scope."""
    full = get("consumer")
    small = {"tiny": replace(full.default_scopes()["cooperative"], max_generation=2, budget=0)}
    for name in reversed(list(PROTOCOLS)):      # undone in reverse: the registry's order comes back
        monkeypatch.delitem(PROTOCOLS, name)
    monkeypatch.setitem(PROTOCOLS, "consumer", replace(full, default_scopes=lambda: dict(small), variants=variants))


def test_the_main_job_catches_known_bugs_as_expected_and_writes_them_apart(monkeypatch, tmp_path):
    v = variant("KIP-429-no-withholding")
    _small_consumer(monkeypatch, (v,))
    result, text = run("check", "--walks", "0", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "caught (expected): no_double_ownership" in text and "PASSED (exit 0)" in text
    assert list((tmp_path / "expected").glob(f"consumer-{v.key}-{v.expect}-*.itf.json"))
    assert not list(tmp_path.glob("*.itf.json"))


def test_the_main_job_fails_loudly_when_a_known_bug_is_not_caught(monkeypatch, tmp_path):
    v = variant("KIP-429-no-withholding")
    gone = replace(v, key="BUG-GONE", buggy=replace(v.buggy_scope(), behaviour=REF))   # the bug's rule has gone
    _small_consumer(monkeypatch, (v, gone))
    result, text = run("check", "--walks", "0", "--out", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert "MISSED: expected no_double_ownership" in text
    states = bfs(get("consumer").model, v.reference_scope()).states
    assert f"expected BUG-GONE to violate no_double_ownership; BFS explored {states:,} states and found none" in text
    assert "FAILED (exit 1)" in text


def test_variant_runs_the_known_bug_at_its_scope_and_exits_1(tmp_path):
    for key, prop, protocol in [("KIP-429-no-withholding", "no_double_ownership", "consumer"),
                                ("KAFKA-6054", "leader_never_fails", "streams-classic")]:
        result, text = run("check", "--variant", key, "--out", str(tmp_path))
        assert result.exit_code == 1, result.output
        assert f"{prop} violated in {protocol}/{key}" in text and "counterexample" in text
        assert list(tmp_path.glob(f"{protocol}-{key}-{prop}-*.itf.json"))


@pytest.mark.parametrize("args, message", [
    (["check", "--variant", "KAFKA-0"], "unknown variant 'KAFKA-0'; known: consumer: KAFKA-7026"),
    (["check", "streams-classic", "--variant", "KAFKA-14639"], "KAFKA-14639 is a consumer variant"),
    (["check", "--variant", "KAFKA-14639", "--members", "3"], "drop --members"),
    (["check", "consumer", "--variant", "KAFKA-14639", "--profile", "kafka-3.5+"], "drop --profile"),
])
def test_variant_rejects_unknown_keys_and_contradicting_options(args, message):
    result, text = run(*args)
    assert result.exit_code == 2, result.output
    assert message in text and "Traceback" not in result.output
    if "unknown" in message:
        assert "streams-classic: KAFKA-6054" in text


def test_each_profile_ships_the_known_bugs_whose_behaviour_it_has():
    consumer = get("consumer")
    shipped = {p: [j.name for j in shipped_jobs(consumer, p)] for p in consumer.profiles}
    # the record layer's finding is Kafka's own behaviour: the reference profile ships it (issue 30)
    assert shipped == {"kafka-3.5+": ["cooperative-auto-commit-redelivers"], "kafka-3.1-3.4": ["KAFKA-14639"], "kafka-3.0.0": ["KAFKA-13406"],
                       "kafka-2.4-2.8": ["KAFKA-12984"], "kip-429": []}
    for p in consumer.profiles:
        for job in shipped_jobs(consumer, p):
            assert job.expect is None and job.scope.profile == p


def test_a_profile_that_ships_a_known_bug_shows_it_as_a_violation(monkeypatch, tmp_path):
    _small_consumer(monkeypatch, get("consumer").variants)
    result, text = run("check", "consumer", "--profile", "kafka-2.4-2.8", "--walks", "0", "--out", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert "consumer/KAFKA-12984" in text and "which kafka-2.4-2.8 ships" in text
    assert list(tmp_path.glob("consumer-KAFKA-12984-lost_only_when_fenced-*.itf.json"))
    assert not (tmp_path / "expected").exists()


# --- a start that never settles ----------------------------------------------------------

def test_a_stable_start_that_never_settles_is_can_settle_violated_not_bad_input(monkeypatch):
    """A scope starting from a settled group whose rules never settle it (a broken rule, a
    user's assignor) is the model's liveness failure: can_settle violated, exit 1, not
    exit 2 as if the input were wrong, and no counterexample file (no state to start from)."""
    import importlib
    step = importlib.import_module("groupcheck.model.consumer.step")

    def never(scope, state):
        raise step.NotSettled("scope.start='stable': the group did not settle (reached PreparingRebalance)")

    monkeypatch.setattr(step, "_settle", never)
    protocol = get("consumer")
    job = Job(protocol, "upgrade", protocol.default_scopes()["upgrade"])
    outcome = runs.run_job(job, NO_WALKS, limits())
    assert outcome.verdict == "violated", outcome
    assert outcome.reports[0].violation.property == "can_settle"
    result, text = run("check", "consumer", "--scope", '{"start": "stable", "budget": 0}', "--walks", "0")
    assert result.exit_code == 1, result.output
    assert "can_settle violated in consumer/custom" in text and "no state to start from" in text
