"""The explorable KIP-848 consumer-group model (model/consumer_group/{scope,world,step,render,
properties}.py): pinned state counts of tiny scopes, the scope's errors, symmetry, rendering,
and the shortest stories of the rules each property pins."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.protocols.consumer_group import reference_scopes
from groupcheck.model.consumer_group import MODEL
from groupcheck.model.consumer_group.scope import ConsumerGroupScope as S
from groupcheck.model.consumer_group.scope import from_dict, to_dict, with_profile
from groupcheck.model.consumer_group.step import canonical
from groupcheck.model.core import replay
from groupcheck.model.scopes import ScopeError


@pytest.mark.parametrize("scope, states", [
    (S(members=1, partitions=(1,)), 26),
    (S(), 2052),
    (S(assignor="range", partitions=(1, 1)), 1436),
    (S(members=1, partitions=(1, 1), operations=("subscription_change",), faults=("lose_response",), budget=2), 240),
    (S(static=True, operations=("roll",), budget=1, partitions=(1,)), 18334),
])
def test_tiny_scopes_state_counts_are_pinned(scope, states):
    report = bfs(MODEL, scope)
    assert report.violation is None and report.complete
    assert report.states == states


@pytest.mark.slow
@pytest.mark.parametrize("name", list(reference_scopes()))
def test_reference_scopes_hold_and_reach_their_witnesses(name):
    from groupcheck.protocols import get
    protocol = get("consumer-group")
    scope = reference_scopes()[name]
    report = bfs(MODEL, scope)
    assert report.violation is None, (name, report.violation)
    far = protocol.out_of_reach(scope)
    missed = [w for w, hit in report.witnessed.items() if not hit and w not in far]
    assert not missed, (name, missed)


def _story(scope):
    report = bfs(MODEL, scope)
    init, steps = replay(MODEL, scope, report.violation.path)
    return report.violation, [MODEL.view.describe_action(scope, s.prev, s.action) for s in steps]


def test_the_join_response_carries_epoch_and_assignment_and_the_client_reconciles():
    scope = S(members=1, partitions=(1,))
    state = MODEL.init_states(scope)[0]
    for kind in ("send", "handle", "deliver", "reconcile", "send", "handle", "deliver"):
        action = next(a for a in MODEL.actions(scope, state) if a.kind == kind)
        state, events = MODEL.step(scope, state, action)
    c = state.clients[0]
    assert c.status == "STABLE" and c.epoch == 1 and c.owned == 1
    assert state.group.member("m0.0").is_reconciled_to(1)


def test_no_symmetry_between_clients_the_assignors_break_ties_by_member_id():
    """A reduction over client permutations merged a state whose next target differs (the
    uniform assignor gives its extra quota to the first member id) and hid a double
    ownership a walk then found: clients are not interchangeable."""
    scope = S()
    state = MODEL.init_states(scope)[0]
    a0 = MODEL.step(scope, state, [a for a in MODEL.actions(scope, state) if a.kind == "send"][0])[0]
    a1 = MODEL.step(scope, state, [a for a in MODEL.actions(scope, state) if a.kind == "send"][1])[0]
    assert canonical(scope, a0) != canonical(scope, a1)
    # ids inside the request do not split states: the slot names them
    assert canonical(scope, a0)[1][0][0].request.member_id == ""


def test_itf_and_text_render_every_state_of_a_walk():
    scope = reference_scopes()["static-roll"]
    state = MODEL.init_states(scope)[0]
    for i in range(40):
        acts = MODEL.actions(scope, state)
        if not acts:
            break
        action = acts[i % len(acts)]
        assert MODEL.view.describe_action(scope, state, action)
        state, events = MODEL.step(scope, state, action)
        json.dumps(MODEL.view.state_to_itf(scope, state))
        for e in events:
            MODEL.view.describe_event(scope, e)
        assert "group" in MODEL.view.describe_state(scope, state)


def test_scope_round_trips_and_bad_input_names_the_field():
    scope = reference_scopes()["regex-failover"]
    assert from_dict(json.loads(json.dumps(to_dict(scope)))) == scope
    for bad, message in [
        ({"members": 5}, r"scope.members: 5 is outside 1..4"),
        ({"partitions": [5]}, r"scope.partitions\[0\]: 5 is outside 1..4"),
        ({"assignor": "sticky"}, r"scope.assignor: unknown server assignor 'sticky'"),
        ({"profile": "kafka-9"}, r"scope.profile: unknown profile 'kafka-9'"),
        ({"faults": ["meteor"]}, r"scope.faults: unknown fault 'meteor'"),
        ({"regex": True, "profile": "kafka-3.7"}, r"scope.regex: kafka-3.7 rejects"),
        ({"joiners": 1}, r"scope.joiners: 1 joiners need the join operation"),
        ({"operations": ["subscription_change"]}, r"subscription_change needs two topics"),
        ({"members": "2"}, r"scope.members: expected an integer"),
        ({"colour": 1}, r"unknown key 'colour'"),
    ]:
        with pytest.raises(ScopeError, match=message):
            from_dict(bad)


def test_with_profile_drops_a_regex_for_kafka_3_7():
    assert with_profile(S(regex=True), "kafka-3.7").regex is False
    with pytest.raises(ScopeError, match="unknown profile"):
        with_profile(S(), "nope")


def test_the_monitor_needs_reconciliation_done_before_a_round_counts(monkeypatch):
    """Pins step._monitor's ``busy`` rule: a client with a reconciliation (or an acknowledgement)
    left to do does not finish a round; counting it anyway lets converges_within_k blame a
    client that merely has not polled yet."""
    import sys
    step = sys.modules["groupcheck.model.consumer_group.step"]
    real = step._monitor
    monkeypatch.setattr(step, "_monitor", lambda state, slot, clients, busy: real(state, slot, clients, False))
    report = bfs(MODEL, S())
    assert report.violation is not None and report.violation.property == "converges_within_k"


def test_a_lost_response_is_followed_by_a_full_request():
    """HeartbeatRequestManager#onFailure resets the heartbeat state: after a lost response the
    next heartbeat carries the subscription, the rebalance timeout and the owned partitions."""
    scope = S(members=1, partitions=(1,), faults=("lose_response",), budget=1)
    state = MODEL.init_states(scope)[0]
    for kind in ("send", "handle", "deliver", "reconcile", "send", "handle", "deliver", "send", "handle"):
        state = MODEL.step(scope, state, next(a for a in MODEL.actions(scope, state) if a.kind == kind))[0]
    quiet = MODEL.step(scope, state, next(a for a in MODEL.actions(scope, state) if a.kind == "deliver"))[0]
    assert MODEL.step(scope, quiet, next(a for a in MODEL.actions(scope, quiet) if a.kind == "send"))[0] \
        .clients[0].request.topic_partitions is None
    lost = MODEL.step(scope, state, next(a for a in MODEL.actions(scope, state) if a.kind == "lose_response"))[0]
    r = MODEL.step(scope, lost, next(a for a in MODEL.actions(scope, lost) if a.kind == "send"))[0].clients[0].request
    assert r.member_epoch == 1 and r.topic_partitions is not None and r.subscribed_topic_names == ("t0",)
    assert r.rebalance_timeout_ms > 0


def test_prescribed_error_follows_the_profiles_epoch_0_rule():
    """error_as_profile_prescribes' table: an epoch-0 heartbeat of a member the group holds at
    epoch 3 is a rejoin under kip-848 / kafka-4.3 (KAFKA-19233's fix) and fenced before."""
    from groupcheck.model.consumer_group.group import Member, new_group, partition_index
    from groupcheck.model.consumer_group.properties import prescribed_error
    from groupcheck.model.consumer_group.state import ConsumerGroupHeartbeat
    g = new_group("g", partition_index((("t0", 1),))).with_member(Member(member_id="m0.0", epoch=3, previous_epoch=2))
    state = MODEL.init_states(S())[0]._replace(group=g)
    join = ConsumerGroupHeartbeat(group_id="g", member_id="m0.0", member_epoch=0, rebalance_timeout_ms=1000,
                                  subscribed_topic_names=("t0",), topic_partitions=())
    assert prescribed_error(S(), state, join) == ""
    assert prescribed_error(S(profile="kafka-4.3"), state, join) == ""
    assert prescribed_error(S(profile="kafka-4.1"), state, join) == "FENCED_MEMBER_EPOCH"
    assert prescribed_error(S(), state, join._replace(member_id="m9.0", member_epoch=3)) == "UNKNOWN_MEMBER_ID"
    assert prescribed_error(S(), state, join._replace(member_epoch=4, topic_partitions=None)) == "FENCED_MEMBER_EPOCH"


def test_a_coordinator_lowering_a_member_epoch_is_reported():
    """member_epoch_never_decreases's coordinator clause: a step whose group holds a member at a
    lower epoch (not 0, not -2) breaks it; a step that left the group alone and a failover do not."""
    from groupcheck.model.consumer_group.properties import member_epoch_never_decreases as claim
    from groupcheck.model.consumer_group.world import Action

    seen = []
    scope = S(partitions=(1,))
    bfs(MODEL, scope, on_state=seen.append)
    prev = next(s for s in seen if not s.group.dead and any(m.epoch >= 2 for m in s.group.members))
    m = next(m for m in prev.group.members if m.epoch >= 2)
    lowered = replace(prev.group, members=tuple(replace(x, epoch=1) if x is m else x for x in prev.group.members))
    nxt = prev._replace(group=lowered)
    assert claim(scope, prev, Action("handle", 0), nxt, ()) == f"coordinator: {m.member_id} epoch {m.epoch} -> 1"
    assert claim(scope, prev, Action("handle", 0), prev, ()) is None
    assert claim(scope, prev, Action("failover", 0), nxt, ()) is None


def test_a_reconciliation_that_steps_an_epoch_back_is_found(monkeypatch):
    """The same clause over a search: a coordinator whose reconciliation answers a member that
    stays at its epoch with the epoch before it."""
    import sys

    import groupcheck.model.consumer_group.coordinator_update as cu
    cg_step = sys.modules["groupcheck.model.consumer_group.step"]     # the package re-exports a function named step
    original = cu.reconcile_member

    def back(g, m, owned, p):
        out = original(g, m, owned, p)
        return replace(out, epoch=out.epoch - 1) if out.epoch == m.epoch >= 2 else out
    monkeypatch.setattr(cu, "reconcile_member", back)
    cg_step._heartbeat.cache_clear()
    try:
        report = bfs(MODEL, S(partitions=(1,)))
    finally:
        cg_step._heartbeat.cache_clear()
    assert report.violation.property == "member_epoch_never_decreases"
    assert report.violation.message.startswith("coordinator:")
