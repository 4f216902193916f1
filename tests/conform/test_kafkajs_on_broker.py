"""kafkajs as a real client on Tansu (adapters/node/consumer-worker.js), run by the
same ProcessGroup and judged by the same consumer-client claims as the Python clients;
its targets' bad input (no Node.js, no range, no static membership) is one line, exit 2.
The Tansu tests are skipped, with the reason, only when node or the adapter's
node_modules is absent (CI installs them: npm ci --prefix adapters/node)."""
from __future__ import annotations

import json
import shutil
import subprocess
import time

import pytest
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.conform.roles.consumer_client import campaign_broker as campaign
from groupcheck.conform.roles.consumer_client.runner_broker import run_scenario
from groupcheck.conform.targets.clients.group import NODE_WORKER

NODE = shutil.which("node")
HAS_KAFKAJS = (NODE_WORKER.parent / "node_modules" / "kafkajs").is_dir()
needs_node = pytest.mark.skipif(NODE is None or not HAS_KAFKAJS,
                                reason="kafkajs needs node and adapters/node/node_modules (npm ci --prefix adapters/node)")


def _callbacks(run, member):
    return [e for e in run.events if e["kind"] in ("assign", "revoke", "lost") and e["member"] == member]


@needs_node
def test_kafkajs_survives_a_kill_with_eager_revoke_and_generations(broker):
    scenario = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 60},
                {"op": "kill", "member": "c1"}, {"op": "settle", "max_s": 60}, {"op": "commit", "member": "c2"}]
    run = run_scenario(scenario, campaign.parse_target("kafkajs:roundrobin"), broker)
    summary = run.judgement.summary()
    assert run.error is None and run.complete and run.judgement.violated() == [], summary
    assert summary["settles_fully_owned"]["verdict"] == "held", summary
    c2 = _callbacks(run, "c2")
    # EAGER: assign, then at the rebalance a revoke of everything, then an assign of all
    assert [e["kind"] for e in c2[:3]] == ["assign", "revoke", "assign"], c2
    assert c2[1]["owned_after"] == [] and c2[2]["partitions"] == [0, 1, 2, 3], c2
    assert c2[2]["generation"] == c2[0]["generation"] + 1 and c2[0]["member_id"] == c2[2]["member_id"] != ""
    commit = [e for e in run.events if e["kind"] == "commit"]
    assert commit and commit[0]["error"] is None and commit[0]["generation"] == c2[2]["generation"]


@needs_node
def test_a_stalled_kafkajs_application_is_expired_and_its_commit_refused(broker):
    """kafkajs has no max.poll.interval.ms: a stall stops its heartbeats, so the member
    expires after the session timeout; its commit on resume carries the old generation
    and must be refused."""
    settings = campaign.parse_target("kafkajs:roundrobin")
    assert settings.max_poll_interval_ms == settings.session_timeout_ms
    scenario = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 60},
                {"op": "stall", "member": "c1"}, {"op": "wait", "seconds": 2 * settings.session_timeout_ms / 1000 + 2},
                {"op": "commit", "member": "c2"}, {"op": "commit", "member": "c1"}, {"op": "resume", "member": "c1"},
                {"op": "settle", "max_s": 60}]
    run = run_scenario(scenario, settings, broker)
    summary = run.judgement.summary()
    assert run.error is None and run.judgement.violated() == [], summary
    assigns = [e for e in _callbacks(run, "c2") if e["kind"] == "assign"]
    assert len(assigns[0]["partitions"]) < 4 and assigns[-1]["generation"] > assigns[0]["generation"], assigns
    assert any(e["partitions"] == [0, 1, 2, 3] for e in assigns), assigns    # c1 expired: c2 took all
    commits = {e["member"]: e for e in run.events if e["kind"] == "commit"}
    assert commits["c2"]["error"] is None, commits
    # kafkajs's protocol error, not its retrier's wrapper (KafkaJSNonRetriableError)
    assert commits["c1"]["error"] in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"), commits
    assert commits["c1"]["generation"] < commits["c2"]["generation"], commits


