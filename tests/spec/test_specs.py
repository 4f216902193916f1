"""Every spec folder under specs/ held against its protocol's model, as
``groupcheck spec check`` does: names in both directions, each pinned scope state for
state, walks of larger scopes, and each known-bug variant module."""
from __future__ import annotations

import pytest

from groupcheck.spec import crosscheck, link, manifest

BUNDLES = {name: manifest.load(name) for name in manifest.folders()}
CONFIGS = [(name, c.name) for name, b in BUNDLES.items() for c in b.configs]
# the safety variants (a liveness variant, settles_under_fairness, is tests/spec/test_fairness_crosscheck.py's)
VARIANTS = [(name, v.key) for name, b in BUNDLES.items() for v in b.variants if v.property != manifest.LIVENESS]


def test_every_modelled_protocol_has_a_spec():
    from groupcheck.protocols import PROTOCOLS
    assert set(BUNDLES) == set(PROTOCOLS) == {"consumer", "consumer-group", "streams-classic",
                                                           "streams-group"}


def test_delivery_tla_is_one_file_in_both_consumer_spec_folders():
    """The record layer's operators and claims are stated once: TLC runs in a copy of one
    folder, so each consumer spec folder holds Delivery.tla, byte for byte the same."""
    consumer, group = BUNDLES["consumer"].folder / "Delivery.tla", BUNDLES["consumer-group"].folder / "Delivery.tla"
    assert consumer.read_bytes() == group.read_bytes()


@pytest.mark.parametrize("name", sorted(BUNDLES))
def test_names_agree_both_ways(name):
    bundle = BUNDLES[name]
    spec = crosscheck.load_spec(bundle, bundle.configs[0].scope)
    names = link.check(bundle, spec.action_names)
    assert names.problems == []
    assert len(names.actions) + len(bundle.leaves_out["actions"]) == len(bundle.model.action_kinds)
    assert len(names.properties) + len(bundle.leaves_out["properties"]) == len(bundle.model.properties)


@pytest.mark.slow
@pytest.mark.parametrize("name, config", CONFIGS)
def test_pinned_scope_reachable_states_equal(name, config):
    """Same states (no symmetry on either side), every transition a step of the spec action
    of its kind, every invariant, step claim and witness with the model's verdict; the
    witnesses reached and the claims broken are the manifest's (e.g. consumer-group's
    lost-response scope breaks commits_only_by_owner on both sides: the model's finding
    unreconciled-assignment-released; streams-classic's assignment-error breaks no_thread_dies:
    2.7's ASSIGNMENT_ERROR kills the threads; the consumer's MCConsumer reaches a zombie)."""
    bundle = BUNDLES[name]
    pinned = next(c for c in bundle.configs if c.name == config)
    report = crosscheck.check_config(bundle, pinned)
    assert report.problems == []
    assert report.figures["spec states"] == report.figures["model states"]
    assert report.figures["TLC states"] == pinned.distinct_states
    # what both sides reach there: every witness found, every claim broken (a finding or a rule)
    assert tuple(report.figures["witnesses reached"]) == pinned.witnesses
    assert tuple(sorted(set(report.figures["claims broken on both sides"])
                        | set(report.figures["invariants broken on both sides"]))) == pinned.broken


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BUNDLES))
def test_walks_of_larger_scopes_are_behaviours_of_the_spec(name):
    bundle = BUNDLES[name]
    for scope in bundle.walk_scopes:
        report = crosscheck.check_walks(bundle, scope, walks=4, length=60, seed=11)
        assert report.problems == []
        assert report.figures["steps validated"] > 60


@pytest.mark.slow
@pytest.mark.parametrize("name, key", VARIANTS)
def test_known_bug_variant_breaks_the_same_named_invariant(name, key):
    """The variant module against the model with the bug's rule: the model's shortest
    counterexample is a behaviour of the variant and breaks the claim on both sides; the
    reachable states agree (where the manifest pins them: a bug whose scope is beyond CI's
    state-for-state budget has its counterexample checked only)."""
    bundle = BUNDLES[name]
    variant = next(v for v in bundle.variants if v.key == key)
    report = crosscheck.check_variant(bundle, variant)
    assert report.problems == []
    assert variant.property in report.figures["broken on both sides"]
    assert report.figures["steps"] > 0
    assert report.figures.get("states (spec = model)") == variant.distinct_states


@pytest.mark.slow
@pytest.mark.parametrize("name, key", VARIANTS)
def test_the_base_spec_rejects_each_known_bug_counterexample(name, key):
    """The same path under the base spec stops being a behaviour at the buggy step."""
    from groupcheck.checker import bfs
    bundle = BUNDLES[name]
    variant = next(v for v in bundle.variants if v.key == key)
    scope = bundle.variant_scope(variant)
    found = bfs(bundle.model, scope)
    spec = crosscheck.load_spec(bundle, scope)
    steps, problems = crosscheck.validate_path(bundle, scope, list(found.violation.path), spec)
    assert problems and "not a step of" in problems[0]
    assert steps <= len(found.violation.path) - 1
