"""BFS tells states apart by 64-bit fingerprints; ``exact=True`` keeps whole states.

Either way the search explores the same states, reports the same figures and finds the
same shortest counterexample, rebuilt from the numbers each state keeps of its parent."""
from __future__ import annotations

from dataclasses import replace

from typer.testing import CliRunner

from groupcheck.checker import bfs, collision_probability
from groupcheck.cli import app
from model.consumer import MODEL
from model.core import first_violation, replay
from properties.known_bugs import variant

SMALL = replace(MODEL.default_scope(), faults=("pause",), max_generation=2)     # 4,252 states


def test_the_collision_probability_is_reported_as_tlc_does():
    report = bfs(MODEL, SMALL)
    n = report.states
    assert not report.exact and report.collision == n * (n - 1) / 2 ** 65
    assert 1e-13 < report.collision < 1e-11                 # about 5e-13 for 4,252 states
    assert collision_probability(1) == 0.0
    assert collision_probability(10 ** 6) < 3e-8 and collision_probability(10 ** 10) == 1.0


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
