"""specs/streams_group/StreamsGroup.tla against model/streams_group, beyond the checks every
spec gets (tests/spec/test_specs.py): the witnesses no pinned scope reaches cheaply, the
model's lost-response finding as a behaviour of the spec, a trace through `groupcheck spec
trace`, and that both sides' rules matter (a rule changed on either side makes the
cross-check fail)."""
from __future__ import annotations

import json
from collections import deque

import pytest

from groupcheck.spec import crosscheck, manifest
from groupcheck.spec.mapping.streams_group import NONE
from tests.spec.spec_edits import assert_change_caught

BUNDLE = manifest.load("streams-group")
MODEL = BUNDLE.model


def _config(name):
    return next(c for c in BUNDLE.configs if c.name == name)


def _scope(**fields):
    base = MODEL.view.scope_to_dict(MODEL.view.default_scope())
    return MODEL.view.scope_from_dict({**base, **fields})


def _shortest_path(scope, reached) -> list[int]:
    """The model's shortest path ([init index, action index, ...]) to a state where
    ``reached`` holds (BFS without symmetry)."""
    inits = MODEL.init_states(scope)
    parent = {s: None for s in inits}
    queue = deque(inits)
    while queue:
        s = queue.popleft()
        if reached(s):
            path = []
            while parent[s] is not None:
                s, i = parent[s]
                path.append(i)
            return [inits.index(s)] + path[::-1]
        if not MODEL.within_bounds(scope, s):
            continue
        for i, a in enumerate(MODEL.actions(scope, s)):
            t, _ = MODEL.step(scope, s, a)
            if t not in parent:
                parent[t] = (s, i)
                queue.append(t)
    raise AssertionError("not reached")


def _spec_states(scope, path):
    from groupcheck.model.core import replay
    spec = crosscheck.load_spec(BUNDLE, scope)
    first, steps = replay(MODEL, scope, path)
    return spec, [crosscheck.as_state(spec, BUNDLE, scope, s) for s in [first] + [st.next for st in steps]]


def test_a_warm_up_promoted_on_both_sides():
    """highly_available stages a stateful task's move to another process, warms it up there,
    and once the warm-up reports it caught up makes it the target owner's active task: the
    model's shortest route to warmup_promoted is a behaviour of the spec (every step the
    action of its kind, every invariant the model's verdict), and the spec's witness turns
    TRUE at its last state only."""
    scope = _scope(processes=2, partitions=[2], stateful=True, warmups=1)
    path = _shortest_path(scope, lambda s: s.marks & 1)
    spec = crosscheck.load_spec(BUNDLE, scope)
    steps, problems = crosscheck.validate_path(BUNDLE, scope, path, spec)
    assert problems == [] and steps == len(path) - 1
    _, states = _spec_states(scope, path)
    assert [spec.holds("warmup_promoted", t) for t in states] == [False] * (len(states) - 1) + [True]
    assert any(spec.holds_step("warmup_caught_up_resolved", a, b) for a, b in zip(states, states[1:]))


def test_a_rolling_topology_update_of_two_members_on_both_sides():
    """KIP-1071's rolling topology update with two processes: one client restarts with
    topology epoch 1 and updates the group's topology; the other member, stale, is answered
    STALE_TOPOLOGY (and gets no new task) until it bounces. The model's shortest routes to a
    STALE_TOPOLOGY response and to topology_update_completes are behaviours of the spec, which
    shows the status and reaches the witness."""
    scope = _scope(processes=2, partitions=[1], operations=["topology_update"], budget=1)
    completes = next(p for p in MODEL.properties if p.name == "topology_update_completes")
    stale = lambda s: any(c.reply is not None and 0 in c.reply.statuses for c in s.clients)  # noqa: E731
    spec = crosscheck.load_spec(BUNDLE, scope)
    for reached in (stale, lambda s: completes.check(scope, s) is not None):
        path = _shortest_path(scope, reached)
        steps, problems = crosscheck.validate_path(BUNDLE, scope, path, spec)
        assert problems == [] and steps == len(path) - 1
        _, states = _spec_states(scope, path)
        last = states[-1]
        if reached is stale:
            assert any(c["reply"] != NONE and "STALE_TOPOLOGY" in c["reply"]["statuses"]
                       for c in last["clients"].values())
        else:
            assert spec.holds("topology_update_completes", last)


