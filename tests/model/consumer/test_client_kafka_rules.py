"""The consumer's reactions, branch by branch, against Apache Kafka's client (3.9).

Each test names the Kafka source (``clients/src/main/java/org/apache/kafka/clients/
consumer/internals/``, tag 3.9) or the Kafka unit test it mirrors. The model follows
Kafka where Kafka is more precise than KIP-429's text; where they differ, the KIP's
text is the ``kip-429`` profile.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.properties import PROPERTIES
from groupcheck.model.consumer.scope import PROFILES
from groupcheck.model.consumer.state import (
    IDLE,
    ILLEGAL_GENERATION,
    NO_GENERATION,
    NO_MEMBER,
    REBALANCE_IN_PROGRESS,
    SYNCING,
    UNKNOWN_MEMBER_ID,
    HeartbeatResponse,
    SyncGroupResponse,
)
from groupcheck.model.core import Step, check_step
from tests.helpers.consumer_run import COOP, RANGE, Run, scope_for

T0_0, T1_0 = 0b01, 0b10       # partitions (1, 1): t0-0 is bit 0, t1-0 is bit 1


def callbacks(events) -> list[tuple[str, int]]:
    return [(e.kind, e.partitions) for e in events if e.kind in ("assigned", "revoked", "lost")]


def with_inbox(run: Run, slot: int, awaiting: str, response) -> None:
    """``slot``'s request of kind ``awaiting`` was delivered and ``response`` is its answer."""
    c = run.c(slot)._replace(awaiting=awaiting, inbox=(response,), outbox=())
    run.state = run.state._replace(consumers=run.state.consumers[:slot] + (c,) + run.state.consumers[slot + 1:])


# ------------------------------------------------------------------ onJoinComplete

@pytest.mark.parametrize("config", [COOP, RANGE])
def test_assignment_not_matching_the_subscription_is_dropped_and_the_consumer_rejoins(config):
    """ConsumerCoordinator#onJoinComplete (3.9, lines 368-375): if
    ``!subscriptions.checkAssignmentMatchedSubscription(assignedPartitions)`` then
    ``requestRejoin("received assignment does not match the current subscription")`` and
    return: no onAssignment, no callback, the assignment is not applied. (The predicate:
    SubscriptionStateTest, ``assertFalse(state.checkAssignmentMatchedSubscription(...))``.)"""
    run = Run(scope_for(members=1, partitions=(1, 1), plan=(config,), operations=("subscription_change",),
                        budget=1))
    run.do("join", 0)
    run.do("deliver", 0)                      # MEMBER_ID_REQUIRED
    run.do("receive", 0)                      # JoinGroup again, subscribed to t0 and t1
    run.do("subscription_change", 0, arg=1)   # the application drops t1 meanwhile
    run.progress(kinds=("deliver",))
    run.do("receive", 0)                      # the leader (itself) assigns t0-0 and t1-0
    run.do("deliver", 0)
    assert run.c(0).inbox[0].assignment == T0_0 | T1_0
    events = run.do("receive", 0)             # SyncGroup response: {t0-0, t1-0}
    assert callbacks(events) == [] and [e.kind for e in events] == ["rejoin"]
    c = run.c(0)
    assert c.owned == 0 and c.user_data == 0 and c.status == IDLE and c.needs_join_prepare
    assert c.generation == run.state.group.generation      # the JoinGroup response set it
    run.settle()
    assert run.c(0).owned == T0_0
    assert run.events(0, "assigned") == [T0_0] and run.events(0, "revoked") == ([0] if config == RANGE else [])


def test_callbacks_consistent_rejects_acting_on_a_mismatched_assignment():
    """The property states the same rule: an assignment outside the subscription must only
    lead to a rejoin. Applying it with onPartitionsAssigned (the model's old behaviour) is
    a violation."""
    run = Run(scope_for(members=1, partitions=(1, 1), plan=(COOP,), operations=("subscription_change",), budget=1))
    run.do("join", 0)
    run.do("deliver", 0)
    run.do("receive", 0)
    run.do("subscription_change", 0, arg=1)
    run.progress(kinds=("deliver",))
    run.do("receive", 0)
    run.do("deliver", 0)
    prev = run.state
    (action,) = [a for a in MODEL.actions(run.scope, prev) if a.kind == "receive"]
    nxt, events = MODEL.step(run.scope, prev, action)
    step = Step(prev, action, 0, nxt, events)
    assert check_step(MODEL, run.scope, step) == []
    applied = nxt._replace(consumers=(nxt.consumers[0]._replace(owned=T0_0 | T1_0),))
    wrong = (events[0]._replace(kind="assigned", partitions=T0_0 | T1_0),)
    found = dict(check_step(MODEL, run.scope, Step(prev, action, 0, applied, wrong)))
    assert "outside its subscription" in found["callbacks_consistent"]


