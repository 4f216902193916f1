"""Shrinking a violating path by delta debugging, with the model's replay.

A path's indices mean something only at the state they meet: dropping a step shifts
what every later index picks. So the shrinker works on the *actions* the path takes
(the model's action values) and turns a candidate list of actions back into a path by
replaying it: at each state the action is looked up among the enabled ones (an action
no longer enabled is skipped, as if dropped). A candidate is kept when that path
replays and ``first_violation`` finds the same property broken; it is cut right after
the step that broke it. Passes, repeated until none shortens the path: ddmin (drop
chunks of actions, halving the chunk size down to single actions), then replacing each
step by an action the model lists earlier at that state (and the initial state by an
earlier one). Deterministic (no randomness, a fixed order) and bounded by
``max_replays``. Indices out of range make a candidate invalid (``PathError``)."""
from __future__ import annotations

from dataclasses import dataclass

from groupcheck.model.core import Model, PathError, first_violation, replay

MAX_REPLAYS = 20_000


@dataclass
class Shrunk:
    path: list[int]
    property: str
    message: str
    replays: int          # candidates replayed
    original: int         # steps of the path given


class _Judge:
    """Replays candidates: (initial index, actions) -> the violating path, cut, or None."""

    def __init__(self, model: Model, scope, prop: str, max_replays: int):
        self.model, self.scope, self.prop, self.max_replays = model, scope, prop, max_replays
        self.inits = model.init_states(scope)
        self.replays = 0
        self.seen: dict = {}

    @property
    def spent(self) -> bool:
        return self.replays >= self.max_replays

    def path_of(self, init: int, actions: list) -> list[int] | None:
        """The index path of ``actions`` from initial state ``init``, skipping the ones not enabled."""
        if not 0 <= init < len(self.inits):
            return None
        model, scope = self.model, self.scope
        state, path = self.inits[init], [init]
        for action in actions:
            enabled = model.actions(scope, state) if model.within_bounds(scope, state) else ()
            try:
                index = enabled.index(action)
            except ValueError:
                continue
            path.append(index)
            state, _ = model.step(scope, state, enabled[index])
        return path

    def judge(self, path: list[int]) -> list[int] | None:
        key = tuple(path)
        if key in self.seen:
            return self.seen[key]
        self.replays += 1
        try:
            first, steps = replay(self.model, self.scope, path)
        except PathError:
            found = None
        else:
            v = first_violation(self.model, self.scope, first, steps)
            found = path[:v[2] + 1] if v is not None and v[0] == self.prop else None
        self.seen[key] = found
        return found

    def __call__(self, init: int, actions: list) -> list[int] | None:
        path = self.path_of(init, actions)
        return None if path is None else self.judge(path)

    def actions(self, path: list[int]) -> list:
        _, steps = replay(self.model, self.scope, path)
        return [s.action for s in steps]


def _ddmin(judge: _Judge, path: list[int]) -> list[int]:
    """Drop chunks of actions, largest chunks first (the initial state stays)."""
    actions = judge.actions(path)
    chunk = max(1, len(actions) // 2)
    while chunk >= 1 and not judge.spent:
        i, changed = 0, False
        while i < len(actions) and not judge.spent:
            kept = judge(path[0], actions[:i] + actions[i + chunk:])
            if kept is not None and len(kept) < len(path):
                path, actions, changed = kept, judge.actions(kept), True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return path


def _smaller(judge: _Judge, path: list[int]) -> list[int]:
    """Replace each step by an action listed earlier at its state (the initial-state
    index by a smaller one), the rest of the actions following as before."""
    for j in range(path[0]):
        kept = judge(j, judge.actions(path))
        if kept is not None and len(kept) <= len(path):
            path = kept
            break
    i = 1
    while i < len(path) and not judge.spent:
        actions = judge.actions(path)     # actions[i - 1] is step i's
        for j in range(path[i]):
            if judge.spent:
                break
            trial = _replace(judge, path, i, j, actions)
            if trial is not None and (len(trial), trial) < (len(path), path):
                path = trial
                break
        i += 1
    return path


def _replace(judge: _Judge, path: list[int], i: int, j: int, actions: list) -> list[int] | None:
    """``path`` with step ``i`` taking action index ``j``, the later actions following by value."""
    prefix = path[:i] + [j]
    try:
        first, steps = replay(judge.model, judge.scope, prefix)
    except PathError:
        return None
    model, scope = judge.model, judge.scope
    state = steps[-1].next
    tail = []
    for action in actions[i:]:
        enabled = model.actions(scope, state) if model.within_bounds(scope, state) else ()
        try:
            index = enabled.index(action)
        except ValueError:
            continue
        tail.append(index)
        state, _ = model.step(scope, state, enabled[index])
    return judge.judge(prefix + tail)


def shrink(model: Model, scope, path: list[int], prop: str, max_replays: int = MAX_REPLAYS) -> Shrunk:
    """The shortest path this finds that still breaks ``prop``; ``path`` must break it."""
    judge = _Judge(model, scope, prop, max_replays)
    best = judge.judge(list(path))
    if best is None:
        raise ValueError(f"the path given does not break {prop}")
    while not judge.spent:
        before = best
        best = _smaller(judge, _ddmin(judge, best))
        if best == before:
            break
    first, steps = replay(model, scope, best)
    name, message, _ = first_violation(model, scope, first, steps)
    return Shrunk(best, name, message, judge.replays, len(path) - 1)
