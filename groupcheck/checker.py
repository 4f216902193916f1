"""Exhaustive BFS and seeded swarm random walks over any ``model.core.Model``.

BFS explores states in order of depth, keyed by ``canonical`` (symmetry reduction),
so the first violation found has a shortest path; the queue keeps the actual states
so every path replays exactly. A state seen is remembered by a 64-bit fingerprint,
``hash()`` of its canonical form, as TLC does (``exact=True`` keeps the canonical state
itself): Python seeds the hash of strings per process, so fingerprints differ from run
to run, but within one search they agree, and that is all BFS needs. Walks pick a random subset of action kinds per walk
(swarm testing) and then uniformly among the enabled actions of those kinds.

Limits: ``max_states`` bounds one search; a ``Budget`` bounds a whole command (wall
time, resident memory) and carries the flag SIGINT (Ctrl-C) or SIGTERM sets. A search
that meets either stops early and says why in ``Report.cut``; what it explored so far
stays reported. A limit that strikes inside a user's code (``stopping.Stopped``) cuts
the search the same way.
"""
from __future__ import annotations

import gc
import random
import signal
import sys
import time
from array import array
from dataclasses import dataclass, field
from typing import Callable

import psutil

from groupcheck.model.core import Model, replay

from . import liveness
from .frontier import BLOCK, LOOSE, Frontier
from .stopping import Stopped
from .visited import MERGE_AFTER, Visited

TICK = 256       # states BFS expands between two looks at the budget and the progress display


def resident() -> int:
    """This process's resident set size, in bytes."""
    return psutil.Process().memory_info().rss


@dataclass
class Budget:
    """What one command may spend in all: wall time from ``started`` and resident memory
    (``None``: no limit). ``interrupted`` is set by the SIGINT/SIGTERM handler, with
    ``signum`` the signal that came (``console.interruptible``)."""

    max_seconds: float | None = None
    max_memory: int | None = None
    started: float = field(default_factory=time.monotonic)
    interrupted: bool = False
    signum: int = signal.SIGINT

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def interrupt(self, signum: int = signal.SIGINT) -> None:
        """Stop the command at its searches' next look: ``signum`` came."""
        self.signum, self.interrupted = signum, True

    def cause(self) -> str:
        """What interrupted the command, as the user knows it: "Ctrl-C" or "SIGTERM"."""
        return "SIGTERM" if self.signum == signal.SIGTERM else "Ctrl-C"

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
    kind: str = "always"     # always | within | deadlock | liveness
    loop: int | None = None  # a lasso: the run repeats the steps after state ``loop`` forever


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
    cut_in: str | None = None    # the user's code running when the limit struck ("assignor mymod:Hang")
    violation: Violation | None = None
    checked: list[str] = field(default_factory=list)
    witnessed: dict[str, bool] = field(default_factory=dict)
    walks: int = 0
    exact: bool = False      # BFS kept whole states, not fingerprints
    collision: float | None = None   # BFS with fingerprints: the chance a collision hid a state

    @property
    def held(self) -> list[str]:
        broken = self.violation.property if self.violation else None
        return [p for p in self.checked if p != broken]


class Claims:
    """A model's claims, sorted once per search: ``state`` and ``step`` hold (name, check)
    of the always/within claims on states and on transitions, ``sometimes`` the witnesses,
    ``checked`` every claim a search checks (the checker's ``no_deadlock`` included)."""

    def __init__(self, model: Model):
        self.state = [(p.name, p.check) for p in model.state_claims]
        self.step = [(p.name, p.check) for p in model.step_claims]
        self.sometimes = [(p.name, p.check) for p in model.properties if p.kind == "sometimes"]
        self.checked = [p.name for p in model.properties if p.kind != "sometimes"] + ["no_deadlock"]
        # the checks alone, for the loops below (run on every transition)
        self._state_checks = tuple(check for _, check in self.state)
        self._step_checks = tuple(check for _, check in self.step)

    def broken(self, scope, prev, action, nxt, events, new: bool = True) -> tuple[str, str] | None:
        """The first claim broken by the transition ``prev --action--> nxt``: state claims
        at ``nxt`` (when ``new``), then transition claims, as ``model.core`` orders them.
        ``prev`` None: ``nxt`` is an initial state, with no transition to judge."""
        if new:
            for check in self._state_checks:
                msg = check(scope, nxt)
                if msg is not None:     # the first claim with this check is the one that ran
                    return self.state[self._state_checks.index(check)][0], msg
        if prev is not None:
            for check in self._step_checks:
                msg = check(scope, prev, action, nxt, events)
                if msg is not None:
                    return self.step[self._step_checks.index(check)][0], msg
        return None


