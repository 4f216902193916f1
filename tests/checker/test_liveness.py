"""can_settle: from every reachable state a settled one stays reachable without faults."""
from __future__ import annotations

from dataclasses import replace
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


# ---- settles_under_fairness: no fair cycle of non-fault steps avoids the settled states

def graph_model(edges: dict, faults=("kick",), settled=(9,)) -> Model:
    """A model whose states are numbers and whose actions are ``edges[s]``: (kind, slot, next)."""
    return Model(
        name="toy", init_states=lambda scope: (0,),
        actions=lambda scope, s: tuple(Act(k, slot) for k, slot, _ in edges[s]),
        step=lambda scope, s, a: ({(k, slot): t for k, slot, t in edges[s]}[(a.kind, a.slot)], ()),
        properties=(), canonical=lambda scope, s: s, within_bounds=lambda scope, s: True,
        is_terminal_ok=lambda scope, s: s in settled,
        view=View(default_scope=dict, scope_from_dict=dict, scope_to_dict=dict, state_to_itf=lambda scope, s: {"s": s},
                  describe_action=lambda scope, s, a: f"{a.kind}({a.slot})"),
        action_kinds=("work", "finish", "kick", "beat"), fault_kinds=faults,
        settled=lambda scope, s: s in settled)


def states_along(model, path):
    from groupcheck.model.core import replay
    first, steps = replay(model, {}, path)
    return [first] + [s.next for s in steps]


def test_a_fair_cycle_that_never_settles_is_a_lasso():
    # 0 -> 1 <-> 2 forever; "finish" (-> 9) is enabled at 2 only, so a loop that never takes it is fair
    edges = {0: [("work", 0, 1)], 1: [("work", 0, 2)], 2: [("work", 0, 1), ("finish", 0, 9)], 9: []}
    report = bfs(graph_model(edges), {}, fairness=True)
    v = report.violation
    assert v is not None and v.property == "settles_under_fairness" and v.kind == "liveness"
    assert v.loop == 1 and states_along(graph_model(edges), v.path) == [0, 1, 2, 1]
    assert "a cycle of 2 steps" in v.message
    assert bfs(graph_model(edges), {}).violation is None       # not asked: not judged (can_settle holds)


def test_a_cycle_that_starves_a_progress_step_enabled_throughout_is_not_fair():
    # slot 1's "work" is enabled at 1 and 2 and leads to the settled state; the 1 <-> 2
    # loop of slot 0 never takes it: weak fairness rules the loop out
    edges = {0: [("work", 0, 1)], 1: [("work", 0, 2), ("work", 1, 9)], 2: [("work", 0, 1), ("work", 1, 9)], 9: []}
    report = bfs(graph_model(edges), {}, fairness=True)
    assert report.violation is None and "settles_under_fairness" in report.checked
    # (fairness per kind would call the loop fair: slot 0 takes "work"; so would no fairness at all)


def test_a_progress_step_enabled_only_now_and_then_may_be_starved():
    # slot 1 can finish only from 2: disabled at 1, so a loop that never takes it is weakly fair
    edges = {0: [("work", 0, 1)], 1: [("work", 0, 2)], 2: [("work", 0, 1), ("work", 1, 9)], 9: []}
    v = bfs(graph_model(edges), {}, fairness=True).violation
    assert v is not None and v.property == "settles_under_fairness"
    assert states_along(graph_model(edges), v.path)[v.loop:] == [1, 2, 1]


def test_a_cycle_through_a_fault_is_not_counted():
    # the only loop 1 -> 2 -> 1 goes back through the fault "kick"; without faults, 2 must
    # take slot 1's "work" to the settled state
    edges = {0: [("work", 0, 1)], 1: [("work", 0, 2)], 2: [("kick", -1, 1), ("work", 1, 9)], 9: []}
    assert bfs(graph_model(edges), {}, fairness=True).violation is None
    # the same loop by a protocol step ("kick" no fault) is weakly fair: slot 1's work is disabled at 1
    v = bfs(graph_model(edges, faults=()), {}, fairness=True).violation
    assert v is not None and v.property == "settles_under_fairness"
    assert states_along(graph_model(edges, faults=()), v.path)[v.loop:] == [1, 2, 1]


def test_a_state_where_nothing_is_enabled_is_a_fair_stop():
    from groupcheck.liveness import cycle, fair_cycles
    g = Graph()
    g.add("a", "b", 0)              # b: no step at all; a run may stop there for good
    found = fair_cycles(g)
    assert found.components == [[g.ids["b"]]] and cycle(g, found.components[0]) == []
    # c and d both have instances 0 and 1 to each other: going by 0, the cycle owes 1 back
    for src, dst, label in (("c", "d", 0), ("c", "d", 1), ("d", "c", 0), ("d", "c", 1)):
        g.add(src, dst, label)
    loop = next(c for c in fair_cycles(g).components if len(c) == 2)
    assert cycle(g, loop) == [(g.ids["d"], 0), (g.ids["c"], 1)]


def test_heartbeats_forever_in_a_converged_group_are_no_counterexample():
    # 1 <-> 2: heartbeats; 2 could go quiet (-> 9, settled) but only now and then (fair to skip)
    edges = {0: [("work", 0, 1)], 1: [("beat", 0, 2)], 2: [("beat", 0, 1), ("finish", 1, 9)], 9: []}
    quiet = graph_model(edges)
    assert bfs(quiet, {}, fairness=True).violation.property == "settles_under_fairness"
    converged = replace(quiet, converged=lambda scope, s: s in (1, 2, 9))
    report = bfs(converged, {}, fairness=True)
    assert report.violation is None and "settles_under_fairness" in report.checked


def test_components_are_found_without_recursion_on_a_long_chain():
    from groupcheck.liveness import components, fair_cycles
    g = Graph()
    n = 200_000
    for i in range(n):
        g.add(i, i + 1, 0)
    g.add(n, 0, 0)                 # one cycle through every state
    assert [len(c) for c in components(g)] == [n + 1]
    assert fair_cycles(g).states == n + 1
