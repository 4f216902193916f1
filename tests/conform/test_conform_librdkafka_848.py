"""librdkafka's KIP-848 consumer and mock coordinator under the consumer-group model.

The judge and codec tests are pure; the others run real ``group.protocol=consumer``
consumers (or raw ConsumerGroupHeartbeats) on librdkafka's in-process mock cluster, with
the smallest scenarios that show each claim (about 30 s together on 2 cores).
"""
from __future__ import annotations

import json
import struct

import pytest

from groupcheck.conform.targets.broken.clients import IgnoresLost, SkipsRevoke
from groupcheck.conform.roles.group_coordinator import compare_848 as compare
from groupcheck.model.wire import consumer_group_heartbeat as wire
from groupcheck.conform.roles.consumer_client.__main__ import main
from groupcheck.conform.targets.broken.clients_848 import misordered
from groupcheck.conform.roles.consumer_client.campaign import Options848 as Options, OptionError, exit_code
from groupcheck.conform.roles.consumer_client.campaign import run_848 as run
from groupcheck.conform.targets.librdkafka.client_848 import Settings848
from groupcheck.conform.roles.consumer_client.claims_848 import judge
from groupcheck.conform.roles.consumer_client.runner import run_scenario_848 as run_scenario
from groupcheck.conform.roles.consumer_client.scenarios_848 import ScenarioError, generate, validate

pytestmark = pytest.mark.slow


def verdicts(r) -> dict:
    return {p: s["verdict"] for p, s in r.judgement.summary().items()}


# -- the judge, on fakes --------------------------------------------------------------

def test_judge_flags_the_misordered_fake():
    v = {p: s["verdict"] for p, s in judge(misordered(), partitions=4, max_poll_interval_ms=5000).summary().items()}
    assert v["revoke_before_reassign"] == v["no_double_ownership"] == "violated"
    assert v["member_epoch_never_decreases"] == v["callbacks_in_order"] == "violated"
    assert v["assigned_within_subscription"] == "held" and v["converges"] == "not exercised"


def _cb(t, kind, member, parts, before, after, mid, epoch):
    return {"t": t, "kind": kind, "member": member, "partitions": parts, "member_id": mid, "generation": epoch,
            "owned_before": before, "owned_after": after}


def test_judge_holds_on_a_correct_hand_over_and_a_fenced_rejoin():
    ev = [{"t": 0, "kind": "op", "op": "join", "args": {"member": "c1"}}, _cb(0.1, "assign", "c1", [0, 1], [], [0, 1], "A", 2),
          {"t": 0.2, "kind": "op", "op": "join", "args": {"member": "c2"}},
          _cb(0.3, "revoke", "c1", [1], [0, 1], [0], "A", 2), _cb(0.4, "assign", "c2", [1], [], [1], "B", 3),
          {"t": 0.5, "kind": "op", "op": "heartbeat_errors", "args": {"errors": ["FENCED_MEMBER_EPOCH"]}},
          _cb(0.6, "lost", "c1", [0], [0], [], "A", 3), {"t": 0.7, "kind": "sample", "member": "c1", "member_id": "A",
                                                         "generation": 0},
          _cb(0.8, "assign", "c1", [0], [], [0], "A", 5),
          {"t": 0.9, "kind": "op", "op": "settled", "args": {"ok": True, "max_s": 9}}]
    s = judge(ev, partitions=2, max_poll_interval_ms=5000).summary()
    assert {p: x["verdict"] for p, x in s.items()} == dict.fromkeys(s, "held"), s


def test_judge_needs_a_fence_cause_for_an_epoch_reset_and_a_subscription_for_an_assignment():
    ev = [{"t": 0, "kind": "op", "op": "join", "args": {"member": "c1"}}, _cb(0.1, "assign", "c1", [0], [], [0], "A", 2),
          {"t": 0.2, "kind": "sample", "member": "c1", "member_id": "A", "generation": 0},
          {"t": 0.3, "kind": "op", "op": "unsubscribe", "args": {"member": "c1"}},
          _cb(0.4, "assign", "c1", [1], [0], [0, 1], "A", 3)]
    s = judge(ev, partitions=2, max_poll_interval_ms=5000).summary()
    assert s["member_epoch_never_decreases"]["verdict"] == "violated"
    assert "2 -> 0" in s["member_epoch_never_decreases"]["first"]["message"]
    assert s["assigned_within_subscription"]["verdict"] == "violated"


