"""Classic Streams clients in the explorable streams-group model (KIP-1071 "Online Migration"):
the group starts classic, the first streams member converts it online (``kip-1071``: the
generation becomes the group epoch), classic members rebalance through the translated
JoinGroup / SyncGroup / Heartbeat, ``upgrade`` moves a client to the streams protocol, the
last streams member leaving converts the group back; the shipped profiles migrate offline
only. Every property is checked along each scenario; rules are pinned by breaking them."""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.reference_scopes import streams_group
from model.consumer.state import PREPARING, STABLE as CLASSIC_STABLE
from model.consumer.state import Group as ClassicGroup
from model.scopes import ScopeError
from model.streams_group import MODEL, classic_clients, migration_classic
from model.streams_group.group import Group, group_state
from model.streams_group.migration import MigratingGroup
from model.streams_group.scope import StreamsGroupScope as S, from_dict, validate
from model.streams_group.world import FAILED, MEMBER

from tests.streams_group_drive import drive, rt

ONLINE = streams_group()["online-migration"]


def test_the_online_migration_reference_scope_holds_and_completes():
    report = bfs(MODEL, ONLINE)
    assert report.violation is None and report.complete
    assert report.witnessed["migration_completes"]
    assert (report.states, report.transitions, report.depth) == (7172, 15890, 57)


def test_the_group_starts_classic_held_by_the_classic_slots():
    state = MODEL.init_states(ONLINE)[0]
    g = state.group
    assert isinstance(g, ClassicGroup) and g.status == CLASSIC_STABLE
    assert g.generation == classic_clients.GENERATION and [m.member_id for m in g.members] == ["m0.0"]
    c0, c1 = state.clients
    assert c0.classic and c0.status == MEMBER and c0.owned[0] and not c1.classic
    # existing scopes are unchanged: no classic slot, the group starts as no group at all
    assert isinstance(MODEL.init_states(S())[0].group, Group) and MODEL.init_states(S())[0].group.dead


def test_the_first_streams_member_converts_the_group_online():
    """KIP: "When the first consumer of a Streams client using the new Streams rebalance
    protocol joins the group, the group is converted from a classic group to a streams
    group"; "Note that the group epoch starts at the current group generation"."""
    state, events = drive(ONLINE, [("send", 1), ("handle", 1)])
    g = state.group
    assert isinstance(g, MigratingGroup) and [mid for mid, _ in g.classic] == ["m0.0"]
    assert ("converted_to_streams", classic_clients.GENERATION) in events[0].data[3]
    assert g.group.group_epoch == classic_clients.GENERATION + 1   # the join bumps it
    assert g.group.member("m0.0").epoch == classic_clients.GENERATION


def test_classic_member_rebalances_through_the_translation_and_no_task_runs_twice():
    """P1 (classic) is told REBALANCE_IN_PROGRESS, rejoins with its owned tasks, syncs, gives
    up the task P2 is to get, rejoins at once (cooperative), and P2 gets it only then."""
    moves = rt(1) + rt(0) + rt(0) + rt(0)     # P2 joins; P1: heartbeat, JoinGroup, SyncGroup
    state, _ = drive(ONLINE, moves)
    c0, c1 = state.clients
    assert c0.status == "rejoining", "P1 revoked a task: it rejoins at once"
    assert bin(c0.owned[0]).count("1") == 1 and c1.owned[0] == 0
    state, _ = drive(ONLINE, rt(0) + rt(0) + rt(1) + rt(1), state)
    c0, c1 = state.clients
    assert c0.owned[0] and c1.owned[0] and not c0.owned[0] & c1.owned[0]
    assert group_state(state.group.group) == "STABLE"


def test_upgrade_leaves_the_old_member_until_its_session_expires_then_migration_completes():
    """Kafka Streams does not send LeaveGroup on close under the classic protocol
    (``internal.leave.group.on.close`` = false): the upgraded client's classic member stays
    until its session expires."""
    state, _ = drive(ONLINE, rt(1) + [("upgrade", 0)])
    assert state.clients[0].status == "down" and not state.clients[0].classic
    assert isinstance(state.group, MigratingGroup) and state.group.is_classic("m0.0")
    state, _ = drive(ONLINE, [("expire", 0)], state)
    assert isinstance(state.group, Group), "no classic member left: a plain streams group"
    state, _ = drive(ONLINE, [("restart", 0)] + rt(0) + rt(1) + rt(0) + rt(1) + rt(0), state)
    assert MODEL.properties[-1].name == "migration_completes"
    assert MODEL.properties[-1].check(ONLINE, state) is not None


