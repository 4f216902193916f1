"""What the two assignor-shaped roles share: a target's answers recorded by input, and the
per-invocation claims on them as properties of the model that drives it.

The ``assignor`` role (``assignor_role.py``) and the ``streams-assignor`` role
(``streams_assignor/recorder.py``) each turn the model's view of a round into an
argument, ask the target, and map the answer back. Both cache answers by input and ask
an input met again a second time, once (a different answer is the finding
``deterministic``); ``fail`` on a valid input is ``assignor_answers`` and leaves the step
untaken; ``info`` leaves it untaken and unjudged. A target that answers nothing but
``info`` (it hangs, exits, answers garbage) ``INFO_IN_A_ROW`` times running is given up on
for the scope (``GiveUp``: the driver goes on to the next scope), and an ``info`` or
``fail`` while a ``start: stable`` group forms means the scope cannot start
(``StartError``). A recorder using this module has ``target`` (with ``name``), ``calls``
(key -> ``Call``), ``frozen``, ``init_calls`` (initial state -> ((key, mode), ...)),
``info`` (info answers), ``info_steps`` (steps met an info answer, cached ones too),
``info_in_a_row``, ``given_up`` (why, or "") and ``ask(argument) -> (Outcome,
answer)``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, NamedTuple

from groupcheck.model.core import Property

from .adapter import AdapterError, Outcome, problems

NOT_APPLICABLE = "n/a"
INFO_IN_A_ROW = 3          # info answers running (no ok or fail between) that end a scope
ANSWERS = "assignor_answers"
DETERMINISTIC = "deterministic"


class Invocation(NamedTuple):
    """An event: the leader asked the target (input ``key``) in a round of ``mode``."""

    kind: str          # "assign" (answered), "failed" (fail: judged, step not taken) or
                       # "unanswered" (info: step not taken, not judged)
    key: str
    mode: str
    slot: int = -1


class Unanswered(Exception):
    """The implementation gave no answer (``fail`` or ``info``): the step is not taken."""

    def __init__(self, key: str, outcome: str, mode: str = ""):
        super().__init__(f"{outcome} answer")
        self.key, self.outcome, self.mode = key, outcome, mode


class StartError(ValueError):
    """The target gave no answer while a ``start: stable`` group formed: the scope cannot start."""

    def __init__(self, message: str, outcome: str):
        super().__init__(message)
        self.outcome = outcome           # fail | info


class GiveUp(Exception):
    """The target answered ``info`` ``INFO_IN_A_ROW`` times running: the scope stops there."""


@dataclass
class Call:
    argument: dict
    outcome: Outcome
    answer: dict | None              # the normalised answer, when ok
    asked: int = 1                   # times the implementation was asked
    seen: int = 1                    # times the model needed this input
    differs: str | None = None       # a second answer that differed
    verdicts: dict = field(default_factory=dict)   # mode -> {claim: None | message | n/a}
    modes: set = field(default_factory=set)        # the rounds (EAGER, COOPERATIVE) it was asked in


def invoke(recorder: Any, role: str, argument: dict, what: str) -> Outcome:
    """One ``assign`` call of ``recorder``'s adapter, counted. In process, an answer that
    breaks the result schema is the implementation's own failure (``fail``, naming
    ``what`` it should have been); an external program's is ``info`` (the adapter kills
    the program: not sure what it did)."""
    recorder.invocations += 1
    out = recorder.adapter.invoke(role, "assign", argument)
    if out.ok and not hasattr(recorder.adapter, "transcript"):
        wrong = problems(f"{role}.assign.result", out.value)
        if wrong:
            out = Outcome("fail", None, f"assign() returned something that is not {what}: {wrong[0]}")
    if out.type == "info":
        recorder.info += 1
        recorder.info_in_a_row += 1
    else:
        recorder.info_in_a_row = 0
    return out


def start_error(recorder: Any, u: Unanswered) -> StartError:
    """The ``StartError`` for the unanswered call ``u`` met while a stable group formed."""
    return StartError(f"{recorder.target.name} answered {u.outcome} while the group formed: "
                      f"{recorder.calls[u.key].outcome.error}", u.outcome)


def key_of(argument: dict) -> str:
    return json.dumps(argument, sort_keys=True, separators=(",", ":"))


def lookup(recorder: Any, argument: dict) -> tuple[str, Call]:
    """The call for ``argument``: asked now if new, asked a second time (once) if met
    before, from the cache only once the recorder is closed (``frozen``)."""
    key = key_of(argument)
    call = recorder.calls.get(key)
    if call is None and recorder.frozen:
        raise AdapterError(f"{recorder.target.name}: closed; input not answered before: {key[:200]}")
    if recorder.given_up and not recorder.frozen:
        raise GiveUp(recorder.given_up)          # (for the rest of the scope: a search may catch and retry)
    if call is None:
        out, answer = recorder.ask(argument)
        call = recorder.calls[key] = Call(argument, out, answer)
        recorder.info_steps += out.type == "info"
        if recorder.info_in_a_row >= INFO_IN_A_ROW:
            recorder.given_up = (f"{recorder.target.name} answered info {recorder.info_in_a_row} times in a row "
                                 f"(it hangs, exits or answers garbage); the last: {out.error}")
            raise GiveUp(recorder.given_up)
        return key, call
    call.seen += 1
    recorder.info_steps += call.outcome.type == "info"
    if call.asked == 1 and call.outcome.ok and not recorder.frozen:   # ask once more: the same answer?
        out, answer = recorder.ask(argument)
        call.asked += 1
        if out.ok and answer != call.answer:
            call.differs = f"first {json.dumps(call.answer)}, then {json.dumps(answer)}"
        elif not out.ok:
            call.differs = f"first ok {json.dumps(call.answer)}, then {out.type}: {out.error}"
    return key, call


def verdicts(recorder: Any, key: str, mode: str, judge: Callable[[dict, dict], dict]) -> dict[str, str | None]:
    """Every per-invocation claim on the call ``key`` in a round of ``mode``: ``judge``
    (argument, answer) gives the role's own claims; ``assignor_answers`` and
    ``deterministic`` are added here."""
    call = recorder.calls[key]
    if mode not in call.verdicts:
        out: dict[str, str | None] = {}
        if call.outcome.type == "fail":
            out[ANSWERS] = f"{recorder.target.name} failed on a valid input: {call.outcome.error}"
        elif call.outcome.ok:
            out[ANSWERS] = None
            out.update(judge(call.argument, call.answer))
        call.verdicts[mode] = out
    found = dict(call.verdicts[mode])
    if call.asked > 1:
        found[DETERMINISTIC] = None if call.differs is None else f"same input answered differently: {call.differs}"
    return found


def claim(recorder: Any, name: str, doc: str) -> Callable:
    """A transition property: claim ``name`` on every answer the step's leader got."""
    def check(scope, prev, action, nxt, events) -> str | None:
        for e in events:
            if isinstance(e, Invocation) and e.kind in ("assign", "failed"):
                msg = recorder.verdicts(e.key, e.mode).get(name)
                if msg is not None and msg != NOT_APPLICABLE:
                    return msg
        return None
    check.__doc__ = doc
    return check


