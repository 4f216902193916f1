"""Scenario tests for the consumer-side ConsumerCoordinator (model/consumer/client.py).

Everything is driven through the model API: ``MODEL.actions`` lists what is enabled and
``MODEL.step`` takes one chosen action. Partition sets are bitmasks: with stride S,
topic t partition p is bit t*S+p.
"""
from __future__ import annotations

import pytest

from groupcheck.model.assignors import COOPERATIVE, EAGER
from groupcheck.model.consumer import client
from groupcheck.model.consumer.properties import quiescent, settles_fully_owned
from groupcheck.model.consumer.scope import Config
from groupcheck.model.consumer.state import (
    ASSIGNED,
    DOWN,
    IDLE,
    ILLEGAL_GENERATION,
    INCONSISTENT_GROUP_PROTOCOL,
    NO_GENERATION,
    NO_MEMBER,
    UNKNOWN_MEMBER_ID,
    HeartbeatResponse,
)
from tests.helpers.consumer_run import BOTH, COOP, RANGE, Run, scope_for

# ------------------------------------------------------------------------------ EAGER

def test_eager_on_join_prepare_revokes_everything_even_when_empty_and_joins_owning_nothing():
    """KIP-429 / ConsumerCoordinator#onJoinPrepare: EAGER calls onPartitionsRevoked on all owned partitions, always, even empty."""
    run = Run(scope_for(members=3, partitions=(1,), plan=(RANGE,)))
    run.settle(slots={0, 1})
    assert (run.c(0).owned, run.c(1).owned) == (0b1, 0)     # range: the one partition to the first member
    generation = run.state.group.generation
    run.progress(slots={2})                                  # a third member joins: PreparingRebalance
    mark = len(run.log)
    for slot in (0, 1):
        run.do("heartbeat", slot)
        run.do("deliver", slot)
        run.do("receive", slot)                              # REBALANCE_IN_PROGRESS
        assert run.c(slot).status == IDLE
        events = run.do("join", slot)
        assert [(e.kind, e.partitions) for e in events] == [("revoked", 0b1 if slot == 0 else 0)]
        (req,) = run.c(slot).outbox
        assert req.subscription.owned == 0 and run.c(slot).owned == 0
        assert req.subscription.generation == generation     # still a member of its generation
    assert run.events(0, "revoked", mark) == [0b1] and run.events(1, "revoked", mark) == [0]


def test_eager_first_join_of_a_fresh_consumer_makes_no_callback():
    """ConsumerCoordinator#onJoinPrepare: with no generation and nothing owned there is nothing to lose or revoke."""
    run = Run(scope_for(members=1, plan=(RANGE,)))
    assert run.do("join", 0) == ()


# ------------------------------------------------------------------------------ COOPERATIVE