# ------------------------------------------------------------------ onJoinPrepare once per rebalance

def test_a_join_group_retried_after_a_lost_response_does_not_run_on_join_prepare_again():
    """AbstractCoordinator#joinGroupIfNeeded (3.9, lines 463-478): ``if (needsJoinPrepare)
    { needsJoinPrepare = false; onJoinPrepare(...) }``; a failed JoinGroup (a disconnect,
    ConsumerCoordinatorTest#testDisconnectInJoin) loops back without it, so an EAGER
    consumer calls onPartitionsRevoked once per rebalance, not once per JoinGroup."""
    run = Run(scope_for(members=1, partitions=(1, 1), plan=(RANGE,), faults=("lose_response",),
                        operations=("subscription_change",), budget=2))
    run.settle()
    assert run.c(0).owned == T0_0 | T1_0
    run.do("subscription_change", 0, arg=1)
    assert callbacks(run.do("join", 0)) == [("revoked", T0_0 | T1_0)]
    run.do("deliver", 0)
    run.do("lose_response", 0)                # the JoinGroup response never arrives
    assert run.c(0).status == IDLE and not run.c(0).needs_join_prepare
    assert callbacks(run.do("join", 0)) == []  # the retry: no second onPartitionsRevoked
    run.settle()
    assert run.c(0).owned == T0_0 and run.c(0).needs_join_prepare


def test_sync_group_rebalance_in_progress_rejoins_without_on_join_prepare():
    """ConsumerCoordinatorTest#testRebalanceInProgressOnSyncGroup: the consumer rejoins
    at once (joinGroupIfNeeded ``continue``s on RebalanceInProgressException) and
    needsJoinPrepare stays false: an EAGER member calls no second onPartitionsRevoked."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(RANGE,), faults=("crash",), budget=1))
    run.settle(slots={0})
    run.progress(slots={1})                   # b joins: PreparingRebalance
    run.do("heartbeat", 0)
    run.do("deliver", 0)
    run.do("receive", 0)                      # REBALANCE_IN_PROGRESS: a is still STABLE
    assert run.c(0).needs_join_prepare
    assert callbacks(run.do("join", 0)) == [("revoked", 0b11)]
    with_inbox(run, 0, "SyncGroup", SyncGroupResponse(to=run.c(0).member_id, error=REBALANCE_IN_PROGRESS,
                                                       generation=run.state.group.generation))
    run.do("receive", 0)
    assert run.c(0).status == IDLE and not run.c(0).needs_join_prepare
    assert callbacks(run.do("join", 0)) == []


def _follower_mid_rebalance(run: Run) -> int:
    """Settle two consumers, then let the follower rejoin (a heartbeat's
    REBALANCE_IN_PROGRESS) and the rebalance run up to its SyncGroup; return its slot."""
    run.settle()
    leader = next(s for s, c in enumerate(run.state.consumers) if c.member_id == run.state.group.leader)
    slot = 1 - leader
    _rejoin_requested(run, slot)
    run.do("join", slot)                      # onJoinPrepare ran: needsJoinPrepare is false
    run.do("deliver", slot)                   # its generation changed: a new rebalance
    for kind in ("heartbeat", "deliver", "receive", "join", "deliver"):
        run.do(kind, leader)                  # the leader hears REBALANCE_IN_PROGRESS, rejoins
    run.do("receive", slot)                   # the follower's JoinGroup response
    assert run.c(slot).status == SYNCING and not run.c(slot).needs_join_prepare
    return slot


@pytest.mark.parametrize("error, keeps_id", [(ILLEGAL_GENERATION, True), (UNKNOWN_MEMBER_ID, False)])
def test_fenced_mid_rebalance_runs_on_join_prepare_again_and_loses_everything(error, keeps_id):
    """AbstractCoordinator#resetStateAndRejoin (3.9): ``needsJoinPrepare = true`` (the
    KAFKA-12983 fix), so a member fenced during a rebalance calls onPartitionsLost before
    rejoining; ConsumerCoordinatorTest#shouldLoseAllOwnedPartitionsBeforeRejoiningAfterDroppingOutOfTheGroup.
    SyncGroupResponseHandler keeps the member id on ILLEGAL_GENERATION only."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(COOP,)))
    slot = _follower_mid_rebalance(run)
    a = run.c(slot)
    assert a.owned
    with_inbox(run, slot, "SyncGroup", SyncGroupResponse(to=a.member_id, error=error, generation=a.generation))
    run.do("receive", slot)
    c = run.c(slot)
    assert c.needs_join_prepare and c.generation == NO_GENERATION and c.status == IDLE
    assert c.member_id == (a.member_id if keeps_id else NO_MEMBER)
    assert callbacks(run.do("join", slot)) == [("lost", a.owned)]
    assert run.c(slot).outbox[0].subscription.owned == 0


