"""Exhaustive BFS and seeded swarm random walks over any ``model.core.Model``.

BFS explores states in order of depth, keyed by ``canonical`` (symmetry reduction),
so the first violation found has a shortest path; the queue keeps the actual states
so every path replays exactly. Walks pick a random subset of action kinds per walk
(swarm testing) and then uniformly among the enabled actions of those kinds.
"""
from __future__ import annotations

import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from model.core import Model, Step, check_state, check_step

from . import liveness


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


def _kind(model: Model, name: str) -> str:
    return CHECKER_CLAIMS.get(name) or model.property(name).kind


def bfs(model: Model, scope, *, symmetry: bool = True, max_states: int | None = None,
        progress: Callable[[int, int], None] | None = None, stop_at_first: bool = True,
        on_state: Callable[[object], None] | None = None) -> Report:
    """Breadth-first search over ``scope``; stops at the first violation (shortest).

    ``on_state(state)``, if given, is called once per distinct (canonical) state the
    search keeps, with the first concrete state found for it, initial states included.
    When the model says what a settled group is (``Model.settled``), a complete search
    also checks ``can_settle`` (``groupcheck.liveness``).
    """
    started = time.perf_counter()
    key = (lambda s: model.canonical(scope, s)) if symmetry else (lambda s: s)
    graph = liveness.Graph() if model.settled is not None else None
    faults = frozenset(model.fault_kinds)
    checked = [p.name for p in model.properties if p.kind != "sometimes"] + ["no_deadlock"]
    if graph is not None:
        checked.append("can_settle")
    sometimes = [p for p in model.properties if p.kind == "sometimes"]
    report = Report(model.name, "bfs", checked=checked, witnessed={p.name: False for p in sometimes})
    parents: dict = {}
    queue: deque = deque()
    for i, init in enumerate(model.init_states(scope)):
        k = key(init)
        if k in parents:
            continue
        parents[k] = (None, i)
        queue.append((init, k, 0))
        if on_state is not None:
            on_state(init)
        found = _violations(model, scope, None, init)
        if found:
            report.violation = Violation(found[0][0], found[0][1], [i], _kind(model, found[0][0]))
            break

    def path_to(k) -> list[int]:
        out = []
        while True:
            parent, index = parents[k]
            out.append(index)
            if parent is None:
                return out[::-1]
            k = parent

    while queue and report.violation is None:
        state, k, depth = queue.popleft()
        report.depth = max(report.depth, depth)
        for prop in sometimes:
            if not report.witnessed[prop.name] and prop.check(scope, state) is not None:
                report.witnessed[prop.name] = True
        here = graph.id(k) if graph is not None else -1
        if not model.within_bounds(scope, state):
            if graph is not None:
                graph.good[here] = True       # not expanded: what follows is unknown
            continue
        if graph is not None:
            graph.good[here] = model.settled(scope, state)
        enabled = model.actions(scope, state)
        if not enabled and not model.is_terminal_ok(scope, state):
            report.violation = Violation("no_deadlock", "no action is enabled", path_to(k), "deadlock")
            break
        for index, action in enumerate(enabled):
            nxt, events = model.step(scope, state, action)
            report.transitions += 1
            # transition claims on every transition; state claims only on new states
            # (they are functions of the state, and symmetric under ``canonical``)
            nk = key(nxt)
            if graph is not None and action.kind not in faults:
                graph.succ[here].append(graph.id(nk))
            found = check_state(model, scope, nxt) if nk not in parents else []
            found += check_step(model, scope, Step(state, action, index, nxt, events))
            if found:
                report.violation = Violation(found[0][0], found[0][1], path_to(k) + [index],
                                             _kind(model, found[0][0]))
                if stop_at_first:
                    break
            if nk in parents:
                continue
            parents[nk] = (k, index)
            queue.append((nxt, nk, depth + 1))
            if on_state is not None:
                on_state(nxt)
            if progress is not None and len(parents) % 5000 == 0:
                progress(len(parents), depth + 1)
        if max_states is not None and len(parents) >= max_states:
            report.complete = False
            break
    if graph is not None and report.violation is None and report.complete and not queue:
        stuck = liveness.stuck(graph)
        if stuck:
            keys = list(graph.ids)
            report.violation = Violation(
                "can_settle", f"from this state no run without further faults or operations settles "
                f"the group ({len(stuck):,} such states)", path_to(keys[stuck[0]]), "liveness")
    if report.violation is not None:
        report.depth = len(report.violation.path) - 1
    report.states = len(parents)
    report.complete = report.complete and report.violation is None
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
          swarm: bool = True, progress: Callable[[int], None] | None = None) -> Report:
    """``count`` seeded walks; stops at the first violation."""
    started = time.perf_counter()
    checked = [p.name for p in model.properties if p.kind != "sometimes"] + ["no_deadlock"]
    report = Report(model.name, "walks", checked=checked)
    rng = random.Random(seed)
    for n in range(count):
        walk_seed = rng.randrange(2 ** 32)
        kinds = swarm_kinds(model, random.Random(walk_seed)) if swarm else None
        path, violation, steps = walk(model, scope, walk_seed, length, kinds)
        report.states += steps
        report.walks += 1
        report.depth = max(report.depth, steps)
        if progress is not None:
            progress(n + 1)
        if violation is not None:
            report.violation = violation
            report.complete = False
            break
    report.transitions = report.states
    report.seconds = time.perf_counter() - started
    return report
