"""Exhaustive BFS and seeded swarm random walks over any ``model.core.Model``.

BFS explores states in order of depth, keyed by ``canonical`` (symmetry reduction),
so the first violation found has a shortest path; the queue keeps the actual states
so every path replays exactly. Walks pick a random subset of action kinds per walk
(swarm testing) and then uniformly among the enabled actions of those kinds.

Limits: ``max_states`` bounds one search; a ``Budget`` bounds a whole command (wall
time, resident memory) and carries the flag Ctrl-C sets. A search that meets either
stops early and says why in ``Report.cut``; what it explored so far stays reported.
"""
from __future__ import annotations

import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import psutil

from model.core import Model, Step, check_state, check_step

from . import liveness

TICK = 256       # states BFS expands between two looks at the budget and the progress display


def resident() -> int:
    """This process's resident set size, in bytes."""
    return psutil.Process().memory_info().rss


@dataclass
class Budget:
    """What one command may spend in all: wall time from ``started`` and resident memory
    (``None``: no limit). ``interrupted`` is set by the Ctrl-C handler."""

    max_seconds: float | None = None
    max_memory: int | None = None
    started: float = field(default_factory=time.monotonic)
    interrupted: bool = False

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def spent(self) -> str | None:
        """The limit that stops the command now (``interrupted``, ``max-seconds`` or
        ``max-memory``), or None."""
        if self.interrupted:
            return "interrupted"
        if self.max_seconds is not None and self.elapsed() >= self.max_seconds:
            return "max-seconds"
        if self.max_memory is not None and resident() >= self.max_memory:
            return "max-memory"
        return None


@dataclass
class Violation:
    property: str
    message: str
    path: list[int]          # [init index, action index, ...]
    kind: str = "always"     # always | within | deadlock


@dataclass
class Report:
    model: str
    mode: str                # bfs | walks
    states: int = 0          # distinct (canonical) states, or steps taken by walks
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0
    complete: bool = True    # BFS explored everything within bounds
    cut: str | None = None   # the limit that stopped the search early: max-states, max-seconds, max-memory, interrupted
    violation: Violation | None = None
    checked: list[str] = field(default_factory=list)
    witnessed: dict[str, bool] = field(default_factory=dict)
    walks: int = 0

    @property
    def held(self) -> list[str]:
        broken = self.violation.property if self.violation else None
        return [p for p in self.checked if p != broken]


def _violations(model: Model, scope, step: Step | None, state) -> list[tuple[str, str]]:
    found = check_state(model, scope, state)
    if step is not None:
        found += check_step(model, scope, step)
    return found


CHECKER_CLAIMS = {"no_deadlock": "deadlock", "can_settle": "liveness"}
# what the checker itself claims of every protocol, next to the model's properties
CHECKER_DOCS = {
    "no_deadlock": "Every reachable state that is not a settled end has an enabled action "
                   "(BFS and walks).",
    "can_settle": "From every state BFS reaches, some settled state stays reachable by the protocol's own "
                  "steps, with no further fault or operation (AG EF settled; BFS only, judged once the "
                  "search is complete; states beyond the scope's bounds count as able to settle).",
}


def _kind(model: Model, name: str) -> str:
    return CHECKER_CLAIMS.get(name) or model.property(name).kind


class _Search:
    """The state of one BFS: states seen (canonical key -> parent key, action index),
    the queue of (state, key, depth) to expand, and the report being filled in."""

    def __init__(self, model: Model, scope, symmetry: bool, on_state: Callable[[object], None] | None):
        self.model, self.scope, self.on_state = model, scope, on_state
        self.key = (lambda s: model.canonical(scope, s)) if symmetry else (lambda s: s)
        checked = [p.name for p in model.properties if p.kind != "sometimes"] + ["no_deadlock"]
        # can_settle (groupcheck.liveness) needs the graph of protocol steps
        self.graph = liveness.Graph() if model.settled is not None else None
        self.faults = frozenset(model.fault_kinds)
        self.sometimes = [p for p in model.properties if p.kind == "sometimes"]
        self.report = Report(model.name, "bfs", checked=checked,
                             witnessed={p.name: False for p in self.sometimes})
        self.parents: dict = {}
        self.queue: deque = deque()

    def keep(self, state, k, parent, index: int, depth: int) -> None:
        self.parents[k] = (parent, index)
        self.queue.append((state, k, depth))
        if self.on_state is not None:
            self.on_state(state)

    def path_to(self, k) -> list[int]:
        out = []
        while True:
            parent, index = self.parents[k]
            out.append(index)
            if parent is None:
                return out[::-1]
            k = parent

    def violate(self, found: list[tuple[str, str]], path: list[int]) -> None:
        name, message = found[0]
        self.report.violation = Violation(name, message, path, _kind(self.model, name))

    def start(self) -> None:
        for i, init in enumerate(self.model.init_states(self.scope)):
            k = self.key(init)
            if k in self.parents:
                continue
            self.keep(init, k, None, i, 0)
            found = _violations(self.model, self.scope, None, init)
            if found:
                self.violate(found, [i])
                return

    def settle_check(self) -> None:
        """can_settle, once the whole graph is known: the shallowest state from which no
        settled state is reachable by protocol steps alone is the counterexample."""
        if self.graph is None:
            return
        self.report.checked.append("can_settle")       # judged only on a complete search
        stuck = liveness.stuck(self.graph)
        if stuck:
            keys = list(self.graph.ids)
            self.violate([("can_settle", f"from this state no run without further faults or operations "
                                         f"settles the group ({len(stuck):,} such states)")],
                         self.path_to(keys[stuck[0]]))

    def expand(self, stop_at_first: bool) -> None:
        """Expand the next queued state: witnesses, deadlock, every successor."""
        model, scope, report, key, parents = self.model, self.scope, self.report, self.key, self.parents
        state, k, depth = self.queue.popleft()
        report.depth = max(report.depth, depth)
        for prop in self.sometimes:
            if not report.witnessed[prop.name] and prop.check(scope, state) is not None:
                report.witnessed[prop.name] = True
        graph = self.graph
        here = graph.id(k) if graph is not None else -1
        if not model.within_bounds(scope, state):
            if graph is not None:
                graph.good[here] = True       # not expanded: what follows is unknown
            return
        if graph is not None:
            graph.good[here] = model.settled(scope, state)
        enabled = model.actions(scope, state)
        if not enabled and not model.is_terminal_ok(scope, state):
            self.violate([("no_deadlock", "no action is enabled")], self.path_to(k))
            return
        for index, action in enumerate(enabled):
            nxt, events = model.step(scope, state, action)
            report.transitions += 1
            # transition claims on every transition; state claims only on new states
            # (they are functions of the state, and symmetric under ``canonical``)
            nk = key(nxt)
            if graph is not None and action.kind not in self.faults:
                graph.succ[here].append(graph.id(nk))
            found = check_state(model, scope, nxt) if nk not in parents else []
            found += check_step(model, scope, Step(state, action, index, nxt, events))
            if found:
                self.violate(found, self.path_to(k) + [index])
                if stop_at_first:
                    return
            if nk not in parents:
                self.keep(nxt, nk, k, index, depth + 1)


