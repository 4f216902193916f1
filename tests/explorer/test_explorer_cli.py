"""``groupcheck explore`` on the command line: refusals exit 2 with the reason; a real run
serves on 127.0.0.1, answers its own address only, logs no request unless --log, warns
when --host opens it to the network, and stops cleanly on Ctrl-C."""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck.cli import app

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("args, words", [
    (["/nonexistent/t.itf.json"], "/nonexistent/t.itf.json"),
    (["nosuchprotocol"], "neither a trace file nor a protocol"),
    (["consumer", "--members", "x"], "x"),
    (["consumer", "--instances", "2"], "--instances does not apply to consumer"),
    (["consumer", "--profile", "kafka-9"], "unknown profile 'kafka-9'"),
    (["--variant", "KAFKA-0"], "unknown variant 'KAFKA-0'"),
    (["--variant", "KAFKA-13419", "consumer"], "drop the other arguments"),
    (["consumer", "--scope", '{"members": "two"}'], "members"),
])
def test_bad_input_exits_2_with_the_reason(args, words):
    result = CliRunner().invoke(app, ["explore", *args])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())          # the console wraps long lines
    assert words in said and "Traceback" not in said


def test_a_file_that_is_not_a_trace_exits_2(tmp_path):
    f = tmp_path / "x.itf.json"
    f.write_text('{"vars": [], "states": [1]}')
    result = CliRunner().invoke(app, ["explore", str(f)])
    assert result.exit_code == 2 and "states[0]" in "".join(result.output.split())
    f.write_text("not json")
    result = CliRunner().invoke(app, ["explore", str(f)])
    joined = "".join(result.output.split())        # the console wraps a long path mid-name
    assert result.exit_code == 2 and "x.itf.json:notJSON" in joined and "Traceback" not in joined


def _said(result) -> str:
    return " ".join(result.output.split())


def test_a_trace_takes_no_scope_options_and_out_must_be_a_folder(tmp_path):
    f = tmp_path / "t.itf.json"
    f.write_text('{"vars": ["x"], "states": [{"x": 0}]}')
    assert "a trace carries its own scope" in _said(CliRunner().invoke(app, ["explore", str(f), "--members", "3"]))
    result = CliRunner().invoke(app, ["explore", "consumer", "--out", str(f)])
    assert result.exit_code == 2 and "not a folder" in _said(result)


def test_a_port_in_use_exits_2_saying_so():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = CliRunner().invoke(app, ["explore", "consumer", "--port", str(taken.getsockname()[1])])
    assert result.exit_code == 2 and "Address already in use" in _said(result) and "Traceback" not in result.output
    result = CliRunner().invoke(app, ["explore", "consumer", "--host", "no-such-host.invalid"])
    assert result.exit_code == 2 and "cannot listen on no-such-host.invalid" in _said(result)


def _serve(*args: str) -> tuple[subprocess.Popen, str]:
    """``groupcheck explore consumer --members 2 ARGS`` running, and the port it printed."""
    proc = subprocess.Popen([sys.executable, "-m", "groupcheck.cli", "explore", "consumer", "--members", "2", *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    line = proc.stdout.readline()
    url = re.search(r"http://[^/]+:(\d+)/", line)
    if not url:
        proc.kill()
        raise AssertionError(line + proc.stderr.read())
    return proc, url.group(1)


def _stop(proc: subprocess.Popen) -> str:
    """Ctrl-C: exit 0 saying so; what it said on stderr."""
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) == 0
    said = proc.stderr.read()
    assert "groupcheck explore: stopped" in said and "Traceback" not in said
    return said


def _get(url: str, host: str | None = None) -> int:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def test_it_serves_on_localhost_and_stops_on_ctrl_c(tmp_path):
    proc, port = _serve()
    try:
        url = f"http://127.0.0.1:{port}/"
        view = json.load(urllib.request.urlopen(f"{url}api/view?path=0.0", timeout=30))
        assert view["protocol"] == "consumer" and view["path"] == [0, 0]
        assert view["scope"]["members"] == 2
        with pytest.raises(OSError):                    # bound to 127.0.0.1 alone, not the whole loopback
            socket.create_connection(("127.0.0.2", int(port)), timeout=5).close()
        assert _get(f"{url}api/config", host=f"localhost:{port}") == 200
        assert _get(f"{url}api/config", host=f"rebound.example:{port}") == 403     # another site's name
        assert _get(f"{url}api/config", host=f"127.0.0.1:{int(port) + 1}") == 403  # another server's port
        said = _stop(proc)
        assert "GET /api/" not in said and "warning" not in said       # no access log; loopback: no warning
    finally:
        if proc.poll() is None:
            proc.kill()


def test_log_prints_the_access_log_and_a_network_host_warns():
    proc, port = _serve("--host", "0.0.0.0", "--log")
    try:
        assert _get(f"http://127.0.0.1:{port}/api/config") == 200
        said = _stop(proc)
        warning = [line for line in said.splitlines() if "warning" in line]
        assert len(warning) == 1 and "--host 0.0.0.0" in warning[0] and "reachable from the network" in warning[0]
        assert f"port {port}" in warning[0]
        assert '"GET /api/config HTTP/1.1" 200' in said                 # werkzeug's access log, asked for
    finally:
        if proc.poll() is None:
            proc.kill()