def test_cooperative_moved_partition_is_revoked_then_assigned_in_the_following_rebalance():
    """KIP-429: the old owner revokes and rejoins; the partition reaches its new owner only in the second rebalance."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(COOP,)))
    run.settle(slots={0})
    assert run.c(0).owned == 0b11 and run.state.group.generation == 1
    run.progress(slots={1})                                  # b joins: PreparingRebalance
    run.do("heartbeat", 0)
    run.do("deliver", 0)
    run.do("receive", 0)
    assert run.c(0).status == IDLE
    assert run.do("join", 0) == ()                           # COOPERATIVE: nothing revoked up front
    assert run.c(0).outbox[0].subscription.owned == 0b11     # and the JoinGroup claims both
    run.do("deliver", 0)                                     # generation 2 completes
    assert run.state.group.generation == 2
    run.do("receive", 1)
    run.do("deliver", 1)                                     # b's SyncGroup waits for the leader
    run.do("receive", 0)                                     # the leader assigns
    run.do("deliver", 0)                                     # its SyncGroup answers both
    events = run.do("receive", 0)
    a, b = run.c(0), run.c(1)
    assert b.owned == 0 and a.owned == 0b01                  # t0-1 withheld from b this round
    assert [(e.kind, e.partitions) for e in events] == [("revoked", 0b10), ("assigned", 0)]
    assert a.status == IDLE                                  # the old owner revokes t0-1 and rejoins
    run.progress(slots={1})
    assert run.c(1).owned == 0 and run.events(1, "assigned") == [0]   # called even though empty
    run.settle()
    assert run.state.group.generation == 3
    assert (run.c(0).owned, run.c(1).owned) == (0b01, 0b10)
    assert run.events(1, "assigned") == [0, 0b10]            # t0-1 arrives in the following rebalance
    assert run.events(1, "revoked") == [] and run.events(0, "lost") == []


def test_cooperative_on_partitions_assigned_every_completed_rebalance_disjoint_from_revoked():
    """KIP-429: onPartitionsAssigned(assigned - owned) is always called, even if empty, with no overlap with the revoked."""
    run = Run(scope_for(members=3, partitions=(2, 1), plan=(COOP,)))
    run.settle(slots={0})
    run.settle(slots={0, 1})
    run.settle()
    completions = list(run.sync_completions())
    assert len(completions) >= 6
    for slot, owned, assignment, events in completions:
        assigned = [e.partitions for e in events if e.kind == "assigned"]
        revoked = [e.partitions for e in events if e.kind == "revoked"]
        assert assigned == [assignment & ~owned], (slot, owned, assignment, events)
        assert revoked in ([], [owned & ~assignment]) and not any(r & assignment for r in revoked)
    assert any(e.partitions == 0 for *_, events in completions for e in events if e.kind == "assigned")
    assert settles_fully_owned(run.scope, run.state) is None and quiescent(run.scope, run.state)


# ------------------------------------------------------------------------------ fencing

def test_zombie_whose_session_timed_out_loses_everything_and_rejoins_as_a_new_member():
    """KIP-429 1.4: on UNKNOWN_MEMBER_ID, clear the member id, call onPartitionsLost on all, rejoin with nothing."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(COOP,), faults=("pause",), budget=1))
    run.settle()
    zombie_id, owned = run.c(0).member_id, run.c(0).owned
    assert owned
    mark = len(run.log)
    run.do("pause", 0)
    run.do("session_timeout", 0)
    assert run.state.group.member(zombie_id) is None
    run.settle(slots={1})
    assert run.c(1).owned == 0b11 and run.c(0).owned == owned      # the zombie still believes
    run.do("resume", 0)
    run.do("heartbeat", 0)
    run.do("deliver", 0)
    events = run.do("receive", 0)
    assert [(e.kind, e.note) for e in events] == [("fenced", UNKNOWN_MEMBER_ID)]
    c = run.c(0)
    assert c.member_id == NO_MEMBER and c.generation == NO_GENERATION and c.status == IDLE
    events = run.do("join", 0)
    assert [(e.kind, e.partitions) for e in events] == [("lost", owned)]
    (req,) = run.c(0).outbox
    assert req.member_id == NO_MEMBER and req.subscription.owned == 0 and run.c(0).owned == 0
    assert run.events(0, "revoked", mark) == []
    run.settle()
    assert run.c(0).member_id not in (NO_MEMBER, zombie_id)
    assert settles_fully_owned(run.scope, run.state) is None


