"""Role group-coordinator: the probes between the model's steps (OffsetCommit, OffsetFetch,
DescribeGroups, a made-up member id): Kafka 3.9's commit-fencing rule as the model states
it (``model/consumer/probes.py``), the probes a path yields, and the three requests sent to
a real Tansu (started by the test) and decoded."""
import pytest

from groupcheck.conform.roles.group_coordinator import targets
from groupcheck.conform.roles.group_coordinator.scenarios import MADE_UP, PROBE_SLOT, SCOPES, bfs_paths, model_steps
from groupcheck.model.consumer import (COORDINATOR_NOT_AVAILABLE, DescribeGroups, OffsetCommit,
                                       OffsetCommitResponse, describe_group, new_group, offset_commit_error,
                                       stored_after)

# (status, members, generation of the group) x (member id, generation of the commit) -> error
RULES = [
    ("Dead", (1,), 1, 3, COORDINATOR_NOT_AVAILABLE),
    ("Empty", (), 0, -1, "NONE"),                       # a simple commit to an Empty group
    ("Empty", (), 1, -1, "NONE"),                       # generation -1 to an Empty group: the member id is not checked
    ("Empty", (), 1, 3, "UNKNOWN_MEMBER_ID"),           # nobody is a member of an Empty group
    ("Stable", (1,), 2, 3, "UNKNOWN_MEMBER_ID"),        # not a member (a made-up or expired id)
    ("Stable", (1,), 0, -1, "UNKNOWN_MEMBER_ID"),       # no id, no generation, non-Empty group
    ("Stable", (1,), 1, 2, "ILLEGAL_GENERATION"),       # a stale generation: fenced
    ("Stable", (1,), 1, -1, "ILLEGAL_GENERATION"),
    ("Stable", (1,), 1, 3, "NONE"),
    ("PreparingRebalance", (1,), 1, 3, "NONE"),         # "we still allow a commit request"
    ("CompletingRebalance", (1,), 1, 3, "REBALANCE_IN_PROGRESS"),
    ("CompletingRebalance", (1,), 1, 2, "ILLEGAL_GENERATION"),
]


def _group(status, members):
    from groupcheck.model.consumer.state import GroupMember
    g = new_group()
    ms = tuple(GroupMember(member_id=m, slot=m - 1, protocols=("range",), subscription=(),
                           joined=False, syncing=False, assignment=0) for m in members)
    return g._replace(status=status, generation=3, protocol="range", leader=members[0] if members else 0,
                      members=ms)


@pytest.mark.parametrize("status,members,member_id,generation,error", RULES)
def test_offset_commit_error_is_kafkas_validate_offset_commit(status, members, member_id, generation, error):
    assert offset_commit_error(_group(status, members), member_id, generation) == error


def test_only_an_accepted_commit_changes_the_stored_offset():
    """handleCommitOffsets stores the offsets only when the commit is accepted."""
    req = OffsetCommit(member_id=1, generation=3, offset=7)
    assert stored_after(5, req, OffsetCommitResponse(to=1, error="NONE")) == 7
    assert stored_after(5, req, OffsetCommitResponse(to=1, error="ILLEGAL_GENERATION")) == 5


def test_describe_group_names_the_protocol_only_when_stable():
    assert describe_group(_group("Stable", (1, 2)), DescribeGroups()).protocol == "range"
    d = describe_group(_group("CompletingRebalance", (2, 1)), DescribeGroups())
    assert d.protocol == "" and d.members == (1, 2) and d.state == "CompletingRebalance"


def test_paths_yield_every_probe_kind():
    """Over a few BFS paths: commits with each consumer's id and generation, fenced ones
    among them, the made-up member's commit and heartbeat, fetches and DescribeGroups; all
    on the probe connection; the model's steps without probes are the path's calls alone."""
    scope = SCOPES["two-members"]
    kinds, errors = set(), set()
    for path in bfs_paths(scope, 14, 30):
        steps = model_steps(scope, path)
        assert [s for s in steps if not s.probe] == model_steps(scope, path, with_probes=False)
        for s in steps:
            if s.probe:
                assert s.call.slot == PROBE_SLOT and len(s.expected) == 1
                kinds.add((s.call.request.kind, s.call.request.member_id == MADE_UP))
                errors.add(s.expected[0][1].error)
    assert {("OffsetCommit", False), ("OffsetCommit", True), ("Heartbeat", True), ("OffsetFetch", False),
            ("DescribeGroups", False)} <= kinds
    assert {"NONE", "ILLEGAL_GENERATION", "UNKNOWN_MEMBER_ID", "REBALANCE_IN_PROGRESS"} <= errors


