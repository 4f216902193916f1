"""Records with real confluent-kafka processes on librdkafka's mock cluster (issue 30): the
classic protocol and KIP-848 (``group.protocol=consumer``, the mock's ConsumerGroupHeartbeat),
judged by claims_records (the model's claims). Each test starts its own mock (in this
process) and stops it; watchdogs only, no timing asserts."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from groupcheck.conform.roles.consumer_client import campaign_broker as campaign
from groupcheck.conform.roles.consumer_client.campaign import shrink
from groupcheck.conform.roles.consumer_client.runner_broker import open_broker, run_scenario
from groupcheck.conform.roles.consumer_client.scenarios_broker import records_named

SCENARIOS = {name: sc for name, sc, _ in records_named()}


def _run(target: str, scenario: str):
    settings = campaign.parse_target(target)
    settings.partitions = 2
    broker = open_broker(settings)
    try:
        return run_scenario(SCENARIOS[scenario], settings, broker)
    finally:
        broker.close()


def test_mock_targets_parse_to_confluent_kafka_on_the_mock():
    s = campaign.parse_target("librdkafka:cooperative-sticky+after-processing")
    assert (s.client, s.assignor, s.group_protocol, s.mock, s.harness, s.commit_policy) == \
        ("confluent-kafka", "cooperative-sticky", "classic", True, "confluent-kafka", "after-processing")
    assert (s.session_timeout_ms, s.heartbeat_interval_ms) == (3000, 500)
    s = campaign.parse_target("librdkafka-consumer-protocol+auto")
    assert (s.assignor, s.group_protocol, s.mock) == ("consumer", "consumer", True)
    b = campaign.parse_target("commits-before-processing:librdkafka-consumer-protocol+after-processing")
    assert b.broken == "commits-before-processing" and b.group_protocol == "consumer"
    assert campaign.parse_target("confluent-kafka:range+auto").mock is False


@pytest.mark.parametrize("target, words", [
    ("librdkafka:sticky+auto", "give [broken:]librdkafka:ASSIGNOR+POLICY"),
    ("librdkafka-consumer-protocol:range+auto", "give [broken:]librdkafka:ASSIGNOR+POLICY"),
    ("commits-before-processing:librdkafka:range+auto", "commits-before-processing needs +after-processing"),
    ("nonsense:librdkafka:range+auto", "give [broken:]librdkafka:ASSIGNOR+POLICY"),
])
def test_a_bad_mock_target_is_one_clear_error(target, words):
    with pytest.raises(ValueError) as e:
        campaign.parse_target(target)
    assert words in str(e.value)


def test_the_cli_routes_mock_record_targets_to_real_processes_and_keeps_the_in_process_ones():
    assert campaign.is_client_target("librdkafka:range+none")
    assert campaign.is_client_target("librdkafka-consumer-protocol+sync-on-revoke")
    assert not campaign.is_client_target("librdkafka:range")
    assert not campaign.is_client_target("librdkafka-consumer-protocol")
    with pytest.raises(ValueError, match="runs on librdkafka's mock cluster, not on --bootstrap"):
        campaign.run("librdkafka:range+auto", campaign.Options(bootstrap="127.0.0.1:9"))


def test_shrinking_keeps_a_record_claim_violated():
    """The shrinker keeps a candidate whose run breaks a record claim (the record judge's,
    not the group judge's)."""
    def runner(candidate, deadline):
        lost = any(op["op"] == "kill" for op in candidate)
        return SimpleNamespace(complete=True, judgement=SimpleNamespace(violated=lambda: []),
                               records=SimpleNamespace(violated=lambda: ["no_record_lost"] if lost else []))
    scenario = [{"op": "join", "member": "c1"}, {"op": "produce", "count": 1}, {"op": "wait", "seconds": 1},
                {"op": "hold", "member": "c1"}, {"op": "kill", "member": "c1"}, {"op": "settle", "max_s": 60}]
    shrunk, run = shrink(scenario, "no_record_lost", runner, float("inf"), lambda line: None)
    assert run is not None and [op["op"] for op in shrunk] == ["join", "kill", "settle"]


def test_kip848_handover_with_sync_on_revoke_neither_loses_nor_duplicates():
    run = _run("librdkafka-consumer-protocol+sync-on-revoke", "records-join")
    assert run.error is None and run.judgement.violated() == [] and run.records.violated() == [], \
        (run.error, run.judgement.summary(), run.records.summary())
    assert run.records.tally.counts()["duplicated"] == 0
    assert run.records.results["no_record_lost"].checks >= 8
    # the revoke callback's commitSync under KIP-848 is accepted (no rebalance state refuses it)
    assert [e for e in run.events if e["kind"] == "commit" and not e["auto"] and e["error"] is None]
    assert {e["member"] for e in run.events if e["kind"] == "assign" and e["partitions"]} == {"c1", "c2"}


def test_commits_before_processing_loses_a_record_under_a_kill_on_the_mock():
    """The judge's self-test on the mock: the broken application commits a record, is
    SIGKILLed before processing it, and the survivor starts after it."""
    run = _run("commits-before-processing:librdkafka:range+after-processing", "records-kill-after-hold")
    assert run.error is None, run.error
    assert "no_record_lost" in run.records.violated(), run.records.summary()
    assert len(run.records.tally.lost) == 1


def test_the_mock_refuses_an_eager_revoke_callbacks_commit_during_the_rebalance():
    """librdkafka's mock answers OffsetCommit REBALANCE_IN_PROGRESS while its group is
    JOINING (rd_kafka_mock_cgrp_classic_check_state), where Kafka accepts a current
    generation's commit in PreparingRebalance (the model's probes.offset_commit_error):
    so the EAGER sync-on-revoke commit fails and the records are processed again -- each
    duplicate excused by the failed commit, as the model's excuse rule says."""
    run = _run("librdkafka:range+sync-on-revoke", "records-join")
    assert run.error is None and run.records.violated() == [], (run.error, run.records.summary())
    refused = [e for e in run.events if e["kind"] == "commit" and e["error"] == "REBALANCE_IN_PROGRESS"]
    assert refused, [e for e in run.events if e["kind"] == "commit"]
    counts = run.records.tally.counts()
    assert counts["duplicated"] == counts["duplicated_excused"] > 0, counts


def test_a_record_divergence_gets_a_standalone_script_that_reproduces_it(tmp_path):
    """The script carries the harness's and the judge's code (no groupcheck import reaches an
    installed groupcheck) and starts its own mock for a librdkafka target: it shows the
    broken application's lost record again (exit 1)."""
    import os
    import subprocess
    import sys
    from dataclasses import asdict

    from groupcheck.conform.roles.consumer_client import repro_records
    settings = campaign.parse_target("commits-before-processing:librdkafka:range+after-processing")
    settings.partitions = 2
    trace = tmp_path / "clients-x-no_record_lost-0.itf.json"
    path = repro_records.write([str(trace)], "x@librdkafka-mock", asdict(settings), SCENARIOS["records-kill-after-hold"],
                               "no_record_lost", "t0-0 offset 2 is below the committed offset 3 but no owner processed it",
                               30.0)
    assert path == str(tmp_path / "repro_clients_x_no_record_lost_0.py")
    text = open(path).read()
    assert "import groupcheck" not in text and "from groupcheck" not in text.split("SOURCES = ")[0]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, path], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "REPRODUCED" in r.stdout and "no_record_lost" in r.stdout