def test_illegal_generation_loses_everything_but_keeps_the_member_id():
    """KIP-429 1.4 / resetStateAndGeneration: ILLEGAL_GENERATION resets the generation only; onPartitionsLost, rejoin empty."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(COOP,)))
    run.settle()
    c = run.c(0)
    owned, member_id = c.owned, c.member_id
    assert owned
    stale = c._replace(awaiting="Heartbeat", inbox=(HeartbeatResponse(to=member_id, error=ILLEGAL_GENERATION),))
    run.state = run.state._replace(consumers=(stale,) + run.state.consumers[1:])
    assert [e.kind for e in run.do("receive", 0)] == ["fenced"]
    assert run.c(0).member_id == member_id and run.c(0).generation == NO_GENERATION
    assert [(e.kind, e.partitions) for e in run.do("join", 0)] == [("lost", owned)]
    (req,) = run.c(0).outbox
    assert req.member_id == member_id and req.subscription.owned == 0
    assert req.subscription.generation == NO_GENERATION


def test_sync_rebalance_in_progress_keeps_generation_and_owned_partitions_and_rejoins():
    """KIP-429 1.3 (KAFKA-14016): REBALANCE_IN_PROGRESS rejoins with all currently owned partitions and the generation."""
    run = Run(scope_for(members=3, partitions=(2,), plan=(COOP,), faults=("crash",), budget=1))
    run.settle(slots={0, 1})
    owned_b, generation = run.c(1).owned, run.state.group.generation
    assert owned_b
    run.progress(slots={2})                                  # c joins: PreparingRebalance
    for slot in (0, 1):
        run.do("heartbeat", slot)
        run.do("deliver", slot)
        run.do("receive", slot)
        run.do("join", slot)
        run.do("deliver", slot)
    assert run.state.group.status == "CompletingRebalance" and run.state.group.generation == generation + 1
    run.do("receive", 1)
    run.do("deliver", 1)                                     # b waits in SyncGroup
    run.do("crash", 2)
    run.do("session_timeout", 2)                             # c removed: back to PreparingRebalance
    assert run.state.group.status == "PreparingRebalance"
    resp = run.c(1).inbox[-1]
    assert resp.kind == "SyncGroupResponse" and resp.error == "REBALANCE_IN_PROGRESS"
    while run.c(1).inbox:
        events = run.do("receive", 1)
        assert [e for e in events if e.kind in ("lost", "revoked", "assigned")] == []
    b = run.c(1)
    assert b.status == IDLE and b.generation == generation + 1 and b.owned == owned_b
    assert run.do("join", 1) == ()
    req = run.c(1).outbox[0]
    assert req.subscription.owned == owned_b and req.subscription.generation == generation + 1


# ------------------------------------------------------------------------------ subscription changes

@pytest.mark.parametrize("config, revoked, kept", [(COOP, 0b1100, 0b0011), (RANGE, 0b1111, 0)])
def test_subscription_change_cooperative_revokes_only_unsubscribed_topics(config, revoked, kept):
    """KIP-429 1.1: revoke partitions no longer of subscription interest (COOPERATIVE); EAGER revokes all."""
    run = Run(scope_for(members=1, partitions=(2, 2), plan=(config,), operations=("subscription_change",), budget=1))
    run.settle()
    assert run.c(0).owned == 0b1111
    run.do("subscription_change", 0, arg=1)                  # drop topic t1
    assert run.c(0).subscribed == 0b01 and run.c(0).status == IDLE
    assert [(e.kind, e.partitions) for e in run.do("join", 0)] == [("revoked", revoked)]
    req = run.c(0).outbox[0]
    assert req.subscription.topics == 0b01 and req.subscription.owned == kept
    run.settle()
    assert run.c(0).owned == 0b0011
    assert run.events(0, "lost") == []


# ------------------------------------------------------------------------------ subscription versions

def _settled_cooperative_consumer():
    run = Run(scope_for(members=1, partitions=(2,), plan=(COOP,)))
    run.settle()
    c = run.c(0)
    assert c.generation == 1 and c.owned == 0b11
    return c


@pytest.mark.parametrize("config, owned, generation, user_generation", [
    (Config(("range",), 0), 0, NO_GENERATION, NO_GENERATION),
    (Config(("cooperative-sticky",), 1), 0b11, NO_GENERATION, 1),
    (Config(("cooperative-sticky",), 2), 0b11, 1, 1),
    (Config(("cooperative-sticky",), 3), 0b11, 1, 1),
])
def test_subscription_version_decides_owned_partitions_and_generation(config, owned, generation, user_generation):
    """KIP-792 / ConsumerProtocolSubscription: v0 has no OwnedPartitions, v1 adds them, v2 adds GenerationId (default -1)."""
    c = _settled_cooperative_consumer()
    s = client.subscription(scope_for(members=1, plan=(config,)), c)
    assert (s.version, s.topics, s.owned, s.generation) == (config.version, 0b1, owned, generation)
    assert s.user_generation == user_generation       # cooperative-sticky's legacy userData generation


@pytest.mark.parametrize("version, generation", [(1, NO_GENERATION), (2, 1), (3, 1)])
def test_rejoin_join_group_carries_owned_and_generation_per_version(version, generation):
    """KIP-792: a v1 JoinGroup carries ownedPartitions with generation -1; v2+ carries the member's generation."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(Config(("cooperative-sticky",), version),)))
    run.settle(slots={0})
    run.progress(slots={1})
    run.do("heartbeat", 0)
    run.do("deliver", 0)
    run.do("receive", 0)
    run.do("join", 0)
    sub = run.c(0).outbox[0].subscription
    assert (sub.version, sub.owned, sub.generation) == (version, 0b11, generation)
    run.settle()
    assert (run.c(0).owned, run.c(1).owned) == (0b01, 0b10)


