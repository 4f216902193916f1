"""Records with real clients on Tansu (issue 30): the harness produces numbered records,
workers process and commit them by a policy, and claims_records judges what happened.
A broken application that commits a record before processing it must lose a record
under a SIGKILL after ``hold``; the same scenario with a correct after-processing
application loses none and redelivers only what the SIGKILL excuses. Watchdogs only."""
from __future__ import annotations

import shutil

import pytest

from groupcheck.conform.roles.consumer_client import campaign_broker as campaign
from groupcheck.conform.roles.consumer_client.runner_broker import run_scenario
from groupcheck.conform.roles.consumer_client.scenarios_broker import records_named
from groupcheck.conform.targets.clients.group import NODE_WORKER

SCENARIOS = {name: sc for name, sc, _ in records_named()}


def _settings(target: str, policy: str):
    s = campaign.parse_target(f"{target}+{policy}")
    assert s.commit_policy == policy
    s.partitions = 2
    return s


def test_commits_before_processing_loses_a_record_under_a_kill(broker):
    run = run_scenario(SCENARIOS["records-kill-after-hold"],
                       _settings("commits-before-processing:kafka-python:range", "after-processing"), broker)
    assert run.error is None, run.error
    assert "no_record_lost" in run.records.violated(), run.records.summary()
    assert len(run.records.tally.lost) == 1
    good = run_scenario(SCENARIOS["records-kill-after-hold"], _settings("kafka-python:range", "after-processing"),
                        broker)
    assert good.error is None and good.records.violated() == [], good.records.summary()
    counts = good.records.tally.counts()
    assert counts["lost"] == 0 and counts["duplicated"] == counts["duplicated_excused"] == 1, counts
    assert good.records.results["no_record_lost"].checks >= 8


@pytest.mark.parametrize("client", ["confluent-kafka:range", "kafka-python:range"])
def test_a_handover_with_sync_on_revoke_neither_loses_nor_duplicates(client, broker):
    """kafka-python: the worker's async listener (a synchronous one may not block on a
    commit in kafka-python 3: 6 records were processed twice per handover)."""
    run = run_scenario(SCENARIOS["records-join"], _settings(client, "sync-on-revoke"), broker)
    assert run.error is None and run.records.violated() == [], run.records.summary()
    assert run.records.tally.counts()["duplicated"] == 0
    assert [e for e in run.events if e["kind"] == "commit" and not e["auto"] and e["error"] is None]


NODE_READY = shutil.which("node") is not None and (NODE_WORKER.parent / "node_modules" / "kafkajs").is_dir()


@pytest.mark.skipif(not NODE_READY, reason="kafkajs needs node and adapters/node/node_modules (npm ci --prefix adapters/node)")
def test_kafkajs_after_processing_redelivers_only_the_killed_members_held_record(broker):
    run = run_scenario(SCENARIOS["records-kill-after-hold"], _settings("kafkajs:roundrobin", "after-processing"),
                       broker)
    assert run.error is None and run.records.violated() == [], run.records.summary()
    counts = run.records.tally.counts()
    assert counts["lost"] == 0 and counts["duplicated"] == counts["duplicated_excused"] == 1, counts
    held = [e for e in run.events if e["kind"] == "held"]
    assert len(held) == 1 and held[0]["member"] == "c1"


def test_tansu_does_not_answer_consumer_group_heartbeat(broker):
    """KIP-848 records run on librdkafka's mock only: Tansu 0.6.0's ApiVersions lists no
    ConsumerGroupHeartbeat (API 68). When it does, this fails: run the KIP-848 record
    scenarios on Tansu too (confluent-kafka with group.protocol=consumer)."""
    assert 11 in broker.apis and 68 not in broker.apis, sorted(broker.apis)
