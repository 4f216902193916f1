"""Consumer-group known bugs are caught, and the reference is not blamed for them
(``properties/known_bugs/consumer_group.py``): the reference passes each variant's scope
exhaustively, BFS finds the variant with the named property (its shortest counterexample), and a seeded
Hypothesis state machine (no shrinking: detection only) finds it with a property that catches
it. The findings (Kafka's own rules) are caught in Kafka's scope and pass with the model's fix."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.protocols import expected_jobs, get
from groupcheck.model.consumer_group import MODEL
from groupcheck.model.consumer_group.scope import ConsumerGroupScope, validate
from groupcheck.model.core import first_violation, replay
from groupcheck.model.scopes import ScopeError
from groupcheck.properties.known_bugs.consumer_group import FINDINGS, VARIANTS, variant
from groupcheck.properties.stateful import hunt

IDS = [v.key for v in VARIANTS]
HUNTED = [v for v in VARIANTS if v.hypothesis_finds]


@pytest.mark.slow
@pytest.mark.parametrize("v", VARIANTS, ids=IDS)
def test_reference_passes_the_variant_scope(v):
    report = bfs(MODEL, v.reference_scope())
    assert report.violation is None, report.violation
    assert report.complete


@pytest.mark.slow
@pytest.mark.parametrize("v", VARIANTS, ids=IDS)
def test_bfs_catches_the_variant_with_its_property(v):
    report = bfs(MODEL, v.buggy_scope())
    assert report.violation is not None, f"{v.key} not caught"
    assert report.violation.property == v.expect, report.violation


@pytest.mark.slow
@pytest.mark.parametrize("v", HUNTED, ids=[v.key for v in HUNTED])
def test_hypothesis_catches_the_variant(v):
    tried = []
    for seed in range(6):
        found = hunt(MODEL, v.buggy_scope(), seed=seed, max_examples=100, steps=v.hunt_steps, shrink=False)
        tried.append((seed, found.property, found.cases))
        if found.property is not None:
            assert found.property in v.caught_by, found
            assert first_violation(MODEL, v.buggy_scope(), *replay(MODEL, v.buggy_scope(), found.path))[0] == found.property
            return
    pytest.fail(f"Hypothesis missed {v.key}: {tried}")


def test_there_are_at_least_five_variants_each_named_after_a_jira():
    assert len(VARIANTS) >= 5
    assert all(v.key.startswith("KAFKA-") for v in VARIANTS)
    assert len({v.behaviour.switches for v in VARIANTS}) == len(VARIANTS)


def _shortest(key):
    v = variant(key)
    return v, bfs(MODEL, v.buggy_scope()).violation


def test_kafka_19233_counterexample_is_a_fenced_rejoin():
    _, violation = _shortest("KAFKA-19233")
    assert "epoch-0 rejoin" in violation.message and "answered FENCED_MEMBER_EPOCH" in violation.message


@pytest.mark.slow
def test_kafka_19233_as_shipped_by_4_1_is_a_rejoin_loop():
    """Kafka 4.1 ships the bug: no switch, the profile itself breaks the liveness claim."""
    v = variant("KAFKA-19233")
    report = bfs(MODEL, replace(v.reference_scope(), profile="kafka-4.1"))
    assert report.violation.property == "converges_within_k"
    assert "JOINING" in report.violation.message


def test_client_bugs_join_while_running_partitions():
    for key in ("KAFKA-16375", "KAFKA-16251"):
        _, violation = _shortest(key)
        assert violation.message == "client 0 (re-)joins with epoch 0 still running [t0-0, t0-1]"


def test_kafka_16147_hands_a_held_partition_on():
    _, violation = _shortest("KAFKA-16147")
    assert re.search(r"assigned to m1\.\d while m0\.0 still holds it", violation.message)


def test_kafka_20442_leaves_the_epochs_apart():
    _, violation = _shortest("KAFKA-20442")
    assert violation.message == "EMPTY with group epoch 3 != assignment epoch 2"


@pytest.mark.slow
@pytest.mark.parametrize("v", FINDINGS, ids=[v.key for v in FINDINGS])
def test_a_finding_is_kafkas_behaviour_and_the_fix_passes(v):
    assert v.behaviour == v.scope.behaviour          # no rule switched: this is Kafka
    report = bfs(MODEL, v.buggy_scope())
    assert report.violation is not None and report.violation.property == v.expect
    fixed = bfs(MODEL, v.fixed_scope())
    assert fixed.violation is None and fixed.complete


def test_the_unreconciled_assignment_finding_double_owns_a_partition():
    """Beyond the commit: with the commit claim set aside the same scope puts one partition on
    two live clients (no fault, a partition added and a member joining)."""
    from groupcheck.model.consumer_group.properties import PROPERTIES
    v = variant("unreconciled-assignment-released")
    model = replace(MODEL, properties=tuple(p for p in PROPERTIES if p.name != "commits_only_by_owner"))
    report = bfs(model, v.buggy_scope())
    assert report.violation.property == "no_double_ownership"
    assert report.violation.message == "[t0-1] owned by client 0 and client 1"


def test_the_main_job_requires_each_variant_and_finding():
    jobs = {j.name: j.expect for j in expected_jobs(get("consumer-group"))}
    assert jobs == {v.key: v.expect for v in VARIANTS + FINDINGS}


def test_an_unknown_switch_is_refused_with_its_field():
    with pytest.raises(ScopeError, match=r"scope.switches\[0\]: unknown switch 'nope'"):
        validate(replace(ConsumerGroupScope(), switches=("nope",)))
