"""Every protocol's actions, events and scopes have what ``model.core``'s ``Action``,
``Event`` and ``Scope`` Protocols declare (the attributes tools read), with those types:
checked on every reference scope and on the actions and events of its first states."""
from __future__ import annotations

import typing
from collections import deque

import pytest

from groupcheck.model.core import Action, Event, Model, Scope
from groupcheck.protocols import get

PROTOCOLS = ("consumer", "consumer-group", "streams-classic", "streams-group")
STATES = 150          # states visited per reference scope, breadth first


def lacks(value, protocol: type) -> list[str]:
    """What ``value`` lacks of ``protocol``'s declared attributes, or has with another type."""
    hints = typing.get_type_hints(protocol)
    out = []
    for name, hint in hints.items():
        if not hasattr(value, name):
            out.append(f"no attribute {name!r}")
            continue
        plain = typing.get_origin(hint) or hint
        if plain is not typing.Any and isinstance(plain, type) and not isinstance(getattr(value, name), plain):
            out.append(f"{name!r} is {type(getattr(value, name)).__name__}, not {plain.__name__}")
    return out


def first_steps(model: Model, scope) -> tuple[list, list]:
    """The actions and events met breadth first over the first ``STATES`` states."""
    actions, events = [], []
    queue, seen = deque(model.init_states(scope)), set()
    while queue and len(seen) < STATES:
        state = queue.popleft()
        if state in seen:
            continue
        seen.add(state)
        for action in model.actions(scope, state):
            nxt, emitted = model.step(scope, state, action)
            actions.append(action)
            events.extend(emitted)
            queue.append(nxt)
    return actions, events


@pytest.mark.parametrize("name", PROTOCOLS)
def test_every_reference_scope_its_actions_and_events_keep_the_protocols(name):
    protocol = get(name)
    problems = []
    for scope_name, scope in protocol.default_scopes().items():
        for kind, values in zip((Scope, Action, Event), ((scope,), *first_steps(protocol.model, scope))):
            for value in values:
                missing = lacks(value, kind)
                if missing or not isinstance(value, kind):
                    problems.append(f"{name} scope {scope_name}: {type(value).__name__} {value!r:.80} is no "
                                    f"model.core.{kind.__name__}: {'; '.join(missing)}")
                    break
    assert not problems, "\n".join(problems)


def test_the_check_names_what_a_value_lacks():
    """The check fails on a value without the attributes, naming each."""
    class Bare(typing.NamedTuple):
        kind: int
    assert lacks(Bare(1), Action) == ["'kind' is int, not str", "no attribute 'slot'"]
    assert not isinstance(Bare(1), Action)


def test_a_handled_requests_event_names_its_parts():
    """consumer-group: the event of a handled heartbeat carries a ``Handled`` (request,
    response, records, events), the names trace-check reads the records by."""
    from groupcheck.model.consumer_group import Handled
    protocol = get("consumer-group")
    handled = 0
    for scope in protocol.default_scopes().values():
        for e in first_steps(protocol.model, scope)[1]:
            if e.kind == "handle":
                assert isinstance(e.data, Handled), e
                assert e.data.request is e.data[0] and e.data.records is e.data[2]
                handled += 1
    assert handled > 0
