"""can_settle: from every reachable state a settled one stays reachable without faults."""
from __future__ import annotations

from typing import NamedTuple

from groupcheck.checker import bfs
from groupcheck.liveness import Graph, stuck
from groupcheck.model.core import Model, View


def test_stuck_finds_the_states_that_reach_no_good_state():
    g = Graph()
    for key in "abcde":
        g.id(key)
    # a -> b -> c -> b (a loop), a -> d (good), e alone and good
    for src, dst in ("ab", "bc", "cb", "ad"):
        g.succ[g.ids[src]].append(g.ids[dst])
    g.good[g.ids["d"]] = g.good[g.ids["e"]] = True
    assert [list(g.ids)[i] for i in stuck(g)] == ["b", "c"]


class Act(NamedTuple):
    kind: str
    slot: int = -1


# A toy protocol: from 0 a member either settles (0 -> 3) or starts rebalancing
# forever (1 <-> 2); a fault "kick" from 1 leads to the settled state 3.
EDGES = {0: [("settle", 3), ("rebalance", 1)], 1: [("rebalance", 2), ("kick", 3)], 2: [("rebalance", 1)], 3: []}


def toy(settled=lambda scope, s: s == 3, faults=("kick",)) -> Model:
    return Model(
        name="toy", init_states=lambda scope: (0,),
        actions=lambda scope, s: tuple(Act(k) for k, _ in EDGES[s]),
        step=lambda scope, s, a: (dict(EDGES[s])[a.kind], ()),
        properties=(), canonical=lambda scope, s: s, within_bounds=lambda scope, s: True,
        is_terminal_ok=lambda scope, s: s == 3,
        view=View(default_scope=dict, scope_from_dict=dict, scope_to_dict=dict, state_to_itf=lambda scope, s: {"s": s},
                  describe_action=lambda scope, s, a: a.kind),
        action_kinds=("settle", "rebalance", "kick"), fault_kinds=faults, settled=settled)


def test_bfs_reports_the_shallowest_state_that_can_no_longer_settle():
    report = bfs(toy(), {})
    assert report.violation is not None and report.violation.property == "can_settle"
    assert report.violation.kind == "liveness"
    assert report.violation.path == [0, 1]           # init, then "rebalance": state 1
    assert "2 such states" in report.violation.message
    assert "can_settle" in report.checked


def test_a_fault_does_not_count_as_a_way_out_and_a_model_without_settled_skips_the_check():
    assert bfs(toy(faults=()), {}).violation is None      # were "kick" a protocol step, 1 and 2 could settle
    plain = bfs(toy(settled=None), {})
    assert plain.violation is None and "can_settle" not in plain.checked


def test_the_reference_protocols_can_always_settle():
    from groupcheck.model.consumer import MODEL
    from groupcheck.model.consumer.scope import ConsumerScope
    report = bfs(MODEL, ConsumerScope(members=2, budget=1, faults=("pause", "lose_response")))
    assert report.violation is None and "can_settle" in report.checked
