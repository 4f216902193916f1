"""The one campaign loop and shrinker of the scenario-list roles (groupcheck/conform/campaign.py),
on fake scenarios: no target runs."""
from __future__ import annotations

import time

from groupcheck.conform import campaign
from groupcheck.conform.dedupe import Ledger


def _needs(*wanted):
    """An attempt that still 'diverges' while every wanted item is in the candidate."""
    calls = []

    def attempt(candidate):
        calls.append(candidate)
        return (candidate, f"run of {candidate}") if all(w in candidate for w in wanted) else None
    return attempt, calls


def test_shrink_keeps_only_what_the_divergence_needs():
    attempt, _ = _needs(3, 11)
    best, result = campaign.shrink(list(range(16)), attempt)
    assert best == [3, 11] and result == "run of [3, 11]"


def test_shrink_never_removes_the_kept_head_and_tail():
    attempt, calls = _needs(5)
    best, _ = campaign.shrink(list(range(10)), attempt, keep_head=1, keep_tail=2)
    assert best == [0, 5, 8, 9]
    assert all(c[0] == 0 and c[-2:] == [8, 9] for c in calls)


def test_shrink_keeps_what_the_attempt_returns_and_tries_only_shorter_canonical_candidates():
    def attempt(candidate):               # the role cuts everything after the divergent step (item 4)
        return (candidate[:candidate.index(4) + 1], "run") if 4 in candidate else None
    best, _ = campaign.shrink(list(range(12)), attempt, keep_head=1)
    assert best == [0, 4]
    seen = []
    campaign.shrink([1, 2, 3, 4], lambda c: seen.append(c), canonical=lambda c: c + [9, 9])
    assert seen == [], "a candidate made no shorter by canonical is never run"


def test_shrink_stops_at_max_tries_and_at_the_deadline():
    attempt, calls = _needs(7)
    best, result = campaign.shrink(list(range(16)), attempt, max_tries=2)
    assert len(calls) == 2 and 7 in best
    attempt, calls = _needs(7)
    assert campaign.shrink(list(range(16)), attempt, deadline=time.monotonic() - 1) == (list(range(16)), None)
    assert calls == []


def test_the_loop_hands_each_distinct_divergence_over_once_and_counts_the_rest():
    found, records = [], []
    hooks = campaign.Hooks(run=lambda item, deadline: item, divergences=lambda r: r,
                           diverged=lambda key, r, item: found.append(key) or {"key": key},
                           record=records.append)
    ledger = Ledger()
    items = [[("a", "x")], [("a", "x"), ("b", "y")], [], [("a", "z")]]
    assert campaign.run(items, hooks, time.monotonic() + 60, ledger) is None
    assert found == [("a", "x"), ("b", "y"), ("a", "z")] and records == items
    assert {(m.claim, m.signature): m.count for m in ledger} == {("a", "x"): 2, ("b", "y"): 1, ("a", "z"): 1}
    assert [m.found for m in ledger][0] == {"key": ("a", "x")}


def test_the_loop_stops_at_the_deadline_and_on_an_interrupt_keeping_what_was_found():
    ran = []
    hooks = campaign.Hooks(run=lambda item, deadline: ran.append(item) or [], divergences=lambda r: [],
                           diverged=lambda *a: None)
    assert campaign.run(range(5), hooks, time.monotonic() - 1) == "time limit" and ran == []

    def interrupt(item, deadline):
        if item == 2:
            raise KeyboardInterrupt
        return [("p", "")]
    found = []
    hooks = campaign.Hooks(run=interrupt, divergences=lambda r: r, diverged=lambda key, r, item: found.append(item))
    assert campaign.run(range(5), hooks, time.monotonic() + 60) == "interrupted" and found == [0]