CHECKER_CLAIMS = {"no_deadlock": "deadlock", "can_settle": "liveness", "settles_under_fairness": "liveness"}
# what the checker itself claims of every protocol, next to the model's properties
CHECKER_DOCS = {
    "no_deadlock": "Every reachable state that is not a settled end has an enabled action "
                   "(BFS and walks).",
    "can_settle": "From every state BFS reaches, some settled state stays reachable by the protocol's own "
                  "steps, with no further fault or operation (AG EF settled; BFS only, judged once the "
                  "search is complete; states beyond the scope's bounds count as able to settle).",
    "settles_under_fairness": "Once faults stop, the group settles: no cycle of non-fault steps through unsettled "
                              "states is fair to every step of every client (weak fairness per non-fault action "
                              "kind and slot; TLA+: WF_vars per action => []<>Converged). BFS without symmetry "
                              "reduction, on request (--fairness), before can_settle; the counterexample is a lasso.",
}


def liveness_claims(model: Model) -> tuple[str, ...]:
    """The checker's liveness claims ``model`` has (``CHECKER_CLAIMS`` of kind liveness): both
    judge the graph of protocol steps, which BFS keeps only for a model with ``settled``."""
    if model.settled is None:
        return ()
    return tuple(name for name, kind in CHECKER_CLAIMS.items() if kind == "liveness")


def _kind(model: Model, name: str) -> str:
    return CHECKER_CLAIMS.get(name) or model.property(name).kind


def collision_probability(states: int) -> float:
    """The chance that two of ``states`` distinct states share a 64-bit fingerprint, so that
    BFS took one for the other and never explored it (the birthday bound, as TLC reports it:
    about n^2 / 2^65, for fingerprints that behave like random numbers)."""
    return min(1.0, states * (states - 1) / 2 ** 65)