def test_a_member_the_coordinator_fenced_before_telling_it_is_a_zombie_not_a_double_owner():
    """RTT past the session: the mock removes c1 and gives c2 its partitions; c1 learns it at
    its next heartbeat (on_lost). Without that on_lost the same stream is a double ownership."""
    head = [{"t": 0, "kind": "op", "op": "join", "args": {"member": "c1"}}, _cb(0.1, "assign", "c1", [0, 1], [], [0, 1], "A", 2),
            {"t": 0.2, "kind": "op", "op": "rtt", "args": {"ms": 1500, "seconds": 4}},
            {"t": 4.3, "kind": "op", "op": "join", "args": {"member": "c2"}},
            _cb(4.4, "assign", "c2", [0, 1], [], [0, 1], "B", 4)]
    lost = [_cb(4.6, "lost", "c1", [0, 1], [0, 1], [], "A", 2)]
    ok = judge(head + lost, partitions=2, max_poll_interval_ms=5000).summary()
    bad = judge(head, partitions=2, max_poll_interval_ms=5000).summary()
    assert ok["revoke_before_reassign"]["verdict"] == "held"
    assert ok["no_double_ownership"]["verdict"] == "not exercised"      # c1 was never current beside c2
    assert bad["no_double_ownership"]["verdict"] == bad["revoke_before_reassign"]["verdict"] == "violated"


def _injected_fence_stream(got_it: str | None) -> list[dict]:
    """The campaign's unsettled case (seed 200), as librdkafka logged it: c1 stalls before
    its assignment callback is served; three FENCED_MEMBER_EPOCH are injected (the mock's
    request errors are cluster-wide: the next heartbeats of any member get them); c1
    resumes, is given the stale assignment, its acknowledging heartbeat is the one fenced
    (``got_it``: whose heartbeat the client logged as answered with the error), on_lost."""
    ev = [{"t": 0, "kind": "op", "op": "join", "args": {"member": "c1"}},
          {"t": 0.2, "kind": "op", "op": "join", "args": {"member": "c2"}},
          _cb(0.5, "assign", "c2", [0, 1], [], [0, 1], "B", 4),
          {"t": 1.8, "kind": "op", "op": "stall", "args": {"member": "c1"}},
          {"t": 75.1, "kind": "op", "op": "heartbeat_errors", "args": {"errors": ["FENCED_MEMBER_EPOCH"] * 3}},
          {"t": 75.1, "kind": "op", "op": "resume", "args": {"member": "c1"}},
          _cb(75.1, "assign", "c1", [2, 3], [], [2, 3], "A", 7)]
    if got_it:
        ev.append({"t": 75.1, "kind": "heartbeat_error", "member": got_it, "error": "FENCED_MEMBER_EPOCH"})
    return ev + [_cb(75.11, "lost", "c1", [2, 3], [2, 3], [], "A", 7),
                 _cb(75.12, "assign", "c1", [2, 3], [], [2, 3], "A", 11)]


def test_an_injected_heartbeat_error_fences_the_member_whose_heartbeat_got_it():
    """An on_lost after the client logged its heartbeat answered FENCED_MEMBER_EPOCH is
    legitimate, even with a (stale) on_assign between the injection and the fence; an
    on_lost of a member whose heartbeats were all answered is still a violation."""
    def in_order(got_it):
        return judge(_injected_fence_stream(got_it), partitions=4, max_poll_interval_ms=5000,
                     heartbeat_errors_observed=True).summary()["callbacks_in_order"]
    assert in_order("c1")["verdict"] == "held", in_order("c1")
    for someone_else in (None, "c2"):
        r = in_order(someone_else)
        assert r["verdict"] == "violated" and "no heartbeat of c1 answered with an error" in r["first"]["message"], r


def test_converges_compares_with_the_injected_target():
    ev = [{"t": 0, "kind": "op", "op": "join", "args": {"member": "c1"}}, _cb(0.1, "assign", "c1", [0, 1], [], [0, 1], "A", 2),
          {"t": 0.2, "kind": "op", "op": "target", "args": {"assignment": {"c1": [1]}}},
          {"t": 0.3, "kind": "op", "op": "settled", "args": {"ok": True, "max_s": 9}}]
    s = judge(ev, partitions=2, max_poll_interval_ms=5000).summary()
    assert s["converges"]["verdict"] == "violated" and "injected target" in s["converges"]["first"]["message"]