def initial_claim(recorder: Any, names: tuple[str, ...], doc: str) -> Callable:
    """A state property: the claims ``names`` on the answers that formed a ``start:
    stable`` group inside init_states (no transition carries them)."""
    def check(scope, state) -> str | None:
        for key, mode in recorder.init_calls.get(state, ()):
            for name, msg in recorder.verdicts(key, mode).items():
                if name in names and msg is not None and msg != NOT_APPLICABLE:
                    return f"{name} (while the group formed): {msg}"
        return None
    check.__doc__ = doc
    return check


def skip_unanswered(prop: Property) -> Property:
    """``prop`` (a transition property) not judged on a step the target left untaken."""
    if prop.on != "step":
        return prop
    inner = prop.check

    def check(scope, prev, action, nxt, events):
        if any(isinstance(e, Invocation) and e.kind != "assign" for e in events):
            return None
        return inner(scope, prev, action, nxt, events)
    check.__doc__ = inner.__doc__
    return replace(prop, check=check)


def claim_properties(recorder: Any, names: tuple[str, ...], docs: dict[str, str], start_doc: str) -> list[Property]:
    """The per-invocation claims ``names`` as transition properties, and
    ``formed_group_claims`` for the answers that formed a stable starting group."""
    props = [Property(name, "always", claim(recorder, name, docs[name]), on="step") for name in names]
    props.append(Property("formed_group_claims", "always", initial_claim(recorder, names, start_doc)))
    return props
