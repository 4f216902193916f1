"""The consoles, the error exit, progress display, SIGINT/SIGTERM handling and the run
limits every groupcheck command uses."""
from __future__ import annotations

import re
import signal
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

from groupcheck.model.scopes import one_line

from . import stopping
from .checker import Budget

out = Console(width=None if sys.stdout.isatty() else 160, emoji=False)
err = Console(stderr=True, emoji=False)

# Exit codes of every command (docs/exit-codes.md; cli.py's docstring and --help say the same).
PASSED, FAILED, BAD_INPUT, NOT_PROVED, INTERRUPTED, TERMINATED = 0, 1, 2, 3, 130, 143
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

# Default limits. A BFS state costs about 0.8-1 KB of resident memory on both protocols
# (docs/tools/check.md, "Limits"), so 2,000,000 states stay near 2 GB, within MAX_MEMORY; BFS runs
# 10,000-25,000 states/s, so a search meets MAX_STATES in a few minutes, within MAX_SECONDS.
MAX_STATES = 2_000_000       # distinct states, per search
MAX_SECONDS = 300.0          # wall time, for the whole command
MAX_MEMORY = "4GiB"          # resident set size of the process
PROGRESS_EVERY = 10.0        # seconds between two plain progress lines


def fail(message: str) -> typer.Exit:
    """Print ``message`` as one error line, never wrapped at the console's width (an input
    value quoted in it shortened); raise the result to exit 2 (bad options or files)."""
    err.print(f"[bold red]error:[/] {escape(one_line(message))}", highlight=False, soft_wrap=True)
    return typer.Exit(BAD_INPUT)


def progress() -> Progress:
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                    TextColumn("{task.completed:,} {task.fields[unit]}"), TimeElapsedColumn(),
                    console=err, transient=True, disable=not err.is_terminal)


_UNITS = {"": 1, "b": 1, "k": 2**10, "kib": 2**10, "kb": 10**3, "m": 2**20, "mib": 2**20, "mb": 10**6,
          "g": 2**30, "gib": 2**30, "gb": 10**9, "t": 2**40, "tib": 2**40, "tb": 10**12}


def parse_size(option: str, text: str) -> int | None:
    """'4GiB', '512MiB', '1.5GB', '0' (no limit) -> bytes (None for 0); a bad value exits 2."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = match and match.group(2).lower()
    if not match or unit not in _UNITS:
        raise fail(f"{option}: {text!r} is not a size; give e.g. 4GiB, 512MiB or 0 for no limit")
    size = int(float(match.group(1)) * _UNITS[unit])
    return size or None


def size_text(size: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} B"


class Limits:
    """The limits of one command, as given on its command line (0 or None: no limit)."""

    def __init__(self, max_states: int, max_seconds: float, max_memory: str):
        self.max_states = max_states or None
        self.budget = Budget(max_seconds or None, parse_size("--max-memory", max_memory))

    def value(self, limit: str) -> str:
        """The limit as the option that sets it: '--max-states 2,000,000'."""
        if limit == "max-states":
            return f"--max-states {self.max_states:,}"
        if limit == "max-seconds":
            return f"--max-seconds {self.budget.max_seconds:g}"
        if limit == "max-memory":
            return f"--max-memory {size_text(self.budget.max_memory)}"
        return self.budget.cause()

    def line(self) -> str:
        states = f"{self.max_states:,} states per search" if self.max_states else "no state limit"
        seconds = f"{self.budget.max_seconds:g} s" if self.budget.max_seconds else "no time limit"
        memory = f"{size_text(self.budget.max_memory)} resident" if self.budget.max_memory else "no memory limit"
        return (f"limits: {states} (--max-states); {seconds} (--max-seconds) and {memory} "
                f"(--max-memory) for the whole command; 0 turns a limit off")


class Ticker:
    """A search's progress: rich's bar on a terminal; otherwise (CI logs, pipes) a plain
    line on stderr at most every ``every`` seconds. Call it with (done, depth or steps);
    ``more`` names that second figure when it is something else."""

    def __init__(self, label: str, unit: str, every: float, total: int | None = None, more: str | None = None):
        self.label, self.unit, self.every, self.total = label, unit, every, total
        self.more = more or ("depth" if unit == "states" else "steps")
        self.bar: Progress | None = progress() if err.is_terminal else None
        self.started = self.last = time.monotonic()

    def __enter__(self) -> "Ticker":
        if self.bar is not None:
            self.bar.__enter__()
            self.task = self.bar.add_task(self.label, total=self.total, unit=self.unit)
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def __call__(self, done: int, more: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done)
            return
        now = time.monotonic()
        if now - self.last < self.every:
            return
        self.last = now
        elapsed = now - self.started
        if self.unit == "states":
            text = f"{done:,} states, {self.more} {more}, {done / elapsed:,.0f} states/s"
        else:
            total = "" if self.total is None else f"/{self.total:,}"
            text = f"{done:,}{total} {self.unit}, {more:,} {self.more}"
        print(f"progress {self.label}: {text}, {elapsed:.1f} s", file=sys.stderr, flush=True)


def stop_code(budget: Budget) -> int:
    """The exit code of a command ``budget.signum`` interrupted: 143 for SIGTERM, else 130."""
    return TERMINATED if budget.signum == signal.SIGTERM else INTERRUPTED


def signal_code(signum: int) -> int:
    return TERMINATED if signum == signal.SIGTERM else INTERRUPTED


@contextmanager
def interruptible(budget: Budget, at_once: bool = False) -> Iterator[None]:
    """Within: the first SIGINT (Ctrl-C) or SIGTERM sets ``budget.interrupted`` (searches
    stop at their next look at the budget and the command reports what it explored; in
    a user's code, or with ``at_once``, ``stopping.Stopped`` is raised there and then);
    a second one stops the command at once, exit 130 (SIGINT) or 143 (SIGTERM)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame) -> None:
        if budget.interrupted:
            raise typer.Exit(signal_code(signum))
        budget.interrupt(signum)
        cause = budget.cause()
        print(f"interrupted{'' if cause == 'Ctrl-C' else ' by ' + cause}: finishing the report "
              f"({cause} again stops at once)", file=sys.stderr, flush=True)
        where = stopping.inside()
        if at_once or where is not None:
            raise stopping.Stopped("interrupted", where or "the command", signum)

    previous = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    watched = stopping.watch(budget)
    try:
        yield
    finally:
        stopping.watch(watched)
        for s, h in previous.items():
            signal.signal(s, h)
