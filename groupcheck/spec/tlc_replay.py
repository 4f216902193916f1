"""A TLC counterexample followed on the Python model.

TLC's trace is a list of spec states. The spec folder's manifest names the model scope
of each TLC model (a pinned config's ``name``, or a known-bug variant's ``tlc_model``),
and its mapping (``groupcheck/spec/mapping/<protocol>.py``) turns a model state into
the spec's variables. At each step every model action enabled in the current state is
tried; the one whose successor maps onto TLC's next state is the step taken. The result
is a model path (``[init index, action index, ...]``), which ``traces.build`` writes as
groupcheck's usual ITF trace: ``groupcheck replay`` and ``groupcheck explore`` open it.

A lasso (TLC's counterexample to a temporal PROPERTY, e.g. ``FairSettles``) is followed
state by state, then by the step from its last state back to the state TLC's "Back to
state" names (a "Stuttering" end: the last state repeats, no step), and the model's path
must return to the very model state it left there; ``liveness.judge_lasso`` then says
whether the model's lasso is a fair cycle that never converges (``follow_lasso``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .manifest import Bundle, OutsideSpec


@dataclass
class Followed:
    """The model's path along TLC's trace, or why the model could not follow it."""

    scope: Any
    path: list[int] | None          # [init index, action index, ...] when every state was matched
    problem: str | None = None      # the first TLC state no model state maps onto
    variant: str | None = None      # the known bug whose scope the TLC model is
    loop: int | None = None         # a lasso: the index of the path's state its cycle returns to
    lasso: str | None = None        # judge_lasso's verdict on the model's lasso (None: not a fair,
                                    # never converging cycle, or no lasso)


def scope_of(bundle: Bundle, model_name: str) -> tuple[Any, str | None] | None:
    """The model scope of the TLC model ``model_name`` (e.g. ``MCConsumer_KAFKA13419``),
    and the known bug it runs under, from the manifest; None when the manifest has neither."""
    variant = next((v for v in bundle.variants if v.tlc_model == model_name), None)
    if variant is not None:
        return bundle.variant_scope(variant), variant.key
    pinned = next((c for c in bundle.configs if c.name == model_name), None)
    return (pinned.scope, None) if pinned is not None else None


def _image(bundle: Bundle, scope, state) -> dict | None:
    try:
        return bundle.variables(scope, state)
    except OutsideSpec:
        return None


def follow(bundle: Bundle, model_name: str, states: list[dict], closes: int | None = None) -> Followed:
    """The model path whose states map onto TLC's ``states`` ({variable: value}, from the
    initial state on). Breadth-first over the model states that match so far (two model
    states may map onto one spec state), keeping the first path to each. ``closes``: the
    last state must be the path's very model state at that index (a lasso's step back)."""
    found = scope_of(bundle, model_name)
    if found is None:
        return Followed(None, None, f"the manifest of {bundle.folder.name} names no scope for {model_name}")
    scope, variant = found
    model = bundle.model
    # model state -> (its path, the path's model state at index ``closes`` once passed)
    frontier = {s: ([i], s) for i, s in enumerate(model.init_states(scope)) if _image(bundle, scope, s) == states[0]}
    if not frontier:
        return Followed(scope, None, "no initial state of the model maps onto TLC's state 1", variant)
    for n, target in enumerate(states[1:], start=2):
        nxt: dict = {}
        for s, (path, anchor) in frontier.items():
            for index, action in enumerate(model.actions(scope, s)):
                t, _events = model.step(scope, s, action)
                if t not in nxt and _image(bundle, scope, t) == target:
                    nxt[t] = (path + [index], t if closes == n - 1 else anchor)
        if not nxt:
            return Followed(scope, None, f"no model action leads to a state that maps onto TLC's state {n} "
                                         f"(from the {len(frontier)} model state(s) matching state {n - 1})", variant)
        frontier = nxt
    paths = [path for s, (path, anchor) in frontier.items() if closes is None or s == anchor]
    if not paths:
        return Followed(scope, None, f"the model's step back to TLC's state {closes + 1} reaches a model state that "
                                     "maps onto it but is not the one the path left there", variant)
    return Followed(scope, paths[0], None, variant)


def follow_lasso(bundle: Bundle, model_name: str, states: list[dict], loop: int, stutters: bool) -> Followed:
    """TLC's lasso on the model: its ``states``, then the step back to ``states[loop]`` (none
    when it ``stutters``: the last state repeats), the path returning to the same model
    state; ``lasso`` is ``judge_lasso``'s reason when the model's lasso is a fair cycle that
    never converges."""
    from .fairness import judge_path
    followed = follow(bundle, model_name, states if stutters else states + [states[loop]],
                      None if stutters else loop)
    if followed.path is None:
        return followed
    followed.loop = len(followed.path) - 1 if stutters else loop
    followed.lasso = judge_path(bundle.model, followed.scope, followed.path, followed.loop)
    return followed


def broken_at_end(bundle: Bundle, scope, path: list[int]) -> list[tuple[str, str]]:
    """The model's claims broken at the path's last state or on its last step, as
    (claim, message): what the model says of TLC's counterexample."""
    from groupcheck.model.core import check_state, check_step, replay
    first, steps = replay(bundle.model, scope, path)
    if not steps:
        return check_state(bundle.model, scope, first)
    return check_state(bundle.model, scope, steps[-1].next) + check_step(bundle.model, scope, steps[-1])
