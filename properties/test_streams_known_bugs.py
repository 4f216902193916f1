"""Known Kafka Streams bugs are caught, and the reference is not blamed for them.

For every variant in ``streams_known_bugs.STREAMS_VARIANTS``: the reference passes the
variant's scope exhaustively; BFS finds the bug with the named property; a seeded
Hypothesis state machine (detection only, no shrinking) finds it too.
"""
from __future__ import annotations

import pytest

from groupcheck.checker import bfs
from model.streams_classic import MODEL
from properties.stateful import hunt
from properties.streams_known_bugs import STREAMS_VARIANTS

IDS = [v.key for v in STREAMS_VARIANTS]


@pytest.mark.parametrize("v", STREAMS_VARIANTS, ids=IDS)
def test_reference_passes_the_variant_scope(v):
    report = bfs(MODEL, v.reference_scope())
    assert report.violation is None, report.violation
    assert report.complete


@pytest.mark.parametrize("v", STREAMS_VARIANTS, ids=IDS)
def test_bfs_catches_the_variant(v):
    report = bfs(MODEL, v.buggy_scope())
    assert report.violation is not None, f"{v.key} not caught"
    assert report.violation.property == v.expect, report.violation


@pytest.mark.parametrize("v", STREAMS_VARIANTS, ids=IDS)
def test_hypothesis_catches_the_variant(v):
    tried = []
    for seed in range(4):
        found = hunt(MODEL, v.buggy_scope(), seed=seed, max_examples=300, steps=100, shrink=False)
        tried.append((seed, found.property, found.cases))
        if found.property is not None:
            assert found.property in v.caught_by, found
            return
    pytest.fail(f"Hypothesis missed {v.key}: {tried}")


def test_the_four_bugs_the_issue_names_are_there():
    assert {"KAFKA-6054", "KAFKA-8649", "KIP-268-no-downgrade", "KIP-268-no-final-rebalance"} <= set(IDS)