def test_kafka_12983_the_reset_skips_on_join_prepare_and_rejoins_claiming_its_partitions():
    """KAFKA-12983 (before 3.0.0 / 2.8.1): resetStateAndRejoin did not set needsJoinPrepare,
    so a member fenced mid-rebalance rejoined with generation -1 still claiming its
    partitions, without onPartitionsLost."""
    scope = replace(scope_for(members=2, partitions=(2,), plan=(COOP,)), profile="custom",
                    behaviour=replace(PROFILES["kafka-3.5+"], fenced_clears_owned=False))
    run = Run(scope)
    slot = _follower_mid_rebalance(run)
    a = run.c(slot)
    with_inbox(run, slot, "SyncGroup", SyncGroupResponse(to=a.member_id, error=ILLEGAL_GENERATION,
                                                          generation=a.generation))
    run.do("receive", slot)
    assert not run.c(slot).needs_join_prepare
    assert callbacks(run.do("join", slot)) == []
    sub = run.c(slot).outbox[0].subscription
    assert sub.owned == a.owned and sub.generation == NO_GENERATION


# ------------------------------------------------------------------ heartbeat responses

def test_heartbeat_rebalance_in_progress_requests_a_rejoin_keeping_generation_and_partitions():
    """AbstractCoordinator.HeartbeatResponseHandler (3.9): REBALANCE_IN_PROGRESS while
    STABLE is ``requestRejoin("group is already rebalancing")``; nothing is reset (KIP-429
    1.3: "re-join group with all the currently owned partitions")."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(COOP,)))
    run.settle()
    a = run.c(0)
    with_inbox(run, 0, "Heartbeat", HeartbeatResponse(to=a.member_id, error=REBALANCE_IN_PROGRESS))
    assert run.do("receive", 0) == ()
    c = run.c(0)
    assert (c.status, c.generation, c.member_id, c.owned, c.needs_join_prepare) == (
        IDLE, a.generation, a.member_id, a.owned, True)


@pytest.mark.parametrize("error, keeps_id", [(ILLEGAL_GENERATION, True), (UNKNOWN_MEMBER_ID, False)])
def test_heartbeat_fencing_errors_reset_the_generation(error, keeps_id):
    """HeartbeatResponseHandler: ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID ->
    resetStateOnResponseError(HEARTBEAT, error, error != ILLEGAL_GENERATION)."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(COOP,)))
    run.settle()
    a = run.c(0)
    with_inbox(run, 0, "Heartbeat", HeartbeatResponse(to=a.member_id, error=error))
    assert [(e.kind, e.note) for e in run.do("receive", 0)] == [("fenced", error)]
    c = run.c(0)
    assert c.generation == NO_GENERATION and c.needs_join_prepare and c.status == IDLE
    assert c.member_id == (a.member_id if keeps_id else NO_MEMBER)


# ------------------------------------------------------------------ onLeavePrepare and maybeLeaveGroup

def _rejoin_requested(run: Run, slot: int) -> None:
    """A heartbeat's REBALANCE_IN_PROGRESS: rejoin requested, still STABLE in Kafka."""
    c = run.c(slot)
    with_inbox(run, slot, "Heartbeat", HeartbeatResponse(to=c.member_id, error=REBALANCE_IN_PROGRESS))
    run.do("receive", slot)


