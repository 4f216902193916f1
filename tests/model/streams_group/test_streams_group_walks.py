"""Seeded swarm walks over every streams-group reference scope: every always/within
property (and no_deadlock) holds over 300 walks of 60 steps per scope."""
from __future__ import annotations

import pytest

from groupcheck.checker import walks
from groupcheck.protocols.streams_group import reference_scopes
from groupcheck.model.streams_group import MODEL

SCOPES = reference_scopes()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCOPES))
def test_every_property_holds_over_300_seeded_walks(name):
    report = walks(MODEL, SCOPES[name], seed=1071, count=300, length=60, swarm=True)
    assert report.violation is None, report.violation
    assert report.complete and report.walks == 300
    assert "no_deadlock" in report.checked and "converges_within_k" in report.checked


def test_walks_replay_by_seed():
    scope = SCOPES["session-timeout"]
    a, b = (walks(MODEL, scope, seed=7, count=20, length=60) for _ in range(2))
    assert (a.states, a.depth) == (b.states, b.depth)