def test_tansu_answers_each_probe_kind(tmp_path):
    """A real Tansu: a member joins and syncs; a commit with its generation is stored and
    read back by OffsetFetch; DescribeGroups names the group Stable with that member; a
    made-up member id's commit is decoded with its error (which error is a claim's business)."""
    target = targets.builtin("tansu")
    target.log_dir = tmp_path
    target.open()
    try:
        assert target.versions["OffsetCommit"] >= 2 and target.versions["DescribeGroups"] >= 0
        target.setup("group-coordinator", {"group": "gc-probe-test"})
        ask = lambda slot, req, n=1: (target._send(slot, req), target.wait(target.request_deadline(req["kind"]) + 5,  # noqa: E731
                                                                           want=n))[1]
        join = {"kind": "JoinGroup", "member_id": "", "protocols": ["range"], "metadata": "m"}
        mid = ask(0, join)[0]["response"]["member_id"]
        joined = ask(0, {**join, "member_id": mid})[0]["response"]
        assert joined["error"] == "NONE", joined
        gen = joined["generation"]
        synced = ask(0, {"kind": "SyncGroup", "member_id": mid, "generation": gen,
                         "assignments": [{"member_id": mid, "assignment": "1"}]})[0]["response"]
        assert synced["error"] == "NONE", synced
        commit = ask(PROBE_SLOT, {"kind": "OffsetCommit", "member_id": mid, "generation": gen, "offset": 42})
        assert commit[0]["response"] == {"kind": "OffsetCommitResponse", "to": mid, "error": "NONE"}
        fetched = ask(PROBE_SLOT, {"kind": "OffsetFetch", "member_id": ""})[0]["response"]
        assert (fetched["error"], fetched["offset"]) == ("NONE", 42), fetched
        described = ask(PROBE_SLOT, {"kind": "DescribeGroups", "member_id": ""})[0]["response"]
        assert (described["state"], described["member_ids"]) == ("Stable", [mid]), described
        made_up = ask(PROBE_SLOT, {"kind": "OffsetCommit", "member_id": "unknown-99", "generation": gen,
                                   "offset": 7})[0]["response"]
        assert made_up["kind"] == "OffsetCommitResponse" and made_up["error"].isupper(), made_up
    finally:
        target.close()
    assert target.proc is None


@pytest.mark.parametrize("address", ["nohost", "host:0", "host:99999", ":9092", "host:port"])
def test_bootstrap_bad_address_is_one_line_exit_2(address, tmp_path):
    from typer.testing import CliRunner

    from groupcheck.cli import app
    r = CliRunner().invoke(app, ["conform", "--role", "group-coordinator", "--bootstrap", address,
                                 "--out", str(tmp_path)])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert "--bootstrap" in r.output and "HOST:PORT" in r.output, r.output


def test_bootstrap_needs_role_group_coordinator(tmp_path):
    from typer.testing import CliRunner

    from groupcheck.cli import app
    r = CliRunner().invoke(app, ["conform", "--role", "assignor", "--bootstrap", "127.0.0.1:9092",
                                 "--out", str(tmp_path)])
    assert r.exit_code == 2 and "--role group-coordinator" in r.output, r.output


def test_bootstrap_drives_a_tansu_and_says_kip848_was_not_run(tmp_path):
    """``--bootstrap`` reaches a broker the user runs (here a Tansu the test starts); Tansu
    does not advertise API 68 or 88: the run says so in one line each, in the verdict too,
    and is not a pass (exit 3 at best). A 3-second limit: the lines come before any scenario."""
    import json

    from typer.testing import CliRunner

    from groupcheck.cli import app
    from groupcheck.conform.targets.broker.tansu import TansuCoordinator
    tansu = TansuCoordinator()
    tansu.log_dir = tmp_path / "log"
    tansu.open()
    try:
        r = CliRunner().invoke(app, ["conform", "--role", "group-coordinator", "--bootstrap", tansu._where(),
                                     "--scenarios", "1", "--max-seconds", "3", "--out", str(tmp_path / "out")])
    finally:
        tansu.close()
    assert r.exit_code in (1, 3), r.output
    key = f"kafka:{tansu._where()}"
    line = f"{key} does not advertise ConsumerGroupHeartbeat (API 68): the KIP-848 scenarios were not run"
    assert line in r.output, r.output
    assert "does not advertise StreamsGroupHeartbeat (API 88): the KIP-1071 scenarios were not run" in r.output
    verdict = next((tmp_path / "out").rglob("verdict.json"))
    assert line in json.loads(verdict.read_text())["not_run"]


