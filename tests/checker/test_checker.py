"""BFS returns shortest counterexamples; walks are reproducible by seed."""
from __future__ import annotations

from dataclasses import replace

from groupcheck.checker import TICK, Budget, bfs, walk, walks
from groupcheck.model.consumer import MODEL
from groupcheck.model.core import check_state, replay
from groupcheck.properties.known_bugs.consumer import variant


def test_bfs_counterexample_is_shortest_and_replays_to_the_violation():
    v = variant("KIP-429-no-withholding")
    scope = v.buggy_scope()
    report = bfs(MODEL, scope)
    path = report.violation.path
    _, steps = replay(MODEL, scope, path)
    assert any(name == v.expect for name, _ in check_state(MODEL, scope, steps[-1].next))
    for s in steps[:-1]:
        assert not check_state(MODEL, scope, s.next)
    # independent evidence of minimality: no random walk violates in fewer steps
    lengths = []
    for seed in range(150):
        _, violation, _ = walk(MODEL, scope, seed, len(path) + 40)
        if violation is not None:
            lengths.append(len(violation.path))
    assert lengths and min(lengths) >= len(path)


def test_walks_are_reproducible_by_seed():
    v = variant("KIP-429-no-withholding")
    a = walks(MODEL, v.buggy_scope(), seed=11, count=40)
    b = walks(MODEL, v.buggy_scope(), seed=11, count=40)
    assert a.violation is not None and b.violation is not None
    assert a.violation.path == b.violation.path
    assert a.violation.property == v.expect


def test_walks_on_the_reference_report_steps_and_hold():
    report = walks(MODEL, variant("KIP-429-no-withholding").reference_scope(), seed=3, count=30)
    assert report.violation is None
    assert report.walks == 30 and report.states > 30
    assert report.held == report.checked


def test_bfs_reports_sometimes_witnesses():
    report = bfs(MODEL, variant("KAFKA-12983").reference_scope())
    assert report.witnessed == {"sometimes_settled": True, "sometimes_zombie": True,
                                "sometimes_killed_before_commit": False}     # records off (issue 30)


def test_max_states_cuts_bfs_and_says_so():
    report = bfs(MODEL, variant("KAFKA-12983").reference_scope(), max_states=100)
    assert not report.complete
    assert 100 <= report.states < 200
    assert report.cut == "max-states"


def test_a_spent_budget_stops_bfs_and_walks_and_names_the_limit():
    scope = variant("KAFKA-12983").reference_scope()          # 10,308 states: many looks at the budget
    for budget, limit in [(Budget(max_seconds=0), "max-seconds"), (Budget(max_memory=1), "max-memory"),
                          (Budget(interrupted=True), "interrupted")]:
        report = bfs(MODEL, scope, budget=budget)
        assert report.cut == limit and not report.complete and report.violation is None
        assert TICK < report.states < 10 * TICK      # stopped at the first look
        walked = walks(MODEL, scope, count=10, budget=budget)
        assert walked.cut == limit and walked.walks == 0 and not walked.complete


def test_an_unspent_budget_changes_nothing():
    scope = replace(MODEL.view.default_scope(), faults=("pause",), max_generation=2)    # 4,252 states
    report = bfs(MODEL, scope, budget=Budget(max_seconds=3600, max_memory=2**40))
    assert report.complete and report.cut is None and report.states == bfs(MODEL, scope).states


def test_bfs_reports_progress_every_tick():
    seen = []
    scope = replace(MODEL.view.default_scope(), faults=("pause",), max_generation=2)
    report = bfs(MODEL, scope, progress=lambda n, d: seen.append((n, d)))
    assert len(seen) >= report.states // (10 * TICK)
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(seen, seen[1:]))
    assert all(n <= report.states and d <= report.depth for n, d in seen)
