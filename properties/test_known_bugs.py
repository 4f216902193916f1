"""Known bugs are caught, and the reference is not blamed for them.

For every variant of both protocols (``known_bugs/consumer.py`` for the consumer group,
``known_bugs/streams_classic.py`` for Kafka Streams): the reference model passes
the variant's scope exhaustively; BFS finds the bug with the named property; and a
seeded Hypothesis state machine (no shrinking: detection only) finds it too, for the
variants Hypothesis reaches at this budget. KAFKA-13406 (a 57-step interleaving of
three members) and KAFKA-14639 (33 steps: a third member joins while the leader's
JoinGroup response is lost) need cases of 200 steps (``Variant.hunt_steps``) and actors
that start late (``stateful.machine``): few seeds find KAFKA-13406 within 300 cases
(0-2 of 5 in the 2026-11-23 benchmark; seeded runs are not exactly repeatable), so the
hunt tries up to eight seeds, and KAFKA-14639 is left out (no seed found it at that
budget: docs/known-gaps.md).
"""
from __future__ import annotations

import pytest

from groupcheck.checker import bfs
from groupcheck.model.consumer import MODEL as CONSUMER
from groupcheck.model.streams_classic import MODEL as STREAMS
from groupcheck.properties.known_bugs import consumer as consumer_bugs
from groupcheck.properties.known_bugs import streams_classic as streams_bugs
from groupcheck.properties.stateful import hunt

CASES = [(CONSUMER, v) for v in consumer_bugs.VARIANTS] + [(STREAMS, v) for v in streams_bugs.VARIANTS]
IDS = [f"{model.name}:{v.key}" for model, v in CASES]
HUNTED = [(m, v) for m, v in CASES if v.hypothesis_finds]


@pytest.mark.slow
@pytest.mark.parametrize("model, v", CASES, ids=IDS)
def test_reference_passes_the_variant_scope(model, v):
    report = bfs(model, v.reference_scope())
    assert report.violation is None, report.violation
    assert report.complete


@pytest.mark.slow
@pytest.mark.parametrize("model, v", CASES, ids=IDS)
def test_bfs_catches_the_variant(model, v):
    report = bfs(model, v.buggy_scope())
    assert report.violation is not None, f"{v.key} not caught"
    assert report.violation.property == v.expect, report.violation


@pytest.mark.slow
@pytest.mark.parametrize("model, v", HUNTED, ids=[f"{m.name}:{v.key}" for m, v in HUNTED])
def test_hypothesis_catches_the_variant(model, v):
    tried = []
    for seed in range(8):
        found = hunt(model, v.buggy_scope(), seed=seed, max_examples=300, steps=getattr(v, "hunt_steps", 100),
                     shrink=False)
        tried.append((seed, found.property, found.cases))
        if found.property is not None:
            assert found.property in v.caught_by, found
            return
    pytest.fail(f"Hypothesis missed {v.key}: {tried}")


def test_there_are_at_least_six_consumer_variants_each_named_after_a_jira_kip_or_upstream_pr():
    assert len(consumer_bugs.VARIANTS) >= 6
    assert all(v.key.startswith(("KAFKA-", "KIP-", "librdkafka-")) for v in consumer_bugs.VARIANTS)
    assert sum(v.hypothesis_finds for v in consumer_bugs.VARIANTS) >= 7


def test_the_four_streams_bugs_the_issue_names_are_there_and_all_are_hunted():
    keys = {v.key for v in streams_bugs.VARIANTS}
    assert {"KAFKA-6054", "KAFKA-8649", "KIP-268-no-downgrade", "KIP-268-no-final-rebalance"} <= keys
    assert all(v.hypothesis_finds for v in streams_bugs.VARIANTS)