def test_a_protocol_not_run_is_not_a_pass():
    from groupcheck.conform.roles.group_coordinator.campaign import code_of
    from groupcheck.conform.roles.group_coordinator.report import Verdict
    v = Verdict("kafka:h:1", requests=10, not_run=["kafka:h:1 does not advertise ConsumerGroupHeartbeat (API 68): "
                                                   "the KIP-848 scenarios were not run"])
    assert code_of(v) == 3
    assert "NOT RUN: kafka:h:1 does not advertise ConsumerGroupHeartbeat (API 68)" in v.text()


def test_judging_goes_on_after_a_commit_divergence(tmp_path):
    """A coordinator that accepts stale commits and does not bump the generation: the
    commit divergence (a probe: the group did not move) does not end the scenario, so the
    generation divergence after it is found too, in the same scenarios, each shrunk alone;
    the OffsetFetch after a wrongly accepted commit is judged against what the target
    accepted, not reported as a second divergence."""
    from groupcheck.conform.targets.broken.coordinators import NoGenerationBump, StaleCommitAccepted
    from groupcheck.conform.roles.group_coordinator.campaign import Options, run_target

    class Both(StaleCommitAccepted):
        def after(self, before, outcome):
            return NoGenerationBump.after(self, before, super().after(before, outcome))

    target = Both()
    v = run_target(target, "both", Options(scenarios=20, out=tmp_path), lambda line: None, float("inf"))
    claims = {d["claim"] for d in v.divergences}
    assert claims == {"commit_fencing", "generation_rules"}, v.text()
    gen = next(d for d in v.divergences if d["claim"] == "generation_rules")
    assert gen["steps"] <= gen["raw_steps"] and not v.violated["fetch_returns_committed"], v.text()


def test_a_session_expiry_is_followed_by_describe_groups():
    """After a session timeout the probes ask DescribeGroups (settled or not), whose expected
    member list no longer holds the expired member: this tells a target that kept it."""
    scope = SCOPES["two-members"]
    seen = 0
    for path in bfs_paths(scope, 14, 60):
        steps = model_steps(scope, path)
        for n, s in enumerate(steps):
            if s.call.f == "advance" and s.call.reason == "session_timeout":
                after = [p for p in steps[n + 1:] if p.index == s.index and p.probe]
                describe = [p for p in after if p.call.request.kind == "DescribeGroups"]
                if after:
                    assert describe, [p.call.request.kind for p in after]
                    assert not set(s.call.members) & set(describe[0].expected[0][1].members)
                    seen += 1
    assert seen > 0


def test_a_coordinator_can_opt_out_of_probes(tmp_path):
    """A hello with "probes": false: no OffsetCommit/OffsetFetch/DescribeGroups is sent, the
    other claims are judged as before."""
    from groupcheck.conform.adapter import Hello
    from groupcheck.conform.roles.group_coordinator.campaign import Options, run_target
    from groupcheck.conform.targets.inprocess.coordinator import ReferenceCoordinator

    class NoProbes(ReferenceCoordinator):
        def open(self):
            return Hello(self.name, "1", ("group-coordinator",), extra={"kip394": True, "probes": False})

        def invoke(self, role, f, value):
            assert f != "request" or value["request"]["kind"] not in ("OffsetCommit", "OffsetFetch",
                                                                      "DescribeGroups"), value
            return super().invoke(role, f, value)

    v = run_target(NoProbes(), "no-probes", Options(scenarios=10, out=tmp_path), lambda line: None, float("inf"))
    assert v.judged["same_errors"] > 0 and v.judged["commit_fencing"] == 0 and not v.divergences, v.text()


def test_a_broker_without_describe_groups_gets_the_other_probes():
    """librdkafka's mock speaks OffsetCommit and OffsetFetch but not DescribeGroups: its hello
    lists the probe kinds it takes, and only those are sent."""
    from groupcheck.conform.roles.group_coordinator.runner import steps_of
    path = next(p for p in bfs_paths(SCOPES["two-members"], 14, 60)
                if any(s.call.request.kind == "DescribeGroups" for s in model_steps(SCOPES["two-members"], p)
                       if s.probe))
    kinds = {s.call.request.kind for s in steps_of("two-members", path, ["OffsetCommit", "OffsetFetch"]) if s.probe}
    assert "DescribeGroups" not in kinds and {"OffsetCommit", "OffsetFetch"} <= kinds
    assert not any(s.probe for s in steps_of("two-members", path, False))


