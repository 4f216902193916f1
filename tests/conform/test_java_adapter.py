"""Apache Kafka's Java consumer as a harness client (adapters/java): the build script's
refusals (no Kafka source needed), the harness's refusal without a build, and, when
GROUPCHECK_JAVA_CLIENT names a build (adapters/java/build.sh), the cooperative handover of
the FINDING cooperative-auto-commit-redelivers on Tansu (slow). Watchdogs only."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from groupcheck.conform.targets.clients.group import Settings, worker_command

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "adapters" / "java" / "build.sh"


def _build(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(BUILD), *args], capture_output=True, text=True, timeout=120)


def _fake_kafka_tree(root: Path) -> Path:
    """The four files build.sh looks for, empty: enough to pass its first check."""
    for f in ("clients/src/main/java/org/apache/kafka/clients/consumer/KafkaConsumer.java",
              "generator/src/main/java/org/apache/kafka/message/MessageGenerator.java", "build.gradle",
              "gradle.properties"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("")
    return root


@pytest.mark.parametrize("make", ["missing", "empty"])
def test_build_refuses_what_is_not_a_kafka_source_tree(tmp_path, make):
    src = tmp_path / "src"
    if make == "empty":
        src.mkdir()
    out = tmp_path / "out"
    r = _build(str(src), str(out))
    assert r.returncode == 2, r
    assert len(r.stderr.strip().splitlines()) == 1 and str(src) in r.stderr, r.stderr
    assert not out.exists()


def test_build_refuses_an_out_dir_inside_the_repository_and_creates_nothing(tmp_path):
    out = ROOT / "adapters" / "java" / "never-made"
    r = _build(str(_fake_kafka_tree(tmp_path)), str(out))
    assert r.returncode == 2 and "inside the repository" in r.stderr, r
    assert not out.exists()


def test_build_refuses_an_out_dir_that_is_not_empty(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "kept").write_text("mine")
    r = _build(str(_fake_kafka_tree(tmp_path / "src")), str(out))
    assert r.returncode == 2 and "not empty" in r.stderr, r
    assert [p.name for p in out.iterdir()] == ["kept"]


@pytest.mark.parametrize("value", [None, "", "folder-without-launcher"])
def test_the_java_client_needs_a_build(monkeypatch, tmp_path, value):
    if value is None:
        monkeypatch.delenv("GROUPCHECK_JAVA_CLIENT", raising=False)
    else:
        monkeypatch.setenv("GROUPCHECK_JAVA_CLIENT", str(tmp_path / value) if value else "")
    with pytest.raises(ValueError, match="GROUPCHECK_JAVA_CLIENT"):
        worker_command("java")


def _handover(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "adapters" / "java" / "handover.py"), *args],
                          capture_output=True, text=True, timeout=120, env={**os.environ, **env})


@pytest.mark.parametrize("args, says", [
    (["--target", "range+sometimes"], "ASSIGNOR+POLICY"),
    (["--target", "roundrobin"], "ASSIGNOR+POLICY"),
    (["--runs", "0"], "--runs 1..100"),
    (["--out", "/nonexistent-folder/x.json"], "a new file in an existing folder"),
    (["--out", "EXISTING"], "a new file in an existing folder"),
    ([], "GROUPCHECK_JAVA_CLIENT"),
])
def test_handover_refuses_bad_input_in_one_line(tmp_path, args, says):
    kept = tmp_path / "kept.json"
    kept.write_text("mine")
    args = [str(kept) if a == "EXISTING" else a for a in args]
    out = [] if "--out" in args else ["--out", str(tmp_path / "new.json")]
    r = _handover(*args, *out, env={"GROUPCHECK_JAVA_CLIENT": "", "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2, r
    assert len(r.stderr.strip().splitlines()) == 1 and says in r.stderr, r.stderr
    assert kept.read_text() == "mine" and not (tmp_path / "new.json").exists()


BUILT = os.environ.get("GROUPCHECK_JAVA_CLIENT", "")


@pytest.mark.slow
@pytest.mark.skipif(not (BUILT and (Path(BUILT) / "consumer-worker").is_file()),
                    reason="GROUPCHECK_JAVA_CLIENT names no build of adapters/java/build.sh")
def test_java_cooperative_auto_commit_redelivers_records_without_a_fault(broker):
    """Kafka 3.9's KafkaConsumer, cooperative-sticky, enable.auto.commit: records the first
    owner processed during the rebalance (after onJoinPrepare's commit) are processed again
    by the next owner, with no fault; none is lost."""
    sys.path.insert(0, str(ROOT / "adapters" / "java"))
    try:
        from handover import HANDOVER
    finally:
        sys.path.pop(0)
    from groupcheck.conform.roles.consumer_client.runner_broker import run_scenario
    run = run_scenario(HANDOVER, Settings(client="java", assignor="cooperative-sticky", commit_policy="auto",
                                          partitions=2), broker)
    assert run.error is None, run.error
    counts = run.records.tally.counts()
    assert run.records.violated() == ["no_duplicate_without_failure"], run.records.summary()
    assert counts["lost"] == 0 and counts["duplicated_unexcused"] > 0, counts
    c2_starts = min(e["t"] for e in run.events if e["kind"] == "assign" and e["member"] == "c2" and e["partitions"])
    handed_over = {p for e in run.events if e["kind"] == "revoke" and e["member"] == "c1" and e["t"] < c2_starts
                   for p in e["partitions"]}
    assert handed_over and {p for p, _o, _why in run.records.tally.duplicated} <= handed_over
