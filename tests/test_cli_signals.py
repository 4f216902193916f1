"""Ctrl-C (SIGINT) on a running `groupcheck check`, in a real process: it stops at the
next look at its budget, prints the table of what it explored marked interrupted,
writes the counterexamples already found, and exits 130. Its stderr is a pipe, so it
shows plain progress lines (a terminal would show rich's bar)."""
from __future__ import annotations

import signal
import subprocess
import sys
import threading

from model.consumer import MODEL

BIG = ["--members", "3", "--partitions", "2,1", "--budget", "2", "--faults", "crash,pause,lose_response"]


def interrupt_once(args: list[str], when: str) -> tuple[int, str, list[str]]:
    """Run ``groupcheck check ARGS``, send SIGINT once a stderr line starts with
    ``when``; return (exit code, stdout, stderr lines)."""
    proc = subprocess.Popen([sys.executable, "-m", "groupcheck.cli", "check", *args, "--progress-every", "0.05"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(120, proc.kill)        # never hang the suite
    watchdog.start()
    lines = []
    try:
        for line in proc.stderr:
            lines.append(line)
            if line.startswith(when):
                proc.send_signal(signal.SIGINT)
                break
        stdout, rest = proc.communicate()
    finally:
        watchdog.cancel()
    return proc.returncode, " ".join(stdout.split()), lines + rest.splitlines()


def test_ctrl_c_prints_what_was_explored_and_exits_130(tmp_path):
    code, text, err = interrupt_once(["consumer", *BIG, "--out", str(tmp_path)], "progress consumer/custom bfs:")
    assert code == 130, (text, err)
    n = sum(1 for p in MODEL.properties if p.kind != "sometimes") + 1          # + no_deadlock
    assert f"interrupted: {n}/{n} not violated so far" in text
    assert "Ctrl-C stopped bfs after" in text and "INTERRUPTED (exit 130)" in text
    assert "groupcheck check" in text and "consumer/custom: 3 members" in text
    assert any(x.startswith("interrupted: finishing the report") for x in err)
    assert "Traceback" not in "".join(err)
    # a plain progress line: scope, states, depth, states/s, elapsed
    head, _, rest = next(x for x in err if x.startswith("progress ")).partition(": ")
    assert head == "progress consumer/custom bfs"
    states, depth, rate, elapsed = rest.strip().split(", ")
    assert states.endswith(" states") and depth.startswith("depth ") and rate.endswith(" states/s")
    assert elapsed.endswith(" s")


def test_ctrl_c_writes_the_counterexamples_found_before_it(tmp_path):
    # under kafka-2.4-2.8 the first reference scope breaks lost_only_when_fenced at once
    # (KAFKA-12983 needs COOPERATIVE: an EAGER member owns nothing mid-rebalance); the
    # interrupt lands in a later scope
    code, text, err = interrupt_once(["consumer", "--profile", "kafka-2.4-2.8", "--walks", "0", "--out", str(tmp_path)],
                                     "progress consumer/metadata bfs:")
    assert code == 130, (text, err)
    assert "lost_only_when_fenced violated in consumer/cooperative" in text
    assert list(tmp_path.glob("consumer-cooperative-lost_only_when_fenced-*.itf.json"))
    assert "interrupted:" in text and "not run" in text and "INTERRUPTED (exit 130)" in text


def test_ctrl_c_before_the_search_began_exits_130_saying_nothing_was_explored(tmp_path):
    """click alone turns a KeyboardInterrupt outside the search into "Aborted!" and exit 1,
    which means "violation found". Here the command blocks opening its scope file (a FIFO
    nobody writes), so the signal lands before any search."""
    import os
    import time

    fifo = tmp_path / "scope.json"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "groupcheck.cli", "check", "consumer", "--scope", f"@{fifo}",
                             "--out", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)                                    # imports done, blocked in open()
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    try:
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, (stdout, stderr)
    assert "interrupted before any search began" in stderr
    assert "Traceback" not in stderr and "Aborted" not in stderr
