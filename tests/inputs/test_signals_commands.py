"""SIGINT (Ctrl-C) and SIGTERM on every long command other than ``check``
(tests/inputs/test_cli_signals.py), in real processes: each keeps what it did (the table so far,
the counterexamples, the verdicts of the groups judged) and exits 130 or 143; and a
user's assignor that never returns is stopped by --max-seconds (exit 3) or by the first
signal. Each process is sent its signal once it has printed a progress line (stderr is a
pipe, so the commands print plain lines), and a watchdog kills it if it hangs."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.inputs.test_cli_signals import SIGNALS, signal_once

pytestmark = pytest.mark.slow

SPECS = Path(__file__).resolve().parents[2] / "specs"
CAUSE = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}


@pytest.mark.parametrize("signum, code, word", SIGNALS)
def test_upgrade_plan_reports_the_states_explored(tmp_path, signum, code, word):
    # this plan is unsafe after ~35,000 states; the signal lands in the first thousand
    exit_code, text, err = signal_once(["upgrade-plan", "--from", "2.3", "--to", "3.9", "--crash", "--out",
                                        str(tmp_path), "--progress-every", "0.05"], "progress upgrade-plan bfs:", signum)
    assert exit_code == code, (text, err)
    assert "verdict: INTERRUPTED: no violation in the first" in text
    assert f"{CAUSE[signum]} stopped the search" in text and "states explored:" in text
    assert "Traceback" not in "".join(err)


@pytest.mark.parametrize("signum, code, word", SIGNALS)
def test_campaign_says_interrupted_and_exits_130_or_143_not_1(tmp_path, signum, code, word):
    # KAFKA-13419's scope: violations in the first few hundred walks, so exit 1 would be "violations found"
    out = tmp_path / "run"
    exit_code, text, err = signal_once(["campaign", "--variant", "KAFKA-13419", "--walks", "200000", "--out", str(out),
                                        "--progress-every", "0.2"], "progress campaign consumer:", signum)
    assert exit_code == code, (text, err)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and 0 < summary["walks"] < 200_000
    assert f"interrupted ({CAUSE[signum]}): {summary['walks']:,} of 200,000 walks ran" in text
    assert "Traceback" not in "".join(err)


@pytest.mark.parametrize("signum, code, word", SIGNALS)
def test_spec_mc_prints_the_states_it_explored(signum, code, word):
    """MCConsumer.cfg takes ~20 s (17,770 states); the signal lands after a few hundred."""
    exit_code, text, err = signal_once(["spec", "mc", str(SPECS / "consumer" / "MCConsumer.cfg"),
                                        "--progress-every", "0.2"], "progress spec mc MCConsumer.cfg:", signum)
    assert exit_code == code, (text, err)
    head = text.split("MCConsumer.cfg: ", 1)[1]
    states = int(head.split(" distinct states")[0].replace(",", ""))
    assert 0 < states < 17_770
    assert f"(stopped: {CAUSE[signum]}; not a proof)" in text
    assert "nothing explored" not in "".join(err) and "Traceback" not in "".join(err)


@pytest.mark.parametrize("signum, code, word", SIGNALS)
def test_spec_check_prints_the_checks_done(signum, code, word):
    """The consumer spec's checks take tens of seconds; the signal lands after the first."""
    exit_code, text, err = signal_once(["spec", "check", "consumer"], "consumer names:", signum)
    assert exit_code == code, (text, err)
    assert "consumer names │ agrees" in text
    assert f"interrupted ({CAUSE[signum]}): the checks above are the ones done" in text
    assert "nothing explored" not in "".join(err) and "Traceback" not in "".join(err)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("fleet")
    subprocess.run([sys.executable, "-m", "groupcheck.cli", "trace-check", "--generate", str(where), "--groups", "300"],
                   check=True, capture_output=True, timeout=300)
    return where / "histories.jsonl"


@pytest.mark.parametrize("signum, code, word", SIGNALS)
def test_trace_check_writes_the_verdicts_of_the_groups_judged(tmp_path, fleet, signum, code, word):
    import pyarrow.parquet as pq
    exit_code, text, err = signal_once(["trace-check", str(fleet), "--out", str(tmp_path / "tc"),
                                        "--progress-every", "0.05"], "progress trace-check:", signum)
    assert exit_code == code, (text, err)
    rows = pq.read_table(tmp_path / "tc" / "verdicts.parquet").to_pylist()
    assert 0 < len(rows) < 300
    assert f"interrupted ({CAUSE[signum]}): {len(rows):,} groups judged" in text
    assert "nothing explored" not in "".join(err) and "Traceback" not in "".join(err)


