"""librdkafka's consumer on its mock cluster, judged by the model's properties.

Real clients and a real (mock) coordinator: each scenario costs seconds of wall time
(the mock's JoinGroup phase lasts session.timeout.ms - 1000), so the scenarios here are
the smallest that exercise each claim.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from groupcheck.conform.targets.broken.clients import IgnoresLost, SkipsRevoke
from groupcheck.conform.roles.consumer_client.campaign import OptionError, Options, parse_target, run
from groupcheck.conform.targets.librdkafka.client import Settings, parse_group_metadata
from groupcheck.conform.roles.consumer_client.claims import judge
from groupcheck.conform.targets.librdkafka.mock import MockCluster, MockError
from groupcheck.conform.roles.consumer_client.report import itf_trace
from groupcheck.conform.roles.consumer_client.runner import run_scenario
from groupcheck.conform.roles.consumer_client.scenarios import ScenarioError, from_model, validate
from groupcheck.model import itf

pytestmark = pytest.mark.slow

FAST = dict(session_timeout_ms=4000, max_poll_interval_ms=5000)


def verdicts(r) -> dict:
    return {p: s["verdict"] for p, s in r.judgement.summary().items()}


def test_mock_starts_and_stops_cleanly():
    with MockCluster(brokers=1) as m:
        assert m.bootstraps.startswith("127.0.0.1:")
        m.topic_create("t", 3)
        m.push_request_errors("Heartbeat", ["REBALANCE_IN_PROGRESS"])
        m.broker_rtt(1, 5)
        with pytest.raises(MockError, match="unknown ApiKey"):
            m.push_request_errors("Produce?", ["NONE"])
    m.close()                                   # idempotent
    with pytest.raises(MockError, match="closed"):
        m.topic_create("t", 1)


def test_generation_is_read_from_the_group_metadata_blob():
    blob = b"CGMDv2:" + (7).to_bytes(4, sys.byteorder, signed=True) + b"g\0" + b"0xabc\0" + b"\x01"
    assert parse_group_metadata(blob) == (7, "0xabc")
    with pytest.raises(ValueError):
        parse_group_metadata(b"nope")


def test_cooperative_join_two_close_one_holds_every_property():
    sc = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 30},
          {"op": "close", "member": "c1"}, {"op": "settle", "max_s": 30}]
    r = run_scenario(sc, Settings(assignor="cooperative-sticky", **FAST))
    assert r.error is None and r.complete
    v = verdicts(r)
    assert v.pop("lost_only_when_fenced") == "not exercised"
    assert v.pop("commits_fenced") == "not exercised"      # the mock target sends no OffsetCommit
    assert set(v.values()) == {"held"}, r.judgement.summary()
    # KIP-429's two rounds for the join (revoke, then hand over), one for the leave
    assert [n for n, _ in r.rounds] == [2, 1] or [n for n, _ in r.rounds][1] == 1
    kinds = [(e["member"], e["kind"]) for e in r.events if e["kind"] in ("assign", "revoke", "lost")]
    assert ("c1", "revoke") in kinds and ("c2", "assign") in kinds


def test_stalled_member_is_not_a_false_double_owner():
    """c2 stops polling: c1 is given c2's partitions while c2, not yet told, still
    'owns' them in the callback view; c2 gets on_lost only when polled again."""
    sc = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 30},
          {"op": "stall", "member": "c2"}, {"op": "wait", "seconds": 10}, {"op": "resume", "member": "c2"},
          {"op": "settle", "max_s": 30}]
    r = run_scenario(sc, Settings(assignor="range", **FAST))
    assert r.error is None
    v = verdicts(r)
    assert v["no_double_ownership"] == "held" and v["revoke_before_reassign"] == "held", r.judgement.summary()
    assert v["lost_only_when_fenced"] == "held"
    lost = [e for e in r.events if e["kind"] == "lost"]
    assert lost and lost[0]["member"] == "c2"
    # the overlap really was there in the raw callback view: c1 got c2's partitions first
    t_lost = lost[0]["t"]
    c1_assigned = set()
    for e in r.events:
        if e["kind"] == "assign" and e["member"] == "c1" and e["t"] < t_lost:
            c1_assigned = set(e["owned_after"])
    assert c1_assigned & set(lost[0]["partitions"])


def test_skips_revoke_is_flagged():
    sc = [{"op": "join", "member": "c1"}, {"op": "settle", "max_s": 20}, {"op": "join", "member": "c2"},
          {"op": "settle", "max_s": 12}]
    r = run_scenario(sc, Settings(assignor="cooperative-sticky", **FAST), SkipsRevoke)
    assert SkipsRevoke.expected in r.judgement.violated()
    assert "still owned by c1" in r.judgement.results["revoke_before_reassign"].violations[0][2]


def test_ignores_lost_is_flagged():
    sc = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 20},
          {"op": "stall", "member": "c2"}, {"op": "wait", "seconds": 9}, {"op": "resume", "member": "c2"},
          {"op": "settle", "max_s": 20}]
    r = run_scenario(sc, Settings(assignor="range", **FAST), IgnoresLost)
    assert IgnoresLost.expected in r.judgement.violated()
    assert "rejoined after a reset still owning" in r.judgement.results["lost_only_when_fenced"].violations[0][2]


def test_judge_flags_overlap_between_current_members_only():
    """Pure judgement: the same overlap is a violation between two current members and
    not when the older owner is a generation behind (fenced)."""
    def cb(t, m, kind, parts, gen, before, after, mid):
        return {"t": t, "kind": kind, "member": m, "partitions": parts, "member_id": mid, "generation": gen,
                "owned_before": before, "owned_after": after}
    base = [{"t": 0, "kind": "op", "op": "join", "args": {"member": "c1"}},
            {"t": 0, "kind": "op", "op": "join", "args": {"member": "c2"}},
            cb(1, "c1", "assign", [0, 1], 2, [], [0, 1], "m1")]
    same_gen = base + [cb(2, "c2", "assign", [1], 2, [], [1], "m2")]
    j = judge(same_gen, cooperative=True, partitions=2, max_poll_interval_ms=5000)
    assert j.results["no_double_ownership"].violations and j.results["revoke_before_reassign"].violations
    newer = base + [{"t": 1.5, "kind": "sample", "member": "c1", "member_id": "", "generation": 2},
                    cb(2, "c2", "assign", [1], 3, [], [1], "m2")]
    j = judge(newer, cooperative=True, partitions=2, max_poll_interval_ms=5000)
    assert not j.results["no_double_ownership"].violations
    assert not j.results["revoke_before_reassign"].violations


def test_scenarios_from_the_model_are_valid_and_seeded():
    a = from_model(3, 3, 4, "range")
    assert a == from_model(3, 3, 4, "range")
    assert validate(a, 3) is a and a[-1]["op"] == "settle" and a[0]["op"] == "join"
    assert any(from_model(s, 3, 4, "range") != a for s in range(4, 8))


def test_trace_is_itf_with_meta():
    sc = [{"op": "join", "member": "c1"}, {"op": "settle", "max_s": 20}]
    r = run_scenario(sc, Settings(assignor="roundrobin", **FAST))
    t = itf_trace(r, "roundrobin", {"assignor": "roundrobin"}, 0, None)
    text = json.dumps(t)
    back = json.loads(text)
    assert back["#meta"]["scenario"] == sc and back["#meta"]["verdicts"]["settles_fully_owned"] == "held"
    settled = [i for i, a in enumerate(back["states"]) if a["action_taken"].startswith("settled(ok=True")]
    assert settled
    at = itf.decode(back["states"][settled[0]]["members"])
    assert at["c1"]["owned"] == frozenset({0, 1, 2, 3}) and at["c1"]["live"]
    last = itf.decode(back["states"][-1]["members"])
    assert last["c1"]["closed"] and last["c1"]["owned"] == frozenset()


@pytest.mark.parametrize("bad, match", [
    ([], "non-empty list"),
    ([{"op": "jump", "member": "c1"}], "unknown op 'jump'"),
    ([{"op": "join"}], "join takes"),
    ([{"op": "wait", "seconds": True}], "seconds must be a number"),
    ([{"op": "request_errors", "api": "JoinGroup", "errors": ["WAT"]}], "errors must be"),
])
def test_malformed_scenarios_are_named(bad, match):
    with pytest.raises(ScenarioError, match=match):
        validate(bad, 2)


def test_bad_options_are_clear_errors():
    with pytest.raises(OptionError, match="unknown assignor 'sticky'"):
        parse_target("sticky")
    with pytest.raises(OptionError, match="unknown client 'nope'"):
        parse_target("nope:range")
    with pytest.raises(OptionError, match="scenarios must be an integer"):
        run("range", Options(scenarios=0))
    with pytest.raises(OptionError, match="max-poll-interval-ms must be >="):
        run("range", Options(session_timeout_ms=6000, max_poll_interval_ms=5000))


@pytest.mark.parametrize("args, text", [
    (["--scenarios", "x"], "invalid int value"),
    (["--assignor", "sticky"], "unknown assignor"),
    (["--scenario", "[{\"op\""], "is not JSON"),
    (["--scenario", "@/nonexistent/file.json"], "No such file"),
    (["--max-seconds", "nan"], "max-seconds must be"),
])
def test_cli_bad_input_exits_2_without_traceback(args, text):
    p = subprocess.run([sys.executable, "-m", "groupcheck.conform.roles.consumer_client", *args],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert text in p.stderr and "Traceback" not in p.stderr


def test_cli_one_scenario_writes_the_verdict(tmp_path):
    sc = json.dumps([{"op": "join", "member": "c1"}, {"op": "settle", "max_s": 20}])
    p = subprocess.run([sys.executable, "-m", "groupcheck.conform.roles.consumer_client", "--assignor", "range",
                        "--scenarios", "1", "--scenario", sc, "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "[1/1]" in p.stdout and "settles_fully_owned" in p.stdout
    v = json.loads((tmp_path / "verdict.json").read_text())
    assert v["properties"]["settles_fully_owned"]["verdict"] == "held" and v["scenarios"] == 1


def test_in_process_adapter_session():
    from groupcheck.conform.roles.consumer_client.adapter import LibrdkafkaConsumerAdapter
    a = LibrdkafkaConsumerAdapter()
    hello = a.open()
    assert hello.name == "librdkafka" and "consumer-client" in hello.roles
    assert a.setup("assignor", {}).type == "fail"
    assert a.setup("consumer-client", {"assignor": "range", **FAST}).ok
    try:
        assert a.invoke("consumer-client", "close", {"member": "c1"}).type == "fail"   # not running
        assert a.invoke("consumer-client", "jump", {}).type == "fail"
        joined = a.invoke("consumer-client", "join", {"member": "c1"})
        out = a.invoke("consumer-client", "settle", {"max_s": 20})
        assert joined.ok and out.ok and out.value[-1]["args"]["ok"] is True
        assert any(e["kind"] == "assign" and e["member"] == "c1" for e in joined.value + out.value)
        v = a.invoke("consumer-client", "judge", None).value
        assert v["settles_fully_owned"]["verdict"] == "held"
    finally:
        a.close()


def test_settle_with_no_consumer_judges_nothing():
    events = [{"t": 0, "kind": "op", "op": "settle", "args": {"max_s": 5}},
              {"t": 0.1, "kind": "op", "op": "settled", "args": {"ok": True, "max_s": 5, "seconds": 0.1, "rounds": 0}}]
    j = judge(events, cooperative=False, partitions=2, max_poll_interval_ms=5000)
    assert j.summary()["settles_fully_owned"]["verdict"] == "not exercised"


def test_a_campaign_divergence_carries_its_signature_and_judgement(tmp_path):
    """The classic consumer-client campaign lists each divergence with its signature and its
    judgement from groupcheck/conform/judgements.json ("not yet judged" for a broken listener)."""
    sc = [{"op": "join", "member": "c1"}, {"op": "settle", "max_s": 20}, {"op": "join", "member": "c2"},
          {"op": "settle", "max_s": 12}]
    rep = run("skips-revoke:cooperative-sticky", Options(scenarios=1, scenario=sc, shrink_seconds=1, out=str(tmp_path)),
              progress=lambda s: None)
    d = next(d for d in rep.divergences if d["property"] == "revoke_before_reassign")
    assert d["judgement"] == "not yet judged" and d["signature"] and "judgement: not yet judged" in rep.text()
