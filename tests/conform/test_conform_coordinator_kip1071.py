"""Role group-coordinator, KIP-1071: StreamsGroupHeartbeat (API 88) over TCP on a broker that
advertises it, compared with the streams-group model (``roles/group_coordinator/
compare_1071.py`` through ``targets/broker/kip1071.py``).

No broker on this machine advertises API 88 (Tansu and librdkafka's mock do not), so these
tests serve the model itself over TCP (``tests/helpers/streams_group_server.py``): the
comparison must find no difference there, and must catch the two broken variants."""
import os
import socket
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from groupcheck.conform.roles.group_coordinator import compare_1071 as compare
from groupcheck.conform.roles.group_coordinator import targets
from groupcheck.model.streams_group import StreamsGroupHeartbeat, StreamsGroupHeartbeatResponse, TaskIds
from groupcheck.model.wire.streams_group_heartbeat import (DecodeError, decode_request_frame, decode_response_frame,
                                                         encode_request_frame, encode_response_frame)
from tests.helpers.streams_group_server import ModelBroker

NOT_RUN_88 = "does not advertise StreamsGroupHeartbeat (API 88): the KIP-1071 scenarios were not run"


def broker_target(b: ModelBroker):
    """``kafka:HOST:PORT`` on the model broker, after ApiVersions only (open()'s classic timing
    probe needs JoinGroup, which the model broker does not answer)."""
    t = targets.builtin(f"kafka:{b.address}")
    t.versions = t._versions()
    return t


def test_request_and_response_frames_round_trip():
    """Request header v2 and response header v1 around the codec's bodies; a frame of another
    API is a DecodeError naming the header field."""
    rq = StreamsGroupHeartbeat(group_id="g", member_id="m", member_epoch=3, active_tasks=(TaskIds("0", (1, 2)),),
                               standby_tasks=(), warmup_tasks=())
    frame = encode_request_frame(rq, 7, client_id="c")
    assert struct.unpack(">i", frame[:4])[0] == len(frame) - 4
    assert struct.unpack(">hhih", frame[4:14]) == (88, 0, 7, 1)
    assert decode_request_frame(frame[4:]) == (0, 7, rq)
    rs = StreamsGroupHeartbeatResponse(member_id="m", member_epoch=4, status=())
    assert decode_response_frame(encode_response_frame(rs, 9)[4:]) == (9, rs)
    with pytest.raises(DecodeError, match="RequestApiKey"):
        decode_request_frame(struct.pack(">hhi", 68, 0, 1) + frame[12:])


def test_the_model_served_over_tcp_agrees_on_every_scenario():
    """Every scenario over TCP against the model served by the test broker: no difference,
    and the broker saw every step (plus the readiness probe)."""
    with ModelBroker() as b:
        t = broker_target(b)
        assert t.speaks_kip1071()
        got = compare.run(t, "kafka:model")
        steps = sum(len(s) for s in compare.SCENARIOS.values())
        assert b.heartbeats >= steps
        not_run = t.not_run("kafka:model")
    assert [r["scenario"] for r in got] == list(compare.SCENARIOS)
    assert all(r["judgement"] == "agree" and not r["differences"] for r in got), compare.table(got)
    assert not any("API 88" in line for line in not_run), not_run
    seen = {r["scenario"]: r["target"][-1] for r in got}     # what the broker answered, as the scenarios mean
    assert seen["stale-member-epoch"]["error"] == "FENCED_MEMBER_EPOCH"
    assert seen["topology-same-epoch-mismatch"]["error"] == "INVALID_REQUEST"
    assert seen["invalid-topology"]["error"] == "STREAMS_INVALID_TOPOLOGY"
    assert seen["stale-topology"]["status"] == ["STALE_TOPOLOGY"]
    assert seen["missing-source-topics"]["status"] == ["MISSING_SOURCE_TOPICS"]
    assert seen["missing-internal-topics"]["status"] == ["MISSING_INTERNAL_TOPICS"]
    assert seen["leave"]["epoch"] > 0 and got[4]["target"][3]["epoch"] == -1


def test_a_broker_that_keeps_the_old_epoch_is_caught():
    """A coordinator answering with the epoch sent: the member that acknowledged its
    revocation is not moved to the target epoch (step 5 of second-member-revoke-first)."""
    with ModelBroker(broken="keeps-old-epoch") as b:
        got = {r["scenario"]: r for r in compare.run(broker_target(b), "kafka:broken")}
    r = got["second-member-revoke-first"]
    assert r["divergence"] and r["judgement"].startswith("divergence (kafka:broken)")
    d = r["differences"][0]
    assert d["step"] == 5 and d["target"]["epoch"] < d["model"]["epoch"], d
    assert not got["join-assigns"]["differences"]