@pytest.mark.parametrize("signum, code, word", SIGNALS)
def test_conform_in_process_writes_the_verdict(tmp_path, signum, code, word):
    exit_code, text, err = signal_once(["conform", "--target", "kafka-python:sticky", "--out", str(tmp_path),
                                        "--progress-every", "0.05"], "progress ", signum)
    assert exit_code == code, (text, err)
    assert f"(exit {code})" in text and "verdict:" in text
    assert list(tmp_path.rglob("verdict.json"))
    assert "Traceback" not in "".join(err)


HANG = '''
import pathlib


class Hang:
    """An assignor whose assign() never returns (it leaves a mark when called)."""
    name = "hang"
    supported_protocols = ("EAGER",)

    def assign(self, cluster, subscriptions):
        pathlib.Path("assign-called").touch()
        while True:
            pass
'''


def _run_hang(tmp_path: Path, argv: list[str], signum: int | None = None) -> tuple[int, str, str, float]:
    """``groupcheck ARGV`` in ``tmp_path`` (where hangmod.py is); with ``signum``, sent once
    assign() was called. (exit code, stdout, stderr, seconds from the signal or the start)."""
    (tmp_path / "hangmod.py").write_text(HANG)
    proc = subprocess.Popen([sys.executable, "-m", "groupcheck.cli", *argv], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(60, proc.kill)           # without the fix it never ends
    timer.start()
    try:
        started = time.monotonic()
        if signum is not None:
            while not (tmp_path / "assign-called").exists() and proc.poll() is None:
                time.sleep(0.05)
            started = time.monotonic()
            proc.send_signal(signum)
        stdout, stderr = proc.communicate()
    finally:
        timer.cancel()
    return proc.returncode, " ".join(stdout.split()), stderr, time.monotonic() - started


def test_max_seconds_stops_a_hanging_assignor(tmp_path):
    code, text, err, _ = _run_hang(tmp_path, ["check", "consumer", "--plan", "hangmod:Hang", "--max-seconds", "2",
                                              "--walks", "0", "--out", "out"])
    assert code == 3, (text, err)
    assert "--max-seconds 2 stopped bfs (while assignor hangmod:Hang ran) after" in text
    assert "NOT PROVED (exit 3)" in text and "Traceback" not in err


@pytest.mark.parametrize("signum, code, word", SIGNALS)
def test_the_first_signal_stops_a_hanging_assignor(tmp_path, signum, code, word):
    exit_code, text, err, _ = _run_hang(tmp_path, ["check", "consumer", "--plan", "hangmod:Hang", "--out", "out"],
                                        signum)
    assert exit_code == code, (text, err)
    assert f"{CAUSE[signum]} stopped bfs (while assignor hangmod:Hang ran) after" in text
    assert f"{word} (exit {code})" in text and "Traceback" not in err


def test_max_seconds_stops_a_hanging_assignor_under_conform(tmp_path):
    code, text, err, _ = _run_hang(tmp_path, ["conform", "--assignor", "hangmod:Hang", "--max-seconds", "3",
                                              "--out", "out"])
    assert code == 3, (text, err)
    assert "incomplete (max-seconds)" in text and "not run: --max-seconds 3 came first" in text
    assert "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["campaign", "consumer", "--walks", "5", "--engine", "spark"],
    ["check", "consumer", "--engine", "spark", "--walks", "0"],
    ["trace-check", "HISTORY", "--engine", "spark"],
], ids=["campaign", "check", "trace-check"])
@pytest.mark.parametrize("master, says", [
    ("bogus://x", "'bogus://x' is not a Spark master URL; give local, local[N], local[*], spark://HOST:PORT"),
    ("spark://127.0.0.1:1", "cannot reach the Spark master spark://127.0.0.1:1 (127.0.0.1:1: Connection refused)"),
    ("sc://localhost:15002", "is a Spark Connect URL"),
], ids=["bogus", "nobody-listening", "spark-connect"])
def test_a_bad_spark_master_is_one_line_and_exit_2(tmp_path, fleet, argv, master, says):
    argv = [str(fleet) if a == "HISTORY" else a for a in argv]
    proc = subprocess.run([sys.executable, "-m", "groupcheck.cli", *argv, "--master", master, "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith("error: --master: ") and says in lines[-1], proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("signum, code, word", SIGNALS)
def test_conform_group_coordinator_writes_the_verdict(tmp_path, signum, code, word):
    """The group-coordinator role runs its own scenario loop (conform/roles/group_coordinator/campaign.py):
    a signal there ends the target's run with its verdict written, cut "interrupted"."""
    exit_code, text, err = signal_once(["conform", "--role", "group-coordinator", "--target", "reference",
                                        "--out", str(tmp_path)], "[reference] ", signum)
    assert exit_code == code, (text, err)
    assert f"(exit {code})" in text
    verdicts = list(tmp_path.rglob("verdict.json"))
    assert verdicts and json.loads(verdicts[0].read_text())["cut"] == "interrupted"
    assert "Traceback" not in "".join(err)
