"""Streams-group known bugs are caught, and the reference is not blamed for them
(``properties/streams_group_known_bugs.py``): the reference passes each variant's scope
exhaustively, BFS finds the variant with the named property, within a few seconds. The
findings (Kafka's own rules) are caught in Kafka's scope and pass with the model's fix."""
from __future__ import annotations

import time
from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.protocols import expected_jobs, get
from model.scopes import ScopeError
from model.streams_group import MODEL
from model.streams_group.scope import StreamsGroupScope, validate
from properties.streams_group_known_bugs import FINDINGS, STREAMS_GROUP_VARIANTS, streams_group_variant

IDS = [v.key for v in STREAMS_GROUP_VARIANTS]


@pytest.mark.parametrize("v", STREAMS_GROUP_VARIANTS, ids=IDS)
def test_reference_passes_the_variant_scope(v):
    report = bfs(MODEL, v.reference_scope())
    assert report.violation is None, report.violation
    assert report.complete


@pytest.mark.parametrize("v", STREAMS_GROUP_VARIANTS, ids=IDS)
def test_bfs_catches_the_variant_quickly(v):
    start = time.perf_counter()
    report = bfs(MODEL, v.buggy_scope())
    assert report.violation is not None, f"{v.key} not caught"
    assert report.violation.property == v.expect, report.violation
    assert time.perf_counter() - start < 15   # ~0.1 s alone; loaded CI machines are slower


def test_kafka_19233_counterexample_is_a_fenced_rejoin():
    v = streams_group_variant("KAFKA-19233")
    report = bfs(MODEL, v.buggy_scope())
    assert "epoch 0 heartbeat answered FENCED_MEMBER_EPOCH, prescribed NONE" in str(report.violation)


def test_kafka_20254_counterexample_is_an_offline_migration_then_a_failover():
    v = streams_group_variant("KAFKA-20254")
    report = bfs(MODEL, v.buggy_scope())
    assert "Group app is not a streams group." in str(report.violation)
    scope, path = v.buggy_scope(), report.violation.path
    state = MODEL.init_states(scope)[path[0]]
    kinds = []
    for i in path[1:]:
        action = MODEL.actions(scope, state)[i]
        state, events = MODEL.step(scope, state, action)
        kinds.append(action.kind)
    # the classic client stops, its member expires (the classic group is empty), the streams
    # client joins (the empty classic group is replaced), then the new coordinator loads the log
    assert kinds[0] == "upgrade" and kinds[-1] == "failover"
    assert kinds.index("expire") < kinds.index("handle") < kinds.index("failover")
    assert state.group.dead, "the coordinator failed to load the group"


@pytest.mark.parametrize("v", FINDINGS, ids=[v.key for v in FINDINGS])
def test_a_finding_is_kafkas_behaviour_and_the_fix_passes(v):
    assert v.behaviour == v.scope.behaviour          # no rule switched: this is Kafka
    report = bfs(MODEL, v.buggy_scope())
    assert report.violation is not None and report.violation.property == v.expect
    fixed = bfs(MODEL, v.fixed_scope())
    assert fixed.violation is None and fixed.complete


def test_the_main_job_requires_each_variant_and_finding():
    jobs = {j.name: j.expect for j in expected_jobs(get("streams-group"))}
    assert jobs == {v.key: v.expect for v in STREAMS_GROUP_VARIANTS + FINDINGS}


def test_an_unknown_switch_is_refused_with_its_field():
    with pytest.raises(ScopeError, match=r"scope.switches\[0\]: unknown switch 'nope'"):
        validate(replace(StreamsGroupScope(), switches=("nope",)))