def test_a_broker_that_assigns_before_revoking_is_caught():
    """A coordinator giving the joining member its target tasks while the first member still
    owns them: the join (step 3) diverges on the active tasks, not as the assignor's freedom."""
    with ModelBroker(broken="assigns-before-revoking") as b:
        got = {r["scenario"]: r for r in compare.run(broker_target(b), "kafka:broken")}
    r = got["second-member-revoke-first"]
    assert r["divergence"], r["judgement"]
    d = r["differences"][0]
    assert d["step"] == 3 and d["model"]["active"] == [] and len(d["target"]["active"]) == 2, d
    assert sum(x["divergence"] for x in got.values()) == 1, compare.table(list(got.values()))


def test_the_profile_decides_a_same_epoch_topology_mismatch():
    """A broker that answers as Kafka 4.5 (KAFKA-21370: STREAMS_INVALID_TOPOLOGY_EPOCH) differs
    from the default kafka-4.1 model only there; compared under kafka-4.5 it agrees."""
    with ModelBroker(profile="kafka-4.5") as b:
        t = broker_target(b)
        as_41 = {r["scenario"]: r for r in compare.run(t, "kafka:45")}
        as_45 = compare.run(t, "kafka:45", profile="kafka-4.5")
    assert [n for n, r in as_41.items() if r["divergence"]] == ["topology-same-epoch-mismatch"]
    d = as_41["topology-same-epoch-mismatch"]["differences"][0]
    assert (d["target"]["error"], d["model"]["error"]) == ("STREAMS_INVALID_TOPOLOGY_EPOCH", "INVALID_REQUEST")
    assert not any(r["differences"] for r in as_45)
    with pytest.raises(ValueError, match="unknown profile"):
        compare.run(t, "kafka:45", profile="kafka-9")


def test_a_broker_without_api_88_says_so_in_one_line():
    """The gate: no API 88 in ApiVersions -> the one not-run line (the run is then not a pass)
    and the comparison is not started."""
    with ModelBroker(api88=False) as b:
        t = broker_target(b)
        assert not t.speaks_kip1071()
        assert f"kafka:x {NOT_RUN_88}" in t.not_run("kafka:x")
        assert b.heartbeats == 0


def test_a_broker_advertising_only_other_versions_of_api_88_is_not_run():
    """A broker advertising StreamsGroupHeartbeat at v1 only (this codec reads response v0
    only): not run, and the line says why."""
    with ModelBroker() as b:
        t = broker_target(b)
    t.advertised = {**t.advertised, 88: (1, 1)}
    line = next(x for x in t.not_run("kafka:x") if "API 88" in x)
    assert "v1-1, but groupcheck speaks v0 only" in line and not t.speaks_kip1071()


def test_only_which_tasks_went_where_is_the_assignors_freedom():
    """Same number of each kind of task, other tasks: freedom; another number: divergence."""
    model = compare.run_model(compare.SCENARIOS["join-assigns"], "kafka-4.1", compare.names_for("n"))
    moved = [dict(a) for a in model]
    moved[0]["active"] = ["0_1", "0_2", "0_3", "0_9"]
    r = compare.compare("join-assigns", moved, model, "kafka:x", "kafka-4.1")
    assert r["judgement"].startswith("freedom") and not r["divergence"]
    moved[0]["active"] = ["0_1"]
    r = compare.compare("join-assigns", moved, model, "kafka:x", "kafka-4.1")
    assert r["divergence"] and r["judgement"].startswith("divergence (kafka:x)")


