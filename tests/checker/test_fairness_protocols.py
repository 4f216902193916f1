"""settles_under_fairness on the real protocols: the reference scopes hold, the known bugs
that are liveness bugs show as fair lassos (and their reference scopes hold), and a lasso
goes through ITF (``loop``) and ``groupcheck replay`` and back."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from groupcheck.checker import bfs
from groupcheck.cli import app
from groupcheck.explorer import open_trace
from groupcheck.liveness import judge_lasso
from groupcheck.model.core import replay
from groupcheck.protocols import get
from groupcheck.properties.known_bugs import consumer_group, streams_group

# the known bugs whose runs get stuck for good once faults stop (the others break safety claims)
LIVENESS_BUGS = [("streams-group", streams_group.variant, "KAFKA-20870"),
                 ("streams-group", streams_group.variant, "lost-response-strands-task"),
                 ("streams-group", streams_group.variant, "KAFKA-19233"),
                 ("consumer-group", consumer_group.variant, "KAFKA-16249"),
                 ("consumer-group", consumer_group.variant, "KAFKA-19233"),
                 ("consumer-group", consumer_group.variant, "KAFKA-16147")]
SLOW = {"KAFKA-16249", "KAFKA-16147", "KAFKA-19233"}


def liveness_only(name: str):
    """The protocol's model with no claim of its own: only the checker's liveness claims
    judge the graph (what a TLC config with only the PROPERTY checks)."""
    return replace(get(name).model, properties=())


def judged(model, scope, path, loop):
    first, steps = replay(model, scope, path)
    return judge_lasso(model, scope, [first] + [s.next for s in steps], [s.action for s in steps], loop)


@pytest.mark.parametrize("name,variant,key", [
    pytest.param(*case, marks=[pytest.mark.slow] if case[2] in SLOW else []) for case in LIVENESS_BUGS])
def test_a_liveness_bug_is_a_fair_lasso_and_its_reference_scope_holds(name, variant, key):
    v = variant(key)
    model = liveness_only(name)
    report = bfs(model, v.buggy_scope(), fairness=True)
    found = report.violation
    assert found is not None and found.property == "settles_under_fairness", found
    assert found.loop is not None and judged(model, v.buggy_scope(), found.path, found.loop)
    scope = v.fixed_scope() if v.fixed is not None else v.reference_scope()
    held = bfs(model, scope, fairness=True)
    assert held.violation is None and "settles_under_fairness" in held.checked


FAST_REFERENCES = [("consumer", "rolling-restart"), ("consumer-group", "join-leave"), ("consumer-group", "lost-response"),
                   ("streams-group", "one-process"), ("streams-group", "session-timeout"),
                   ("streams-group", "online-migration"), ("streams-classic", "bounce-2.0-2.3"),
                   ("streams-classic", "standbys")]


@pytest.mark.parametrize("name,scope", FAST_REFERENCES)
def test_reference_scopes_settle_under_fairness(name, scope):
    report = bfs(get(name).model, get(name).default_scopes()[scope], fairness=True)
    assert report.violation is None and "settles_under_fairness" in report.checked


def test_heartbeats_need_fairness_and_a_goal_that_ignores_them():
    """Without ``converged`` (settled = quiet on the wire) two members heartbeating in turn
    never settle, though the group has converged."""
    p = get("streams-group")
    scope = p.default_scopes()["session-timeout"]
    quiet = replace(p.model, converged=None)
    assert bfs(quiet, scope, fairness=True).violation.property == "settles_under_fairness"
    assert bfs(p.model, scope, fairness=True).violation is None


def test_a_lasso_is_written_with_loop_and_replay_re_judges_it(tmp_path):
    v = streams_group.variant("lost-response-strands-task")
    scope = json.dumps(get("streams-group").model.view.scope_to_dict(v.buggy_scope()))
    result = CliRunner().invoke(app, ["check", "streams-group", "--scope", scope, "--fairness", "--walks", "0",
                                      "--out", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "settles_under_fairness violated" in result.output and "the cycle repeats from step" in result.output
    [itf] = tmp_path.glob("streams-group-*-settles_under_fairness-*.itf.json")
    trace = json.loads(itf.read_text())
    loop = trace["loop"]
    assert 0 <= loop < len(trace["states"]) - 1
    assert {k: v for k, v in trace["states"][loop].items() if k not in ("#meta", "action_taken")} == \
        {k: v for k, v in trace["states"][-1].items() if k not in ("#meta", "action_taken")}
    replayed = CliRunner().invoke(app, ["replay", str(itf)])
    assert replayed.exit_code == 1, replayed.output
    assert "reproduced: settles_under_fairness" in replayed.output
    assert f"the cycle repeats from step {loop}" in replayed.output
    session = open_trace(itf)                   # the explorer opens it and says where the cycle starts
    assert session.recorded["message"].endswith(f"the cycle repeats from step {loop}")
    trace["loop"] = len(trace["states"]) + 3           # not a state of the path: refused
    itf.write_text(json.dumps(trace))
    bad = CliRunner().invoke(app, ["replay", str(itf)])
    assert bad.exit_code == 2 and "loop:" in bad.output


def test_the_consumer_converges_with_a_heartbeat_in_flight():
    """The classic consumer's ``converged`` ignores heartbeats and their error-free responses
    ("settled but for heartbeats in flight"): some reachable converged state of a reference
    scope has a member awaiting its HeartbeatResponse, and that state is not ``settled``."""
    from collections import deque
    p = get("consumer")
    model, scope = p.model, p.default_scopes()["rolling-restart"]
    seen, queue, found = set(), deque(model.init_states(scope)), []
    while queue and len(seen) < 20_000 and not found:
        state = queue.popleft()
        if state in seen:
            continue
        seen.add(state)
        if model.converged(scope, state) and any(c.awaiting == "Heartbeat" for c in state.consumers):
            found.append(state)
        queue.extend(model.step(scope, state, a)[0] for a in model.actions(scope, state))
    assert found, f"no converged state with a heartbeat in flight among {len(seen)} states"
    assert not model.settled(scope, found[0])


def test_the_consumer_has_not_converged_while_a_heartbeat_error_waits_to_be_read():
    """Only error-free heartbeat responses are traffic ``converged`` ignores: the same
    converged state with a REBALANCE_IN_PROGRESS answer in a member's inbox (it is about
    to rejoin) has not converged."""
    from collections import deque

    from groupcheck.model.consumer.state import HeartbeatResponse
    p = get("consumer")
    model, scope = p.model, p.default_scopes()["rolling-restart"]
    seen, queue, found = set(), deque(model.init_states(scope)), None
    while queue and len(seen) < 20_000 and found is None:
        state = queue.popleft()
        if state in seen:
            continue
        seen.add(state)
        if model.converged(scope, state) and any(c.awaiting == "Heartbeat" for c in state.consumers):
            found = state
        queue.extend(model.step(scope, state, a)[0] for a in model.actions(scope, state))
    assert found is not None
    s, c = next((s, c) for s, c in enumerate(found.consumers) if c.awaiting == "Heartbeat")
    told = c._replace(inbox=c.inbox + (HeartbeatResponse(to=c.member_id, error="REBALANCE_IN_PROGRESS"),))
    assert not model.converged(scope, found._replace(consumers=found.consumers[:s] + (told,) + found.consumers[s + 1:]))
    fine = c._replace(inbox=c.inbox + (HeartbeatResponse(to=c.member_id, error="NONE"),))
    assert model.converged(scope, found._replace(consumers=found.consumers[:s] + (fine,) + found.consumers[s + 1:]))