# -- scenarios, options, codec ---------------------------------------------------------

@pytest.mark.parametrize("bad, words", [
    ([], "non-empty"), ([{"op": "nope"}], "is one of"), ([{"op": "join", "member": "c9"}], "member must be"),
    ([{"op": "target", "assignment": {"c1": [0, 0]}}], "distinct"), ([{"op": "target", "assignment": {"c1": [7]}}], "0..3"),
    ([{"op": "heartbeat_errors", "errors": ["ILLEGAL_GENERATION"]}], "errors must be"),
    ([{"op": "wait", "seconds": -1}], "0..120"), ([{"op": "join"}], "takes ['member']")])
def test_bad_scenarios_are_refused_with_a_reason(bad, words):
    with pytest.raises(ScenarioError, match=None) as e:
        validate(bad, members=3, partitions=4)
    assert words in str(e.value)


def test_generated_scenarios_are_valid_deterministic_and_end_settled():
    for seed in range(30):
        sc = generate(seed, 3, 4)
        assert validate(sc, 3, 4) is sc and sc == generate(seed, 3, 4) and sc[-1]["op"] == "settle"
    assert len({json.dumps(generate(s, 3, 4)) for s in range(30)}) > 20


def test_bad_options_exit_2_without_a_traceback(capsys):
    assert main(["--protocol", "consumer", "--scenario", "[{\"op\": \"join\", \"member\": \"c7\"}]"]) == 2
    assert "member must be one of" in capsys.readouterr().err
    assert main(["--protocol", "consumer", "--client", "nobody", "--scenarios", "1"]) == 2
    assert main(["--protocol", "consumer", "--coordinator", "--profile", "kafka-9"]) == 2
    assert main(["--heartbeat-interval-ms", "300"]) == 2            # the classic protocol has none
    assert "--protocol consumer" in capsys.readouterr().err
    assert main(["--coordinator"]) == 2                             # the KIP-848 coordinator only
    with pytest.raises(OptionError, match="heartbeat-interval-ms"):
        Options(heartbeat_interval_ms=5000, session_timeout_ms=3000).validate()


def test_wire_codec_reads_a_response_and_refuses_requests_the_mock_would_abort_on():
    tid = "0b9a3c1e-0000-4000-8000-000000000001"
    import uuid
    body = (struct.pack(">i", 7) + b"\0" + struct.pack(">ih", 0, 0) + b"\0" + b"\x02A" + struct.pack(">ii", 4, 300)
            + b"\x01" + b"\x02" + uuid.UUID(tid).bytes + b"\x03" + struct.pack(">ii", 1, 3) + b"\0" + b"\0" + b"\0")
    corr, r = wire.decode_response(body)
    assert corr == 7 and r.member_id == "A" and r.member_epoch == 4 and r.assignment == {tid: [1, 3]}
    with pytest.raises(wire.WireError, match="empty"):
        wire.encode_request(1, "g", "", 0)
    with pytest.raises(wire.WireError, match="both null or both"):
        wire.encode_request(1, "g", "A", 0, topic_names=["t"])          # Kafka's Java client sends this
    framed = wire.encode_request(1, "g", "A", 0, rebalance_timeout_ms=1, topic_names=["t"], topic_regex="")
    assert struct.unpack(">i", framed[:4])[0] == len(framed) - 4 and framed[4:6] == b"\x00\x44"


# -- the mock coordinator against the model's ------------------------------------------

@pytest.fixture(scope="module")
def mock():
    """librdkafka's mock as the group-coordinator target (one cluster, a new group per
    scenario), and the id of the topic the scenarios subscribe to."""
    from groupcheck.conform.targets.librdkafka.mock_coordinator import MockCoordinator
    target = MockCoordinator()
    target.open()
    try:
        yield target, target.ensure_topic(compare.BROKER_TOPIC, compare.PARTITIONS)
    finally:
        target.close()


def test_mock_fences_a_lost_response_that_kafka_answers(mock):
    r = compare.compare("lost-response", *mock)
    (d,) = r["differences"]
    assert d["target"]["error"] == "FENCED_MEMBER_EPOCH" and d["model"]["error"] == "NONE" and r["divergence"]
    assert r["target"] == "librdkafka-mock"                 # the answers are named by the target, not "mock"