def test_no_record_script_for_a_group_claim_kafkajs_or_a_growing_topic():
    from dataclasses import asdict

    from groupcheck.conform.roles.consumer_client.repro_records import source
    s = asdict(campaign.parse_target("kafka-python:range+auto"))
    assert source("t", s, [], "converges_within_k", "m", 10) is None
    assert source("t", {**s, "client": "kafkajs"}, [], "no_record_lost", "m", 10) is None
    assert source("t", s, [{"op": "grow_topic"}], "no_record_lost", "m", 10) is None
    assert source("t", s, [], "no_record_lost", "m", 10).startswith("#!/usr/bin/env python3")


@pytest.mark.parametrize("fault", ["kill", "sigstop"])
def test_the_kip848_judge_knows_a_killed_or_stopped_member_process(fault):
    """claims_848 over real member processes: after a SIGKILL or SIGSTOP the member is no
    longer a live group member, so its partitions going to the survivor break no claim."""
    from groupcheck.conform.roles.consumer_client.claims_848 import judge as judge_848

    def cb(t, kind, member, parts, before, after, mid, epoch):
        return {"t": t, "kind": kind, "member": member, "partitions": parts, "member_id": mid, "generation": epoch,
                "owned_before": before, "owned_after": after}
    ev = [{"t": 0, "kind": "op", "op": "join", "args": {"member": "c1"}}, cb(0.1, "assign", "c1", [0, 1], [], [0, 1], "A", 2),
          {"t": 0.2, "kind": "op", "op": "join", "args": {"member": "c2"}},
          {"t": 0.3, "kind": "op", "op": fault, "args": {"member": "c1"}},
          cb(4.0, "assign", "c2", [0, 1], [], [0, 1], "B", 4),
          {"t": 5.0, "kind": "op", "op": "settled", "args": {"ok": True, "max_s": 60}}]
    s = judge_848(ev, partitions=2, max_poll_interval_ms=6000).summary()
    assert {p: x["verdict"] for p, x in s.items() if x["verdict"] == "violated"} == {}, s


