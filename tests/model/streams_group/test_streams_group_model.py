"""The explorable streams-group model (KIP-1071): pinned state counts, every property at
tiny scopes, witnesses, symmetry that keeps verdicts, and rules pinned by breaking them."""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.model.scopes import ScopeError
from groupcheck.model.streams_group import MODEL, member
from groupcheck.model.streams_group.scope import StreamsGroupScope as S, from_dict, to_dict

ONE_PROCESS = S(processes=1, members_per_process=2, partitions=(2,))
SESSION_TIMEOUT = S(processes=2, partitions=(2,), faults=("session_timeout",), budget=1)
LOST_RESPONSE = S(processes=2, partitions=(2,), faults=("lose_response",), budget=1)
TOPOLOGY_UPDATE = S(processes=2, operations=("topology_update",), budget=1)
STATEFUL = S(processes=2, stateful=True, standbys=1, warmups=1)

PINNED = [
    # scope, symmetry, distinct states, transitions, depth
    pytest.param(ONE_PROCESS, True, 590, 1180, 37, id="1x2-sym"),
    pytest.param(ONE_PROCESS, False, 1178, 2356, 37, id="1x2-full"),
    pytest.param(SESSION_TIMEOUT, True, 4864, 10894, 53, id="2x1-session-timeout-sym"),
]


@pytest.mark.parametrize("scope, symmetry, states, transitions, depth", PINNED)
def test_reachable_state_count_is_pinned(scope, symmetry, states, transitions, depth):
    report = bfs(MODEL, scope, symmetry=symmetry)
    assert report.violation is None
    assert report.complete
    assert (report.states, report.transitions, report.depth) == (states, transitions, depth)


def test_witnesses_are_reached():
    assert bfs(MODEL, TOPOLOGY_UPDATE).witnessed["topology_update_completes"]
    assert bfs(MODEL, STATEFUL).witnessed["not_ready_then_ready"]


def test_symmetry_keeps_verdicts():
    for scope in (ONE_PROCESS, LOST_RESPONSE):
        a, b = bfs(MODEL, scope, symmetry=True), bfs(MODEL, scope, symmetry=False)
        assert (a.violation and a.violation.property) == (b.violation and b.violation.property)
        assert a.witnessed == b.witnessed


def test_a_lost_response_that_carried_an_assignment_is_never_repeated():
    """Finding, settled against Kafka's source: the coordinator sends task lists only on join
    or when they change (GroupMetadataManager#streamsGroupHeartbeat, no isFullRequest case),
    so a member whose response granting a task was lost stays STABLE at the coordinator,
    never runs the task, and no timer repairs it (KIP-848 consumers answer a full request).
    Sending the lists whenever the reported owned tasks differ cures it."""
    report = bfs(MODEL, LOST_RESPONSE)
    assert report.violation is not None and report.violation.property == "can_settle"
    fixed = bfs(MODEL, replace(LOST_RESPONSE, switches=("resend-when-owned-differs",)))
    assert fixed.violation is None and fixed.complete


def test_the_retry_after_a_lost_response_gets_the_epoch_but_no_task_list():
    """The shortest counterexample, replayed: a member is handed a task at its current epoch
    (UNRELEASED -> STABLE), the response is lost, and its retry reporting the old tasks is
    answered without task lists, so the client never runs the task the coordinator gave it."""
    report = bfs(MODEL, LOST_RESPONSE)
    path = report.violation.path
    state = MODEL.init_states(LOST_RESPONSE)[path[0]]
    for i in path[1:]:
        action = MODEL.actions(LOST_RESPONSE, state)[i]
        state, _ = MODEL.step(LOST_RESPONSE, state, action)
    assert action.kind == "lose_response"
    lost = action.slot
    for kind in ("send", "handle"):   # the client's retry
        (retry,) = [a for a in MODEL.actions(LOST_RESPONSE, state) if (a.kind, a.slot) == (kind, lost)]
        state, events = MODEL.step(LOST_RESPONSE, state, retry)
    request, response = events[0].data[0], events[0].data[1]
    assert response.error_code == 0 and response.active_tasks is None
    assert response.member_epoch == request.member_epoch   # handed on at its current epoch
    member_tasks = state.group.member(response.member_id).assigned[0]
    assert member_tasks & ~state.clients[lost].owned[0], "the coordinator thinks it runs a task it does not"


def test_revoke_before_acknowledge_is_pinned(monkeypatch):
    """A client that keeps revoked tasks reports them owned, so the coordinator keeps it
    UNREVOKED and never hands the task on: the group never converges."""
    monkeypatch.setattr(member, "KEEP_REVOKED_FOR_TESTS", True)
    report = bfs(MODEL, S(processes=2, partitions=(2,)))
    assert report.violation is not None and report.violation.property == "converges_within_k"


def test_canonical_symmetry_is_pinned():
    """Canonical merges states that differ only by which member of a process is which:
    without it the same scope has twice the states."""
    plain = replace(MODEL, canonical=lambda scope, state: state)
    assert bfs(plain, ONE_PROCESS).states == 1178 != bfs(MODEL, ONE_PROCESS).states == 590


def test_stale_topology_claim_is_pinned(monkeypatch):
    """An assignor that gives stale members new tasks (``may_take`` always true) is caught."""
    import groupcheck.model.assignors.streams_group_placement as placement
    monkeypatch.setattr(placement, "may_take", lambda spec, m, t, role: True)
    scope = S(processes=2, faults=("session_timeout",), operations=("topology_update",), budget=2)
    report = bfs(MODEL, scope)
    assert report.violation is not None and report.violation.property == "stale_topology_no_new_tasks"