def test_mock_gives_a_joiner_partitions_a_disconnected_member_still_owns(mock):
    r = compare.compare("disconnect-then-join", *mock)
    assert r["target_answers"][-1]["assignment"] == [2, 3] and r["model_answers"][-1]["assignment"] == []
    assert r["divergence"]


def test_mock_and_model_agree_where_they_should(mock):
    for name in ("wrong-epoch", "unknown-member", "unknown-member-leave"):
        r = compare.compare(name, *mock)
        assert r["differences"] == [] and r["target_answers"][-1]["error"] == r["model_answers"][-1]["error"], name


def test_rejoin_of_a_known_member_differs_from_both_profiles(mock):
    old, new = compare.compare("rejoin-known-member", *mock), compare.compare("rejoin-known-member", *mock, "kip-848")
    assert old["target_answers"][-1]["assignment"] is None and old["target_answers"][-1]["error"] == "NONE"
    assert old["model_answers"][-1]["error"] == "FENCED_MEMBER_EPOCH"
    assert new["model_answers"][-1]["assignment"] == [0, 1]


def test_the_standalone_comparison_writes_one_verdict_through_the_shared_writer(tmp_path):
    """``--target librdkafka-mock-consumer-protocol``: every scenario through the conformance
    loop, ``verdict.json`` and ``verdict.txt`` by ``campaign.write_verdict``, the answers
    named by the target; exit 1 (the mock diverges where the protocol fixes the answer)."""
    said = []
    code = compare.main("kafka-4.1", tmp_path, said.append)
    data = json.loads((tmp_path / "verdict.json").read_text())
    assert code == 1 and data["target"] == "librdkafka-mock" and data["cut"] == ""
    assert [r["scenario"] for r in data["kip848"]] == list(compare.SCENARIOS) and data["divergences"] >= 1
    text = (tmp_path / "verdict.txt").read_text()
    assert "librdkafka-mock {" in text and " mock {" not in text and "DIVERGES" in text
    assert any(str(tmp_path / "verdict.json") in line for line in said)


# -- real consumers on the mock --------------------------------------------------------

FAST = Settings848()


def test_join_and_injected_swap_hold_every_property_and_revoke_first():
    sc = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 15},
          {"op": "target", "assignment": {"c1": [2, 3], "c2": [0, 1]}}, {"op": "settle", "max_s": 15}]
    r = run_scenario(sc, FAST)
    assert r.error is None and set(verdicts(r).values()) == {"held"}, r.judgement.summary()
    t_target = next(e["t"] for e in r.events if e.get("op") == "target")
    t_end = [e["t"] for e in r.events if e.get("op") == "settled"][-1]
    after = [e for e in r.events if t_target <= e["t"] <= t_end and e["kind"] in ("assign", "revoke") and e["partitions"]]
    def first(kind, member, p):
        return next(i for i, e in enumerate(after) if e["kind"] == kind and e["member"] == member
                    and p in e["partitions"])
    for p, old, new in ((0, "c1", "c2"), (1, "c1", "c2"), (2, "c2", "c1"), (3, "c2", "c1")):
        assert first("revoke", old, p) < first("assign", new, p), (p, after)
    epochs = [e["generation"] for e in r.events if e["kind"] == "assign" and e["partitions"] and e["member"] == "c1"]
    assert epochs == sorted(epochs) and epochs[-1] > epochs[0] > 0


def test_broken_listeners_are_flagged():
    sc = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 8}]
    assert verdicts(run_scenario(sc, FAST, SkipsRevoke))["revoke_before_reassign"] == "violated"
    sc = [{"op": "join", "member": "c1"}, {"op": "settle", "max_s": 8},
          {"op": "heartbeat_errors", "errors": ["FENCED_MEMBER_EPOCH"]}, {"op": "settle", "max_s": 8}]
    r = run_scenario(sc, FAST, IgnoresLost)
    assert verdicts(r)["callbacks_in_order"] == "violated", r.judgement.summary()
    assert verdicts(run_scenario(sc, FAST))["callbacks_in_order"] == "held"


