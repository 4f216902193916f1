"""Static membership in the explorable streams-group model: the reference scope
``static-membership`` (pinned counts, the witness, every profile), the paths that end in
UNRELEASED_INSTANCE_ID, and the new rules pinned by breaking them."""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.model.scopes import ScopeError
from groupcheck.model.streams_group import MODEL, coordinator, member
from groupcheck.model.streams_group.scope import StreamsGroupScope as S, from_dict, with_profile
from groupcheck.model.streams_group.step import init_states, step
from groupcheck.model.streams_group.world import FAILED, MEMBER

STATIC = S(processes=2, static=True, operations=("roll",), faults=("crash",), budget=1)   # the reference scope
ROLL = S(processes=2, static=True, operations=("roll",), budget=1)
LOST = S(processes=2, static=True, faults=("lose_response",), budget=1)


@pytest.mark.slow
@pytest.mark.parametrize("profile, states, transitions, depth", [
    ("kip-1071", 10358, 23421, 56), ("kafka-4.5", 10985, 24655, 56), ("kafka-4.1", 51, 95, 8)])
def test_the_reference_scope_holds_under_every_profile(profile, states, transitions, depth):
    report = bfs(MODEL, replace(STATIC, profile=profile))
    assert report.violation is None and report.complete
    assert (report.states, report.transitions, report.depth) == (states, transitions, depth)
    assert bool(report.witnessed["static_rejoin_keeps_tasks"]) == (profile != "kafka-4.1")


def test_a_dynamic_scope_is_unchanged_by_the_roll_operation():
    """Without ``static`` a rolled client leaves with -1 and rejoins as a new member: the
    witness stays out of reach."""
    report = bfs(MODEL, replace(ROLL, static=False))
    assert report.violation is None and not report.witnessed["static_rejoin_keeps_tasks"]


def run(scope, state, *kinds):
    """Take the first enabled action of each kind (``kind@slot`` for a given slot) in turn."""
    for want in kinds:
        kind, _, slot = want.partition("@")
        options = [a for a in MODEL.actions(scope, state) if a.kind == kind and (not slot or a.slot == int(slot))]
        assert options, f"{want} is not enabled"
        state, _ = step(scope, state, options[0])
    return state


def joined(scope):
    """Both clients joined and converged (send/handle/deliver rounds)."""
    state = init_states(scope)[0]
    for _ in range(4):
        state = run(scope, state, "send@0", "handle@0", "deliver@0", "send@1", "handle@1", "deliver@1")
    assert all(c.status == MEMBER for c in state.clients)
    return state


@pytest.mark.parametrize("profile", ["kip-1071", "kafka-4.5"])
def test_a_crashed_static_client_restarts_into_unreleased_instance_id(profile):
    """The crashed member still holds its instance id (it never sent -2): the restarted
    client is refused, and the client takes it as fatal (StreamsGroupHeartbeatRequestManager)."""
    scope = replace(STATIC, profile=profile)
    state = run(scope, joined(scope), "crash@0", "restart@0", "send@0", "handle@0")
    assert state.clients[0].reply.error == "UNRELEASED_INSTANCE_ID"
    state = run(scope, state, "deliver@0")
    assert state.clients[0].status == FAILED


@pytest.mark.parametrize("profile, status, error", [("kip-1071", MEMBER, ""),
                                                    ("kafka-4.5", FAILED, "UNRELEASED_INSTANCE_ID")])
def test_a_lost_join_response_of_a_static_client(profile, status, error):
    """apache/kafka#23542 (open): the client rejoins with its member id at epoch 0; Kafka
    answers UNRELEASED_INSTANCE_ID, which is fatal. The KIP's profile takes it as a rejoin."""
    scope = replace(LOST, profile=profile)
    state = run(scope, init_states(scope)[0], "send@0", "handle@0", "lose_response@0", "send@0", "handle@0")
    assert state.clients[0].reply.error == error
    assert run(scope, state, "deliver@0").clients[0].status == status


def test_a_rolled_static_client_sends_minus_two_and_its_next_incarnation_takes_over():
    state = run(ROLL, joined(ROLL), "roll@0", "send@0")
    assert state.clients[0].request.epoch == -2
    state = run(ROLL, state, "handle@0", "restart@0", "send@0", "handle@0")
    g = state.group
    assert g.member("m0.0") is None and g.member("m0.1").instance_id == "i0"
    assert state.marks and state.clients[0].reply.epoch == g.group_epoch


# ---- the rules, pinned by breaking them ----

def _violated(scope, prop):
    report = bfs(MODEL, scope)
    return report.violation is not None and report.violation.property == prop


def test_a_static_leave_that_bumps_is_caught(monkeypatch):
    real = coordinator.static_leave

    def bumping(group, m, shutdown):
        out = real(group, m, shutdown)
        g = replace(out.group, group_epoch=out.group.group_epoch + 1)
        return out._replace(group=g, records=coordinator.diff(group, g))
    monkeypatch.setattr(coordinator, "static_leave", bumping)
    assert _violated(ROLL, "static_member_keeps_assignment")


def test_a_replacement_that_drops_the_target_is_caught(monkeypatch):
    real = coordinator._replace_static_member

    def dropping(g, old, member_id):
        g, m = real(g, old, member_id)
        return g.with_target(member_id, None), m
    monkeypatch.setattr(coordinator, "_replace_static_member", dropping)
    assert _violated(ROLL, "static_member_keeps_assignment")


def test_a_join_that_takes_a_live_instance_id_is_caught(monkeypatch):
    monkeypatch.setattr(coordinator, "_static_join",
                        lambda g, r, cp: (g.static_member(r.instance_id) if r.instance_id else None, None))
    assert _violated(STATIC, "error_as_profile_prescribes")


def test_a_static_client_that_leaves_with_minus_one_misses_the_witness(monkeypatch):
    monkeypatch.setattr(member, "LEAVE_STATIC_EPOCH", -1)
    report = bfs(MODEL, ROLL)
    assert report.violation is None and not report.witnessed["static_rejoin_keeps_tasks"]


def test_the_static_scope_field():
    assert from_dict({"static": True, "operations": ["roll"], "budget": 1}).static
    with pytest.raises(ScopeError, match="static"):
        from_dict({"static": "yes"})


def test_kafka_41_runs_a_static_scope_with_dynamic_members():
    """4.1 refuses instance ids, so ``check --profile kafka-4.1`` explores the scope's rolls
    and crashes with dynamic members (as it drops warm-ups); kept static, every client fails."""
    assert not with_profile(STATIC, "kafka-4.1").static and with_profile(STATIC, "kafka-4.5").static
