"""Online migration in the explorable consumer-group model (scope fields ``classic`` and
``migration_policy``, operation ``downgrade``; ``model/consumer_group/classic_world.py``):
classic consumers and consumer-protocol ones in one group, the group converted either way.
Pinned state counts, the witnesses, the finding, the scope's errors, rendering, and rules of
the conversion changed for a test's duration and caught by the properties."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.protocols.consumer_group import reference_scopes
from groupcheck.model.consumer_group import MODEL, migration, migration_classic
from groupcheck.model.consumer_group.scope import ConsumerGroupScope as S
from groupcheck.model.consumer_group.scope import from_dict
from groupcheck.model.core import replay
from groupcheck.model.scopes import ScopeError
from groupcheck.properties.known_bugs.consumer_group import FINDINGS

UPGRADE = reference_scopes()["online-upgrade"]
DOWNGRADE = reference_scopes()["online-downgrade"]


@pytest.mark.slow
@pytest.mark.parametrize("scope, states", [
    (S(classic=1, partitions=(1,)), 3621),
    (UPGRADE, 9564),
    (DOWNGRADE, 72138),
])
def test_migration_scopes_state_counts_are_pinned(scope, states):
    report = bfs(MODEL, scope)
    assert report.violation is None and report.complete
    assert report.states == states


@pytest.mark.slow
def test_a_rolling_upgrade_and_a_downgrade_are_both_witnessed():
    assert bfs(MODEL, UPGRADE).witnessed["migration_completes"]
    report = bfs(MODEL, DOWNGRADE)
    assert report.witnessed["downgrade_completes"] and report.witnessed["migration_completes"]


def test_the_first_consumer_heartbeat_converts_the_classic_group_and_the_classic_member_is_told_to_rejoin():
    scope = S(classic=1, partitions=(1,))
    state = MODEL.init_states(scope)[0]
    assert state.group.dead and state.classic.state.status == "Stable"
    for kind in ("send", "handle"):
        action = next(a for a in MODEL.actions(scope, state) if a.kind == kind and a.slot == 1)
        state, events = MODEL.step(scope, state, action)
    assert not state.group.dead and {m.member_id for m in state.group.members} == {"m0.0", "m1.0"}
    assert dict(state.classic).keys() == {"m0.0"}                # m0.0 stays a classic member
    assert state.group.member("m0.0").epoch == 1                 # fromClassicGroup: the generation
    state, events = MODEL.step(scope, state, next(a for a in MODEL.actions(scope, state) if a.kind == "classic_send"))
    assert state.clients[0].reply.error == "REBALANCE_IN_PROGRESS"


def test_a_policy_without_upgrade_refuses_the_consumer_heartbeat():
    scope = S(classic=1, partitions=(1,), migration_policy="downgrade")
    report = bfs(MODEL, scope)
    assert report.violation is None
    state = MODEL.init_states(scope)[0]
    for kind in ("send", "handle"):
        state, events = MODEL.step(scope, state, next(a for a in MODEL.actions(scope, state)
                                                      if a.kind == kind and a.slot == 1))
    assert state.clients[1].reply.error == "GROUP_ID_NOT_FOUND" and state.group.dead


@pytest.mark.slow
def test_the_upgrade_finding_is_two_owners_of_one_partition():
    v = next(f for f in FINDINGS if f.key == "upgrade-trusts-last-sync")
    report = bfs(MODEL, v.buggy_scope())
    assert report.violation.message == "[t0-0] owned by client 0 and client 1"
    init, steps = replay(MODEL, v.buggy_scope(), report.violation.path)
    kinds = [s.action.kind for s in steps]
    assert "downgrade" in kinds and "upgrade" in kinds


def test_a_walk_renders_classic_and_consumer_clients():
    scope = replace(DOWNGRADE, partitions=(2,))
    state = MODEL.init_states(scope)[0]
    texts = []
    for i in range(60):
        acts = MODEL.actions(scope, state)
        if not acts:
            break
        action = acts[(i * 7) % len(acts)]
        texts.append(MODEL.view.describe_action(scope, state, action))
        state, events = MODEL.step(scope, state, action)
        json.dumps(MODEL.view.state_to_itf(scope, state))
        assert "group" in MODEL.view.describe_state(scope, state)
    assert any("(classic" in t for t in texts)


@pytest.mark.parametrize("bad, message", [
    ({"classic": 3}, r"scope.classic: 3 is outside 0..2"),
    ({"classic": 1, "static": True}, r"scope.classic: classic members run without static membership"),
    ({"classic": 1, "operations": ["roll"], "budget": 1}, r"operations other than leave and downgrade"),
    ({"classic": 1, "migration_policy": "sideways"}, r"scope.migration_policy: 'sideways' is not one of"),
])
def test_bad_migration_scopes_name_the_field(bad, message):
    with pytest.raises(ScopeError, match=message):
        from_dict(bad)


# ---- rules changed for a test's duration: the properties catch each ----

def test_conversion_epochs_below_the_generation_are_caught(monkeypatch):
    convert = migration.convert_to_consumer

    def behind(classic, index, keep_owned=False):
        group, meta = convert(classic, index, keep_owned)
        return replace(group, members=tuple(replace(m, epoch=m.epoch - 1) for m in group.members)), meta
    monkeypatch.setattr(migration, "convert_to_consumer", behind)
    report = bfs(MODEL, UPGRADE)
    assert report.violation.property == "member_epoch_never_decreases"
    assert "below the classic generation" in report.violation.message


def test_classic_members_never_told_to_rejoin_are_caught(monkeypatch):
    monkeypatch.setattr(migration_classic, "must_rejoin", lambda g, m: False)
    report = bfs(MODEL, UPGRADE)
    assert report.violation.property == "converges_within_k"
    assert "client 0 is not at the target (epoch 1, member)" in report.violation.message   # the classic one


@pytest.mark.slow
def test_a_group_that_never_downgrades_misses_the_witness(monkeypatch):
    monkeypatch.setattr(migration, "downgrades", lambda *a, **kw: False)
    report = bfs(MODEL, DOWNGRADE)
    assert report.violation is None and not report.witnessed["downgrade_completes"]


def test_conversion_records_left_out_are_caught(monkeypatch):
    monkeypatch.setattr(migration, "classic_records", lambda gid, before, after: ())
    report = bfs(MODEL, UPGRADE)
    assert report.violation.property == "replay_gives_live_state"