class _Search:
    """The state of one BFS. Each distinct state gets a number, in the order BFS finds
    it (and so expands it): ``ids`` maps its key (a 64-bit fingerprint of the canonical
    state, or with ``exact`` the canonical state itself) to that number (compactly once
    large, ``groupcheck.visited``); ``parent`` and ``via`` give, by number, the state it
    was first reached from and the action index taken (for an initial state: -1 and its
    index among the initial states), from which ``path_to`` rebuilds a shortest path. The queue holds the states still to expand
    (the concrete states, so every path replays exactly; packed in blocks once many
    wait, ``groupcheck.frontier``); the state popped next is always number ``expanded``."""

    def __init__(self, model: Model, scope, symmetry: bool, exact: bool,
                 on_state: Callable[[object], None] | None, loose: int | None = None, block: int = BLOCK,
                 merge_after: int = MERGE_AFTER):
        self.model, self.scope, self.on_state = model, scope, on_state
        canonical = model.canonical
        if exact:
            self.key = (lambda s: canonical(scope, s)) if symmetry else (lambda s: s)
        else:
            self.key = (lambda s: hash(canonical(scope, s))) if symmetry else hash
        self.claims = Claims(model)
        self.faults = frozenset(model.fault_kinds)
        self.converged = model.converged
        self.instances: dict[tuple[str, int], int] = {}     # (kind, slot) -> its edge label (settles_under_fairness)
        # can_settle (groupcheck.liveness) needs the graph of protocol steps
        self.graph = liveness.Edges() if model.settled is not None else None
        self.report = Report(model.name, "bfs", checked=list(self.claims.checked), exact=exact,
                             witnessed={name: False for name, _ in self.claims.sometimes})
        self.ids = Visited(None if exact else merge_after)
        self.parent = array("i")
        self.via = array("i")
        if loose is None:
            # with ``exact`` the store keeps the states waiting alive anyway (most are their
            # own canonical form): packing them would only add unpacked copies
            loose = sys.maxsize if exact else LOOSE
        self.queue = Frontier(loose, block)
        self.expanded = 0          # states popped so far: the number of the next one
        self.level_end = 0         # the first number of the next depth
        self.depth = -1

    def keep(self, state, k, parent: int, index: int) -> None:
        self.ids.add(k, len(self.parent))
        self.parent.append(parent)
        self.via.append(index)
        self.queue.append(state)
        if self.on_state is not None:
            self.on_state(state)

    def path_to(self, i: int) -> list[int]:
        out = []
        while i >= 0:
            out.append(self.via[i])
            i = self.parent[i]
        return out[::-1]

    def violate(self, found: tuple[str, str], path: list[int]) -> None:
        name, message = found
        self.report.violation = Violation(name, message, path, _kind(self.model, name))

    def start(self) -> None:
        for i, init in enumerate(self.model.init_states(self.scope)):
            k = self.key(init)
            if self.ids.get(k) is not None:
                continue
            self.keep(init, k, -1, i)
            found = self.claims.broken(self.scope, None, None, init, ())
            if found:
                self.violate(found, [i])
                return

    def settle_check(self) -> None:
        """can_settle, once the whole graph is known: the first state in the graph's
        order from which no settled state is reachable by protocol steps alone is the
        counterexample."""
        if self.graph is None:
            return
        self.report.checked.append("can_settle")       # judged only on a complete search
        stuck = liveness.stuck(self.graph)
        if stuck:
            self.violate(("can_settle", f"from this state no run without further faults or operations "
                                        f"settles the group ({len(stuck):,} such states)"),
                         self.path_to(self.graph.first_of(stuck)))

    def label(self, action) -> int:
        """The fairness instance of a non-fault step: its (kind, slot)."""
        return self.instances.setdefault((action.kind, action.slot), len(self.instances))

    def fairness_check(self) -> None:
        """settles_under_fairness, once the whole graph is known (before can_settle, which
        it implies when ``converged`` is ``settled``): the fair component nearest the
        initial states, as a lasso."""
        self.report.checked.append("settles_under_fairness")
        found = liveness.fair_cycles(self.graph)
        if not found.components:
            return
        comp = found.components[0]
        nodes = liveness.cycle(self.graph, comp)
        prefix = self.path_to(comp[0])
        first, steps = replay(self.model, self.scope, prefix)
        entry = steps[-1].next if steps else first
        path, loop = liveness.lasso(self.model, self.scope, prefix, entry, nodes,
                                    lambda s: self.ids.get(self.key(s)),
                                    lambda a: self.instances.get((a.kind, a.slot), -1))
        what = "the run stops there" if not nodes else f"a cycle of {len(path) - 1 - loop} steps repeats"
        self.violate(("settles_under_fairness",
                      f"once faults stop, {what} without settling, though every step enabled "
                      f"throughout is taken ({len(found.components):,} fair component(s), "
                      f"{found.states:,} states)"), path)
        self.report.violation.loop = loop

    def expand(self, stop_at_first: bool) -> None:
        """Expand the next queued state: witnesses, deadlock, every successor."""
        model, scope, report, key, claims = self.model, self.scope, self.report, self.key, self.claims
        ids = self.ids
        state = self.queue.popleft()
        here = self.expanded
        self.expanded += 1
        if here == self.level_end:      # the first state of the next depth
            self.depth += 1
            self.level_end = len(self.parent)
            report.depth = self.depth
        for name, check in claims.sometimes:
            if not report.witnessed[name] and check(scope, state) is not None:
                report.witnessed[name] = True
        graph = self.graph
        if not model.within_bounds(scope, state):
            if graph is not None:
                graph.expand(True)       # not expanded: what follows is unknown
            return
        if graph is not None:
            good = model.settled(scope, state)
            graph.expand(good, good or (self.converged is not None and self.converged(scope, state)))
        enabled = model.actions(scope, state)
        if not enabled and not model.is_terminal_ok(scope, state):
            self.violate(("no_deadlock", "no action is enabled"), self.path_to(here))
            return
        faults, step = self.faults, model.step
        for index, action in enumerate(enabled):
            nxt, events = step(scope, state, action)
            report.transitions += 1
            # transition claims on every transition; state claims only on new states
            # (they are functions of the state, and symmetric under ``canonical``)
            nk = key(nxt)
            there = ids.get(nk)
            new = there is None
            if graph is not None and action.kind not in faults:
                graph.add(len(self.parent) if new else there, self.label(action))
            found = claims.broken(scope, state, action, nxt, events, new)
            if found:
                self.violate(found, self.path_to(here) + [index])
                if stop_at_first:
                    return
            if new:
                self.keep(nxt, nk, here, index)


