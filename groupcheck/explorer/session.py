"""A walk through one protocol's model that a person steers: the Python face of the explorer.

A ``Session`` is a path ``[init index, action index, ...]`` (the same paths ``model.core.replay``
and every trace use) and the steps ahead of it (a trace being followed, or what
``back()`` stepped over). Everything shown of a state is computed from the model:

    >>> s = open_scope("consumer", {"members": 2})
    >>> [m.text for m in s.actions()][:2]
    ['C1: join', 'C2: join']
    >>> s.take(0).take(0).state            # a NamedTuple of the model
    >>> s.diff(), s.properties(), s.timeline().figure(), s.export_test("tests/test_x.py")

The web page (``server.py``) is a thin view over ``Session.view()``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groupcheck.model.core import PathError, Step, check_state, check_step
from groupcheck.model.core import replay as replay_path

from .. import regression, traces
from ..checker import Claims
from ..protocols import Protocol, UnknownProtocol, UnknownVariant, get, variant_job
from . import diff as diffs
from . import tables as state_tables
from .search import SearchResult

MAX_DEPTH = traces.MAX_STEPS


class ExploreError(ValueError):
    """A protocol, scope, path or trace the explorer cannot open; the message names it."""


@dataclass(frozen=True)
class Move:
    """An enabled action at the current state, and the claim its step would break (one
    already broken at the current state is not news, and not named)."""

    index: int
    text: str
    kind: str
    fault: bool                              # spends the scope's fault budget
    breaks: tuple[str, str] | None = None    # (property, message) the step would violate


@dataclass(frozen=True)
class Status:
    """One property at the current state."""

    name: str
    kind: str             # always | within | sometimes | checker
    status: str           # holds | violated | witnessed | not witnessed | not judged
    message: str          # the broken clause, or what was witnessed, or why not judged
    doc: str              # the KIP sentence the claim enforces
    first_broken: int | None = None    # the first step along the whole path where it broke


@dataclass(frozen=True)
class Found:
    property: str
    message: str
    step: int             # 0: the initial state; i: after the i-th action


def scope_of(protocol: Protocol, given: dict | None = None, profile: str | None = None):
    """The protocol's default scope, with the ``given`` fields (the scope's JSON form) and
    ``profile``; ExploreError names a field that is wrong."""
    model = protocol.model
    if profile is not None and profile not in protocol.profiles:
        raise ExploreError(f"unknown profile {profile!r} for {protocol.name}; known: {', '.join(protocol.profiles)}")
    if not given:
        scope = model.view.default_scope()
        return protocol.with_profile(scope, profile) if profile else scope
    base = model.view.scope_to_dict(model.view.default_scope())
    base.pop("behaviour", None)
    base.update(given)
    if profile is not None:
        base["profile"] = profile
    try:
        return model.view.scope_from_dict(base)
    except ValueError as e:
        raise ExploreError(f"scope: {e}") from None


def open_scope(protocol: str, scope: dict | None = None, profile: str | None = None) -> "Session":
    """A session at the first initial state of ``protocol`` (a name from ``groupcheck list``)
    under its default scope with the ``scope`` fields set."""
    try:
        p = get(protocol)
    except UnknownProtocol as e:
        raise ExploreError(str(e)) from None
    return Session(p, scope_of(p, scope, profile), [0], source=f"{protocol} scope")


def open_variant(key: str) -> "Session":
    """A session at the initial state of a known-bug variant's scope (``groupcheck list``)."""
    try:
        job = variant_job(key)
    except UnknownVariant as e:
        raise ExploreError(str(e)) from None
    return Session(job.protocol, job.scope, [0], source=f"variant {key}")