def test_the_cli_runs_a_kip848_record_target_on_the_mock_and_refuses_a_bad_one(tmp_path):
    import json

    from typer.testing import CliRunner

    from groupcheck.cli import app
    r = CliRunner().invoke(app, ["conform", "--role", "consumer-client", "--target", "librdkafka-consumer-protocol+none",
                                 "--scenarios", "1", "--out", str(tmp_path / "ok")])
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output
    verdict = json.loads((tmp_path / "ok" / "conform" / "librdkafka-consumer-protocol-none" / "verdict.json").read_text())
    assert verdict["settings"]["broker"] == "librdkafka-mock-consumer-protocol"
    assert [x["scenario"] for x in verdict["record_runs"]] == ["records-join"]
    run = verdict["record_runs"][0]
    assert run["lost"] == 0 and run["produced"] == run["processed"] - run["duplicated"] + run["unconsumed"] > 0, run
    bad = CliRunner().invoke(app, ["conform", "--role", "consumer-client", "--target", "librdkafka:sticky+auto",
                                   "--out", str(tmp_path / "bad")])
    assert bad.exit_code == 2 and "Traceback" not in bad.output and "give [broken:]librdkafka:ASSIGNOR+POLICY" in bad.output


def test_librdkafkas_background_auto_commit_loses_a_record_returned_to_a_stuck_application():
    """``grab``: poll returned c1 a record and the application is stuck before processing
    it; librdkafka's auto-commit (in the background, of the last message handed to the
    application) commits past it, and after the SIGKILL c2 starts after it: the record is
    lost. Judged a documented choice (judgements.json); after-processing loses nothing."""
    from groupcheck.conform.judgements import judged
    run = _run("librdkafka:range+auto", "records-kill-after-grab")
    assert run.error is None, run.error
    held = [(e["partition"], e["offset"]) for e in run.events if e["kind"] == "held"]
    assert run.records.violated() == ["no_record_lost"] and run.records.tally.lost == held, run.records.summary()
    message = run.records.results["no_record_lost"].violations[0][2]
    assert judged("librdkafka:range+auto@librdkafka-mock", "no_record_lost", message)["judgement"] == \
        "documented choice"
