"""An external program as an adapter: JSON lines over its stdin and stdout.

``ProcessAdapter(argv)`` starts ``argv`` without a shell, in its own process group,
writes one request per line and reads one reply per line, matched by ``id``. Every
message is validated against the schemas both ways (``adapter.validate``).

A program that does not answer within ``timeout`` seconds (``open``, which also waits
for the program to start, at least ``OPEN_TIMEOUT``), exits, or answers garbage (a
line that is not one JSON object, a reply or a result that breaks the schema, naming
the JSON path) is killed (its whole process group); that call's outcome is ``info``
with the reason, and the program's stderr is kept in ``log``. The next call starts the
program again and replays ``open`` and ``setup`` (a Jepsen client reopened after an
indeterminate op). Only the first ``open`` raises ``AdapterError``: a program that
cannot say who it is has no target to judge.
"""
from __future__ import annotations

import atexit
import json
import os
import queue
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any

from ...adapter import AdapterError, Hello, Outcome, hello_from, role_kind, validate

PROTOCOL_VERSION = 1
TIMEOUT = 10.0
OPEN_TIMEOUT = 10.0     # open also waits for the program to start (interpreter, imports): at least this
MAX_LINE = 16 * 2**20   # a reply longer than this is garbage (the program is killed)


def _temporary_log() -> str:
    """A file for the program's stderr, removed when groupcheck exits (the verdict keeps a copy)."""
    fd, path = tempfile.mkstemp(prefix="groupcheck-adapter-", suffix=".log")
    os.close(fd)
    atexit.register(lambda: os.path.exists(path) and os.unlink(path))
    return path