def test_the_last_streams_member_leaving_converts_back_and_the_stale_classic_member_expires():
    """KIP: "When the last consumer of an Streams client using the new Streams rebalance
    protocol leaves the group, the group is converted back to a classic group." No classic
    client runs (P1 upgraded, not restarted yet), so the classic group needs no rebalance:
    its last member's session expires and it is Empty; P1's streams join converts it again."""
    scope = replace(ONLINE, faults=("session_timeout",), budget=1)
    state, _ = drive(scope, rt(1) + [("upgrade", 0), ("session_timeout", 1)])
    g = state.group
    assert isinstance(g, ClassicGroup) and g.status == PREPARING and g.generation == 2
    assert MODEL.within_bounds(scope, state)
    state, _ = drive(scope, [("expire", 0)], state)
    assert state.group.status == "Empty" and state.group.generation == 3
    state, events = drive(scope, [("restart", 0), ("send", 0), ("handle", 0)], state)
    assert isinstance(state.group, Group) and state.group.group_epoch == 4   # generation 3, then the join


def test_a_classic_rebalance_with_a_running_classic_client_is_out_of_bounds():
    """Converted back while P1 still runs classic: P1 must join a classic rebalance (leader,
    purgatory), which the model does not explore; the state is checked, not expanded."""
    scope = replace(ONLINE, faults=("session_timeout",), budget=1)
    state, _ = drive(scope, rt(1) + [("session_timeout", 1)])
    assert isinstance(state.group, ClassicGroup) and state.group.status == PREPARING
    assert classic_clients.rebalance_unmodelled(state) and not MODEL.within_bounds(scope, state)


@pytest.mark.parametrize("profile", ["kafka-4.1", "kafka-4.5"])
def test_shipped_profiles_refuse_a_live_classic_group_and_replace_an_empty_one(profile):
    """kafka-behavior.md A4: "Migration: offline only - empty classic group replaced
    (KAFKA-19570); non-empty -> 69"."""
    scope = replace(ONLINE, profile=profile)
    state, events = drive(scope, rt(1))
    assert events[0].note == "failed" and state.clients[1].status == FAILED
    assert isinstance(state.group, ClassicGroup)
    # offline: stop every classic client, let the sessions expire, start on the streams protocol
    scope = replace(scope, processes=1)
    state, _ = drive(scope, [("upgrade", 0), ("expire", 0), ("restart", 0), ("send", 0), ("handle", 0)])
    g = state.group
    assert isinstance(g, Group) and g.group_epoch == 1, "a new streams group: the generation is forgotten"


def test_no_task_active_twice_is_judged_across_classic_and_streams_clients(monkeypatch):
    """A coordinator that reads a classic JoinGroup as owning nothing hands the classic
    client's active task to the streams client while the classic client still runs it."""
    monkeypatch.setattr(migration_classic, "_owned", lambda g, m, sub: (0, 0, 0))
    report = bfs(MODEL, ONLINE)
    assert report.violation is not None and report.violation.property == "no_task_active_twice"


def test_a_classic_round_is_its_heartbeat(monkeypatch):
    """Counting each JoinGroup and SyncGroup as a heartbeat round of its own makes a classic
    rebalance look like five rounds without convergence."""
    monkeypatch.setattr(classic_clients, "in_round", lambda message: True)
    report = bfs(MODEL, ONLINE)
    assert report.violation is not None and report.violation.property == "converges_within_k"


def test_scope_classic_is_checked():
    assert from_dict({"classic": 1}).classic == 1
    with pytest.raises(ScopeError, match=r"scope.classic: 3 is outside 0..2"):
        from_dict({"classic": 3})
    with pytest.raises(ScopeError, match=r"scope.classic: 1 classic members with operations"):
        validate(S(classic=1, operations=("topology_update",), budget=1))
    assert validate(S(classic=1, operations=("failover",), budget=1)).classic == 1