@needs_node
def test_the_worker_stamps_events_finer_than_a_millisecond():
    """The harness orders the worker's stamps against its own time.time(): a stamp cut
    to the millisecond (Date.now()) put a teardown revoke before the settle that preceded
    it, a false settles_fully_owned. Three closes: each stamp has sub-millisecond digits
    and none precedes the close command."""
    fractions = []
    for _ in range(3):
        p = subprocess.Popen([NODE, str(NODE_WORKER), "--client", "kafkajs", "--assignor", "roundrobin",
                              "--bootstrap", "127.0.0.1:1", "--group", "g", "--topic", "t", "--name", "c1"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        sent = time.time()
        out, _ = p.communicate("close\n", timeout=60)
        closed = [json.loads(line) for line in out.splitlines() if '"closed"' in line]
        assert p.returncode == 0 and len(closed) == 1, out
        assert closed[0]["wall"] >= sent, (closed, sent)
        ms = closed[0]["wall"] * 1000
        fractions.append(abs(ms - round(ms)))
    assert max(fractions) > 1e-3, fractions


@needs_node
def test_the_worker_refuses_static_membership_with_exit_2():
    r = subprocess.run([NODE, str(NODE_WORKER), "--client", "kafkajs", "--assignor", "roundrobin", "--bootstrap",
                        "127.0.0.1:1", "--group", "g", "--topic", "t", "--name", "c1", "--instance-id", "c1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "" and "group.instance.id" in r.stderr, r


@pytest.mark.parametrize("target,words", [
    ("kafkajs:range", "kafkajs has no assignor 'range'; known: roundrobin"),
    ("kafkajs:roundrobin+static", "no group.instance.id"),
    ("skips-revoke:kafkajs:roundrobin", "no broken kafkajs application"),
])
def test_bad_kafkajs_targets_are_one_line_exit_2(target, words, tmp_path):
    r = CliRunner().invoke(app, ["conform", "--role", "consumer-client", "--target", target,
                                 "--out", str(tmp_path / "o")])
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and words in lines[0], r.output


def test_kafkajs_without_node_is_one_line_exit_2(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))          # no node there
    r = CliRunner().invoke(app, ["conform", "--role", "consumer-client", "--target", "kafkajs:roundrobin",
                                 "--out", str(tmp_path / "o")])
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "kafkajs needs Node.js" in lines[0] and "Traceback" not in r.output, r.output
    assert not (tmp_path / "o").exists()


def test_kafkajs_is_a_known_client_target():
    assert "kafkajs:roundrobin" in campaign.known_targets()
    assert json.dumps(campaign.ASSIGNORS["kafkajs"]) == '["roundrobin"]'


# -- the standalone Node script (roles/consumer_client/repro.py, repro_consumer_client_kafkajs.js.txt) --

GOOD = [{"op": "join", "member": "c1"}, {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 60}]


def _node_script(target: str, message: str, scenario=GOOD) -> str:
    from dataclasses import asdict

    from groupcheck.conform.roles.consumer_client import repro
    settings = asdict(campaign.parse_target("kafkajs:roundrobin")) if HAS_KAFKAJS and NODE else {
        **asdict(campaign.Settings(client="kafkajs", assignor="roundrobin")), "max_poll_interval_ms": 6000}
    return repro.source(target, settings, scenario, "settles_fully_owned", message, 38)


def test_a_kafkajs_script_is_node_and_keeps_hostile_values_as_data(tmp_path):
    from groupcheck.conform.roles.consumer_client import repro
    hostile = "x\n}); require('child_process').execSync('touch PWNED') //\u2028*/"
    text = _node_script(hostile, hostile)
    assert text.startswith("#!/usr/bin/env node") and hostile not in text
    literal = next(line for line in text.splitlines() if line.startswith("const DATA = JSON.parse("))
    data = json.loads(json.loads(literal[len("const DATA = JSON.parse("):-1]))
    assert data["target"] == hostile and data["message"] == hostile and data["claim"] == "settles_fully_owned"
    assert all(line.startswith(("//", "#!")) for line in text.splitlines()[:14]), "a value broke out of the header"
    # the Node judge restates settles_fully_owned only: another kafkajs claim gets no script
    assert repro.source("kafkajs:roundrobin@tansu", {**data["settings"], "client": "kafkajs"}, GOOD,
                        "callbacks_consistent", "m", 38) is None
    if NODE:
        path = tmp_path / "repro.js"
        path.write_text(text)
        assert subprocess.run([NODE, "--check", str(path)], capture_output=True, timeout=60).returncode == 0
        assert not (tmp_path / "PWNED").exists()


@needs_node
def test_a_kafkajs_script_runs_with_only_kafkajs_and_judges(tmp_path, broker):
    """On Tansu: two kafkajs members settle, so the script does not reproduce (exit 0); it
    needs no Python, only node and kafkajs (NODE_PATH), and leaves no worker behind."""
    path = tmp_path / "repro_kafkajs.js"
    path.write_text(_node_script("kafkajs:roundrobin@tansu", "settled with partitions not owned exactly once: 0: none"))
    env = {"PATH": "/usr/bin:/bin", "NODE_PATH": str(NODE_WORKER.parent / "node_modules")}
    r = subprocess.run([NODE, str(path), "--bootstrap", broker.bootstrap], env=env, cwd=tmp_path, capture_output=True,
                       text=True, timeout=240)
    assert r.returncode == 0 and "NOT REPRODUCED" in r.stdout and "settled after" in r.stdout, (r.stdout, r.stderr)
    left = subprocess.run(["pgrep", "-f", str(path)], capture_output=True, text=True).stdout.split()
    assert not left, "a worker was left running"
    bad = subprocess.run([NODE, str(path)], env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