@pytest.mark.slow
@pytest.mark.parametrize("config", ["warm-ups", "operations"])
def test_type_ok_holds_at_every_reachable_state(config):
    """TypeOK (which TLC users check; the cross-checks leave it out) holds at every state the
    spec reaches, and is not vacuous: a state with an unknown client status breaks it."""
    scope = _config(config).scope
    spec = crosscheck.load_spec(BUNDLE, scope)
    graph = crosscheck.spec_graph(spec, BUNDLE.constraint)
    assert all(spec.holds("TypeOK", t) for t in graph.order)
    from groupcheck.spec.values import fcn
    last = graph.order[-1]
    bad = spec.state({**{v: last[v] for v in spec.variables},
                      "clients": fcn({s: fcn({**dict(c.items()), "status": "ZOMBIE"})
                                      for s, c in last["clients"].items()})})
    assert not spec.holds("TypeOK", bad)


@pytest.mark.parametrize("profile, removed", [("kip-1071", True), ("kafka-4.5", False)])
def test_a_fenced_member_is_removed_only_as_the_kip_says(profile, removed):
    """KIP-1071: "FENCED_MEMBER_EPOCH is returned otherwise. The member is also removed from
    the group." Shipped Kafka writes nothing. Two lost responses around a rolling bounce leave
    a member's epoch two behind; the model's shortest route to FENCED_MEMBER_EPOCH is a behaviour of the spec, whose
    coordinator has removed the member (kip-1071) or kept it (kafka-4.5) at its end."""
    scope = _scope(processes=2, partitions=[1], profile=profile, faults=["lose_response"], operations=["roll"], budget=3)
    fenced = lambda s: any(c.reply is not None and c.reply.error == "FENCED_MEMBER_EPOCH" for c in s.clients)  # noqa: E731
    path = _shortest_path(scope, fenced)
    spec = crosscheck.load_spec(BUNDLE, scope)
    steps, problems = crosscheck.validate_path(BUNDLE, scope, path, spec)
    assert problems == [] and steps == len(path) - 1
    _, states = _spec_states(scope, path)
    last = states[-1]
    (slot,) = [s for s, c in last["clients"].items() if c["reply"] != NONE and c["reply"]["error"] == "FENCED_MEMBER_EPOCH"]
    member = (slot, last["clients"][slot]["incarnation"])
    assert (member not in last["group"]["members"]) == removed


def test_kafka_4_5_records_the_epoch_a_revocation_completed_at():
    """Kafka 4.5's CurrentAssignmentBuilder (KAFKA-19779) records the member epoch at which a
    member finished revoking; the KIP's and 4.1's do not. The model's shortest route to a
    member with a revocation epoch is a behaviour of the spec (4.5), which records the same."""
    scope = _scope(processes=2, partitions=[2], profile="kafka-4.5")
    path = _shortest_path(scope, lambda s: any(m.revocation_epoch >= 0 for m in s.group.members))
    spec = crosscheck.load_spec(BUNDLE, scope)
    steps, problems = crosscheck.validate_path(BUNDLE, scope, path, spec)
    assert problems == [] and steps == len(path) - 1
    _, states = _spec_states(scope, path)
    assert any(m["revocationEpoch"] >= 0 for m in states[-1]["group"]["members"].values())


def test_the_lost_response_finding_is_a_behaviour_of_the_spec():
    """The model's finding lost-response-strands-task (Kafka sends the task lists only on join
    or change, so a lost response that handed on a task is never repeated): its
    counterexample is a behaviour of the base spec, and at its end the coordinator holds an
    active task for a member whose client does not run it."""
    from groupcheck.checker import bfs
    from groupcheck.protocols import get
    finding = next(v for v in get("streams-group").variants if v.key == "lost-response-strands-task")
    scope = finding.buggy_scope()
    found = bfs(MODEL, scope)
    assert found.violation.property == "can_settle"
    path = list(found.violation.path)
    spec = crosscheck.load_spec(BUNDLE, scope)
    steps, problems = crosscheck.validate_path(BUNDLE, scope, path, spec)
    assert problems == [] and steps == len(path) - 1
    _, states = _spec_states(scope, path)
    last = states[-1]
    stranded = [(id_, m["assigned"]["active"] - last["clients"][id_[0]]["owned"]["active"])
                for id_, m in last["group"]["members"].items()
                if last["clients"][id_[0]]["reply"] == NONE]
    assert any(tasks for _, tasks in stranded), stranded


