"""Drive the explorable streams-group model by hand: (action kind, slot) moves, every
always-claim checked after each step."""
from __future__ import annotations

from groupcheck.model.core import Step, check_state, check_step
from groupcheck.model.streams_group import MODEL


def drive(scope, moves, state=None):
    """Take ``moves`` ((kind, slot) pairs, the first enabled action of that kind and slot),
    checking every always-claim after each step; return the last state and its events."""
    state = state or MODEL.init_states(scope)[0]
    assert not check_state(MODEL, scope, state)
    events = ()
    for kind, slot in moves:
        (i, action), *_ = [(i, a) for i, a in enumerate(MODEL.actions(scope, state))
                           if (a.kind, a.slot) == (kind, slot)] or [(None, None)]
        assert action is not None, f"{kind} {slot} not enabled; enabled: {MODEL.actions(scope, state)}"
        nxt, events = MODEL.step(scope, state, action)
        assert not check_step(MODEL, scope, Step(state, action, i, nxt, events)), (kind, slot)
        assert not check_state(MODEL, scope, nxt), (kind, slot)
        state = nxt
    return state, events


def rt(slot):
    """One heartbeat round trip of ``slot``: send, handle, deliver."""
    return [("send", slot), ("handle", slot), ("deliver", slot)]
