"""BFS tells states apart by 64-bit fingerprints; ``exact=True`` keeps whole states.

Either way the search explores the same states, reports the same figures and finds the
same shortest counterexample, rebuilt from the numbers each state keeps of its parent."""
from __future__ import annotations

import random
from collections import deque
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from groupcheck.checker import bfs, collision_probability
from groupcheck.cli import app
from groupcheck.frontier import BLOCK, Frontier
from groupcheck.visited import MERGE_AFTER, Visited
from groupcheck.model.consumer import MODEL
from groupcheck.model.core import first_violation, replay
from groupcheck.properties.known_bugs.consumer import variant

SMALL = replace(MODEL.view.default_scope(), faults=("pause",), max_generation=2)     # 4,252 states


def test_the_collision_probability_is_reported_as_tlc_does():
    report = bfs(MODEL, SMALL)
    n = report.states
    assert not report.exact and report.collision == n * (n - 1) / 2 ** 65
    assert 1e-13 < report.collision < 1e-11                 # about 5e-13 for 4,252 states
    assert collision_probability(1) == 0.0
    assert collision_probability(10 ** 6) < 3e-8 and collision_probability(10 ** 10) == 1.0


@pytest.mark.slow
def test_exact_mode_explores_the_same_states():
    for scope in (SMALL, variant("KAFKA-12983").reference_scope()):
        for symmetry in (True, False):
            fp = bfs(MODEL, scope, symmetry=symmetry)
            exact = bfs(MODEL, scope, symmetry=symmetry, exact=True)
            assert exact.exact and exact.collision is None
            assert (fp.states, fp.transitions, fp.depth, fp.witnessed, fp.checked) == \
                   (exact.states, exact.transitions, exact.depth, exact.witnessed, exact.checked)


def test_a_path_rebuilt_from_the_parent_numbers_replays_to_the_violation():
    # a state claim and a transition claim (revoke_before_reassign is checked on steps)
    for key in ("KIP-429-no-withholding", "KAFKA-12983"):
        scope = variant(key).buggy_scope()
        report = bfs(MODEL, scope)
        v = report.violation
        assert v is not None and bfs(MODEL, scope, exact=True).violation == v
        first, steps = replay(MODEL, scope, v.path)
        assert first_violation(MODEL, scope, first, steps) == (v.property, v.message, len(steps))
        assert report.depth == len(steps)


def test_check_prints_the_collision_probability_or_exact():
    args = ["check", "consumer", "--members", "2", "--budget", "0", "--max-generation", "2", "--walks", "0"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "fingerprint collision probability <= " in result.output
    exact = CliRunner().invoke(app, args + ["--exact"])
    assert exact.exit_code == 0, exact.output
    assert "kept whole (--exact)" in exact.output and "probability" not in exact.output


# the frontier (groupcheck.frontier) packs waiting states in blocks once many wait, and
# the visited store (groupcheck.visited) moves fingerprints into sorted arrays once many
# are kept; tiny thresholds make every search here do both, and nothing may change but
# the memory

def test_the_frontier_gives_states_back_in_the_order_they_came():
    rng = random.Random(7)
    frontier, plain, packed_blocks = Frontier(loose=5, block=3), deque(), 0
    for i in range(2000):
        if rng.random() < 0.6 or not plain:
            frontier.append(("state", i, (i % 7,)))
            plain.append(("state", i, (i % 7,)))
        else:
            assert frontier.popleft() == plain.popleft()
        assert len(frontier) == len(plain)
        packed_blocks = max(packed_blocks, len(frontier.packed))
    assert packed_blocks > 10                  # the test did exercise packing
    while plain:
        assert frontier.popleft() == plain.popleft()
    assert len(frontier) == 0 and not frontier


@pytest.mark.slow
def test_packing_the_frontier_changes_nothing_the_search_finds():
    for scope in (SMALL, variant("KAFKA-12983").reference_scope()):
        for exact in (False, True):
            runs = []
            for loose, block, merge_after in ((None, BLOCK, MERGE_AFTER), (4, 3, 5), (0, 1, 1)):
                seen = []
                r = bfs(MODEL, scope, exact=exact, loose=loose, block=block, merge_after=merge_after,
                        on_state=seen.append)
                runs.append(((r.states, r.transitions, r.depth, r.witnessed, r.checked, r.violation), seen))
            assert runs[0][0][0] > 4 * 3 + 10      # wide enough to pack
            assert runs[1] == runs[0] and runs[2] == runs[0]      # the same states, found in the same order


def test_a_path_found_with_a_packed_frontier_replays_to_the_violation():
    for key in ("KIP-429-no-withholding", "KAFKA-12983"):
        scope = variant(key).buggy_scope()
        v = bfs(MODEL, scope).violation
        for exact in (False, True):
            assert bfs(MODEL, scope, exact=exact, loose=4, block=3, merge_after=5).violation == v
        first, steps = replay(MODEL, scope, v.path)
        assert first_violation(MODEL, scope, first, steps) == (v.property, v.message, len(steps))


def test_a_search_cut_by_max_states_stops_at_the_same_place_with_a_packed_frontier():
    plain = bfs(MODEL, SMALL, max_states=1000)
    packed = bfs(MODEL, SMALL, max_states=1000, loose=4, block=3, merge_after=5)
    assert plain.cut == packed.cut == "max-states"
    assert (plain.states, plain.transitions, plain.depth) == (packed.states, packed.transitions, packed.depth)


def test_the_visited_store_numbers_fingerprints_as_a_dict_would():
    rng = random.Random(3)
    store, plain, merges = Visited(merge_after=10), {}, 0
    for n in range(5000):
        fp = rng.randrange(-2 ** 63, 2 ** 63)
        if rng.random() < 0.3 and plain:
            fp = rng.choice(list(plain))            # one seen before
        assert store.get(fp) == plain.get(fp)
        if fp not in plain:
            merged = len(store.fps)
            store.add(fp, n)
            plain[fp] = n
            merges += len(store.fps) != merged
    assert merges > 10 and list(store.fps) == sorted(store.fps)
    assert all(store.get(fp) == n for fp, n in plain.items())
    assert store.get(2 ** 63 - 1) is None and store.get(-2 ** 63) is None