def bfs(model: Model, scope, *, symmetry: bool = True, max_states: int | None = None,
        progress: Callable[[int, int], None] | None = None, stop_at_first: bool = True,
        on_state: Callable[[object], None] | None = None, budget: Budget | None = None) -> Report:
    """Breadth-first search over ``scope``; stops at the first violation (shortest).

    Stops early, with ``report.cut`` naming the limit, once ``max_states`` distinct
    states are kept or ``budget`` is spent (looked at every ``TICK`` expanded states,
    when ``progress(states, depth)`` is called too). ``on_state(state)``, if given, is called
    once per distinct (canonical) state the search keeps, with the first concrete state
    found for it, initial states included.
    """
    started = time.perf_counter()
    budget = budget or Budget()
    search = _Search(model, scope, symmetry, on_state)
    report = search.report
    search.start()
    expanded = 0
    while search.queue and report.violation is None and report.cut is None:
        search.expand(stop_at_first)
        expanded += 1
        if report.violation is not None:
            break
        if max_states is not None and len(search.parents) >= max_states:
            report.cut = "max-states"
        elif expanded % TICK == 0:
            report.cut = budget.spent()
            if progress is not None:
                progress(len(search.parents), report.depth)
    if report.violation is None and report.cut is None and not search.queue:
        search.settle_check()
    if report.violation is not None:
        report.depth = len(report.violation.path) - 1
    report.states = len(search.parents)
    report.complete = report.cut is None and report.violation is None
    report.seconds = time.perf_counter() - started
    return report


def walk(model: Model, scope, seed: int, length: int, kinds: frozenset[str] | None = None):
    """One random walk; returns (path, violation or None, steps taken)."""
    rng = random.Random(seed)
    inits = model.init_states(scope)
    i = rng.randrange(len(inits))
    state = inits[i]
    path = [i]
    for _ in range(length):
        if not model.within_bounds(scope, state):
            break
        enabled = model.actions(scope, state)
        choices = [j for j, a in enumerate(enabled) if kinds is None or a.kind in kinds]
        if not choices:
            if not enabled and not model.is_terminal_ok(scope, state):
                return path, Violation("no_deadlock", "no action is enabled", path, "deadlock"), len(path) - 1
            break
        index = rng.choice(choices)
        action = enabled[index]
        nxt, events = model.step(scope, state, action)
        path.append(index)
        found = _violations(model, scope, Step(state, action, index, nxt, events), nxt)
        if found:
            name, msg = found[0]
            return path, Violation(name, msg, path, _kind(model, name)), len(path) - 1
        state = nxt
    return path, None, len(path) - 1


def swarm_kinds(model: Model, rng: random.Random) -> frozenset[str]:
    """Swarm testing: each walk enables each action kind with probability 1/2; the
    model's progress steps (``Model.progress_kinds``) are always on."""
    always = set(model.progress_kinds)
    return frozenset(k for k in model.action_kinds if k in always or rng.random() < 0.5)


def walks(model: Model, scope, *, seed: int = 0, count: int = 200, length: int = 60,
          swarm: bool = True, progress: Callable[[int, int], None] | None = None,
          budget: Budget | None = None) -> Report:
    """``count`` seeded walks; stops at the first violation, or early (``report.cut``)
    once ``budget`` is spent (looked at before each walk). ``progress(walks, steps)``
    is called after each walk."""
    started = time.perf_counter()
    budget = budget or Budget()
    checked = [p.name for p in model.properties if p.kind != "sometimes"] + ["no_deadlock"]
    report = Report(model.name, "walks", checked=checked)
    rng = random.Random(seed)
    for _ in range(count):
        report.cut = budget.spent()
        if report.cut is not None:
            break
        walk_seed = rng.randrange(2 ** 32)
        kinds = swarm_kinds(model, random.Random(walk_seed)) if swarm else None
        path, violation, steps = walk(model, scope, walk_seed, length, kinds)
        report.states += steps
        report.walks += 1
        report.depth = max(report.depth, steps)
        if progress is not None:
            progress(report.walks, report.states)
        if violation is not None:
            report.violation = violation
            break
    report.complete = report.violation is None and report.cut is None
    report.transitions = report.states
    report.seconds = time.perf_counter() - started
    return report