def _fresh_mock_verdicts() -> dict:
    """Each scenario's verdict on a mock target of its own (the reference the shared runs match)."""
    from groupcheck.conform.roles.group_coordinator import compare_848 as compare
    from groupcheck.conform.targets.librdkafka.mock_coordinator import MockCoordinator
    out = {}
    for name in compare.SCENARIOS:
        target = MockCoordinator()
        target.open()
        try:
            r = compare.compare(name, target, target.ensure_topic(compare.BROKER_TOPIC, compare.PARTITIONS))
        finally:
            target.close()
        out[name] = (r["divergence"], [d["step"] for d in r["differences"]])
    return out


def test_the_mock_target_runs_the_kip848_comparison_over_tcp(tmp_path):
    """librdkafka's mock advertises ConsumerGroupHeartbeat (API 68): --role group-coordinator
    on it runs the role's KIP-848 comparison over TCP on the target's own cluster, with the
    same verdict per scenario as on a fresh mock each, and does not say it was not run."""
    from groupcheck.conform.roles.group_coordinator.campaign import Options, code_of, run_target
    from groupcheck.conform.roles.group_coordinator import compare_848 as compare
    v = run_target(targets.builtin("librdkafka-mock"), "librdkafka-mock", Options(scenarios=1, out=tmp_path),
                   lambda line: None, float("inf"))
    assert [r["scenario"] for r in v.kip848] == list(compare.SCENARIOS)
    fresh = _fresh_mock_verdicts()
    for r in v.kip848:
        assert (r["divergence"], [d["step"] for d in r["differences"]]) == fresh[r["scenario"]], r["scenario"]
        assert r["target"] == "librdkafka-mock" and "mock" not in {k for d in r["differences"] for k in d}
    assert not any("API 68" in line for line in v.not_run), v.not_run
    assert any(r["divergence"] for r in v.kip848) and code_of(v) == 1
    assert "KIP-848 disconnect-then-join: DIVERGES" in v.text()


def test_any_broker_that_advertises_api_68_runs_the_kip848_comparison_over_tcp():
    """librdkafka's mock addressed as a plain broker (``kafka:HOST:PORT``, not the mock
    target): the role's comparison finds the topic id by Metadata v10+ and each group's
    coordinator by FindCoordinator through the target, and gives the same verdict per
    scenario as a fresh mock each. The mock does not answer CreateTopics, so the test makes
    the topic in process (what a real broker's CreateTopics does), and sets the mock's
    consumer-group timeouts as the mock target does."""
    from groupcheck.conform.roles.group_coordinator import compare_848 as compare
    from groupcheck.conform.targets.librdkafka.mock import MockCluster
    from groupcheck.conform.targets.librdkafka.mock_848 import ConsumerGroupMock
    with MockCluster(1, initial_rebalance_delay_ms=0) as mc:
        mc.topic_create(compare.BROKER_TOPIC, compare.PARTITIONS)
        ConsumerGroupMock(mc).set_timeouts(30000, 3000)
        address = mc.bootstraps.split(",")[0]
        target = targets.builtin(f"kafka:{address}")
        target.versions = target._versions()     # ApiVersions only: open()'s classic timing probe does not suit the mock
        assert target.versions["CreateTopics"] < 0               # so the topic above is the test's
        assert compare.advertises(target)
        got, cut = compare.run_all(target)
        not_run = target.not_run(f"kafka:{address}")
    assert [r["scenario"] for r in got] == list(compare.SCENARIOS) and cut is None
    fresh = _fresh_mock_verdicts()
    for r in got:
        assert (r["divergence"], [d["step"] for d in r["differences"]]) == fresh[r["scenario"]], r["scenario"]
    assert any(r["divergence"] for r in got)
    assert not any("API 68" in line for line in not_run), not_run
    for r in got:                        # judged as this broker's, not in the mock's words
        assert r["target"] == f"kafka:{address}" and "(mock" not in r["judgement"], r
        assert r["judgement"] == "agree" or r["judgement"].startswith(("freedom", f"divergence (kafka:{address})")), r