def test_closing_while_stable_with_a_rejoin_requested_revokes():
    """ConsumerCoordinator#onLeavePrepare (3.9): lost only ``if generation reset ||
    rebalanceInProgress()``; a member that only has a rejoin requested is STABLE, so its
    partitions are revoked."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(COOP, COOP)))
    run.settle()
    owned = run.c(0).owned
    _rejoin_requested(run, 0)
    assert run.c(0).status == IDLE
    assert callbacks(run.do("bounce", 0)) == [("revoked", owned)]


def test_closing_mid_rebalance_loses():
    """onLeavePrepare: a member in a rebalance (COMPLETING_REBALANCE after its JoinGroup
    response), or waiting to retry a failed SyncGroup, calls onPartitionsLost."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(COOP, COOP)))
    slot = _follower_mid_rebalance(run)
    a = run.c(slot)
    assert callbacks(MODEL.step(run.scope, run.state, _action(run, "bounce", slot))[1]) == [("lost", a.owned)]
    with_inbox(run, slot, "SyncGroup", SyncGroupResponse(to=a.member_id, error=REBALANCE_IN_PROGRESS,
                                                          generation=a.generation))
    run.do("receive", slot)                   # waiting to retry: still rebalancing
    assert run.c(slot).status == IDLE and not run.c(slot).needs_join_prepare
    assert callbacks(run.do("bounce", slot)) == [("lost", a.owned)]


def _action(run: Run, kind: str, slot: int):
    return next(a for a in MODEL.actions(run.scope, run.state) if a.kind == kind and a.slot == slot)


def test_a_member_reset_by_illegal_generation_sends_no_leave_group():
    """AbstractCoordinator#maybeLeaveGroup (3.9): LeaveGroup only ``if (isDynamicMember() &&
    !coordinatorUnknown() && state != UNJOINED && generation.hasMemberId())``. An
    ILLEGAL_GENERATION reset keeps the member id but is UNJOINED: the coordinator keeps the
    member until its session times out."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(COOP, COOP)))
    run.settle()
    a = run.c(0)
    with_inbox(run, 0, "Heartbeat", HeartbeatResponse(to=a.member_id, error=ILLEGAL_GENERATION))
    run.do("receive", 0)
    events = run.do("bounce", 0)
    assert [e.kind for e in events if e.kind == "member_removed"] == []
    assert run.state.group.member(a.member_id) is not None
    run.do("session_timeout", 0)
    assert run.state.group.member(a.member_id) is None


def test_a_pending_member_leaves_the_group():
    """ConsumerCoordinatorTest#testPendingMemberShouldLeaveGroup: after MEMBER_ID_REQUIRED
    the member has an id and no generation, and still sends LeaveGroup on close; the
    coordinator forgets the pending id (GroupCoordinator#handleLeaveGroup,
    removePendingMemberAndUpdateGroup)."""
    run = Run(scope_for(members=1, partitions=(2,), plan=(COOP, COOP)))
    run.do("join", 0)
    run.do("deliver", 0)
    run.do("receive", 0)
    mid = run.c(0).member_id
    assert mid in run.state.group.pending and run.c(0).generation == NO_GENERATION
    run.do("bounce", 0)
    assert mid not in run.state.group.pending


# ------------------------------------------------------------------ metadata changes

@pytest.mark.parametrize("profile, lost", [("kafka-3.5+", False), ("kip-429", True)])
def test_a_deleted_topic_is_lost_only_under_the_kip_text(profile, lost):
    """KIP-429 1.2: "call onPartitionsLost on those owned-but-no-longer-exist partitions".
    Kafka never implemented it (ConsumerCoordinator#rejoinNeededOrPending has the comment
    "also for those owned-but-no-longer-existed partitions we should drop them as lost"
    and no code): the partitions stay owned until the next assignment revokes them."""
    scope = scope_for(members=1, partitions=(1, 1), plan=(COOP,), operations=("delete_topic",), budget=1)
    run = Run(replace(scope, profile=profile, behaviour=PROFILES[profile]))
    run.settle()
    run.do("delete_topic", arg=1)
    events = run.do("refresh_metadata", 0)
    assert callbacks(events) == ([("lost", T1_0)] if lost else [])
    run.settle()
    assert run.c(0).owned == T0_0
    assert run.events(0, "revoked") == ([] if lost else [T1_0])


def test_every_property_holds_along_these_scenarios():
    """The scenarios above are legal runs: no property of the model objects to them."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(COOP, COOP), faults=("lose_response",), budget=1))
    run.settle()
    _rejoin_requested(run, 0)
    run.do("bounce", 0)
    run.settle()
    names = [p.name for p in PROPERTIES]
    for prev, action, nxt, events in run.log:
        assert check_step(MODEL, run.scope, Step(prev, action, 0, nxt, events)) == [], names
