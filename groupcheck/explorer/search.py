""""Run to a violation from here": the checker's BFS or swarm walks, started at a session's state.

The search runs the model unchanged but for its initial states (the current state
alone), so a violation it finds is one the model reaches from the path taken so far;
the path returned is the session's path followed by the search's steps. Every search
is bounded (states, seconds) and can be stopped from another thread
(``budget.interrupted``): what it explored is reported either way.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from groupcheck.model.core import check_state

from ..checker import Budget, bfs, walks

MAX_STATES = 200_000
MAX_SECONDS = 60.0
MODES = ("bfs", "walks")


@dataclass(frozen=True)
class SearchResult:
    mode: str
    path: list[int] | None        # the whole path to the violation, None when none was found
    property: str | None
    message: str | None
    explored: int                 # distinct states (BFS) or steps (walks)
    seconds: float
    cut: str | None               # the limit that stopped it: max-states, max-seconds, interrupted
    complete: bool                # BFS explored everything in the scope's bounds from here

    def text(self) -> str:
        unit = "states" if self.mode == "bfs" else "steps"
        done = f"{self.explored:,} {unit} in {self.seconds:.1f} s"
        if self.path is not None:
            n = len(self.path) - 1
            return f"{self.property} violated {n} step{'s' * (n != 1)} from the initial state ({done})"
        if self.complete:
            return f"no violation reachable from here within the scope's bounds ({done})"
        return f"no violation found ({done}; stopped by {self.cut or 'the walk count'})"


def run(session, mode: str = "bfs", *, max_states: int = MAX_STATES, max_seconds: float = MAX_SECONDS,
        seed: int = 0, count: int = 2_000, length: int = 60,
        progress: Callable[[int, int], None] | None = None, budget: Budget | None = None) -> SearchResult:
    """Search from ``session``'s state. ``progress(explored, depth or walks)`` is called as
    it goes; ``budget`` (with ``interrupted``) lets another thread stop it."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: give one of {', '.join(MODES)}")
    here = session.state
    broken = check_state(session.model, session.scope, here)
    if broken:                # already broken here: the answer is this state (walks would take a step first)
        (name, message), = broken[:1]
        return SearchResult(mode, session.path, name, message, 0, 0.0, None, False)
    # the model from here: one initial state, no settle check (can_settle needs the whole graph)
    model = replace(session.model, init_states=lambda scope: (here,), settled=None)
    budget = budget or Budget()
    budget.max_seconds = max_seconds
    if mode == "bfs":
        report = bfs(model, session.scope, max_states=max_states, budget=budget, progress=progress)
    else:
        report = walks(model, session.scope, seed=seed, count=count, length=length, budget=budget,
                       progress=progress)
    v = report.violation
    path = session.path + v.path[1:] if v is not None else None
    return SearchResult(mode, path, v.property if v else None, v.message if v else None, report.states,
                        report.seconds, report.cut, report.complete and mode == "bfs")
