"""The ownership timeline: each protocol's ``owners`` agrees with what its states show and
with what its double-ownership property judges, two owners at once are visible, replicas
are not owners, and the chart marks the steps where properties broke."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from tests.helpers.explorer_variants import at_violation as _at_violation, states as _states
from groupcheck.explorer import open_variant
from groupcheck.explorer.timeline import DOUBLE, timeline
from groupcheck.model.consumer_group.properties import _consuming
from groupcheck.model.streams_group.properties import _live as _streams_live

ALL = lambda state: None          # noqa: E731 - every client is judged
# protocol -> (a known bug, ITF list of clients, {ITF field: label suffix}, label of client i,
#              the slots the protocol's double-ownership property judges at a state)
CASES = {
    "consumer": ("KAFKA-13419", "consumers", {"owned": ""}, lambda i, c: f"C{i + 1}", ALL),
    "streams-classic": ("KAFKA-8649-prev-tasks", "members",
                        {"active": "", "standby": " (standby)", "learning": " (warm-up)"}, lambda i, c: c["thread"], ALL),
    "streams-group": ("KAFKA-20899", "clients", {"active": "", "standby": " (standby)", "warmup": " (warm-up)"},
                      lambda i, c: c["client"], lambda st: {s for s, _ in _streams_live(st)}),
    "consumer-group": ("KAFKA-16251", "clients", {"owned": ""}, lambda i, c: c["client"],
                       lambda st: {s for s, _ in _consuming(st)}),
}
# the double-ownership claim judged at each state: a double on the timeline <=> it is broken
JUDGE = {"consumer-group": "no_double_ownership", "streams-group": "no_task_active_twice",
         "streams-classic": "revoke_before_reassign"}




@pytest.mark.parametrize("protocol", list(CASES))
def test_owners_are_what_each_state_says_the_judged_clients_hold(protocol):
    key, clients, fields, label, judged = CASES[protocol]
    s = _at_violation(key)
    assert s.protocol.name == protocol
    tl = s.timeline()
    states = _states(s)
    assert len(tl.owners) == len(states) == len(s.path) == len(tl.actions)
    left_out = 0
    for at, state in zip(tl.owners, states):
        itf, keep = s.itf_state(state), judged(state)
        held: dict[str, list[str]] = {}
        for i, c in enumerate(itf[clients]):
            for field, suffix in fields.items():
                for item in c[field]["#set"]:
                    if keep is None or i in keep:
                        held.setdefault(item, []).append(label(i, c) + suffix)
                    else:
                        left_out += 1
        assert {k: sorted(v) for k, v in at.items() if v} == {k: sorted(v) for k, v in held.items()}
        assert list(at) == list(tl.items)            # every item at every step, unowned ones with ()
    if protocol == "consumer-group":
        assert left_out > 0                         # this path has a client holding partitions out of the group


@pytest.mark.parametrize("protocol", list(CASES))
def test_every_item_of_the_scope_is_a_row_in_natural_order(protocol):
    s = open_variant(CASES[protocol][0])
    tl = s.timeline()
    itf = s.itf_state(s.state)
    if protocol == "consumer":
        want = [f"{t}-{p}" for t, n in itf["partitions"]["#map"] for p in range(n)]
    elif protocol == "streams-classic":
        want = [f"T{t + 1}" for t in range(s.scope.tasks)]
    else:
        from importlib import import_module
        index = import_module(f"groupcheck.model.{protocol.replace('-', '_')}.step").index(s.scope)
        want = [f"T{t}" for t in range(len(index))] if protocol == "streams-group" else [f"{t}-{p}" for t, p in index]
    assert list(tl.items) == want and want
    if protocol != "streams-classic":                # (this variant starts from a settled group)
        assert all(v == () for v in tl.owners[0].values())   # nobody owns anything before the group forms


@pytest.mark.slow
@pytest.mark.parametrize("protocol,key", [(p, CASES[p][0]) for p in JUDGE] + [("consumer-group", "upgrade-trusts-last-sync")])
def test_a_double_on_the_timeline_is_exactly_a_broken_double_ownership_claim(protocol, key):
    s = _at_violation(key)
    tl, prop = s.timeline(), s.model.property(JUDGE[protocol])
    doubled = {i for i, _ in tl.doubles()}
    for i, state in enumerate(_states(s)):
        assert (i in doubled) == (prop.check(s.scope, state) is not None), i
    if key == "upgrade-trusts-last-sync":            # its violation is a partition run by two clients
        assert s.depth in doubled and len(set(tl.owners[s.depth][tl.doubles()[-1][1]])) == 2


def test_two_owners_at_the_violation_are_shown_and_outlined():
    s = _at_violation("KAFKA-13419")                 # no_double_ownership
    tl = s.timeline()
    step = s.depth
    assert tl.doubles() == [(step, "t0-1")]
    assert tl.owners[step]["t0-1"] == ("C1", "C2")
    assert {"item": "t0-1", str(step): "C1+C2"}.items() <= tl.table()[tl.items.index("t0-1")].items()
    assert (step, "no_double_ownership") in tl.violations
    assert s.model.property("no_double_ownership").check(s.scope, s.state) is not None
    fig = tl.figure()
    outlined = [(t.name, c) for t in fig.data for c, col in zip(t.customdata, t.marker.line.color) if col == DOUBLE]
    assert sorted(outlined) == [("C1", step), ("C2", step)]
    hover = [h for t in fig.data for c, h in zip(t.customdata, t.hovertext) if h.startswith(f"step {step}: t0-1 ")]
    assert len(hover) == 2 and all(tl.actions[step] in h for h in hover)
    assert "[bold red]C1+C2[/]" in [c for col in tl.rich().columns for c in col._cells]


def test_replicas_are_drawn_but_are_not_owners():
    s = _at_violation("KAFKA-20899")                 # a standby on the process that runs the task
    assert "P2 (standby)" in s.timeline().owners[s.depth]["T0"]
    seen = [{"T0": ("P1", "P2 (standby)"), "T1": ("P2", "P1 (warm-up)")}, {"T0": ("P1", "P2"), "T1": ("P2",)}]
    tl = timeline(replace(s.model, view=replace(s.model.view, owners=lambda scope, state: seen[state])), s.scope, [0, 1], ["init", "x"])
    assert tl.doubles() == [(1, "T0")]               # a replica beside the owner is no second owner
    by_name = {t.name: t for t in tl.figure().data}
    assert set(by_name) == {"P1", "P2 (standby)", "P1 (warm-up)", "P2"}
    for replica, owner in (("P2 (standby)", "P2"), ("P1 (warm-up)", "P1")):
        r = by_name[replica]
        assert r.marker.pattern.shape == "/" and by_name[owner].marker.pattern.shape == ""
        assert r.legendgroup == owner and r.marker.color == by_name[owner].marker.color
        assert DOUBLE not in r.marker.line.color
    outlined = [(t.name, c) for t in by_name.values() for c, col in zip(t.customdata, t.marker.line.color) if col == DOUBLE]
    assert sorted(outlined) == [("P1", 1), ("P2", 1)]


def test_the_chart_has_a_trace_per_owner_and_a_line_per_violating_step():
    s = _at_violation("upgrade-trusts-last-sync")
    tl = s.timeline()
    fig = tl.figure()
    assert [t.name for t in fig.data] == list(tl.holders) and len(tl.holders) >= 2
    lines = [sh.x0 for sh in fig.layout.shapes]
    assert lines == sorted({i for i, _ in tl.violations}) and s.depth in lines
    notes = {a.x: a.text for a in fig.layout.annotations}
    assert "no_double_ownership" in notes[s.depth] and "no_double_ownership" in fig.layout.annotations[-1].hovertext
    assert list(fig.layout.yaxis.ticktext) == list(tl.items)
    bars = sum(len(t.customdata) for t in fig.data)
    assert bars == sum(len(v) for at in tl.owners for v in at.values())
    data = tl.figure_json()
    again = json.loads(json.dumps(data))
    assert again["data"][0]["name"] == tl.holders[0] and again["layout"]["shapes"][-1]["x0"] == lines[-1]


def test_items_that_come_and_go_are_rows_throughout():
    s = open_variant("KAFKA-13419")
    seen = [{"t0-10": ("C1",), "t0-2": ()}, {"t0-2": ("C1", "C2")}]
    model = replace(s.model, view=replace(s.model.view, owners=lambda scope, state: seen[state]))
    tl = timeline(model, s.scope, [0, 1], ["init", "x"], [(1, "p")])
    assert tl.items == ("t0-2", "t0-10")
    assert tl.owners == ({"t0-2": (), "t0-10": ("C1",)}, {"t0-2": ("C1", "C2"), "t0-10": ()})
    assert tl.table() == [{"item": "t0-2", "0": "", "1": "C1+C2"}, {"item": "t0-10", "0": "C1", "1": ""}]
    assert tl.doubles() == [(1, "t0-2")]


def test_no_timeline_for_a_model_without_owners():
    s = open_variant("KAFKA-13419")
    assert timeline(replace(s.model, view=replace(s.model.view, owners=None)), s.scope, [s.state], ["init"]) is None


HOSTILE_ITEM = '<img src=x onerror="window.pwned=1">'
HOSTILE_OWNER = "<b>C1</b> & [red]C2[/red]"


def test_labels_made_of_data_are_text_to_plotly_and_rich():
    """plotly reads <br>, <b>, <a> in labels: data reaches it escaped, so it shows as written
    (the browser side: test_explorer_e2e.py); rich reads [red]: data reaches it escaped too."""
    s = open_variant("KAFKA-13419")
    seen = [{HOSTILE_ITEM: (HOSTILE_OWNER,)}, {HOSTILE_ITEM: (HOSTILE_OWNER, "C3")}]
    tl = timeline(replace(s.model, view=replace(s.model.view, owners=lambda scope, state: seen[state])), s.scope, [0, 1],
                  ["init", "<script>window.pwned=2</script>"], [(1, "<i>p</i>")])
    fig = tl.figure_json()
    assert fig["layout"]["yaxis"]["ticktext"] == ['&lt;img src=x onerror="window.pwned=1"&gt;']
    assert {t["name"] for t in fig["data"]} == {"&lt;b&gt;C1&lt;/b&gt; &amp; [red]C2[/red]", "C3"}
    hover = fig["data"][0]["hovertext"][-1]
    assert hover.endswith("<br>&lt;script&gt;window.pwned=2&lt;/script&gt;") and "<img" not in hover
    assert fig["layout"]["annotations"][0]["text"] == "&lt;i&gt;p&lt;/i&gt;"
    assert "<" not in json.dumps([t["name"] for t in fig["data"]] + fig["layout"]["yaxis"]["ticktext"])
    from rich.console import Console
    console = Console(record=True, width=200)
    console.print(tl.rich())
    shown = console.export_text()
    assert HOSTILE_ITEM in shown and f"{HOSTILE_OWNER}+C3" in shown