def bfs(model: Model, scope, *, symmetry: bool = True, max_states: int | None = None,
        progress: Callable[[int, int], None] | None = None, stop_at_first: bool = True,
        on_state: Callable[[object], None] | None = None, budget: Budget | None = None,
        exact: bool = False, loose: int | None = None, block: int = BLOCK,
        merge_after: int = MERGE_AFTER, fairness: bool = False) -> Report:
    """Breadth-first search over ``scope``; stops at the first violation (shortest).

    Stops early, with ``report.cut`` naming the limit, once ``max_states`` distinct
    states are kept or ``budget`` is spent (looked at every ``TICK`` expanded states,
    when ``progress(states, depth)`` is called too). ``on_state(state)``, if given, is called
    once per distinct (canonical) state the search keeps, with the first concrete state
    found for it, initial states included. States seen are told apart by 64-bit
    fingerprints (``report.collision`` gives the chance that two shared one), or with
    ``exact`` by the whole canonical state. ``loose`` and ``block`` set when and how the
    frontier packs the states waiting (``groupcheck.frontier``; by default only without
    ``exact``), ``merge_after`` when the visited store turns compact
    (``groupcheck.visited``); tests make them small. ``fairness`` adds the claim
    ``settles_under_fairness`` (``groupcheck.liveness``), judged before ``can_settle``, and
    turns symmetry reduction off: fairness is per slot, and a reduced graph mixes slots.
    """
    started = time.perf_counter()
    budget = budget or Budget()
    symmetry = symmetry and not fairness
    search = _Search(model, scope, symmetry, exact, on_state, loose, block, merge_after)
    report = search.report
    collecting = gc.isenabled()
    gc.disable()        # the models' steps leave no reference cycles: the collector would only slow BFS
    try:
        search.start()
        while search.queue and report.violation is None and report.cut is None:
            search.expand(stop_at_first)
            if report.violation is not None:
                break
            if max_states is not None and len(search.parent) >= max_states:
                report.cut = "max-states"
            elif search.expanded % TICK == 0:
                report.cut = budget.spent()
                if progress is not None:
                    progress(len(search.parent), report.depth)
        if report.violation is None and report.cut is None and not search.queue:
            if fairness and search.graph is not None:
                search.fairness_check()
            if report.violation is None:
                search.settle_check()
    except Stopped as e:        # a user's code (an assignor) was running when a limit struck
        report.cut, report.cut_in = e.limit, e.where
    finally:
        if collecting:
            gc.enable()
    if report.violation is not None:
        report.depth = len(report.violation.path) - 1
    report.states = len(search.parent)
    report.collision = None if exact else collision_probability(report.states)
    report.complete = report.cut is None and report.violation is None
    report.seconds = time.perf_counter() - started
    return report


class Moves:
    """What walks ask the model of a state, remembered for one ``walks`` run: whether it is
    within bounds, its enabled actions, and the transitions taken from it. Walks revisit
    the same states again and again (1,000 consumer walks of 80 steps meet about 3,000
    distinct states), and these are pure functions of the state, so each is computed once
    per state; the claims are still checked on every step. At most ``LIMIT`` states are
    kept (then it starts over), so memory stays bounded on long runs."""

    LIMIT = 1 << 14

    def __init__(self, model: Model, scope):
        self.model, self.scope = model, scope
        self.known: dict = {}

    def at(self, state) -> tuple[bool, tuple, dict]:
        """(within bounds, enabled actions, {action index: (next state, events)} so far)."""
        entry = self.known.get(state)
        if entry is None:
            if len(self.known) >= self.LIMIT:
                self.known.clear()
            inside = self.model.within_bounds(self.scope, state)
            entry = (inside, self.model.actions(self.scope, state) if inside else (), {})
            self.known[state] = entry
        return entry


def walk(model: Model, scope, seed: int, length: int, kinds: frozenset[str] | None = None,
         claims: Claims | None = None, inits: tuple | None = None, moves: Moves | None = None):
    """One random walk; returns (path, violation or None, steps taken). ``claims``:
    ``Claims(model)``, ``inits``: ``model.init_states(scope)``, and ``moves``:
    ``Moves(model, scope)``, made once for many walks."""
    claims = claims or Claims(model)
    moves = moves or Moves(model, scope)
    step, terminal_ok = model.step, model.is_terminal_ok
    rng = random.Random(seed)
    if inits is None:
        inits = model.init_states(scope)
    i = rng.randrange(len(inits))
    state = inits[i]
    path = [i]
    for _ in range(length):
        inside, enabled, taken = moves.at(state)
        if not inside:
            break
        if kinds is None:
            choices = range(len(enabled))
        else:
            choices = [j for j, a in enumerate(enabled) if a.kind in kinds]
        if not choices:
            if not enabled and not terminal_ok(scope, state):
                return path, Violation("no_deadlock", "no action is enabled", path, "deadlock"), len(path) - 1
            break
        index = rng.choice(choices)
        action = enabled[index]
        moved = taken.get(index)
        if moved is None:
            moved = taken[index] = step(scope, state, action)
        nxt, events = moved
        path.append(index)
        found = claims.broken(scope, state, action, nxt, events)
        if found:
            name, msg = found
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
    claims, moves = Claims(model), Moves(model, scope)
    inits = model.init_states(scope)
    report = Report(model.name, "walks", checked=list(claims.checked))
    rng = random.Random(seed)
    for _ in range(count):
        report.cut = budget.spent()
        if report.cut is not None:
            break
        walk_seed = rng.randrange(2 ** 32)
        kinds = swarm_kinds(model, random.Random(walk_seed)) if swarm else None
        try:
            path, violation, steps = walk(model, scope, walk_seed, length, kinds, claims, inits, moves)
        except Stopped as e:     # a user's code was running when a limit struck: the walk is lost
            report.cut, report.cut_in = e.limit, e.where
            break
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
