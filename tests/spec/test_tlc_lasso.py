"""A lasso in TLC's shape (its states, then the step back to the state "Back to state" names,
or a "Stuttering" end) followed on the model (groupcheck/spec/tlc_replay.py follow_lasso):
the path returns to the same model state and ``judge_lasso`` says whether the model's lasso
is a fair cycle that never converges. The states here are the model's own BFS lasso mapped
onto the spec's variables, so no TLC runs (tests/spec/test_tlc_real.py runs TLC's)."""
from __future__ import annotations

from groupcheck.model.core import replay
from groupcheck.spec import fairness, manifest, tlc_replay

BUNDLE = manifest.load("streams-group")
MC = "MCStreamsGroup_KAFKA20870Liveness"
LC = next(lc for lc in fairness.configs(BUNDLE) if lc.name == MC)


def _lasso():
    """The model's lasso at the variant's scope as TLC would print it: the spec states up to
    the last one before the step back, and the index the cycle returns to."""
    found = fairness.model_verdict(BUNDLE, LC.scope).violation
    first, steps = replay(BUNDLE.model, LC.scope, found.path)
    states = [BUNDLE.variables(LC.scope, s) for s in [first] + [s.next for s in steps]]
    return found.path, states[:-1], found.loop


def test_a_lasso_is_followed_round_its_cycle_and_judged_fair():
    path, states, loop = _lasso()
    followed = tlc_replay.follow_lasso(BUNDLE, MC, states, loop, stutters=False)
    assert followed.problem is None
    assert followed.path == path and followed.loop == loop == 30
    assert followed.lasso.startswith("the cycle of 6 steps from step 30 repeats forever without settling")


def test_a_step_back_to_another_state_is_no_lasso():
    _, states, loop = _lasso()
    followed = tlc_replay.follow_lasso(BUNDLE, MC, states, loop - 1, stutters=False)
    assert followed.path is None and followed.problem.startswith(f"no model action leads to a state that maps onto "
                                                                 f"TLC's state {len(states) + 1}")


def test_a_stop_where_steps_are_enabled_is_not_fair():
    """TLC's "Stuttering" end: the last state repeats; weak fairness rules it out where a
    non-fault step stays enabled, and judge_lasso says so (no verdict)."""
    _, states, _ = _lasso()
    followed = tlc_replay.follow_lasso(BUNDLE, MC, states, len(states) - 1, stutters=True)
    assert followed.problem is None and followed.loop == len(states) - 1 == len(followed.path) - 1
    assert followed.lasso is None