def test_the_campaign_runs_kip1071_on_a_target_that_speaks_it(tmp_path):
    """run_target: a target that speaks API 88 gets the comparison in its verdict (``kip1071``),
    a divergence there is exit 1 and shows in the text. The classic part is the in-process
    reference coordinator; its KIP-1071 methods are a broker target's on the model broker
    (broken: keeps-old-epoch)."""
    from groupcheck.conform.roles.group_coordinator.campaign import Options, code_of, run_target
    from groupcheck.conform.targets.inprocess.coordinator import ReferenceCoordinator

    with ModelBroker(broken="keeps-old-epoch") as b:
        broker = broker_target(b)

        class WithStreams(ReferenceCoordinator):
            speaks_kip1071 = staticmethod(broker.speaks_kip1071)
            streams_group_heartbeat = staticmethod(broker.streams_group_heartbeat)
            ensure_topics = staticmethod(broker.ensure_topics)
            close_streams_members = staticmethod(broker.close_streams_members)
            _where = staticmethod(broker._where)

        said = []
        v = run_target(WithStreams(), "with-streams", Options(scenarios=2, out=tmp_path), said.append, float("inf"))
    assert [r["scenario"] for r in v.kip1071] == list(compare.SCENARIOS)
    assert any("KIP-1071 over TCP: 13 scenarios, 3 diverge" in line for line in said), said
    assert code_of(v) == 1
    assert "KIP-1071 second-member-revoke-first: DIVERGES at step 5" in v.text()
    assert v.to_json()["kip1071"] == v.kip1071
    scripts = [r["repro"] for r in v.kip1071 if r["divergence"]]      # one standalone script per divergence
    assert len(scripts) == 3 and all(Path(p).parent == tmp_path and Path(p).exists() for p in scripts)
    assert not any("repro" in r for r in v.kip1071 if not r["divergence"])
    assert f"written: {scripts[0]}" in v.text()


def test_a_source_topic_with_another_partition_count_is_one_clear_error():
    """The source topic already there with 2 partitions (a broker keeps its topics): the
    readiness probe sees 2 tasks, and the run stops with a BrokerError naming the topic
    (exit 2), not 13 scenarios diverging."""
    from groupcheck.conform.targets.broker.broker import BrokerError
    with ModelBroker() as b:
        b.topics[compare.SOURCE] = 2
        with pytest.raises(BrokerError, match=f"{compare.SOURCE} has 2 partitions"):
            compare.run(broker_target(b), "kafka:x")
        assert b.heartbeats == 2                 # the probe's join and leave only


def test_a_broker_that_drops_the_connection_is_one_clear_error():
    """A broker that advertises API 88 but closes the connection on it: a BrokerError naming
    the broker and the request (one line, exit 2), not a traceback."""
    from groupcheck.conform.targets.broker.broker import BrokerError
    with ModelBroker(api88=False) as b:           # it closes the connection on API 88
        t = broker_target(b)
        t.advertised = {**t.advertised, 88: (0, 0)}
        with pytest.raises(BrokerError, match=f"broker {b.address}: StreamsGroupHeartbeat: the broker closed the connection"):
            compare.run(t, "kafka:x")


def _script(tmp_path, broken: str) -> tuple[str, str]:
    """The standalone script of second-member-revoke-first, diverging on a broken model broker."""
    from groupcheck.conform.roles.group_coordinator import repro_1071
    with ModelBroker(broken=broken) as b:
        t = broker_target(b)
        results = compare.run(t, "kafka:broken")
        repro_1071.write(results, "kafka:broken", t, tmp_path)
    r = next(r for r in results if r["scenario"] == "second-member-revoke-first")
    return r["repro"], Path(r["repro"]).read_text()


def _run_script(path: str, bootstrap: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, path, "--bootstrap", bootstrap], capture_output=True, text=True,
                          timeout=120, env=env, cwd=Path(path).parent)


def test_the_standalone_script_reproduces_the_divergence_and_not_on_a_right_broker(tmp_path):
    """The script (kafka-python only; it writes and reads StreamsGroupHeartbeat itself) replays
    the scenario on a new group: on a broker that keeps the old epoch it says reproduced (exit
    1); on the model broker, whose strict codec decodes every request it sends, not reproduced
    (exit 0); on an address where nothing listens, the broker could not be used (exit 2)."""
    path, text = _script(tmp_path, "keeps-old-epoch")
    assert "groupcheck" not in "".join(line for line in text.splitlines() if "import" in line)
    assert any(line.startswith("# Judgement: ") and "divergence (kafka:broken)" in line for line in text.splitlines())
    with ModelBroker(broken="keeps-old-epoch") as b:
        bad = _run_script(path, b.address)
    assert bad.returncode == 1 and "reproduced: the answer differs from the model's at step 5" in bad.stdout, \
        bad.stdout + bad.stderr
    with ModelBroker() as b:
        good = _run_script(path, b.address)
        assert b.heartbeats == len(compare.SCENARIOS["second-member-revoke-first"])
    assert good.returncode == 0 and good.stdout.rstrip().endswith("not reproduced"), good.stdout + good.stderr
    with socket.socket() as s:                 # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    gone = _run_script(path, f"127.0.0.1:{port}")
    assert gone.returncode == 2 and "the broker could not be used" in gone.stdout, gone.stdout + gone.stderr