# ------------------------------------------------------------------------------ rolling upgrade

def _protocols(run: Run) -> list[str]:
    return [client.protocol_of(run.scope, c) for c in run.state.consumers]


def test_two_rolling_bounce_upgrade_from_range_to_cooperative_sticky():
    """KIP-429 upgrade path: bounce 1 to [cooperative-sticky, range] stays EAGER; bounce 2 to [cooperative-sticky] goes COOPERATIVE."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(RANGE, BOTH, COOP)))
    run.settle()
    assert run.state.group.protocol == "range"

    # bounce 1: everyone keeps EAGER; range is selected while a member lacks cooperative-sticky
    owned_b = run.c(1).owned
    assert owned_b
    run.do("bounce", 0)
    mark = len(run.log)
    run.settle()
    assert run.c(0).config == 1 and _protocols(run) == [EAGER, EAGER]
    assert run.state.group.protocol == "range"
    assert run.events(1, "revoked", mark)[0] == owned_b        # the unbounced member still revokes all
    assert settles_fully_owned(run.scope, run.state) is None and quiescent(run.scope, run.state)
    run.do("bounce", 1)
    run.settle()
    assert _protocols(run) == [EAGER, EAGER]
    assert run.state.group.protocol == "cooperative-sticky"     # no member lacks it: it wins the vote
    assert settles_fully_owned(run.scope, run.state) is None and quiescent(run.scope, run.state)

    # bounce 2: the bounced member is COOPERATIVE, the other still EAGER (and revokes all at its join)
    run.do("bounce", 0)
    mark = len(run.log)
    run.settle()
    assert _protocols(run) == [COOPERATIVE, EAGER]
    assert run.state.group.protocol == "cooperative-sticky"
    eager_joins = [evs for _, a, _, evs in run.log[mark:] if a.kind == "join" and a.slot == 1]
    assert eager_joins and all([e.kind for e in evs] == ["revoked"] for evs in eager_joins)
    assert settles_fully_owned(run.scope, run.state) is None and quiescent(run.scope, run.state)

    # the last bounce: the COOPERATIVE member keeps its partitions across the rebalance
    kept = run.c(0).owned
    assert kept
    run.do("bounce", 1)
    mark = len(run.log)
    run.settle()
    assert _protocols(run) == [COOPERATIVE, COOPERATIVE]
    assert run.state.group.protocol == "cooperative-sticky"
    assert run.events(0, "revoked", mark) == [] and run.events(0, "lost", mark) == []
    coop_joins = [a for _, a, _, evs in run.log[mark:] if a.kind == "join" and a.slot == 0]
    assert coop_joins
    assert run.c(0).owned & kept == kept
    assert settles_fully_owned(run.scope, run.state) is None and quiescent(run.scope, run.state)


def test_skipping_the_first_bounce_makes_the_bounced_member_fail_with_inconsistent_group_protocol():
    """KIP-429 upgrade path: a member with only [cooperative-sticky] cannot join a group whose members list only range."""
    run = Run(scope_for(members=2, partitions=(2,), plan=(RANGE, COOP)))
    run.settle()
    run.do("bounce", 0)
    run.settle(slots={0, 1})
    assert run.c(0).status == DOWN and run.c(0).owned == 0
    fatal = [e for _, _, _, evs in run.log for e in evs if e.kind == "fatal"]
    assert [(e.slot, e.note) for e in fatal] == [(0, INCONSISTENT_GROUP_PROTOCOL)]
    group = run.state.group
    assert [m.slot for m in group.members] == [1] and group.protocol == "range"
    assert run.c(1).owned == 0b11 and run.c(1).status == ASSIGNED
