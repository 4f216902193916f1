"""What stops a command from outside its search: SIGINT (Ctrl-C), SIGTERM, and the
``--max-seconds`` deadline while a user's own code (an assignor) runs.

A search looks at its ``checker.Budget`` every so often: the first SIGINT or SIGTERM
sets ``budget.interrupted`` (``console.interruptible``), the search stops at its next
look and the command reports what it found. A user's code may never come back to that
look (an assignor that loops forever), so ``user_code`` marks the call: a signal that
arrives inside it, or the command's deadline passing while it runs (a ``SIGALRM`` timer),
raises ``Stopped`` there and then, and the search takes it as a cut like any other.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

_budget = None                 # the checker.Budget of the command running (console.interruptible)
_inside: str | None = None     # the user code running now ("assignor mymod:Hang"), or None


class Stopped(KeyboardInterrupt):
    """A limit struck inside user code: ``limit`` is "interrupted" (a signal) or
    "max-seconds"; ``where`` names the code that was running; ``signum`` the signal. A
    KeyboardInterrupt, so that a user's ``except Exception`` does not swallow it."""

    def __init__(self, limit: str, where: str, signum: int | None = None):
        super().__init__(f"{limit} while {where} ran")
        self.limit, self.where, self.signum = limit, where, signum


def watch(budget) -> object:
    """Make ``budget`` the one ``user_code`` holds to; returns the one it replaces."""
    global _budget
    previous, _budget = _budget, budget
    return previous


def inside() -> str | None:
    """The user code running now, or None."""
    return _inside


@contextmanager
def user_code(where: str) -> Iterator[None]:
    """Run a user's code (``where`` names it) within the watched budget: past the budget's
    deadline it raises ``Stopped("max-seconds", where)``; a signal inside it raises
    ``Stopped("interrupted", where)`` (``console.interruptible``). Outside a command (the
    API, tests) or off the main thread it just runs the code."""
    global _inside
    budget = _budget
    if budget is None or _inside is not None or threading.current_thread() is not threading.main_thread():
        yield
        return
    remaining = None if budget.max_seconds is None else budget.max_seconds - budget.elapsed()
    if remaining is not None and remaining <= 0:
        raise Stopped("max-seconds", where)

    def alarm(signum, frame) -> None:
        raise Stopped("max-seconds", where)

    previous = signal.signal(signal.SIGALRM, alarm) if remaining is not None else None
    if remaining is not None:
        signal.setitimer(signal.ITIMER_REAL, remaining)
    _inside = where
    try:
        yield
    finally:
        _inside = None
        if remaining is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
