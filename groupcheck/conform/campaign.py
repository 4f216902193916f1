"""One campaign loop and one shrinker for the roles that run a list of scenarios against a
target: consumer-client (classic and KIP-848, ``roles/consumer_client/campaign*.py``) and
group-coordinator (``roles/group_coordinator/campaign.py``).

``run`` goes through the scenarios until a deadline or an interrupt; a divergence does not
end it. Every divergence a scenario shows is met as (claim, signature) in a ``Ledger``
(``dedupe.py``): the first meeting of each is handed to the role's ``diverged`` hook
(which shrinks it with ``shrink`` and writes it), later ones are only counted. The role's
hooks run the scenario, record it in the role's verdict and print its progress; what a
verdict holds stays the role's (``verdict.json`` keys differ by role), ``write_verdict``
writes it (verdict.json and verdict.txt) for every role that runs here.

``shrink`` is delta debugging by deletion: remove chunks of a scenario (halves, then
smaller, down to one item) while the role's ``attempt`` still shows the same divergence.
"""
from __future__ import annotations

import json
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional

from ..console import STOP_SIGNALS
from ..outputs import atomic_write_text
from .dedupe import Ledger


def _nothing(*args) -> None:
    return None


@dataclass
class Hooks:
    """What a role does at each point of the loop (``item`` is one scenario as the role's
    generator yields it; ``result`` what ``run`` made of it)."""
    run: Callable[[Any, float], Any]                        # (item, deadline) -> result
    divergences: Callable[[Any], list[tuple[str, str]]]     # result -> (claim, signature) of each divergence
    diverged: Callable[[tuple[str, str], Any, Any], Any]    # (key, result, item) -> what the verdict lists
    announce: Callable[[int, Any], None] = _nothing         # (index, item): before it runs
    record: Callable[[Any], None] = _nothing                # result: into the verdict, before divergences
    after: Callable[[int, Any], None] = _nothing            # (index, result): after its divergences


def run(items: Iterable, hooks: Hooks, deadline: float, ledger: Optional[Ledger] = None) -> Optional[str]:
    """Every scenario of ``items`` in turn; why the loop stopped early: ``"time limit"``
    (``deadline``, ``time.monotonic()``, came first), ``"interrupted"`` (Ctrl-C, or a signal
    the caller turns into KeyboardInterrupt) or None (every scenario ran)."""
    ledger = Ledger() if ledger is None else ledger
    try:
        for n, item in enumerate(items):
            if time.monotonic() >= deadline:
                return "time limit"
            hooks.announce(n, item)
            result = hooks.run(item, deadline)
            hooks.record(result)
            for claim, sig in hooks.divergences(result):
                met = ledger.meet(claim, sig, None)
                if met is not None:
                    met.found = hooks.diverged((claim, sig), result, item)
            hooks.after(n, result)
    except KeyboardInterrupt:
        return "interrupted"
    return None


@contextmanager
def signals_interrupt() -> Iterator[list[int]]:
    """Within: SIGINT and SIGTERM raise KeyboardInterrupt (which ``run`` turns into
    ``"interrupted"``, so what was found is written), their numbers appended to the list
    yielded (the exit code: ``console.signal_code``); the previous handlers after. Off the
    main thread nothing is installed."""
    stopped: list[int] = []

    def stop(signum, frame) -> None:
        stopped.append(signum)
        raise KeyboardInterrupt

    previous = {s: signal.signal(s, stop) for s in STOP_SIGNALS} \
        if threading.current_thread() is threading.main_thread() else {}
    try:
        yield stopped
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def shrink(seq: list, attempt: Callable[[list], Optional[tuple[list, Any]]], *, keep_head: int = 0,
           keep_tail: int = 0, canonical: Callable[[list], list] = list, deadline: Optional[float] = None,
           max_tries: Optional[int] = None) -> tuple[list, Any]:
    """The smallest sequence found that still shows the divergence, and ``attempt``'s result
    for it (None when no smaller one did).

    Chunks of ``seq`` are removed (half its length, then smaller, down to one item), never
    the first ``keep_head`` nor the last ``keep_tail`` items; each candidate is made
    ``canonical`` (a role drops what a shorter scenario made meaningless) and tried unless
    it is no shorter. ``attempt(candidate)`` runs it: None when the divergence is gone,
    else (the sequence to keep, e.g. cut after the divergent step, and its result). Stops
    at ``deadline`` (``time.monotonic()``) or after ``max_tries`` attempts."""
    best, best_result, tries = list(seq), None, 0

    def left() -> bool:
        return (max_tries is None or tries < max_tries) and (deadline is None or time.monotonic() < deadline)

    chunk = max(1, (len(best) - keep_head - keep_tail) // 2)
    while chunk >= 1 and left():
        i, changed = keep_head, False
        while i < len(best) - keep_tail and left():
            candidate = canonical(best[:i] + best[min(i + chunk, len(best) - keep_tail):])
            if candidate == best or len(candidate) >= len(best):
                i += chunk
                continue
            tries += 1
            got = attempt(candidate)
            if got is None:
                i += chunk
            else:
                (best, best_result), changed = got, True
        if not changed:
            chunk //= 2
    return best, best_result


def write_verdict(where: Path, data: dict, text: str) -> Path:
    """A target's verdict under ``where``: ``verdict.json`` (``data``) and ``verdict.txt``
    (``text``), each written whole; the path of verdict.json."""
    where.mkdir(parents=True, exist_ok=True)
    atomic_write_text(where / "verdict.txt", text, force=True)
    path = where / "verdict.json"
    atomic_write_text(path, json.dumps(data, indent=1) + "\n", force=True)
    return path
