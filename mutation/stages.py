"""The stages a mutant goes through, each one command run in the mutated copy.

``main`` is the project's main job (``groupcheck check``); ``properties`` and ``tests``
are pytest runs. Each stage's outcome is a ``StageResult``: ``killed`` (with the first
killer found in the output), ``passed``, ``limit`` (the main job stopped at a limit or a
weak scope, exit 2/3, or the stage hit --max-seconds-per-stage) or ``interrupted``.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

STAGES = ("main", "properties", "tests")


@dataclass(frozen=True)
class StageResult:
    stage: str
    outcome: str          # killed | passed | limit | interrupted
    exit_code: int
    killer: str           # first violated property / failing test / crash line ("" when passed)
    kind: str             # property | known-bug | crash | test | "" (what killed it)
    seconds: float


# The main job of some protocols only: the others' entries are dropped from the
# registry before ``groupcheck check`` (no protocol named) builds its job list.
_MAIN_OF = ("import sys; from groupcheck import protocols as p; keep = sys.argv.pop(1).split(','); "
            "[p.PROTOCOLS.pop(n) for n in list(p.PROTOCOLS) if n not in keep]; "
            "sys.argv = ['groupcheck', 'check']; from groupcheck.cli import main; main()")


def protocols_of(path: str) -> tuple[str, ...]:
    """The protocols whose jobs can execute the file at ``path``: a mutant elsewhere
    leaves their jobs exactly as at the baseline, which passed."""
    if path.startswith("model/streams_classic/") or path == "model/assignors/streams_tasks.py":
        return ("streams-classic",)
    if path.startswith(("model/consumer/", "model/assignors/")):
        return ("consumer",)
    return ()                          # anything else: every protocol


def command(stage: str, python: str, protocols: tuple[str, ...] = ()) -> list[str]:
    if stage == "main":
        if protocols:
            return [python, "-c", _MAIN_OF, ",".join(protocols)]
        return [python, "-m", "groupcheck.cli", "check"]
    if stage == "properties":
        return [python, "-m", "pytest", "properties/", "-x", "-q", "-p", "no:cacheprovider"]
    if stage == "tests":
        return [python, "-m", "pytest", "tests/", "-x", "-q", "-p", "no:cacheprovider",
                "--ignore=tests/mutation/test_mutation_catalog.py"]
    raise ValueError(f"unknown stage {stage!r}; known: {', '.join(STAGES)}")


def environment(workdir: Path) -> dict[str, str]:
    """A minimal environment: the copy first on the path, Hypothesis derandomized
    (the project's ``ci`` profile), hash seed fixed, wide non-terminal output."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(workdir),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(workdir),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "GROUPCHECK_HYPOTHESIS_PROFILE": "ci",
        "COLUMNS": "250",
        "TERM": "dumb",
    }


_VIOLATED = re.compile(r"^(\S+) violated in (.+?):? ", re.M)
_MISSED = re.compile(r"^\s+missed: (.+)$", re.M)
_PYTEST = re.compile(r"^(FAILED|ERROR) (\S+)", re.M)


def main_killer(out: str, err: str) -> tuple[str, str]:
    """(killer, kind) from the main job's output: the first violated property and its
    scope, else the first known bug not caught, else a crash's last line."""
    m = _VIOLATED.search(out)
    if m:
        return f"{m.group(1)} @ {m.group(2)}", "property"
    m = _MISSED.search(out)
    if m:
        return m.group(1).strip(), "known-bug"
    if "Traceback" in err or "Traceback" in out:
        lines = [x for x in (err or out).strip().splitlines() if x.strip()]
        return (lines[-1] if lines else "Traceback"), "crash"
    return "", ""


def pytest_killer(out: str) -> tuple[str, str]:
    m = _PYTEST.search(out)
    if m:
        return m.group(2), "test" if m.group(1) == "FAILED" else "crash"
    return "", ""


def classify(stage: str, code: int, out: str, err: str) -> tuple[str, str, str]:
    """(outcome, killer, kind) of a finished stage."""
    if stage == "main":
        if code == 0:
            return "passed", "", ""
        if code == 1:
            killer, kind = main_killer(out, err)
            return "killed", killer or "exit 1", kind or "crash"
        if code in (2, 3):     # 2: bad input (a mutant can break a scope's start), 3: limit / weak
            killer, _ = main_killer(out, err)
            tail = [x for x in (err if code == 2 else out).strip().splitlines() if x.strip()][-1:] or [""]
            return "limit", f"exit {code}: {killer or tail[0]}", ""
        if code == 130:
            return "interrupted", "", ""
        killer, kind = main_killer(out, err)
        return "killed", killer or f"exit {code}", kind or "crash"
    if code == 0 or code == 5:
        return "passed", "", ""
    if code in (-signal.SIGINT, 130, 2) and "Interrupted" in out and "FAILED" not in out:
        return "interrupted", "", ""
    killer, kind = pytest_killer(out)
    if not killer:
        tail = [x for x in (out + err).strip().splitlines() if x.strip()][-1:] or [f"exit {code}"]
        return "killed", tail[0], "crash"
    return "killed", killer, kind


class Runner:
    """Runs one stage at a time in its own process group, so a signal can end it."""

    def __init__(self, python: str, max_seconds: float, log_dir: Path | None = None):
        self.python = python
        self.protocols: tuple[str, ...] = ()      # the main job's protocols (empty: all)
        self.main_affected = True
        self.max_seconds = max_seconds
        self.log_dir = log_dir
        self.child: subprocess.Popen | None = None

    def kill(self) -> None:
        if self.child is not None and self.child.poll() is None:
            try:
                os.killpg(self.child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def run(self, stage: str, workdir: Path, label: str) -> StageResult:
        start = time.monotonic()
        argv = command(stage, self.python, self.protocols)
        self.child = subprocess.Popen(argv, cwd=workdir, env=environment(workdir),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      start_new_session=True)
        try:
            out, err = self.child.communicate(timeout=self.max_seconds or None)
            code = self.child.returncode
            timed_out = False
        except subprocess.TimeoutExpired:
            self.kill()
            out, err = self.child.communicate()
            code, timed_out = -9, True
        finally:
            seconds = time.monotonic() - start
        self.child = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            (self.log_dir / f"{label}.{stage}.log").write_text(
                f"$ {' '.join(argv)}\nexit {code}\n--- stdout\n{out}\n--- stderr\n{err}")
        if timed_out:
            return StageResult(stage, "limit", code, f"--max-seconds-per-stage {self.max_seconds:g} reached", "",
                               seconds)
        outcome, killer, kind = classify(stage, code, out, err)
        return StageResult(stage, outcome, code, killer, kind, seconds)
