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
from groupcheck.protocols.streams_group import reference_scopes
from groupcheck.model.consumer.state import PREPARING, STABLE as CLASSIC_STABLE
from groupcheck.model.consumer.state import Group as ClassicGroup
from groupcheck.model.scopes import ScopeError
from groupcheck.model.streams_group import MODEL, classic_clients, migration_classic
from groupcheck.model.streams_group.group import Group, group_state
from groupcheck.model.streams_group.migration import MigratingGroup
from groupcheck.model.streams_group.scope import StreamsGroupScope as S, from_dict, validate
from groupcheck.model.streams_group.world import FAILED, MEMBER

from tests.helpers.streams_group_drive import drive, rt

ONLINE = reference_scopes()["online-migration"]


def test_the_online_migration_reference_scope_holds_and_completes():
    report = bfs(MODEL, ONLINE)
    assert report.violation is None and report.complete
    assert report.witnessed["migration_completes"]
    assert (report.states, report.transitions, report.depth) == (7172, 15890, 57)


@pytest.mark.parametrize("scope", [S(processes=2, classic=1, stateful=True, standbys=1),
                                   S(processes=2, classic=1, stateful=True, warmups=1, partitions=(1,))],
                         ids=["standby", "warm-up"])
def test_stateful_online_migration_holds(scope):
    """Standbys and warm-ups reach the classic client as standbys (migration_classic) and
    come back as what it owns; every claim holds, the migration completes."""
    report = bfs(MODEL, scope)
    assert report.violation is None and report.complete and report.witnessed["migration_completes"]


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


def test_converted_back_the_running_classic_client_rebalances_the_classic_group():
    """Converted back while P1 still runs classic: P1's heartbeat is told
    REBALANCE_IN_PROGRESS, its JoinGroup completes the join (it is the only member left),
    as leader its SyncGroup carries the assignment: P1 runs every task."""
    scope = replace(ONLINE, faults=("session_timeout",), budget=1)
    state, _ = drive(scope, rt(1) + [("session_timeout", 1)])
    assert isinstance(state.group, ClassicGroup) and state.group.status == PREPARING
    state, _ = drive(scope, rt(0), state)
    assert state.clients[0].status == "rejoining"
    state, _ = drive(scope, rt(0) + rt(0), state)
    g = state.group
    assert g.status == CLASSIC_STABLE and g.leader == "m0.0" and g.generation == 3
    assert state.clients[0].status == MEMBER and state.clients[0].owned[0] == 0b11


def test_a_pure_classic_rebalance_waits_for_every_member():
    """Three classic clients (offline migration, kafka-4.5): P3 stops, its member expires, the
    group rebalances; P1's JoinGroup waits until P2 joins, P2's SyncGroup waits for the
    leader's (P1's), then both get their assignment at once (the classic coordinator's
    purgatory, model/consumer/coordinator.py)."""
    scope = S(processes=3, classic=3, partitions=(1,), profile="kafka-4.5")
    state, _ = drive(scope, [("upgrade", 2), ("expire", 2)] + rt(0) + [("send", 0), ("handle", 0)])
    assert state.clients[0].status == "waiting" and state.clients[0].reply is None
    assert ("send", 0) not in {(a.kind, a.slot) for a in MODEL.actions(scope, state)}
    state, _ = drive(scope, rt(1) + [("send", 1), ("handle", 1)], state)
    assert state.clients[0].reply.kind == state.clients[1].reply.kind == "JoinGroupResponse"
    state, _ = drive(scope, [("deliver", 0), ("deliver", 1), ("send", 1), ("handle", 1)], state)
    assert state.clients[1].status == "waiting", "a follower's SyncGroup waits for the leader's"
    state, _ = drive(scope, [("send", 0), ("handle", 0), ("deliver", 0), ("deliver", 1)], state)
    assert state.group.status == CLASSIC_STABLE
    owned = [c.owned[0] for c in state.clients[:2]]
    assert owned[0] | owned[1] == 1 and not owned[0] & owned[1]


