"""The ownership timeline: each protocol's ``owners`` agrees with what its states show, two
owners at once are visible, and the chart marks the steps where properties broke."""
from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache

import pytest

from groupcheck.explorer import Session, open_variant
from groupcheck.explorer.timeline import DOUBLE, timeline

# per protocol: a known bug, and where its ITF states keep each client's held items
CASES = {
    "consumer": ("KAFKA-13419", "consumers", "owned", lambda i, c: f"C{i + 1}"),
    "streams-classic": ("KAFKA-8649-prev-tasks", "members", "active", lambda i, c: c["thread"]),
    "streams-group": ("KAFKA-20899", "clients", "active", lambda i, c: c["client"]),
    "consumer-group": ("upgrade-trusts-last-sync", "clients", "owned", lambda i, c: c["client"]),
}


@lru_cache(maxsize=None)
def _path(key: str) -> tuple[int, ...]:
    found = open_variant(key).run_to_violation("bfs")
    assert found.path is not None
    return tuple(found.path)


def _at_violation(key: str) -> Session:
    return open_variant(key).goto(list(_path(key)))


@pytest.mark.parametrize("protocol", list(CASES))
def test_owners_are_what_each_state_says_its_clients_hold(protocol):
    key, clients, field, label = CASES[protocol]
    s = _at_violation(key)
    assert s.protocol.name == protocol
    tl = s.timeline()
    first, steps = s._whole()
    states = [first] + [st.next for st in steps]
    assert len(tl.owners) == len(states) == len(s.path)
    for at, state in zip(tl.owners, states):
        itf = s.itf_state(state)
        held: dict[str, tuple[str, ...]] = {}
        for i, c in enumerate(itf[clients]):
            for item in c.get(field, {"#set": []})["#set"]:
                held[item] = held.get(item, ()) + (label(i, c),)
        assert {k: v for k, v in at.items() if v} == held
        assert set(at) == set(tl.items)             # every item at every step, unowned ones with ()


def test_two_owners_at_the_violation_are_shown_and_outlined():
    s = _at_violation("KAFKA-13419")                 # no_double_ownership
    tl = s.timeline()
    step = s.depth
    assert (step, "t0-1") in tl.doubles()
    assert tl.owners[step]["t0-1"] == ("C1", "C2")
    assert {"item": "t0-1", str(step): "C1+C2"}.items() <= tl.table()[tl.items.index("t0-1")].items()
    assert (step, "no_double_ownership") in tl.violations
    fig = tl.figure()
    outlined = [(t.name, c) for t in fig.data for c, col in zip(t.customdata, t.marker.line.color) if col == DOUBLE]
    assert sorted(outlined) == [("C1", step), ("C2", step)]


def test_the_chart_has_a_trace_per_owner_and_a_line_per_violating_step():
    s = _at_violation("upgrade-trusts-last-sync")
    tl = s.timeline()
    fig = tl.figure()
    assert [t.name for t in fig.data] == list(tl.holders) and len(tl.holders) >= 2
    lines = [sh.x0 for sh in fig.layout.shapes]
    assert lines == sorted({i for i, _ in tl.violations}) and s.depth in lines
    assert list(fig.layout.yaxis.ticktext) == list(tl.items)
    bars = sum(len(t.customdata) for t in fig.data)
    assert bars == sum(len(v) for at in tl.owners for v in at.values())
    data = tl.figure_json()
    assert json.loads(json.dumps(data))["data"][0]["name"] == tl.holders[0]


def test_no_timeline_for_a_model_without_owners():
    s = open_variant("KAFKA-13419")
    assert timeline(replace(s.model, owners=None), s.scope, [s.state], ["init"]) is None