def test_not_ready_claim_is_pinned(monkeypatch):
    from groupcheck.model.streams_group import target
    real = target.new_target

    def ignores_readiness(group, configured, *a, **kw):
        return real(group, configured._replace(status=None), *a, **kw) if configured.number_of_tasks else real(
            group, configured, *a, **kw)
    import groupcheck.model.streams_group.coordinator_update as cu
    monkeypatch.setattr(cu, "new_target", ignores_readiness)
    report = bfs(MODEL, STATEFUL)
    assert report.violation is not None and report.violation.property in (
        "not_ready_assigns_nothing", "not_ready_responses_empty")


def test_caught_up_warmup_claim_is_pinned(monkeypatch):
    """An assignor that is not told the lags (so keeps a caught-up warm-up a warm-up) is
    caught by warmup_caught_up_resolved."""
    import groupcheck.model.streams_group.coordinator_update as cu
    real = cu.new_target
    monkeypatch.setattr(cu, "new_target", lambda group, configured, configs, assignor, lags, **kw: real(
        group, configured, configs, assignor, {}, **kw))
    report = bfs(MODEL, STATEFUL)
    assert report.violation is not None and report.violation.property == "warmup_caught_up_resolved"
    assert "caught up, yet the new target keeps it a warm-up" in report.violation.message


def test_shutdown_claim_is_pinned(monkeypatch):
    """SHUTDOWN_APPLICATION sent only to the member that asked for it is caught."""
    import groupcheck.model.streams_group.coordinator_update as cu
    real = cu._response
    monkeypatch.setattr(cu, "_response", lambda g, u, m, configured, shutdown: real(
        g, u, m, configured, shutdown if shutdown == m.member_id else None))
    report = bfs(MODEL, S(processes=2, operations=("shutdown_request",), budget=1))
    assert report.violation is not None and report.violation.property == "shutdown_reaches_every_member"


def test_bump_list_claim_is_pinned(monkeypatch):
    """A coordinator that bumps the group epoch whenever a member reports task offsets (not
    only when a warm-up reached acceptable.recovery.lag) is caught."""
    import groupcheck.model.streams_group.coordinator_update as cu
    monkeypatch.setattr(cu, "_warmup_reasons", lambda u, lags: ["task offsets reported"] if lags else [])
    report = bfs(MODEL, STATEFUL)
    assert report.violation is not None and report.violation.property == "epoch_bumped_for_a_listed_reason"
    assert "task offsets reported" in report.violation.message


def test_an_owned_task_outside_the_topology_is_prescribed_invalid_request(monkeypatch):
    """KIP-1071 (Request Validation): "Each element of ActiveTasks, StandbyTasks and WarmupTasks
    has to be a valid task ID in the topology initialized for the group ID". A source topic
    gains a partition, the member takes the new task, the topic is deleted and created again
    with its first count: the member's next heartbeat reports a task the topology no longer
    has, which the handler answers INVALID_REQUEST and error_as_profile_prescribes prescribes
    (it prescribed no error before the rule was added; the spec's cross-check found it). A
    handler that skips the check is caught."""
    scope = S(processes=1, partitions=(1,), operations=("topic_change",), budget=2)
    report = bfs(MODEL, scope)
    assert report.violation is None and report.states == 803
    import groupcheck.model.streams_group.coordinator_update as cu
    monkeypatch.setattr(cu, "validate_tasks", lambda request, number_of_tasks: None)
    cu_step = __import__("importlib").import_module("groupcheck.model.streams_group.step")
    cu_step._heartbeat.cache_clear()
    try:
        report = bfs(MODEL, scope)
    finally:
        cu_step._heartbeat.cache_clear()
    assert report.violation is not None and report.violation.property == "error_as_profile_prescribes"
    assert "prescribed INVALID_REQUEST" in report.violation.message


def test_scope_round_trips_and_names_bad_fields():
    assert from_dict(to_dict(STATEFUL)) == STATEFUL
    with pytest.raises(ScopeError, match=r"scope.partitions\[0\]"):
        from_dict({"partitions": [9]})
    with pytest.raises(ScopeError, match="scope.faults"):
        from_dict({"faults": ["meteor"]})
    with pytest.raises(ScopeError, match="scope.warmups"):
        from_dict({"warmups": 1})
    with pytest.raises(ScopeError, match="unknown key"):
        from_dict({"members": 2})


def test_a_coordinator_lowering_a_member_epoch_is_reported():
    """member_epoch_never_decreases's coordinator clause: a step whose group holds a member
    at a lower epoch (not 0, not -2) breaks it; the same group object (a step that left
    the group alone) and a failover do not."""
    from groupcheck.model.streams_group.world import Action
    from groupcheck.model.streams_group.properties import member_epoch_never_decreases as claim
    from groupcheck.model.streams_group.properties import _members

    seen = []
    bfs(MODEL, ONE_PROCESS, on_state=seen.append)
    prev = next(s for s in seen if any(m.epoch >= 2 for m in _members(s.group)))
    group = prev.group
    m = next(m for m in group.members if m.epoch >= 2)
    lowered = replace(group, members=tuple(replace(x, epoch=1) if x is m else x for x in group.members))
    nxt = prev._replace(group=lowered)
    step = Action("heartbeat", 0)
    assert claim(ONE_PROCESS, prev, step, nxt, ()) == f"coordinator: {m.member_id} epoch {m.epoch} -> 1"
    assert claim(ONE_PROCESS, prev, step, prev, ()) is None
    assert claim(ONE_PROCESS, prev, Action("failover", 0), nxt, ()) is None
