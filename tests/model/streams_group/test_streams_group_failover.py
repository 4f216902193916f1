"""Coordinator failover as an action of the explorable streams-group model (``failover.py``):
the new coordinator holds what replaying the compacted log gives; what Kafka does not
persist is lost (the SHUTDOWN_APPLICATION requester, StreamsGroup#shutdownRequestMemberId:
"This is not persisted in the log, as the shutdown request is best-effort."); requests in
flight are answered by the new coordinator. Every property holds under failover."""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.protocols.streams_group import reference_scopes
from groupcheck.model.streams_group import MODEL, failover as failover_module
from groupcheck.model.streams_group.group import UNREVOKED
from groupcheck.model.streams_group.migration import MigratingGroup
from groupcheck.model.streams_group.records import StreamsGroupCurrentMemberAssignment
from groupcheck.model.streams_group.scope import StreamsGroupScope as S
from groupcheck.model.streams_group.state import SHUTDOWN_APPLICATION
from tests.helpers.streams_group_drive import drive, rt

FAILOVER = reference_scopes()["failover"]


@pytest.mark.slow
def test_the_failover_reference_scope_holds():
    report = bfs(MODEL, FAILOVER)
    assert report.violation is None and report.complete
    assert (report.states, report.transitions, report.depth) == (8481, 26564, 39)


def test_failover_keeps_a_group_mid_rebalance():
    """P2 joins while P1 holds both tasks: P1 is UNREVOKED when the coordinator fails over;
    the new coordinator holds the same group and the rebalance goes on."""
    scope = replace(FAILOVER, operations=("failover",), budget=1)
    state, _ = drive(scope, rt(0) + rt(0) + rt(1) + [("send", 0), ("handle", 0)])
    assert any(m.state == UNREVOKED for m in state.group.members)
    after, events = drive(scope, [("failover", 0)], state)   # arg 0: every write committed
    assert after.group == state.group and events[0].note == "log loaded"


def test_failover_loses_the_shutdown_requester():
    scope = FAILOVER
    state, _ = drive(scope, rt(0) + rt(1) + [("shutdown_request", 0), ("send", 0), ("handle", 0)])
    assert state.shutdown == "m0.0" and SHUTDOWN_APPLICATION in state.clients[0].reply.statuses
    state, _ = drive(scope, [("failover", 0)], state)
    assert state.shutdown is None
    state, _ = drive(scope, rt(1), state)
    assert state.clients[1].status == "member", "P2 never hears of the shutdown"


def test_a_request_in_flight_is_answered_by_the_new_coordinator():
    """The old coordinator's in-flight request fails (NOT_COORDINATOR) and the client sends its
    heartbeat again: the model keeps it in flight for the new coordinator."""
    scope = replace(FAILOVER, operations=("failover",), budget=1)
    state, _ = drive(scope, [("send", 0), ("failover", 0), ("handle", 0), ("deliver", 0)])
    assert state.clients[0].status == "member" and state.group.member("m0.0") is not None


def test_failover_keeps_the_classic_members_of_a_migrating_group():
    scope = replace(reference_scopes()["online-migration"], operations=("failover",), budget=1)
    state, _ = drive(scope, rt(1))
    assert isinstance(state.group, MigratingGroup)
    after, _ = drive(scope, [("failover", 0)], state)
    assert after.group == state.group


def test_a_classic_group_reloads_from_its_last_record():
    """Kafka writes a classic group's record when it reaches Stable or Empty; a new
    coordinator loads it as Stable (members) or Empty (GroupMetadataManager#replay of
    GroupMetadataValue). A rebalance under way is lost: the expired member is back (its
    session timer restarts, onLoaded), and the JoinGroup waiting in the old coordinator's
    purgatory fails NOT_COORDINATOR, so P1 sends it again."""
    scope = S(processes=3, classic=3, partitions=(1,), profile="kafka-4.5", operations=("failover",), budget=1)
    state, _ = drive(scope, [("upgrade", 2), ("expire", 2)] + rt(0) + [("send", 0), ("handle", 0)])
    assert state.group.status == "PreparingRebalance" and state.clients[0].status == "waiting"
    assert state.classic_record == MODEL.init_states(scope)[0].group
    state, events = drive(scope, [("failover", 0)], state)
    g = state.group
    assert g.status == "Stable" and g.generation == 1 and [m.member_id for m in g.members] == ["m0.0", "m1.0", "m2.0"]
    assert state.clients[0].status == "rejoining" and state.clients[0].reply is None
    assert "expire" in {a.kind for a in MODEL.actions(scope, state)}


