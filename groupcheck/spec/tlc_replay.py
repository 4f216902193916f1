"""A TLC counterexample followed on the Python model.

TLC's trace is a list of spec states. The spec folder's manifest names the model scope
of each TLC model (a pinned config's ``name``, or a known-bug variant's ``tlc_model``),
and its mapping (``groupcheck/spec/mapping/<protocol>.py``) turns a model state into
the spec's variables. At each step every model action enabled in the current state is
tried; the one whose successor maps onto TLC's next state is the step taken. The result
is a model path (``[init index, action index, ...]``), which ``traces.build`` writes as
groupcheck's usual ITF trace: ``groupcheck replay`` and ``groupcheck explore`` open it."""
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


def follow(bundle: Bundle, model_name: str, states: list[dict]) -> Followed:
    """The model path whose states map onto TLC's ``states`` ({variable: value}, from the
    initial state on). Breadth-first over the model states that match so far (two model
    states may map onto one spec state), keeping the first path to each."""
    found = scope_of(bundle, model_name)
    if found is None:
        return Followed(None, None, f"the manifest of {bundle.folder.name} names no scope for {model_name}")
    scope, variant = found
    model = bundle.model
    frontier = {s: [i] for i, s in enumerate(model.init_states(scope)) if _image(bundle, scope, s) == states[0]}
    if not frontier:
        return Followed(scope, None, "no initial state of the model maps onto TLC's state 1", variant)
    for n, target in enumerate(states[1:], start=2):
        nxt: dict = {}
        for s, path in frontier.items():
            for index, action in enumerate(model.actions(scope, s)):
                t, _events = model.step(scope, s, action)
                if t not in nxt and _image(bundle, scope, t) == target:
                    nxt[t] = path + [index]
        if not nxt:
            return Followed(scope, None, f"no model action leads to a state that maps onto TLC's state {n} "
                                         f"(from the {len(frontier)} model state(s) matching state {n - 1})", variant)
        frontier = nxt
    return Followed(scope, next(iter(frontier.values())), None, variant)


def broken_at_end(bundle: Bundle, scope, path: list[int]) -> list[tuple[str, str]]:
    """The model's claims broken at the path's last state or on its last step, as
    (claim, message): what the model says of TLC's counterexample."""
    from groupcheck.model.core import check_state, check_step, replay
    first, steps = replay(bundle.model, scope, path)
    if not steps:
        return check_state(bundle.model, scope, first)
    return check_state(bundle.model, scope, steps[-1].next) + check_step(bundle.model, scope, steps[-1])
