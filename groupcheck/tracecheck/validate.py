"""Trace validation: is a recorded history a behaviour of the model, and what does it break?

The search runs over pairs (model state, position in the history): from (s, i) the
model's action a leads to (s', i + k) when the k observations ``step(s, a)`` emits are
exactly events i .. i+k-1 of the history (a silent step, k = 0, keeps i). Pairs are
deduplicated on the exact state (not the checker's canonical form: that drops member
ids, which records show), and expanded best-first: the furthest position first, then in
the order found, so a valid history is usually matched without exploring around it,
while an invalid one is refuted only once every pair within the scope's bounds has been
tried. Verdicts:

``valid``    some path explains every event; ``path`` is one (``[init, action, ...]``,
             replayable with ``model.core.replay``), ``violations`` the claims broken
             along it (state and transition claims, as the checker checks them);
``invalid``  no interleaving within the scope's bounds explains the history (``beyond``
             counts the states met past them, not expanded: when it is not 0, a larger
             scope, e.g. a higher ``max_epoch``, might explain more); ``explained`` events are the longest
             prefix some path explains (a step's observations match as a whole; a step
             whose first few match counts those), ``first_unexplained`` the next event;
``unknown``  a bound (``max_states`` pairs, ``max_seconds``) was hit first, or a signal
             interrupted the search.
"""
from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

from groupcheck.model.core import Model, check_state, check_step, replay

from .. import protocols
from .observe import key

# the flip-check in tests/checker/test_tracecheck.py turns this off by hand to see the invalid case fail
COMPARE = True


@dataclass
class Result:
    verdict: str                       # valid | invalid | unknown
    events: int
    explained: int                     # the longest prefix some path explains
    first_unexplained: dict | None = None
    path: list[int] | None = None
    violations: list[dict] = field(default_factory=list)   # {"property", "message", "step"}
    states: int = 0                    # (state, position) pairs kept
    seconds: float = 0.0
    cut: str | None = None             # max-states | max-seconds
    beyond: int = 0                    # states met past the scope's bounds (not expanded)

    @property
    def properties(self) -> list[str]:
        return [v["property"] for v in self.violations]


def broken_along(model: Model, scope, path: list[int]) -> list[dict]:
    """Every claim broken along ``path``, once each, at the first step that breaks it."""
    first, steps = replay(model, scope, path)
    seen: dict[str, dict] = {}
    for name, msg in check_state(model, scope, first):
        seen.setdefault(name, {"property": name, "message": msg, "step": 0})
    for i, s in enumerate(steps, start=1):
        for name, msg in check_state(model, scope, s.next) + check_step(model, scope, s):
            seen.setdefault(name, {"property": name, "message": msg, "step": i})
    return list(seen.values())


def validate(protocol: str, model: Model, scope, history: list[dict], *, max_states: int = 200_000,
             max_seconds: float | None = None, budget=None) -> Result:
    """Validate ``history`` (observations in order) against ``model`` at ``scope``;
    a ``checker.Budget`` interrupted (SIGINT, SIGTERM) ends it ``unknown``, cut
    ``interrupted``."""
    started = time.perf_counter()
    observe = protocols.get(protocol).observer(model, scope)
    want = [key(o) for o in history]
    n = len(want)
    ids: dict = {}                     # (state, pos) -> node number
    parent: list[int] = []
    via: list[int] = []
    nodes: list = []                   # node -> (state, pos)
    heap: list = []
    best = (0, -1)                     # (furthest position, a node there)
    partial = 0                        # the furthest position a step's observations matched in part
    beyond = 0                         # states past the scope's bounds met (not expanded)
    memo: dict = {}                    # state -> [(action index, next state, observation keys)]

    def keep(state, pos, up, index) -> int | None:
        nonlocal best
        k = (state, pos)
        if k in ids:
            return None
        i = len(nodes)
        ids[k] = i
        nodes.append(k)
        parent.append(up)
        via.append(index)
        heapq.heappush(heap, (-pos, i))
        if pos > best[0] or best[1] < 0:
            best = (pos, i)
        return i

    def path_to(i: int) -> list[int]:
        out = []
        while i >= 0:
            out.append(via[i])
            i = parent[i]
        return out[::-1]

    def done(verdict: str, node: int | None, cut: str | None = None) -> Result:
        pos = max(best[0], partial)
        r = Result(verdict, n, n if verdict == "valid" else pos, states=len(nodes), cut=cut, beyond=beyond)
        if verdict != "valid" and pos < n:
            r.first_unexplained = {"index": pos, **history[pos]}
        if verdict == "valid":
            r.path = path_to(node)
            r.violations = broken_along(model, scope, r.path)
        r.seconds = time.perf_counter() - started
        return r

    for i, init in enumerate(model.init_states(scope)):
        node = keep(init, 0, -1, i)
        if node is not None and n == 0:
            return done("valid", node)
    expanded = 0
    while heap:
        _, here = heapq.heappop(heap)
        expanded += 1
        state, pos = nodes[here]
        succ = memo.get(state)
        if succ is None:
            succ = []
            if not model.within_bounds(scope, state):
                beyond += 1
            else:
                for index, action in enumerate(model.actions(scope, state)):
                    nxt, events = model.step(scope, state, action)
                    succ.append((index, nxt, tuple(key(o) for o in observe(state, action, nxt, events))))
            if len(memo) > 1 << 16:
                memo.clear()
            memo[state] = succ
        for index, nxt, seen in succ:
            k = len(seen)
            if COMPARE:
                if pos + k > n or tuple(want[pos:pos + k]) != seen:
                    # a step's observations match as a whole; the diagnosis counts a partial match
                    m = 0
                    while m < k and pos + m < n and want[pos + m] == seen[m]:
                        m += 1
                    partial = max(partial, pos + m)
                    continue
            elif pos + k > n:
                k = n - pos
            node = keep(nxt, pos + k, here, index)
            if node is not None and pos + k == n:
                return done("valid", node)
        if len(nodes) >= max_states:
            return done("unknown", None, "max-states")
        if max_seconds is not None and expanded % 64 == 0 and time.perf_counter() - started > max_seconds:
            return done("unknown", None, "max-seconds")
        if budget is not None and budget.interrupted:
            return done("unknown", None, "interrupted")
    return done("invalid", None)
