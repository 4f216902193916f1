"""``groupcheck conform``'s exit codes: 0 held, 1 divergence, 2 bad input (never a
traceback), 3 not proved (a limit, an info answer)."""
import json
import shlex
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck.cli import app

SCRIPT = str(Path(__file__).parents[1] / "helpers" / "conform_adapter_script.py")
QUICK = ["--scope", "kip-792-zombies", "--walks", "2", "--progress-every", "1000"]


def conform(tmp_path, *args):
    result = CliRunner().invoke(app, ["conform", *args, "--out", str(tmp_path)])
    assert "Traceback" not in result.output
    return result


def test_reference_passes_exit_0_and_writes_its_verdict(tmp_path):
    r = conform(tmp_path, "--target", "reference:range", *QUICK)
    assert r.exit_code == 0, r.output
    data = json.loads((tmp_path / "conform" / "reference_range" / "verdict.json").read_text())
    assert data["divergences"] == [] and data["invocations"] > 0
    assert "PASSED" in r.output


def test_a_divergence_exits_1_with_trace_and_regression(tmp_path):
    r = conform(tmp_path, "--target", "kafka-python:roundrobin", "--scope", "metadata", "--walks", "0")
    assert r.exit_code == 1, r.output
    assert "DIVERGENCE assignor_answers in scope metadata (bfs, 15 steps)" in r.output
    where = tmp_path / "conform" / "kafka-python_roundrobin"
    assert list(where.glob("*assignor_answers*.itf.json")) and list(where.glob("test_*assignor_answers*.py"))


def test_bad_input_exits_2_naming_what_was_wrong(tmp_path):
    assert "unknown target 'nope'" in conform(tmp_path, "--target", "nope").output
    r = conform(tmp_path, "--target", "reference:range", "--role", "consumer-client")
    assert r.exit_code == 2 and "--role consumer-client: give --target librdkafka:range" in r.output
    r = conform(tmp_path, "--target", "nope", "--role", "streams-assignor")
    assert r.exit_code == 2 and "unknown streams-assignor target 'nope'" in r.output
    r = conform(tmp_path, "--coordinator", "groupcheck.conform.targets.broken.coordinators:EagerJoin")
    assert r.exit_code == 2 and "give it with --role" in r.output
    r = conform(tmp_path, "--role", "group-coordinator", "--assignor", "examples.assignors:BalancedCooperative")
    assert r.exit_code == 2 and "--coordinator" in r.output and "class" in r.output
    r = conform(tmp_path, "--target", "nope", "--role", "group-coordinator")
    assert r.exit_code == 2 and "unknown for role group-coordinator" in r.output
    r = conform(tmp_path, "--assignor", "no_such_module:X")
    assert r.exit_code == 2 and "cannot import 'no_such_module'" in r.output
    r = conform(tmp_path)
    assert r.exit_code == 2 and "give --target" in r.output
    r = conform(tmp_path, "--target", "reference:range", "--scope", "nope")
    assert r.exit_code == 2 and "unknown scope(s) nope" in r.output


def test_a_malformed_adapter_reply_is_info_exit_3_naming_the_adapter(tmp_path):
    r = conform(tmp_path, "--adapter", shlex.join([sys.executable, SCRIPT, "malformed"]), *QUICK)
    assert r.exit_code == 3 and "not one JSON object per line" in r.output, r.output
    assert "the target never gave an answer that could be judged" in r.output


def test_an_adapter_program_is_judged_like_an_in_process_one(tmp_path):
    r = conform(tmp_path, "--adapter", shlex.join([sys.executable, SCRIPT, "ok"]), *QUICK)
    assert r.exit_code == 0, r.output
    assert "target test-adapter:roundrobin" in r.output


def test_a_hung_adapter_is_info_not_judged_exit_3(tmp_path):
    r = conform(tmp_path, "--adapter", shlex.join([sys.executable, SCRIPT, "hang"]), "--timeout", "0.3",
                "--max-seconds", "20", *QUICK)
    assert r.exit_code == 3, r.output
    folder = tmp_path / "conform" / "test-adapter_roundrobin"
    data = json.loads((folder / "verdict.json").read_text())
    assert data["info"] >= 1 and data["divergences"] == []
    transcript = (folder / data["adapter_log"]["transcript"]).read_text()
    assert '"dir": "!"' in transcript and "no reply to invoke" in transcript     # the partial trace is kept


def test_a_limit_exits_3(tmp_path):
    r = conform(tmp_path, "--target", "reference:range", "--max-states", "500", *QUICK)
    assert r.exit_code == 3 and "incomplete (max-states)" in r.output


@pytest.mark.slow
def test_role_consumer_client_drives_librdkafka_on_its_mock_cluster(tmp_path):
    """One model scenario with real librdkafka consumers: a verdict per property, exit 0."""
    r = conform(tmp_path, "--role", "consumer-client", "--target", "librdkafka:range", "--scenarios", "1")
    assert r.exit_code == 0, r.output
    data = json.loads((tmp_path / "conform" / "librdkafka-range" / "verdict.json").read_text())
    assert "no_double_ownership" in r.output and "PASSED" in r.output
    assert data["divergences"] == []


def test_ctrl_c_keeps_what_was_found_and_exits_130(tmp_path):
    """SIGINT during a conformance run: the search stops at its next look at the budget,
    the verdict of what was explored is written, and the command exits 130."""
    import signal
    import subprocess
    import threading

    proc = subprocess.Popen([sys.executable, "-m", "groupcheck.cli", "conform", "--target", "reference:sticky",
                             "--progress-every", "0.05", "--out", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        for line in proc.stderr:
            if line.startswith("progress"):
                proc.send_signal(signal.SIGINT)
                break
        stdout, _ = proc.communicate()
    finally:
        watchdog.cancel()
    assert proc.returncode == 130, stdout
    assert "INTERRUPTED" in stdout and "Traceback" not in stdout
    assert list(tmp_path.glob("conform/*/verdict.json"))
