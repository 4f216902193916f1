"""The record judge (roles/consumer_client/claims_records.py) on recorded histories, no
broker: JSON fixtures in tests/conform/records/ written as a worker and the harness write
them (a clean handover, a duplicate a SIGKILL excuses, an unexcused duplicate, a loss, a
zombie commit accepted, processing after the revoke callback)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from groupcheck.conform.roles.consumer_client.claims_records import PROPERTIES, judge

HERE = Path(__file__).parent / "records"


def _judge(name: str):
    data = json.loads((HERE / f"{name}.json").read_text())
    return judge(data["events"], policy=data["policy"])


def test_a_clean_handover_holds_every_claim():
    j = _judge("clean")
    assert j.violated() == []
    assert all(j.results[p].checks for p in ("no_record_lost", "fetch_stops_at_revocation",
                                            "commits_fenced_after_handover"))
    assert j.tally.counts() == {"lost": 0, "duplicated": 0, "duplicated_excused": 0, "duplicated_unexcused": 0,
                                "unconsumed": 0}


def test_a_duplicate_after_sigkill_is_excused_and_counted():
    j = _judge("dup_after_kill")
    assert j.violated() == []
    assert j.results["no_duplicate_without_failure"].checks == 1
    assert j.tally.duplicated == [(0, 1, "kill c1")]


def test_a_duplicate_without_a_fault_is_a_violation():
    j = _judge("dup_unexcused")
    assert j.violated() == ["no_duplicate_without_failure"]
    assert j.tally.counts()["duplicated_unexcused"] == 2
    assert j.results["no_duplicate_without_failure"].violations[0][2] == \
        "t0-0 offset 0 processed again by member c2 with no fault since it was first processed (first by c1)"


def test_a_commit_ahead_of_processing_loses_a_record():
    j = _judge("loss")
    assert j.violated() == ["no_record_lost"]
    assert j.tally.lost == [(0, 1)]
    assert j.results["no_record_lost"].violations[0][2] == \
        "t0-0 offset 1 is below the committed offset 3 but no owner processed it"


def test_a_zombie_commit_accepted_after_the_handover_is_a_violation():
    j = _judge("zombie_commit")
    assert "commits_fenced_after_handover" in j.violated()
    assert j.results["commits_fenced_after_handover"].violations[0][2] == \
        "t0-0 commit of offset 1 by member c1 accepted after member c2 fetched it"
    # the stall excuses c2's redelivery of offset 0
    assert j.tally.duplicated == [(0, 0, "stall c1")]


def test_processing_after_the_revoke_callback_breaks_fetch_stops_at_revocation():
    j = _judge("after_revoke")
    assert j.violated() == ["fetch_stops_at_revocation"]
    assert j.tally.counts()["unconsumed"] == 2      # offset 1 was processed by a non-owner: not done


def test_policy_none_does_not_judge_duplicates_but_counts_them():
    data = json.loads((HERE / "dup_unexcused.json").read_text())
    j = judge(data["events"], policy="none")
    assert j.violated() == [] and j.tally.counts()["duplicated"] == 2
    assert j.results["no_duplicate_without_failure"].verdict() == "not exercised"


def test_an_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="unknown commit policy 'sometimes'"):
        judge([], policy="sometimes")


def test_the_claims_are_the_issues_four():
    assert PROPERTIES == ("no_record_lost", "no_duplicate_without_failure", "commits_fenced_after_handover",
                          "fetch_stops_at_revocation")


def test_the_log_end_is_what_was_produced_when_the_broker_answers_short():
    """Tansu 0.6.0 answers ListOffsets LATEST with 2 after offsets 0..2 were written (a
    batch of two after one): the judge still checks offset 2, and notes the discrepancy."""
    data = json.loads((HERE / "loss.json").read_text())
    events = [e if e["kind"] != "offsets" else {**e, "end": {"0": 2}, "committed": {"0": 3}} for e in data["events"]]
    j = judge(events, policy=data["policy"])
    assert j.tally.lost == [(0, 1)]
    assert j.results["no_record_lost"].checks == 3
    assert j.tally.notes == ["partition 0: ListOffsets said end 2, the producer wrote up to 3"]


def test_a_target_names_its_commit_policy():
    from groupcheck.conform.roles.consumer_client import campaign_broker as campaign
    s = campaign.parse_target("kafka-python:range+static+sync-on-revoke")
    assert (s.client, s.assignor, s.static, s.commit_policy) == ("kafka-python", "range", True, "sync-on-revoke")
    assert campaign.parse_target("aiokafka:range").commit_policy is None
    b = campaign.parse_target("commits-before-processing:kafka-python:range+after-processing")
    assert (b.broken, b.commit_policy) == ("commits-before-processing", "after-processing")
    with pytest.raises(ValueError, match="commits-before-processing needs \\+after-processing"):
        campaign.parse_target("commits-before-processing:kafka-python:range+auto")
    with pytest.raises(ValueError, match="sync-on-revoke: not applicable: kafkajs 2.2.4 has no rebalance listener"):
        campaign.parse_target("kafkajs:roundrobin+sync-on-revoke")


def test_the_report_sums_the_record_claims_and_tallies():
    from types import SimpleNamespace

    from groupcheck.conform.roles.consumer_client.claims import PROPERTIES as GROUP
    from groupcheck.conform.roles.consumer_client.claims import judge as judge_group
    from groupcheck.conform.roles.consumer_client.report import Report
    report = Report(target="t", settings={}, properties=GROUP + PROPERTIES)
    for name in ("dup_after_kill", "loss"):
        data = json.loads((HERE / f"{name}.json").read_text())
        group = judge_group(data["events"], cooperative=False, partitions=1, max_poll_interval_ms=9000)
        report.add(SimpleNamespace(judgement=group, records=judge(data["events"], policy=data["policy"]),
                                   rounds=[], error=None, events=data["events"], seconds=1.0), name)
    j = report.to_json()
    assert j["properties"]["no_record_lost"]["violated"] == 1 and j["properties"]["no_record_lost"]["held"] == 1
    assert j["records"] == {"notes": [], "lost": 1, "duplicated": 1, "duplicated_excused": 1,
                            "duplicated_unexcused": 0, "unconsumed": 0}
    assert "records: 1 lost, 1 processed twice (1 after a fault, 0 without), 0 never consumed" in report.text()
    assert [(r["scenario"], r["produced"], r["processed"], r["lost"], r["duplicated"], r["violated"])
            for r in j["record_runs"]] == [("dup_after_kill", 3, 4, 0, 1, []), ("loss", 3, 2, 1, 0, ["no_record_lost"])]
    assert "  loss: 3 produced, 2 processed, 1 lost, 0 twice (0 after a fault), 1.0 s" in report.text()


def test_the_regression_template_reads_the_record_judgement():
    from groupcheck.conform.roles.consumer_client.campaign_broker import REGRESSION
    text = REGRESSION.format(prop="no_record_lost", target="t", scenario="[]", settings="{}", observed="''",
                             name="x", message="m", client="")
    assert "run.records.summary() if run.records else {}" in text
    compile(text, "regression", "exec")


def test_walks_with_records_produce_after_every_operation_but_waits_and_settles():
    from groupcheck.conform.roles.consumer_client.scenarios import validate
    from groupcheck.conform.roles.consumer_client.scenarios_broker import with_records
    walk = [{"op": "join", "member": "c1"}, {"op": "wait", "seconds": 1}, {"op": "kill", "member": "c1"},
            {"op": "settle", "max_s": 60}]
    out = with_records(walk)
    assert [op["op"] for op in out] == ["join", "produce", "wait", "kill", "produce", "settle"]
    assert validate(out, 1) == out


def test_a_zombie_reprocessing_after_sigcont_is_excused_by_its_sigstop():
    """Recorded on Tansu (kafka-python): c1 SIGSTOPped past the session, c2 took and
    processed 0:2 and 0:3, then c1 continued and processed 0:2 from its buffer before it
    learnt it was fenced (its commit: CommitFailedError, then on_lost)."""
    j = _judge("zombie_after_sigcont")
    assert j.violated() == [], j.summary()
    assert (0, 2, "sigstop c1") in j.tally.duplicated
    assert j.results["commits_fenced_after_handover"].checks > 0


def test_the_verdicts_are_the_model_claims(monkeypatch):
    """The judge states no claim itself: it rebuilds model/delivery state and asks
    model/delivery/claims.py, so silencing the four claims there silences every fixture's
    violation here (and the claims' own messages are what it reports, above)."""
    from groupcheck.conform.roles.consumer_client import claims_records
    for name in PROPERTIES:
        monkeypatch.setattr(claims_records, name, lambda *args, **kw: None)
    for name in ("loss", "dup_unexcused", "zombie_commit", "after_revoke"):
        assert _judge(name).violated() == [], name


def test_partitions_are_named_by_topic_with_the_scenarios_stride():
    """A grown topic's partition k * partitions + p is t<k>-<p> in the claim's message."""
    data = json.loads((HERE / "loss.json").read_text())
    events = [{**e, "partition": 5} if "partition" in e else
              {**e, "partitions": [5]} if "partitions" in e else
              {**e, "offsets": {"5": v for v in e["offsets"].values()}} if e.get("offsets") else
              {**e, "end": {"5": 3}, "committed": {"5": 3}} if e["kind"] == "offsets" else e
              for e in data["events"]]
    j = judge(events, policy=data["policy"], stride=4)
    assert j.results["no_record_lost"].violations[0][2] == \
        "t1-1 offset 1 is below the committed offset 3 but no owner processed it"


def test_a_struck_member_processing_a_partition_nobody_was_assigned_is_judged_not_raised():
    """A zombie may hand the application a record of a partition the history never assigned
    (its callbacks were lost with it): fetch_stops_at_revocation, no IndexError."""
    events = [{"t": 0, "kind": "op", "op": "join", "args": {"member": "c1"}},
              {"t": 1, "kind": "assign", "member": "c1", "partitions": [0]},
              {"t": 2, "kind": "op", "op": "sigstop", "args": {"member": "c1"}},
              {"t": 3, "kind": "processed", "member": "c1", "partition": 3, "offset": 0}]
    j = judge(events, policy="auto")
    assert j.violated() == ["fetch_stops_at_revocation"]
    assert j.results["fetch_stops_at_revocation"].violations[0][2] == \
        "t0-3 was fetched from or processed by member c1 after its revocation started (it owns [0])"


def test_an_auto_commit_after_a_refused_manual_commit_is_not_judged_by_the_old_send():
    """Recorded on librdkafka's mock (KIP-848, auto): c1's manual commit after SIGCONT was
    refused (UNKNOWN_MEMBER_ID); c1 rejoined, was assigned partition 2 after c2 revoked it,
    and auto-committed it. The refused commit's send time must not be the auto-commit's:
    the first judge did so and reported a zombie commit accepted."""
    def cb(t, kind, m, parts):
        return {"t": t, "kind": kind, "member": m, "partitions": parts}
    events = [cb(0.1, "assign", "c1", [2]), cb(0.6, "revoke", "c1", [2]), cb(0.7, "assign", "c2", [2]),
              {"t": 19.9, "kind": "commit_sent", "member": "c1", "offsets": {"0": 2}},
              {"t": 19.9, "kind": "commit", "member": "c1", "offsets": {"0": 2}, "error": "UNKNOWN_MEMBER_ID",
               "auto": False},
              cb(20.2, "revoke", "c2", [2]), cb(20.4, "assign", "c1", [2]),
              {"t": 20.9, "kind": "commit", "member": "c1", "offsets": {"2": 5}, "error": None, "auto": True}]
    j = judge(events, policy="auto")
    assert j.violated() == [], j.summary()
