"""groupcheck.model.epochs.group: the group and assignment epochs, member-epoch validation on a
heartbeat (GroupMetadataManager#throwIfStreamsGroupMemberEpochIsInvalid, the same rule
as KIP-848's throwIfConsumerGroupMemberEpochIsInvalid), and the blocking rules built
from a "who holds what" view."""
from __future__ import annotations

import pytest

from groupcheck.model.epochs import (
    ACTIVE, STABLE, STANDBY, STREAMS_TRUNK, UNREVOKED, WARMUP, Fenced, GroupEpochs, Holding,
    MemberAssignment, bump_group_epoch, consumer_unreleased, holding, install_target, needs_new_target,
    new_member, reconcile, streams_unreleased, validate_member_epoch,
)


def test_new_target_when_group_epoch_is_ahead():
    e = GroupEpochs()
    assert not needs_new_target(e)
    e = bump_group_epoch(bump_group_epoch(e))
    assert e == GroupEpochs(2, 0) and needs_new_target(e)
    e, target = install_target(e, {"b": (0b10, 0, 0), "a": (0b01, 0, 0)})
    assert e == GroupEpochs(2, 2) and not needs_new_target(e)
    assert target.epoch == 2 and [mid for mid, _ in target.members] == ["a", "b"]
    assert target.of("b", 3) == (0b10, 0, 0) and target.of("zz", 3) == (0, 0, 0)


def _after_bump():
    """A member moved from epoch 10 to 11 (previous 10), keeping task 0, adding task 1."""
    m = MemberAssignment(state=STABLE, epoch=10, previous_epoch=9, assigned=(0b01, 0, 0), pending_revocation=(0, 0, 0),
                         revocation_epoch=9)
    got = reconcile(m, 11, (0b11, 0, 0), (0b01, 0, 0), lambda r, i: False, profile=STREAMS_TRUNK)
    assert got.epoch == 11 and got.previous_epoch == 10
    return got


def test_current_epoch_accepted():
    validate_member_epoch(_after_bump(), 11, None)


def test_newer_epoch_fenced():
    with pytest.raises(Fenced, match="newer"):
        validate_member_epoch(_after_bump(), 12, (0, 0, 0))


@pytest.mark.parametrize("owned", [(0b01, 0, 0), (0b11, 0, 0), (0, 0, 0)])
def test_lost_response_previous_epoch_with_owned_subset_accepted(owned):
    """The response carrying epoch 11 was lost: the member heartbeats with 10 and
    owns a subset of what is now assigned."""
    validate_member_epoch(_after_bump(), 10, owned)


@pytest.mark.parametrize("received, owned", [
    (10, None),              # owned not reported
    (10, (0b101, 0, 0)),     # owns a task no longer assigned
    (10, (0, 0b1, 0)),       # owns a standby it was never given
    (9, (0b01, 0, 0)),       # older than the previous epoch
])
def test_older_epoch_otherwise_fenced(received, owned):
    with pytest.raises(Fenced, match="older"):
        validate_member_epoch(_after_bump(), received, owned)


def test_unrevoked_member_previous_epoch_is_its_own_epoch():
    """Builder.updateMemberEpoch sets previous := old epoch even when the epoch does
    not move, so a member that went STABLE 10 -> UNREVOKED 10 has previous 10."""
    m = MemberAssignment(state=STABLE, epoch=10, previous_epoch=9, assigned=(0b11, 0, 0), pending_revocation=(0, 0, 0),
                         revocation_epoch=9)
    got = reconcile(m, 11, (0b01, 0, 0), None, lambda r, i: False)
    assert (got.state, got.epoch, got.previous_epoch) == (UNREVOKED, 10, 10)
    with pytest.raises(Fenced):
        validate_member_epoch(got, 9, (0b01, 0, 0))


def test_new_member_defaults():
    assert new_member(3) == MemberAssignment(state=STABLE, epoch=0, previous_epoch=-1, assigned=(0, 0, 0),
                                             pending_revocation=(0, 0, 0), revocation_epoch=0)


def test_streams_rule_from_holdings():
    a = Holding("a", "p1", (0b001, 0b010, 0), (0b100, 0, 0))   # active 0 and 2 (2 pending), standby 1
    b = Holding("b", "p2", (0, 0, 0b1000), (0, 0, 0))            # warm-up 3
    rule = streams_unreleased((a, b), "p2")
    # active: any active owner anywhere (0, 2 incl. pending revocation), or own process standby/warm-up (3)
    assert [i for i in range(5) if rule(ACTIVE, i)] == [0, 2, 3]
    # standby / warm-up: only own process p2, any role
    assert [i for i in range(5) if rule(STANDBY, i)] == [3]
    assert [i for i in range(5) if rule(WARMUP, i)] == [3]
    rule = streams_unreleased((a, b), "p1")
    assert [i for i in range(5) if rule(STANDBY, i)] == [0, 1, 2]


def test_consumer_rule_from_holdings():
    me = holding("me", "", MemberAssignment(state=UNREVOKED, epoch=3, previous_epoch=3, assigned=(0b001,),
                                            pending_revocation=(0b010,)))
    other = Holding("other", "", (0b100,), (0b1000,))
    rule = consumer_unreleased((me, other), "me")
    assert [i for i in range(5) if rule(0, i)] == [2, 3]
    rule = consumer_unreleased((me, other), "me", own_pending_blocks=True)
    assert [i for i in range(5) if rule(0, i)] == [1, 2, 3]
