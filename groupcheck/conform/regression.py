"""A divergence as a runnable pytest file that drives the same target along the same path.

The written test rebuilds the target (``targets.resolve``), replays the path through
``conform_model`` and asserts that the recorded property is still violated first at the
recorded step (the divergence is still there: the test stays green until the
implementation changes). The checker's own claims (``checker.CHECKER_CLAIMS``) are judged
as the checker does: a liveness claim the model has (``checker.liveness_claims``) on a
lasso (ITF ``loop``) by ``liveness.judge_lasso``, its cycle still fair and never
converging, and otherwise at the path's last state (no settled state reachable); a
deadlock at the last state.
"""
from __future__ import annotations

import pprint
from collections import deque
from dataclasses import dataclass

from groupcheck.model.core import check_state, check_step, replay

from . import roles


@dataclass(frozen=True)
class Found:
    property: str
    message: str
    step: int


def can_settle_from(model, scope, state, max_states: int = 200_000) -> bool:
    """Is a settled state reachable from ``state`` by protocol steps alone (no fault)?"""
    seen, queue = {model.canonical(scope, state)}, deque([state])
    while queue and len(seen) < max_states:
        s = queue.popleft()
        if not model.within_bounds(scope, s) or model.settled(scope, s):
            return True
        for a in model.actions(scope, s):
            if a.kind in model.fault_kinds:
                continue
            nxt, _ = model.step(scope, s, a)
            k = model.canonical(scope, nxt)
            if k not in seen:
                seen.add(k)
                queue.append(nxt)
    return bool(queue)


def judged_along(model, sc, path: list[int], prop: str, loop: int | None = None) -> Found | None:
    """The first step of ``path`` at which ``prop`` is violated in ``model`` (a checker's own
    claim as the module docstring says; ``loop``: the state a lasso's cycle starts from)."""
    from ..checker import CHECKER_CLAIMS, liveness_claims
    from ..liveness import judge_lasso
    first, steps = replay(model, sc, path)
    last = steps[-1].next if steps else first
    if prop in liveness_claims(model):
        if loop is not None:
            why = judge_lasso(model, sc, [first] + [s.next for s in steps], [s.action for s in steps], loop)
            return Found(prop, why, len(steps)) if why else None
        return None if can_settle_from(model, sc, last) else Found(prop, "no settled state reachable", len(steps))
    if CHECKER_CLAIMS.get(prop) == "deadlock":
        stuck = not model.actions(sc, last) and not model.is_terminal_ok(sc, last)
        return Found(prop, "no action is enabled", len(steps)) if stuck else None
    for i, s in enumerate([None] + steps):
        found = check_state(model, sc, first if s is None else s.next)
        if s is not None:
            found += check_step(model, sc, s)
        for name, message in found:
            if name == prop:
                return Found(name, message, i)
    return None


def divergence_along(target: str, scope: dict, path: list[int], prop: str, role: str = "assignor",
                     loop: int | None = None) -> Found | None:
    """Drive ``target`` (a target of ``role``) along ``path``; the first step at which
    ``prop`` is violated (``judged_along``)."""
    r = roles.get(role)
    recorder = r.recorder(r.resolve(target))
    try:
        model = r.conform_model(recorder)
        return judged_along(model, model.view.scope_from_dict(scope), path, prop, loop)
    finally:
        recorder.close()


def render(source: str, target: str, scope: dict, path: list[int], prop: str, role: str = "assignor",
           model_words: str = "the consumer model", loop: int | None = None) -> str:
    """The text of the regression test (``loop``: a lasso's, re-judged as a lasso)."""
    step = len(path) - 1
    extra = ("" if role == "assignor" else f", role={role!r}") + ("" if loop is None else ", loop=LOOP")
    return (f'"""Regression test written by `groupcheck conform` ({source}).\n\n'
            f'Drives {target} along the path through {model_words} (the scope it was found in);\n'
            f'asserts that {prop} is still violated first at step {step}. Once the implementation is\n'
            'fixed this test fails: replace it by one asserting the fix.\n"""\n'
            'from groupcheck.conform.regression import divergence_along\n\n'
            f'TARGET = {target!r}\n'
            f'PROPERTY = {prop!r}\n'
            f'SCOPE = {pprint.pformat(scope, width=100, sort_dicts=False)}\n'
            f'PATH = {pprint.pformat(path, width=100, compact=True)}\n'
            + ("" if loop is None else f'LOOP = {int(loop)!r}   # the lasso\'s cycle starts at this state of PATH\n')
            + '\n\n'
            f'def test_{prop}_still_violated_at_step_{step}():\n'
            f'    found = divergence_along(TARGET, SCOPE, PATH, PROPERTY{extra})\n'
            '    assert found is not None, f"{PROPERTY} no longer violated along the path"\n'
            f'    assert found.step == {step}, found.message\n')