def test_the_client_says_whose_heartbeat_an_injected_error_hit():
    """The campaign's unsettled on_lost (seed 200, 18 operations) in 10: c1 stalls just
    before its assignment callback; three FENCED_MEMBER_EPOCH (cluster-wide in the mock);
    on resume c1 runs the stale on_assign, its acknowledging heartbeat is fenced, on_lost,
    rejoin. The client logs which heartbeat got each error, before the on_lost it causes."""
    sc = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "unsubscribe", "member": "c1"},
          {"op": "wait", "seconds": 1.0}, {"op": "subscribe", "member": "c1"}, {"op": "stall", "member": "c1"},
          {"op": "wait", "seconds": 2.0}, {"op": "heartbeat_errors", "errors": ["FENCED_MEMBER_EPOCH"] * 3},
          {"op": "resume", "member": "c1"}, {"op": "settle", "max_s": 15}]
    r = run_scenario(sc, FAST)
    errors = [e for e in r.events if e["kind"] == "heartbeat_error"]
    assert [e["error"] for e in errors] == ["FENCED_MEMBER_EPOCH"] * 3, errors
    for k, e in enumerate(r.events):
        if e["kind"] == "lost":
            assert any(x["kind"] == "heartbeat_error" and x["member"] == e["member"] for x in r.events[:k]), e
    assert verdicts(r)["callbacks_in_order"] == "held", r.judgement.summary()


def test_failed_leave_then_subscribe_leaves_partitions_unowned_on_the_mock():
    """NOT_COORDINATOR on unsubscribe's leave heartbeat: the mock keeps the member, and its
    rejoin at epoch 0 is answered 'no change' (compare's rejoin-known-member). Three errors:
    c2's regular heartbeat may take the first one."""
    sc = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 8},
          {"op": "heartbeat_errors", "errors": ["NOT_COORDINATOR"] * 3}, {"op": "unsubscribe", "member": "c1"},
          {"op": "wait", "seconds": 1.0}, {"op": "subscribe", "member": "c1"}, {"op": "settle", "max_s": 6}]
    r = run_scenario(sc, FAST)
    s = r.judgement.summary()
    assert s["converges"]["verdict"] == "violated" and "not settled" in s["converges"]["first"]["message"]
    assert all(s[p]["verdict"] == "held" for p in ("no_double_ownership", "revoke_before_reassign"))


def test_campaign_of_one_scenario_writes_a_verdict(tmp_path):
    rep = run("librdkafka", Options(scenarios=1, seed=3, max_ops=2, out=str(tmp_path)), progress=lambda s: None)
    assert rep.scenarios == 1 and set(rep.to_json()["properties"]) == {
        "no_double_ownership", "member_epoch_never_decreases", "revoke_before_reassign", "callbacks_in_order",
        "assigned_within_subscription", "converges"}
    assert exit_code(rep) in (0, 1) and "conformance" in rep.text()


def test_registered_in_groupcheck_conform(tmp_path):
    from typer.testing import CliRunner

    from groupcheck.cli import app
    from groupcheck.conform.roles.consumer_client import targets
    assert "librdkafka-consumer-protocol" in targets.CONSUMER_PROTOCOL_TARGETS
    r = CliRunner().invoke(app, ["conform", "--role", "consumer-client", "--target", "librdkafka-consumer-protocol:x"])
    assert r.exit_code == 2 and "unknown" in r.output
    r = CliRunner().invoke(app, ["conform", "--role", "group-coordinator", "--target",
                                 "librdkafka-mock-consumer-protocol", "--out", str(tmp_path)])
    assert r.exit_code == 1 and "lost-response" in r.output and "DIVERGES" in r.output
    saved = json.loads((tmp_path / "conform" / "librdkafka-mock-consumer-protocol" / "verdict.json").read_text())
    assert {x["scenario"] for x in saved["kip848"] if x["divergence"]} >= {"lost-response", "disconnect-then-join"}


def test_a_campaign_divergence_carries_its_signature_and_judgement(tmp_path):
    """A broken listener's divergence is in no judgement table: "not yet judged", with its
    signature, in the JSON and the text (groupcheck/conform/judgements.json)."""
    sc = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 8}]
    rep = run("skips-revoke", Options(scenarios=1, scenario=sc, shrink_seconds=1, out=str(tmp_path)),
              progress=lambda s: None)
    d = next(d for d in rep.divergences if d["property"] == "revoke_before_reassign")
    assert d["judgement"] == "not yet judged" and d["signature"] and "judgement: not yet judged" in rep.text()
