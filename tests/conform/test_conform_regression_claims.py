"""The conformance regression files (groupcheck/conform/regression.py) judge the checker's
own claims as the checker does, with the claim names taken from the model
(``checker.liveness_claims``, ``checker.CHECKER_CLAIMS``): a lasso (ITF ``loop``) is
re-judged by ``judge_lasso``, a liveness claim the model lacks is not judged at all. The
lasso is streams-group KAFKA-20870's (the model's own BFS with fairness), so no target runs."""
from __future__ import annotations

from dataclasses import replace

from groupcheck.conform.regression import judged_along, render
from groupcheck.spec import fairness, manifest

BUNDLE = manifest.load("streams-group")
LC = next(lc for lc in fairness.configs(BUNDLE) if lc.variant is not None and lc.variant.key == "KAFKA-20870")
LASSO = fairness.model_verdict(BUNDLE, LC.scope).violation


def test_a_lasso_is_re_judged_as_a_lasso():
    found = judged_along(BUNDLE.model, LC.scope, LASSO.path, "settles_under_fairness", LASSO.loop)
    assert found is not None and found.step == len(LASSO.path) - 1 == 36
    assert found.message.startswith("the cycle of 6 steps from step 30 repeats forever without settling")
    # the same path read with a cycle that does not close is no counterexample
    assert judged_along(BUNDLE.model, LC.scope, LASSO.path, "settles_under_fairness", LASSO.loop - 1) is None


def test_a_liveness_claim_the_model_lacks_is_not_judged():
    """A model without ``settled`` has no liveness claim (checker.liveness_claims): can_settle
    is never violated along a path there (a hard-coded name would ask for ``settled``)."""
    quiet = replace(BUNDLE.model, settled=None, converged=None)
    assert judged_along(quiet, LC.scope, LASSO.path, "can_settle") is None
    assert judged_along(quiet, LC.scope, LASSO.path, "settles_under_fairness", LASSO.loop) is None


def test_the_written_test_passes_the_loop():
    text = render("x.itf.json", "reference:range", {"members": 2}, LASSO.path, "settles_under_fairness",
                  loop=LASSO.loop)
    assert "LOOP = 30   # the lasso's cycle starts at this state of PATH" in text
    assert "found = divergence_along(TARGET, SCOPE, PATH, PROPERTY, loop=LOOP)" in text
    compile(text, "written.py", "exec")
    plain = render("x.itf.json", "reference:range", {"members": 2}, [0, 1], "assignment_valid")
    assert "LOOP" not in plain and "divergence_along(TARGET, SCOPE, PATH, PROPERTY)\n" in plain