class Session:
    """Where a person is in a protocol's state space: a replayed path, and the steps ahead."""

    def __init__(self, protocol: Protocol, scope, path: list[int], ahead: list[int] = (),
                 source: str = "", recorded: dict | None = None):
        self.protocol, self.model, self.scope = protocol, protocol.model, scope
        self.source = source
        self.recorded = recorded           # the violation a trace recorded: {"property", "message"}
        self._claims = Claims(self.model)
        self._init, self._first, self._steps = self._replay(path)
        self._ahead = list(ahead)
        self._cache: dict[tuple, Any] = {}

    # ------------------------------------------------------------ where we are
    def _replay(self, path: list[int]) -> tuple[int, Any, list[Step]]:
        if len(path) > MAX_DEPTH + 1:
            raise ExploreError(f"path: {len(path) - 1:,} steps; the explorer replays at most {MAX_DEPTH:,}")
        try:
            first, steps = replay_path(self.model, self.scope, list(path))
        except PathError as e:
            raise ExploreError(f"path {'.'.join(map(str, path))}: {e}") from None
        return path[0], first, steps

    @property
    def path(self) -> list[int]:
        return [self._init] + [s.index for s in self._steps]

    @property
    def ahead(self) -> list[int]:
        """The action indices ``forward()`` would take, in order."""
        return list(self._ahead)

    @property
    def depth(self) -> int:
        return len(self._steps)

    @property
    def state(self):
        return self._steps[-1].next if self._steps else self._first

    @property
    def last_step(self) -> Step | None:
        return self._steps[-1] if self._steps else None

    # ------------------------------------------------------------ moving
    def take(self, index: int) -> "Session":
        """Take the ``index``-th enabled action. Taking the step ahead keeps the rest of
        the way ahead; any other action branches (the way ahead is dropped)."""
        if self.depth >= MAX_DEPTH:
            raise ExploreError(f"the explorer replays at most {MAX_DEPTH:,} steps")
        enabled = self.model.actions(self.scope, self.state) if self.model.within_bounds(self.scope, self.state) else ()
        if not isinstance(index, int) or not 0 <= index < len(enabled):
            raise ExploreError(f"action {index!r} is not enabled here; {len(enabled)} action(s) are (0..{len(enabled) - 1})")
        nxt, events = self.model.step(self.scope, self.state, enabled[index])
        self._steps.append(Step(self.state, enabled[index], index, nxt, events))
        if self._ahead and self._ahead[0] == index:
            self._ahead.pop(0)
        else:
            self._ahead = []
        return self

    def back(self) -> "Session":
        """One step back; the step undone becomes the first step ahead."""
        if self._steps:
            self._ahead.insert(0, self._steps.pop().index)
        return self

    def forward(self) -> "Session":
        """Take the first step ahead (a no-op at the end of the way ahead)."""
        return self.take(self._ahead[0]) if self._ahead else self

    def goto(self, path: list[int], ahead: list[int] | None = None) -> "Session":
        """Jump to the state ``path`` reaches (the way ahead kept when ``path`` lies on it)."""
        whole = self.path + self._ahead
        self._init, self._first, self._steps = self._replay(path)
        if ahead is not None:
            self._ahead = list(ahead)
        elif whole[: len(path)] == list(path):
            self._ahead = whole[len(path):]
        else:
            self._ahead = []
        return self

    def to_violation(self) -> "Session":
        """Go to the first violation along the path and the way ahead (stay if none)."""
        found = self.first_violation()
        if found is not None:
            self.goto((self.path + self._ahead)[: found.step + 1])
        return self

    # ------------------------------------------------------------ what is here
    def actions(self) -> list[Move]:
        """The enabled actions, each with the claim its step would break."""
        key = ("moves", tuple(self.path))
        if key in self._cache:
            return self._cache[key]
        state, scope, model = self.state, self.scope, self.model
        moves = []
        if model.within_bounds(scope, state):
            faults = set(model.fault_kinds)
            already = {name for name, _ in check_state(model, scope, state)}   # broken here: not news
            for i, a in enumerate(model.actions(scope, state)):
                nxt, events = model.step(scope, state, a)
                broken = self._claims.broken(scope, state, a, nxt, events)
                moves.append(Move(i, model.view.describe_action(scope, state, a), a.kind, a.kind in faults,
                                  None if broken is None or broken[0] in already else broken))
        self._cache[key] = moves
        return moves

    def action_text(self) -> str:
        s = self.last_step
        return self.model.view.describe_action(self.scope, s.prev, s.action) if s else "initial state"

    def events(self) -> list[str]:
        """The step's events a reader is told of (callbacks, rebalance milestones)."""
        s = self.last_step
        if s is None:
            return []
        shown = (self.model.view.describe_event(self.scope, e) for e in s.events)
        return [t for t in shown if t is not None]

    def itf_state(self, state=None) -> dict:
        return traces.as_json(self.model.view.state_to_itf(self.scope, self.state if state is None else state))

    def tables(self) -> list[state_tables.Table]:
        return state_tables.tables(self.itf_state())

    def diff(self) -> list[diffs.Change]:
        """The fields the last step changed (none at the initial state)."""
        s = self.last_step
        return diffs.changes(self.itf_state(s.prev) if s else None, self.itf_state())

    def _whole(self) -> tuple[Any, list[Step]]:
        """The path and the way ahead, replayed (cached)."""
        whole = tuple(self.path + self._ahead)
        key = ("whole", whole)
        if key not in self._cache:
            self._cache[key] = (self._first, self._steps + self._replay_ahead())
        return self._cache[key]

    def _replay_ahead(self) -> list[Step]:
        out, state = [], self.state
        for index in self._ahead:
            enabled = self.model.actions(self.scope, state)
            nxt, events = self.model.step(self.scope, state, enabled[index])
            out.append(Step(state, enabled[index], index, nxt, events))
            state = nxt
        return out

    def _broken_along(self) -> dict[str, tuple[int, str]]:
        """Each claim broken along the whole path: the first step where, and its message."""
        key = ("broken", tuple(self.path + self._ahead))
        if key in self._cache:
            return self._cache[key]
        first, steps = self._whole()
        out: dict[str, tuple[int, str]] = {}
        for i, claims in enumerate(self._broken_each()):
            for name, msg in claims.items():
                out.setdefault(name, (i, msg))
        last = steps[-1].next if steps else first
        if self._deadlocked(last):
            out.setdefault("no_deadlock", (len(steps), "no action is enabled"))
        self._cache[key] = out
        return out

    def _broken_each(self) -> list[dict[str, str]]:
        """Per state of the path and the way ahead (0: the initial state), the claims broken
        there, on the state or on the step into it: name -> message (cached)."""
        key = ("each", tuple(self.path + self._ahead))
        if key not in self._cache:
            first, steps = self._whole()
            m, sc = self.model, self.scope
            self._cache[key] = [dict(check_state(m, sc, first))] + [
                dict(check_state(m, sc, s.next) + check_step(m, sc, s)) for s in steps]
        return self._cache[key]

    def _deadlocked(self, state) -> bool:
        m, sc = self.model, self.scope
        return m.within_bounds(sc, state) and not m.actions(sc, state) and not m.is_terminal_ok(sc, state)

    def first_violation(self) -> Found | None:
        """The first claim broken along the path and the way ahead, as the checker orders them."""
        broken = self._broken_along()
        if not broken:
            return None
        name, (step, msg) = min(broken.items(), key=lambda kv: kv[1][0])
        # the checker's order within one step: the claims' order in the model
        order = [p.name for p in self.model.properties] + ["no_deadlock"]
        tied = [n for n, (at, _) in broken.items() if at == step]
        name = min(tied, key=order.index)
        return Found(name, broken[name][1], step)

    def properties(self) -> list[Status]:
        """Every property at this state: always/within claims on the state and on the step
        into it, witnesses, and the checker's no_deadlock."""
        model, scope, state, step = self.model, self.scope, self.state, self.last_step
        broken = self._broken_along()
        out = []
        for p in model.properties:
            first = broken.get(p.name, (None,))[0]
            if p.kind == "sometimes":
                msg = p.check(scope, state)
                out.append(Status(p.name, p.kind, "witnessed" if msg else "not witnessed", msg or "", p.doc, None))
            elif p.on == "state":
                msg = p.check(scope, state)
                out.append(Status(p.name, p.kind, "violated" if msg else "holds", msg or "", p.doc, first))
            elif step is None:
                out.append(Status(p.name, p.kind, "not judged", "a claim on steps; the initial state has none",
                                  p.doc, first))
            else:
                msg = p.check(scope, step.prev, step.action, step.next, step.events)
                out.append(Status(p.name, p.kind, "violated" if msg else "holds", msg or "", p.doc, first))
        dead = self._deadlocked(state)
        out.append(Status("no_deadlock", "checker", "violated" if dead else "holds",
                          "no action is enabled" if dead else "", "Every reachable state that is not a settled "
                          "end has an enabled action.", broken.get("no_deadlock", (None,))[0]))
        return out

    def timeline(self):
        """Who owned what at every state of the path and the way ahead, violations marked
        (a ``timeline.Timeline``: ``.table()``, ``.rich()``, ``.figure()``); None for a model
        without ``owners``."""
        first, steps = self._whole()
        states = [first] + [s.next for s in steps]
        actions = ["init"] + [self.model.view.describe_action(self.scope, s.prev, s.action) for s in steps]
        marks = sorted((step, name) for name, (step, _) in self._broken_along().items())
        from .timeline import timeline       # plotly is imported only when a timeline is drawn
        return timeline(self.model, self.scope, states, actions, marks, self._broken_each())

    # ------------------------------------------------------------ export
    def itf(self) -> dict:
        """The path (without the way ahead) as an ITF trace, the first violation in ``#meta``."""
        found = self._violation_on_path()
        meta = {"source": "groupcheck", "mode": "explore"}
        if found is not None:
            meta["violation"] = {"property": found.property, "message": found.message}
        return traces.build(self.model, self.scope, self.path, meta)

    def _violation_on_path(self) -> Found | None:
        found = self.first_violation()
        return found if found is not None and found.step <= self.depth else None

    def test_text(self) -> str:
        """A pytest module replaying the path: it asserts the first violation along it (the
        path cut at that step), or that nothing is violated along it."""
        found = self._violation_on_path()
        path = self.path[: found.step + 1] if found else self.path
        return regression.render(f"groupcheck explore ({self.source})", self.protocol.name,
                                 self.model.view.scope_to_dict(self.scope), path, found.property if found else None)

    def export_itf(self, path: str | Path) -> Path:
        from groupcheck.model import itf
        target = Path(path)
        target.write_text(itf.dumps(self.itf()))
        return target

    def export_test(self, path: str | Path) -> Path:
        target = Path(path)
        target.write_text(self.test_text())
        return target

    # ------------------------------------------------------------ search
    def run_to_violation(self, mode: str = "bfs", **limits) -> SearchResult:
        """Search from here for a violation (``search.run``); on success the session goes
        to the violating state, with the path there as its history."""
        from .search import run
        result = run(self, mode, **limits)
        if result.path is not None:
            self.goto(result.path)
        return result

    def view(self) -> dict:
        """Everything the web page shows of the current state, as JSON."""
        from .view import view
        return view(self)