class ProcessAdapter:
    def __init__(self, argv: list[str], timeout: float = TIMEOUT, log_path: str | None = None):
        if not argv:
            raise AdapterError("--adapter: give a command, e.g. --adapter 'node adapter.js'")
        self.argv, self.timeout = list(argv), timeout
        self.name = os.path.basename(argv[0])
        self.log_path = log_path or _temporary_log()
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.next_id = 0
        self.hello: Hello | None = None
        self.role: tuple[str, dict] | None = None
        self.transcript: list[tuple[str, Any]] = []     # (">" or "<", message): the trace so far
        self.restarts = 0

    # ---- the process ----
    def _start(self) -> None:
        log = open(self.log_path, "ab")
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                         start_new_session=True, bufsize=0)
        except OSError as e:
            raise AdapterError(f"adapter {self.argv[0]!r}: cannot start: {e.strerror or e}") from None
        finally:
            log.close()
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()

    @staticmethod
    def _read(proc: subprocess.Popen, lines: queue.Queue) -> None:
        """Put each line of the program's stdout on ``lines`` (a line longer than
        ``MAX_LINE`` is cut there: garbage), then None at its end. Only this thread closes
        stdout, so its descriptor is never reused under a read."""
        fd, pending, size = proc.stdout.fileno(), [], 0
        try:
            while chunk := os.read(fd, 65536):
                while (end := chunk.find(b"\n")) >= 0:
                    lines.put(b"".join(pending) + chunk[:end + 1])
                    pending, size, chunk = [], 0, chunk[end + 1:]
                pending.append(chunk)
                size += len(chunk)
                if size > MAX_LINE:
                    lines.put(b"".join(pending)[:MAX_LINE])
                    pending, size = [], 0
            if size:
                lines.put(b"".join(pending))   # a last line without its newline
        except OSError:
            pass
        finally:
            proc.stdout.close()
        lines.put(None)                        # end of output: the program exited

    def kill(self) -> None:
        """Kill the program's whole process group (it may have children)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        try:
            proc.stdin.close()                 # (stdout: the reader thread closes it at its end)
        except OSError:
            pass

    def stderr_tail(self, n: int = 400) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace").strip()
        except OSError:
            return ""

    # ---- one request, one reply ----
    def _call(self, request: dict) -> Outcome:
        if self.proc is None:
            self._start()
        request = {**request, "id": self.next_id}
        self.next_id += 1
        validate("request", request, "groupcheck (driver)")
        self.transcript.append((">", request))
        limit = max(self.timeout, OPEN_TIMEOUT) if request["op"] == "open" else self.timeout
        deadline = time.monotonic() + limit
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return self._lost(f"the adapter exited before {request['op']} (exit code {self.proc.poll()})")
        while True:
            try:
                if time.monotonic() > deadline:      # (a flood of replies to other ids keeps the queue full)
                    raise queue.Empty
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return self._lost(f"no reply to {request['op']} within {limit:g} s; killed")
            if line is None:                   # its stdout closed: it exited (or soon will; killed)
                try:
                    code = self.proc.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    code = "none yet: it closed its stdout"
                return self._lost(f"the adapter exited during {request['op']} (exit code {code})")
            reply, wrong = self._parse(line)
            if wrong:
                self.transcript.append(("<", line[:2000].decode("utf-8", "replace")))
                return self._lost(f"{wrong} (reply to {request['op']}); killed")
            self.transcript.append(("<", reply))
            if reply.get("id", request["id"]) != request["id"]:
                continue                       # a late reply to an earlier (timed-out) request
            return Outcome(reply["type"], reply.get("value"), reply.get("error", ""))

    def _parse(self, line: bytes) -> tuple[dict | None, str]:
        """The reply on ``line``, or what is wrong with it (not JSON, not a reply)."""
        who = f"adapter {self.name}"
        try:
            reply = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None, f"{who}: a reply is not one JSON object per line: {line[:200]!r}"
        try:
            validate("reply", reply, who)
        except AdapterError as e:
            return None, str(e)
        return reply, ""

    def _lost(self, why: str) -> Outcome:
        self.kill()
        tail = self.stderr_tail()
        self.transcript.append(("!", why))
        return Outcome("info", None, why + (f"; stderr: {tail}" if tail else ""))

    # ---- the Adapter interface ----
    def open(self) -> Hello:
        out = self._call({"op": "open", "protocol": PROTOCOL_VERSION})
        if not out.ok:
            raise AdapterError(f"adapter {self.name}: open answered {out.type}: {out.error}")
        self.hello = hello_from(out.value, f"adapter {self.name}")
        return self.hello

    def setup(self, role: str, config: dict) -> Outcome:
        kind = role_kind(role, "setup")
        if kind:
            validate(kind, config, "groupcheck (driver)")
        if self.proc is None and self.hello is not None:     # killed after an info: start and open again
            failed = self._reopen(with_setup=False)
            if failed is not None:
                return failed
        self.role = (role, config)
        return self._call({"op": "setup", "role": role, "config": config})

    def _reopen(self, with_setup: bool = True) -> Outcome | None:
        """After a kill: start again, open and set up as before; an outcome if that failed."""
        self.restarts += 1
        self._start()
        out = self._call({"op": "open", "protocol": PROTOCOL_VERSION})
        if out.ok and with_setup and self.role is not None:
            out = self._call({"op": "setup", "role": self.role[0], "config": self.role[1]})
        if out.ok:
            return None
        self.kill()
        return Outcome("info", None, f"reopening the adapter: {out.type}: {out.error}")

    def invoke(self, role: str, f: str, value: Any) -> Outcome:
        kind = role_kind(role, f)
        if kind:
            validate(kind, value, "groupcheck (driver)")
        if self.proc is None and self.hello is not None:
            failed = self._reopen()
            if failed is not None:
                return failed
        out = self._call({"op": "invoke", "role": role, "f": f, "value": value})
        result = role_kind(role, f, result=True)
        if out.ok and result:
            try:
                validate(result, out.value, f"adapter {self.name} (reply to {f})")
            except AdapterError as e:                 # a reply of the wrong shape: not sure what happened
                return self._lost(f"{e}; killed")
        return out

    def teardown(self) -> None:
        if self.proc is not None:
            self._call({"op": "teardown"})

    def close(self) -> None:
        if self.proc is not None:
            try:
                self._call({"op": "close"})
            finally:
                self.kill()