def test_a_trace_of_a_known_bug_is_a_behaviour_of_its_variant(tmp_path):
    """groupcheck spec trace on the KAFKA-20870 counterexample groupcheck writes: its scope is
    the bug's, so every step must be a step of StreamsGroup_KAFKA20870's next."""
    from typer.testing import CliRunner

    from groupcheck import traces
    from groupcheck.checker import bfs
    from groupcheck.cli import app
    variant = next(v for v in BUNDLE.variants if v.key == "KAFKA-20870")
    found = bfs(MODEL, variant.scope)
    assert found.violation.property == "converges_within_k"
    trace = tmp_path / "cx.itf.json"
    trace.write_text(json.dumps(traces.build(MODEL, variant.scope, found.violation.path, {})))
    result = CliRunner().invoke(app, ["spec", "trace", str(trace)])
    assert result.exit_code == 0, result.stdout
    assert "StreamsGroup_KAFKA20870" in result.stdout
    assert f"{len(found.violation.path) - 1} steps" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("old, new, config", [
    # StickyTaskAssignor's first pass keeps a previous owner's task only under the quota
    ("(k = 3 \\/ Cardinality(TasksOf(X, A.w, m)) < A.tpm)", "(k = 3 \\/ Cardinality(TasksOf(X, A.w, m)) <= A.tpm)",
     "MCStreamsGroup"),
    # an active task blocked only on the member's own process, not while any member holds it
    ("IN [active |-> anywhere \\cup", "IN [active |-> {} \\cup", "MCStreamsGroup"),
    # the KIP's topology update at EG+1 refused as beyond it
    ("ELSE IF top.epoch = gtop.epoch + 1 THEN", "ELSE IF top.epoch = gtop.epoch + 2 THEN", "operations"),
    # the lost-response rule dropped: an older epoch is always fenced
    ("\\/ e < m.epoch /\\ (e # m.previousEpoch \\/", "\\/ e < m.epoch /\\ (TRUE \\/", "lost-response"),
    # the task lists sent on every response (Kafka: on join or when they changed)
    ("changed == r.epoch = 0 \\/ old = None \\/ old.assigned # m1.assigned", "changed == TRUE", "one-member"),
    # no warm-up for a staged move
    ("[w |-> S.w, budget |-> Warmups]", "[w |-> S.w, budget |-> 0]", "warm-ups"),
    # the configuration's status (MISSING_INTERNAL_TOPICS here) left out of the response
    ("\\o (IF ready THEN <<>> ELSE <<configured.status>>)", "", "warm-ups"),
])
def test_a_changed_spec_rule_is_caught(tmp_path, old, new, config):
    """The cross-check fails: it reports differences, or the changed spec cannot even be
    evaluated along the model's states (an error naming the line)."""
    assert_change_caught(BUNDLE, tmp_path, old, new, config)


@pytest.mark.slow
def test_a_changed_model_rule_is_caught(monkeypatch):
    """A model rule changed (maybeReconcile: "activeTasksToRevoke = owned - assigned"; here the
    client would keep running the active tasks it should revoke): the spec, which states the
    rule, no longer matches the model."""
    from groupcheck.model.streams_group import member
    monkeypatch.setattr(member, "KEEP_REVOKED_FOR_TESTS", True)
    report = crosscheck.check_config(BUNDLE, _config("MCStreamsGroup"))
    assert any("does not satisfy Deliver" in p for p in report.problems), report.problems
    assert any("only the model reaches" in p for p in report.problems)


def test_a_changed_model_assignor_is_caught(monkeypatch):
    """A model rule of the broker's assignor changed (the sticky assignor keeps every task on
    its previous owner, whatever the quota): the handler's target differs from the spec's."""
    from groupcheck.model.assignors import streams_group_tasks as tasks
    import importlib
    step = importlib.import_module("groupcheck.model.streams_group.step")
    original = tasks.sticky

    def keeps_every_task(spec, first_holder_unchecked=False):
        out = original(spec, first_holder_unchecked)
        held = [sum(1 << t for t in range(len(spec.tasks)) if ms.active >> t & 1) for ms in spec.members]
        taken = sum(held)
        return tuple(a._replace(active=(a.active & ~taken) | h) for a, h in zip(out, held))
    monkeypatch.setattr(tasks, "sticky", keeps_every_task)
    step._heartbeat.cache_clear()
    try:
        report = crosscheck.check_config(BUNDLE, _config("MCStreamsGroup"))
    finally:
        step._heartbeat.cache_clear()
    assert any("does not satisfy Handle" in p for p in report.problems), report.problems
