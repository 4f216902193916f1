"""From a counterexample to a regression test: the replay a written test runs, and its text.

``groupcheck regression TRACE`` writes a pytest file holding the trace's protocol, scope
(from ``#meta``) and path. The test replays the path through the model and asserts
either that the recorded property is still violated at the same step (a known bug
still caught) or, with ``--fixed``, that no property is violated along it (a fixed bug
stays fixed). A lasso (a ``settles_under_fairness`` trace, ITF ``"loop": k``) is re-judged
as ``groupcheck replay`` does (``liveness.judge_lasso``): its cycle from state k must still be
a fair cycle of non-fault steps that never converges. A ``can_settle`` trace is judged at its
last state: no settled state may be reachable from there by non-fault steps.
"""
from __future__ import annotations

import json
import pprint
from dataclasses import dataclass

from groupcheck.model.core import Model, replay
from groupcheck.model.core import first_violation as first_claim_broken
from groupcheck.model.scopes import shorten

from .api.custom import plan_assignor_names
from .conform.regression import can_settle_from
from .liveness import judge_lasso
from .protocols import get


def _registered(scope: dict) -> str:
    """Lines registering the user assignors ``scope`` names (the test's own explicit act)."""
    names = sorted({name for _, name in plan_assignor_names(scope, registered=True)})
    if not names:
        return ""
    return "from groupcheck.api import register_assignor\n\n" + "".join(
        f"register_assignor({name!r})\n" for name in names)


@dataclass(frozen=True)
class Found:
    property: str
    message: str
    step: int        # 0: the initial state; i: after the i-th action of the path


def first_violation(protocol: str, scope: dict, path: list[int], loop: int | None = None,
                    settle: bool = False) -> Found | None:
    """Replay ``path`` in ``protocol``'s model with the JSON ``scope``; the first claim
    broken along it, or None (``violation_along``)."""
    model = get(protocol).model
    return violation_along(model, model.view.scope_from_dict(scope), path, loop, settle)


def violation_along(model: Model, scope, path: list[int], loop: int | None = None,
                    settle: bool = False) -> Found | None:
    """The first claim broken along ``path`` as the checker has them (``model.core.first_violation``).
    If none is: with ``loop`` (a lasso whose cycle starts at that state), settles_under_fairness
    at the last step when the cycle is still fair and never converges (as ``groupcheck replay``);
    with ``settle``, can_settle at the last step when no settled state is reachable from it."""
    first, steps = replay(model, scope, path)
    found = first_claim_broken(model, scope, first, steps)
    last = steps[-1].next if steps else first
    if found is None and loop is not None:
        why = judge_lasso(model, scope, [first] + [s.next for s in steps], [s.action for s in steps], loop)
        found = ("settles_under_fairness", why, len(steps)) if why else None
    elif found is None and settle and model.settled is not None and not can_settle_from(model, scope, last):
        found = ("can_settle", "no settled state is reachable without a fault", len(steps))
    return Found(*found) if found else None


def render(source: str, protocol: str, scope: dict, path: list[int], violation: str | None,
           loop: int | None = None, settle: bool = False) -> str:
    """The text of a pytest module replaying ``path``: it asserts ``violation`` at the
    path's last step, or (``violation`` None) that nothing is violated along it; a lasso
    (``loop``) is re-judged there as a lasso, a can_settle trace (``settle``) at its end. What
    comes from the trace is data: the property must be a name (it names the test), the
    source is escaped in the docstring, the scope and path are printed as literals, and
    the assignors the scope names are registered by name in the test, in plain sight."""
    if violation is not None and not violation.isidentifier():
        raise ValueError(f"#meta.violation.property: {shorten(repr(violation))} is not a property name")
    source = json.dumps(source)[1:-1].replace('"', "'")      # no quotes, no newlines: stays in the docstring
    step = len(path) - 1
    args = "PROTOCOL, SCOPE, PATH" + ("" if loop is None else ", LOOP") + (", settle=True" if settle else "")
    if violation is None:
        claim = "no property is violated along the path (the bug stays fixed)"
        test = ('def test_no_property_violated_along_the_path():\n'
                f'    found = first_violation({args})\n'
                '    assert found is None, f"{found.property} violated at step {found.step}: {found.message}"\n')
    else:
        claim = f"{violation} is still violated at step {step}, and nothing earlier"
        test = (f'def test_{violation}_still_violated_at_step_{step}():\n'
                f'    found = first_violation({args})\n'
                '    assert found is not None, "no property is violated along the path any more"\n'
                f'    assert (found.property, found.step) == ({violation!r}, {step}), found.message\n')
    return (f'"""Regression test written by `groupcheck regression` from {source}.\n\n'
            f'Replays the trace\'s path through the {protocol} model with the scope it was found in;\n'
            f'asserts that {claim}.\n"""\n'
            'from groupcheck.regression import first_violation\n'
            f'{_registered(scope)}\n'
            f'PROTOCOL = {protocol!r}\n'
            f'SCOPE = {pprint.pformat(scope, width=100, sort_dicts=False)}\n'
            f'PATH = {pprint.pformat(path, width=100, compact=True)}\n'
            + ("" if loop is None else f'LOOP = {int(loop)!r}   # the lasso\'s cycle starts at this state of PATH\n')
            + '\n\n'
            f'{test}')
