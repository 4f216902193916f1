"""TLC and the model's BFS agree on liveness under fairness, config by config: every
liveness config of specs/ (an ``MC*.cfg`` whose PROPERTY names ``FairSettles*``, found by
``fairness.configs``, so a config a spec folder adds is picked up here with no edit) is
run by real TLC (one worker) and by ``groupcheck check --fairness``'s search at the
manifest's scope of that config (``fairness.model_verdict``). A base config holds on both
sides; a known bug's (a manifest variant claiming ``settles_under_fairness``) gives a lasso
on both. And at every other pinned scope of every spec (the manifest's ``configs``), a
liveness config written for it (``fairness.write_model``) holds under TLC as under the BFS,
with the pinned distinct states."""
from __future__ import annotations

import shutil

import pytest

from groupcheck.checker import Budget
from groupcheck.spec import fairness, manifest, tlc

BUNDLES = {name: manifest.load(name) for name in manifest.folders()}
CASES = [pytest.param(name, lc, id=f"{name}-{lc.name}") for name, b in BUNDLES.items() for lc in fairness.configs(b)]
CAP = 600          # seconds TLC may take on one liveness config: a cut config fails


def test_the_shipped_liveness_configs_are_found():
    """At least the two streams-group configs: the base claim and KAFKA-20870's lasso."""
    names = {lc.name for _, lc in (p.values for p in CASES)}
    assert {"MCStreamsGroupLiveness", "MCStreamsGroup_KAFKA20870Liveness"} <= names


@pytest.mark.parametrize("name, lc", CASES)
def test_tlc_and_the_bfs_give_the_same_liveness_verdict(name, lc):
    r = tlc.run(lc.cfg, budget=Budget(max_seconds=CAP))
    assert r.error is None and r.cut is None, (r.error, r.cut)
    assert r.violation in (None, "temporal property"), (r.violation, r.claim)
    found = fairness.model_verdict(BUNDLES[name], lc.scope)
    assert found.cut is None
    assert found.violation is None or found.violation.property == fairness.CLAIM, found.violation
    tlc_lasso, bfs_lasso = r.violation is not None, found.violation is not None
    assert tlc_lasso == bfs_lasso == (lc.variant is not None), \
        f"TLC {'finds a lasso' if tlc_lasso else 'holds'}, the BFS {'finds a lasso' if bfs_lasso else 'holds'}"
    if tlc_lasso:
        assert r.claim == lc.claim and found.violation.loop is not None
    assert r.distinct == lc.distinct_states


def _other_scopes():
    for name, bundle in BUNDLES.items():
        shipped = [lc.scope for lc in fairness.configs(bundle) if lc.variant is None]
        for config in bundle.configs:
            if config.scope not in shipped:
                yield pytest.param(name, config, id=f"{name}-{config.name}")


@pytest.mark.parametrize("name, config", list(_other_scopes()))
def test_tlc_and_the_bfs_agree_on_liveness_at_every_pinned_scope(name, config, tmp_path):
    bundle = BUNDLES[name]
    folder = tmp_path / bundle.folder.name
    shutil.copytree(bundle.folder, folder)
    r = tlc.run(fairness.write_model(bundle, config.name, config.scope, folder), budget=Budget(max_seconds=CAP))
    assert r.error is None and r.cut is None, (r.error, r.cut)
    found = fairness.model_verdict(bundle, config.scope)
    assert found.cut is None
    assert (r.violation, r.claim) == (None, None), f"TLC: {r.claim} {r.violation} ({len(r.trace)} states)"
    assert found.violation is None, found.violation.message
    assert r.distinct == config.distinct_states      # the BFS also counts the states past the bound it does not expand