def test_converting_a_rebalancing_classic_group_answers_the_waiting_and_keeps_assignments():
    """KIP-1071 online conversion of a classic group mid-rebalance (Kafka's
    convertToConsumerGroup): the JoinGroup waiting there is answered REBALANCE_IN_PROGRESS,
    and each member enters the streams group with its last classic assignment
    (ConsumerGroup.fromClassicGroup: "set based on the last assignment of the classic group")."""
    scope = S(processes=4, classic=3, partitions=(1,))
    moves = [("upgrade", 2), ("expire", 2)] + rt(0) + [("send", 0), ("handle", 0)]
    state, _ = drive(scope, moves)
    assert state.clients[0].status == "waiting" and state.group.status == PREPARING
    owner = next(s for s in (0, 1) if state.clients[s].owned[0])
    # P4 converts it now: P1's waiting JoinGroup is answered REBALANCE_IN_PROGRESS
    now, _ = drive(scope, [("send", 3), ("handle", 3)], state)
    assert isinstance(now.group, MigratingGroup)
    assert now.clients[0].reply.kind == "JoinGroupResponse" and now.clients[0].reply.error == "REBALANCE_IN_PROGRESS"
    # or later, once the join completed and P2's SyncGroup waits for the leader's
    state, _ = drive(scope, rt(1) + [("send", 1), ("handle", 1), ("deliver", 0), ("deliver", 1), ("send", 1),
                                     ("handle", 1)], state)
    assert state.group.status == "CompletingRebalance" and state.clients[1].status == "waiting"
    state, _ = drive(scope, [("send", 3), ("handle", 3)], state)
    assert state.clients[1].reply.kind == "SyncGroupResponse" and state.clients[1].reply.error == "REBALANCE_IN_PROGRESS"
    assert state.group.group.member(f"m{owner}.0").assigned[0] == 1, "the task stays with its classic owner"


def test_the_classic_leader_withholds_an_active_task_another_member_still_owns():
    """Cooperative (StreamsPartitionAssignor): a task moving from A to B is left out of B's
    assignment until A has given it up (A's assignment lacks it, A revokes and rejoins)."""
    from groupcheck.model.consumer.state import GroupMember
    from groupcheck.model.streams_group.coordinator import Config
    from groupcheck.model.streams_group.group import task_index
    from groupcheck.model.streams_group.migration import StreamsAssignment, StreamsSubscription
    from groupcheck.model.streams_group.state import Subtopology, TaskIds, Topology
    idx = task_index({"0": 2})
    topo = Topology(0, (Subtopology(subtopology_id="0", source_topics=("t0",)),))
    both = (TaskIds("0", (0, 1)),)
    a = GroupMember(member_id="A", slot=0, protocols=("stream",), subscription=StreamsSubscription("pA", both),
                    joined=True, syncing=False, assignment=StreamsAssignment(both))
    b = GroupMember(member_id="B", slot=1, protocols=("stream",), subscription=StreamsSubscription("pB"), joined=True,
                    syncing=False, assignment=StreamsAssignment())
    g = ClassicGroup(status="CompletingRebalance", generation=2, protocol="stream", leader="A", members=(a, b),
                     pending=(), next_id=1)
    plan = dict(classic_clients.assign(g, "kip-1071", idx, topo, {"t0": 2}, Config()))
    assert len(plan["A"].active[0].partitions) == 1, "the assignor balances: one task moves to B"
    assert plan["B"].active == (), "withheld while A still owns it"


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


def test_a_classic_group_whose_clients_converged_has_converged():
    """Before any client migrates, the group is a classic group (the coordinator holds no
    streams group): it has converged once every running client has (classic.converged says
    Stable), the goal of settles_under_fairness, though its streams view is DEAD."""
    from collections import deque

    from groupcheck.model.streams_group.step import converged
    from groupcheck.model.streams_group.world import FAILED, STOPPED
    scope = S(processes=3, classic=3, partitions=(1,), profile="kafka-4.5")
    seen, todo, found = set(), deque(MODEL.init_states(scope)), None
    while todo and found is None and len(seen) < 50_000:
        state = todo.popleft()
        if state in seen:
            continue
        seen.add(state)
        live = [s for s, c in enumerate(state.clients) if c.status not in (STOPPED, FAILED)]
        if isinstance(state.group, ClassicGroup) and live and all(converged(state, s, scope) for s in live):
            found = state
        todo.extend(MODEL.step(scope, state, a)[0] for a in MODEL.actions(scope, state))
    assert found is not None, f"no classic-group state with every client converged among {len(seen)} states"
    assert MODEL.converged(scope, found)
