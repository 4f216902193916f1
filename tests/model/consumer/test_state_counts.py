"""Pinned state-space sizes (as Stateright and tlaplus/Examples do): any change in the
consumer model's behaviour changes these numbers, so it cannot slip by unnoticed.
When a change is intended, re-derive the numbers and say why in the commit."""
from __future__ import annotations

import pytest

from groupcheck.checker import bfs
from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.scope import Config, ConsumerScope

PINNED = [
    # scope, symmetry, distinct states, transitions, depth
    (ConsumerScope(members=1, budget=0, max_generation=2), True, 10, 10, 9),
    (ConsumerScope(members=2, budget=0, max_generation=2), True, 203, 348, 27),
    (ConsumerScope(members=2, budget=0, max_generation=2), False, 404, 692, 27),
    (ConsumerScope(members=2, budget=1, faults=("crash",), max_generation=2, plan=(Config(("range",)),)),
     True, 3586, 7376, 34),
]


@pytest.mark.parametrize("scope,symmetry,states,transitions,depth", PINNED)
def test_reachable_state_count_is_pinned(scope, symmetry, states, transitions, depth):
    report = bfs(MODEL, scope, symmetry=symmetry)
    assert report.violation is None
    assert report.complete
    assert (report.states, report.transitions, report.depth) == (states, transitions, depth)


def test_symmetry_reduction_roughly_halves_two_interchangeable_consumers():
    scope = ConsumerScope(members=2, budget=0, max_generation=2)
    reduced, full = bfs(MODEL, scope, symmetry=True), bfs(MODEL, scope, symmetry=False)
    assert reduced.states < full.states <= 2 * reduced.states


# the record layer (issue 30): one partition, one record, generation 3; counts re-derived by BFS
RECORDS_COOP = ConsumerScope(partitions=(1,), records=True, max_records=1, commit_policy="sync-on-revoke",
                             faults=("crash",), budget=1, max_generation=3)
RECORDS_EAGER_AUTO = ConsumerScope(partitions=(1,), records=True, max_records=1, commit_policy="auto",
                                   faults=("crash",), budget=1, max_generation=3, plan=(Config(("range",)),))
PINNED_RECORDS = [
    (RECORDS_COOP, True, 27249, 78755, 46),
    (RECORDS_COOP, False, 54462, 157414, 46),
    (RECORDS_EAGER_AUTO, True, 47044, 134098, 49),
]


@pytest.mark.parametrize("scope,symmetry,states,transitions,depth", PINNED_RECORDS)
def test_reachable_state_count_with_records_is_pinned(scope, symmetry, states, transitions, depth):
    report = bfs(MODEL, scope, symmetry=symmetry)
    assert report.violation is None
    assert report.complete
    assert (report.states, report.transitions, report.depth) == (states, transitions, depth)
