"""Streams-group known bugs are caught, and the reference is not blamed for them
(``properties/known_bugs/streams_group.py``): the reference passes each variant's scope
exhaustively, BFS finds the variant with the named property (its shortest counterexample), and a
seeded Hypothesis state machine (no shrinking: detection only) finds it with the same
property. Each counterexample shows the JIRA's symptom. The findings (Kafka's own rules)
are caught in Kafka's scope and pass with the model's fix."""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.protocols import expected_jobs, get
from groupcheck.model.core import Step, check_step, first_violation, replay
from groupcheck.model.scopes import ScopeError
from groupcheck.model.streams_group import MODEL
from groupcheck.model.streams_group.scope import StreamsGroupScope, validate
from groupcheck.properties.stateful import hunt
from groupcheck.properties.known_bugs.streams_group import FINDINGS, VARIANTS, variant

IDS = [v.key for v in VARIANTS]
HUNTED = [v for v in VARIANTS if v.hypothesis_finds]


@pytest.mark.slow
@pytest.mark.parametrize("v", VARIANTS, ids=IDS)
def test_reference_passes_the_variant_scope(v):
    report = bfs(MODEL, v.reference_scope())
    assert report.violation is None, report.violation
    assert report.complete


@pytest.mark.parametrize("v", VARIANTS, ids=IDS)
def test_bfs_catches_the_variant_with_its_property(v):
    report = bfs(MODEL, v.buggy_scope())
    assert report.violation is not None, f"{v.key} not caught"
    assert report.violation.property == v.expect, report.violation


@pytest.mark.parametrize("v", HUNTED, ids=[v.key for v in HUNTED])
def test_hypothesis_catches_the_variant(v):
    """Seeded hunts of 100 cases (of the variant's ``hunt_steps``), no shrinking; each variant
    falls within a few seconds."""
    tried = []
    for seed in range(6):
        found = hunt(MODEL, v.buggy_scope(), seed=seed, max_examples=100, steps=v.hunt_steps, shrink=False)
        tried.append((seed, found.property, found.cases))
        if found.property is not None:
            assert found.property in v.caught_by, found
            assert _first_broken(v.buggy_scope(), found.path) == found.property
            return
    pytest.fail(f"Hypothesis missed {v.key}: {tried}")


def test_there_are_at_least_six_variants_each_named_after_a_jira_and_all_are_hunted():
    assert len(VARIANTS) >= 6
    assert all(v.key.startswith("KAFKA-") for v in VARIANTS)
    assert all(v.hypothesis_finds for v in VARIANTS)
    assert len({v.behaviour.switches for v in VARIANTS}) == len(VARIANTS)


def _walk(scope, path):
    """The states along ``path`` (action indices) and the last step's events."""
    state = MODEL.init_states(scope)[path[0]]
    events = ()
    for index in path[1:]:
        state, events = MODEL.step(scope, state, MODEL.actions(scope, state)[index])
    return state, events


def _first_broken(scope, path):
    """The first property a step along ``path`` breaks (None: none)."""
    found = first_violation(MODEL, scope, *replay(MODEL, scope, path))
    return found and found[0]


def _shortest(key):
    v = variant(key)
    return v, bfs(MODEL, v.buggy_scope()).violation


def test_kafka_19233_counterexample_is_a_fenced_rejoin():
    v = variant("KAFKA-19233")
    report = bfs(MODEL, v.buggy_scope())
    assert "epoch 0 heartbeat answered FENCED_MEMBER_EPOCH, prescribed NONE" in str(report.violation)


def test_kafka_21370_counterexample_is_invalid_request_for_a_same_epoch_redeploy():
    v, violation = _shortest("KAFKA-21370")
    assert "epoch 0 heartbeat answered INVALID_REQUEST, prescribed STREAMS_INVALID_TOPOLOGY_EPOCH" in violation.message
    state, events = _walk(v.buggy_scope(), violation.path)
    request, response = events[0].data[0], events[0].data[1]
    assert request.topology.epoch == state.group.topology.epoch == 0
    assert request.topology.subtopologies != state.group.topology.subtopologies
    assert response.error_message == "Topology updates are not supported yet."


def test_kafka_19335_member_takes_epoch_minus_one_then_rejoins_with_it_and_fails():
    """The shortest story ends when the rejoined client reads the leave response (epoch 0 ->
    -1); one step on, its join heartbeat carries -1 and is refused with INVALID_REQUEST."""
    v, violation = _shortest("KAFKA-19335")
    assert violation.message == "client 0: epoch 0 -> -1"
    scope = v.buggy_scope()
    state, _ = _walk(scope, violation.path)
    assert state.clients[0].status == "joining"
    send = next(a for a in MODEL.actions(scope, state) if a.kind == "send")
    sent, events = MODEL.step(scope, state, send)
    found = check_step(MODEL, scope, Step(state, send, 0, sent, events))
    assert ("join_epoch_is_rejoin", "client 0 (re-)joins with epoch -1") in [(name, msg) for name, msg in found]
    handled, events = MODEL.step(scope, sent, next(a for a in MODEL.actions(scope, sent) if a.kind == "handle"))
    assert events[0].data[1].error_message == "Topology can only be provided when (re-)joining."
    assert handled.clients[0].reply.error == "INVALID_REQUEST"


def test_kafka_20870_counterexample_is_a_revocation_never_acknowledged():
    v, violation = _shortest("KAFKA-20870")
    assert violation.message == "5 rounds without disturbance, yet client 0 is not at the target (epoch 1)"
    state, _ = _walk(v.buggy_scope(), violation.path)
    m0 = state.group.member("m0.0")
    assert m0.state == "UNREVOKED" and state.clients[0].owned == (0b01, 0, 0)


def test_kafka_20899_counterexample_puts_standby_and_active_on_one_process():
    v, violation = _shortest("KAFKA-20899")
    assert violation.message == "target assignment: p1 gets [T0] as active and as standby/warm-up"


def test_kafka_19190_counterexample_drops_a_shutdown_sent_on_leave():
    v, violation = _shortest("KAFKA-19190")
    assert violation.message == "m0.0's shutdown request (epoch -1) was dropped; 1 member(s) go on running"


def test_kafka_20254_counterexample_is_an_offline_migration_then_a_failover():
    v = variant("KAFKA-20254")
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
    assert jobs == {v.key: v.expect for v in VARIANTS + FINDINGS}


def test_an_unknown_switch_is_refused_with_its_field():
    with pytest.raises(ScopeError, match=r"scope.switches\[0\]: unknown switch 'nope'"):
        validate(replace(StreamsGroupScope(), switches=("nope",)))