def test_classic_records_follow_the_group():
    scope = S(processes=2, classic=2, profile="kafka-4.5", operations=("failover",), budget=1)
    state, _ = drive(scope, [("upgrade", 1), ("expire", 1)] + rt(0) + rt(0) + rt(0))
    assert state.group.status == "Stable" and state.group.generation == 2
    assert state.classic_record == state.group, "the leader's SyncGroup wrote the new generation"
    assert bfs(MODEL, scope).violation is None


@pytest.mark.slow
def test_migration_with_failover_holds():
    """Online migration with a failover anywhere (the classic members' subscriptions kept)."""
    scope = S(processes=2, classic=1, operations=("failover",), budget=1)
    report = bfs(MODEL, scope)
    assert report.violation is None and report.complete and report.witnessed["migration_completes"]


def test_a_failover_that_drops_records_is_caught(monkeypatch):
    """Pins the claim: a log without the members' current assignments loads a different group."""
    real = failover_module.diff
    monkeypatch.setattr(failover_module, "diff", lambda a, b: tuple(
        r for r in real(a, b) if not isinstance(r, StreamsGroupCurrentMemberAssignment)))
    report = bfs(MODEL, replace(FAILOVER, operations=("failover",), budget=1))
    assert report.violation is not None and report.violation.property == "replay_gives_live_state"


def test_a_failover_loses_the_last_write_if_it_was_not_committed():
    """CoordinatorRuntime parks a response until its records are committed; on unload it
    fails the parked responses NOT_COORDINATOR and the new leader's log ends before them.
    P1's join was handled but its response not read: the failover that loses the write
    leaves no group, and P1 sends its join again."""
    scope = replace(FAILOVER, operations=("failover",), budget=1)
    state, _ = drive(scope, [("send", 0), ("handle", 0)])
    assert state.uncommitted and state.group.member("m0.0") is not None
    kinds = [(a.kind, a.slot, a.arg) for a in MODEL.actions(scope, state) if a.kind == "failover"]
    assert kinds == [("failover", 0, 0), ("failover", 0, 1)]
    lost = next(a for a in MODEL.actions(scope, state) if a.kind == "failover" and a.arg == 1)
    after, events = MODEL.step(scope, state, lost)
    assert after.group.dead and events[0].note.startswith("the last write lost")
    assert after.clients[0].reply is None and after.clients[0].request == state.uncommitted.request
    after, _ = drive(scope, [("handle", 0), ("deliver", 0)], after)
    assert after.clients[0].status == "member" and after.group.member("m0.0") is not None


def test_a_read_response_means_the_write_was_committed():
    scope = replace(FAILOVER, operations=("failover",), budget=1)
    state, _ = drive(scope, rt(0))
    assert not state.uncommitted
    assert [a.arg for a in MODEL.actions(scope, state) if a.kind == "failover"] == [0]


def test_a_lost_write_takes_its_internal_topics_with_it():
    """The internal topics a heartbeat asks for are requested from its response (KafkaApis):
    a lost write requested none, whether or not the request has completed."""
    scope = S(processes=1, stateful=True, operations=("failover",), budget=1)
    state, _ = drive(scope, [("send", 0), ("handle", 0)])
    assert "app-0-changelog" in dict(state.creating) and "app-0-changelog" not in dict(state.topics)
    lost = next(a for a in MODEL.actions(scope, state) if a.kind == "failover" and a.arg == 1)
    after, _ = MODEL.step(scope, state, lost)
    assert not after.creating and "app-0-changelog" not in dict(after.topics) and "t0" in dict(after.topics)
    created, _ = drive(scope, [("topics_created", 0)], state)
    assert "app-0-changelog" in dict(created.topics)
    lost = next(a for a in MODEL.actions(scope, created) if a.kind == "failover" and a.arg == 1)
    after, _ = MODEL.step(scope, created, lost)
    assert "app-0-changelog" not in dict(after.topics) and "t0" in dict(after.topics)


def test_a_later_write_commits_the_earlier_one():
    """At most one write is uncommitted (a simplification): a timer's write after P1's
    heartbeat counts as committing it, so the failover that loses P1's write is gone."""
    scope = S(processes=2, faults=("session_timeout",), operations=("failover",), budget=2)
    state, _ = drive(scope, rt(0) + rt(1) + [("send", 1), ("handle", 1)])
    assert state.uncommitted and state.uncommitted.slot == 1
    state, _ = drive(scope, [("session_timeout", 0)], state)
    assert not state.uncommitted
    assert [a.arg for a in MODEL.actions(scope, state) if a.kind == "failover"] == [0]