def test_the_kip848_topic_id_comes_from_metadata_and_a_wrong_topic_is_one_clear_error():
    """Metadata v10+ answers the topic's id (a uuid); a topic with another partition count,
    or none at all, is a BrokerError naming it (exit 2), not a comparison gone wrong."""
    import uuid

    from groupcheck.conform.roles.group_coordinator import compare_848 as compare
    from groupcheck.conform.targets.broker.broker import BrokerError
    from groupcheck.conform.targets.librdkafka.mock import MockCluster
    topic, n = compare.BROKER_TOPIC, compare.PARTITIONS
    with MockCluster(1) as mc:
        target = targets.builtin(f"kafka:{mc.bootstraps.split(',')[0]}")
        target.versions = target._versions()
        with pytest.raises(BrokerError, match=topic):
            target.ensure_topic(topic, n)          # not there (the mock auto-creates nothing)
        mc.topic_create(topic, n + 1)
        with pytest.raises(BrokerError, match="partitions"):
            target.ensure_topic(topic, n)
        assert uuid.UUID(target.ensure_topic(topic, n + 1))


def test_a_kip848_broker_that_goes_away_is_one_clear_error():
    """The broker stops answering mid-run: a BrokerError naming it (exit 2), not a traceback."""
    from groupcheck.conform.roles.group_coordinator import compare_848 as compare
    from groupcheck.conform.targets.broker.broker import BrokerError
    from groupcheck.conform.targets.librdkafka.mock import MockCluster
    with MockCluster(1) as mc:
        address = mc.bootstraps.split(",")[0]
        target = targets.builtin(f"kafka:{address}")
        target.versions = target._versions()
    with pytest.raises(BrokerError, match=f"broker {address}: KIP-848 scenarios"):
        compare.run_all(target)


class _StopsAtThirdGroup:
    """A mixin for librdkafka's mock target: the third scenario's group lookup raises ``stop()``."""
    seen = 0

    def coordinator_for(self, group):
        type(self).seen += 1
        if type(self).seen == 3:
            self.stop()
        return super().coordinator_for(group)


def test_ctrl_c_during_the_kip848_comparison_keeps_what_was_compared_and_ends_the_run(tmp_path):
    """Ctrl-C (KeyboardInterrupt) in the third KIP-848 scenario: the verdict holds the two
    compared, says interrupted, and no classic path runs after it."""
    from groupcheck.conform.roles.group_coordinator.campaign import Options, code_of, run_target
    from groupcheck.conform.targets.librdkafka.mock_coordinator import MockCoordinator

    class Interrupted(_StopsAtThirdGroup, MockCoordinator):
        def stop(self):
            raise KeyboardInterrupt

    v = run_target(Interrupted(), "librdkafka-mock", Options(scenarios=3, out=tmp_path), lambda line: None,
                   float("inf"))
    assert v.cut == "interrupted" and len(v.kip848) == 2 and v.scenarios == 0, v.text()
    assert code_of(v) == 130


SIGTERM_AT_THIRD = '''
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from groupcheck.conform.roles.group_coordinator import compare_848
from groupcheck.conform.targets.librdkafka.mock_coordinator import MockCoordinator
from test_conform_coordinator_probes import _StopsAtThirdGroup

class Terminated(_StopsAtThirdGroup, MockCoordinator):
    def stop(self):
        os.kill(os.getpid(), signal.SIGTERM)

sys.exit(compare_848.main("kafka-4.1", Path({out!r}), say=lambda line: None, target=Terminated()))
'''


def test_sigterm_during_the_standalone_kip848_comparison_writes_what_was_compared(tmp_path):
    """``--target librdkafka-mock-consumer-protocol`` sent SIGTERM in its third scenario:
    exit 143 and a verdict with the two scenarios compared, cut "interrupted"."""
    import json
    import subprocess
    import sys
    from pathlib import Path
    script = SIGTERM_AT_THIRD.format(tests=str(Path(__file__).parent), out=str(tmp_path / "out"))
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert p.returncode == 143, p.stderr[-2000:]
    data = json.loads((tmp_path / "out" / "verdict.json").read_text())
    assert data["cut"] == "interrupted" and [r["scenario"] for r in data["kip848"]] == ["join-leave-epochs",
                                                                                      "lost-response"]
    assert "stopped: interrupted" in (tmp_path / "out" / "verdict.txt").read_text()


def test_the_standalone_kip848_comparison_on_a_broker_it_cannot_reach_is_one_line(tmp_path):
    """A broker that does not answer: one line naming it, exit 2, no traceback."""
    from groupcheck.conform.roles.group_coordinator import compare_848 as compare
    from groupcheck.conform.targets.broker.broker import BrokerCoordinator
    from groupcheck.conform.targets.broker.tansu import free_port
    address = f"127.0.0.1:{free_port()}"         # nothing listens there
    said = []
    assert compare.main("kafka-4.1", tmp_path, said.append, target=BrokerCoordinator(address)) == 2
    assert len(said) == 1 and said[0].startswith(f"error: broker {address}"), said
