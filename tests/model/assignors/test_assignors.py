"""Tests for the reference assignors and the cooperative ownership rules (model/assignors).

Partition sets are bitmasks: with stride S, topic t partition p is bit t*S+p.
"""
from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from groupcheck.model.assignors import (
    ASSIGNORS,
    COOPERATIVE,
    EAGER,
    Assignor,
    AssignorConfigError,
    Member,
    rebalance_protocol,
    roundrobin,
    sticky,
)
from groupcheck.model.assignors import range as range_assignor
from groupcheck.model.assignors.ownership import (
    Claim,
    cooperative_violation,
    resolve_claims,
    withhold,
)
from groupcheck.model.partitions import bits, count, topic_mask

FAST = settings(max_examples=150, deadline=None)


def parts(stride: int, *tps: tuple[int, int]) -> int:
    """The mask of (topic, partition) pairs."""
    return sum(1 << (t * stride + p) for t, p in tps)


# ------------------------------------------------------------------------------ range

def test_range_gives_consecutive_ranges_with_extra_partitions_to_the_first_members():
    """RangeAssignor: per topic, N/M partitions each in member order, the first N%M members get one more."""
    every = topic_mask(5, 0, 5)
    out = range_assignor.plan((Member(member_id=1, eligible=every, claims=0), Member(
        member_id=2, eligible=every, claims=0), Member(
        member_id=3, eligible=every, claims=0)), 5)
    assert out == {1: 0b00011, 2: 0b01100, 3: 0b10000}


def test_range_assigns_each_topic_separately_so_the_first_member_gets_both_extras():
    """RangeAssignor: ranges are computed per topic, so imbalance adds up across topics."""
    s = 3
    every = topic_mask(s, 0, 3) | topic_mask(s, 1, 3)
    out = range_assignor.plan((Member(member_id=1, eligible=every, claims=0), Member(
        member_id=2, eligible=every, claims=0)), s)
    assert out[1] == parts(s, (0, 0), (0, 1), (1, 0), (1, 1))
    assert out[2] == parts(s, (0, 2), (1, 2))


def test_range_only_counts_members_subscribed_to_the_topic():
    """RangeAssignor: a topic's partitions are split among the members subscribed to it only."""
    s = 2
    t0, t1 = topic_mask(s, 0, 2), topic_mask(s, 1, 2)
    out = range_assignor.plan((Member(member_id=1, eligible=t0 | t1, claims=0), Member(
        member_id=2, eligible=t1, claims=0)), s)
    assert out == {1: t0 | parts(s, (1, 0)), 2: parts(s, (1, 1))}


def test_range_ignores_claims():
    """RangeAssignor is not sticky: previous ownership does not change its output."""
    every = topic_mask(4, 0, 4)
    fresh = range_assignor.plan((Member(member_id=1, eligible=every, claims=0), Member(
        member_id=2, eligible=every, claims=0)), 4)
    claimed = range_assignor.plan((Member(member_id=1, eligible=every, claims=0b1100), Member(
        member_id=2, eligible=every, claims=0b0011)), 4)
    assert fresh == claimed == {1: 0b0011, 2: 0b1100}


# ------------------------------------------------------------------------------ roundrobin

def test_roundrobin_deals_partitions_around_the_circle():
    """RoundRobinAssignor: all partitions in order, members in a circle sorted by id."""
    every = topic_mask(4, 0, 4)
    out = roundrobin.plan((Member(member_id=1, eligible=every, claims=0), Member(
        member_id=2, eligible=every, claims=0), Member(
        member_id=3, eligible=every, claims=0)), 4)
    assert out == {1: 0b1001, 2: 0b0010, 3: 0b0100}


def test_roundrobin_skips_members_not_subscribed_to_the_topic():
    """RoundRobinAssignor: the circular iterator advances past members not subscribed to the partition's topic."""
    s = 2
    t0, t1 = topic_mask(s, 0, 2), topic_mask(s, 1, 2)
    out = roundrobin.plan((Member(member_id=1, eligible=t0 | t1, claims=0), Member(
        member_id=2, eligible=t1, claims=0)), s)
    # t0-0 -> 1; t0-1: 2 skipped -> 1; t1-0 -> 2; t1-1 -> 1
    assert out == {1: t0 | parts(s, (1, 1)), 2: parts(s, (1, 0))}


# ------------------------------------------------------------------------------ sticky

def test_sticky_keeps_claims_within_the_quota_and_hands_out_the_rest():
    """AbstractStickyAssignor constrained assignment: keep up to the quota of owned partitions, fill the others."""
    every = topic_mask(4, 0, 4)
    out = sticky.plan((Member(member_id=1, eligible=every, claims=0b0111), Member(
        member_id=2, eligible=every, claims=0)), 4)
    assert out == {1: 0b0011, 2: 0b1100}
    out = sticky.plan((Member(member_id=1, eligible=every, claims=0b1000), Member(
        member_id=2, eligible=every, claims=0b0001)), 4)
    assert out[1] & 0b1000 and out[2] & 0b0001
    assert count(out[1]) == count(out[2]) == 2


def test_sticky_allows_only_p_mod_n_members_at_the_higher_quota():
    """AbstractStickyAssignor: at most P % N members keep maxQuota; the others keep minQuota."""
    every = topic_mask(7, 0, 7)             # P=7, N=3: minQuota 2, maxQuota 3, one member at max
    out = sticky.plan((Member(member_id=1, eligible=every, claims=0b0000111), Member(
        member_id=2, eligible=every, claims=0b0111000), Member(
        member_id=3, eligible=every, claims=0)), 7)
    assert [count(out[m]) for m in (1, 2, 3)] == [3, 2, 2]
    assert out[1] == 0b0000111 and out[2] == 0b0011000 and out[3] == 0b1100000


def test_sticky_with_unequal_subscriptions_keeps_eligible_claims_and_rebalances_by_eligibility():
    """StickyAssignor general case: claims kept, free partitions to the least-loaded eligible member."""
    s = 2
    t0, t1 = topic_mask(s, 0, 2), topic_mask(s, 1, 2)
    out = sticky.plan((Member(member_id=1, eligible=t0 | t1, claims=t0), Member(member_id=2, eligible=t1, claims=0)), s)
    assert out == {1: t0, 2: t1}


@st.composite
def equal_groups(draw):
    """Members with equal subscriptions and disjoint claims over one or two topics."""
    stride = draw(st.integers(1, 4))
    topics = draw(st.integers(1, 2))
    counts = [draw(st.integers(1, stride)) for _ in range(topics)]
    every = sum(topic_mask(stride, t, n) for t, n in enumerate(counts))
    n = draw(st.integers(1, 4))
    owner = {b: draw(st.integers(0, n)) for b in bits(every)}      # 0: unclaimed
    members = tuple(Member(member_id=i, eligible=every,
                           claims=sum(1 << b for b, o in owner.items() if o == i)) for i in range(1, n + 1))
    return members, every, stride


@FAST
@given(equal_groups())
@example(((Member(member_id=1, eligible=0b1111111, claims=0b0000111), Member(
    member_id=2, eligible=0b1111111, claims=0b0111000), Member(
    member_id=3, eligible=0b1111111, claims=0)),
          0b1111111, 8))
def test_sticky_with_equal_subscriptions_is_balanced_complete_and_keeps_claims_up_to_min_quota(group):
    """KIP-429 / AbstractStickyAssignor: balanced within 1, every partition once, claims kept up to the quota."""
    members, every, stride = group
    out = sticky.plan(members, stride)
    assert set(out) == {m.member_id for m in members}
    seen = 0
    for mask in out.values():
        assert not seen & mask
        seen |= mask
    assert seen == every
    sizes = [count(mask) for mask in out.values()]
    assert max(sizes) - min(sizes) <= 1
    low = count(every) // len(members)
    for m in members:
        assert count(out[m.member_id] & m.claims) >= min(count(m.claims), low)


# ------------------------------------------------------------------------------ rebalance protocol

def test_rebalance_protocol_is_the_highest_common_protocol():
    """KIP-429: only protocols supported by all assignors; among several, the highest id (COOPERATIVE > EAGER)."""
    assert rebalance_protocol(("range",)) == EAGER
    assert rebalance_protocol(("cooperative-sticky",)) == COOPERATIVE
    assert rebalance_protocol(("cooperative-sticky", "range")) == EAGER
    assert rebalance_protocol(("range", "cooperative-sticky")) == EAGER
    assert rebalance_protocol(("custom-cooperative", "cooperative-sticky")) == COOPERATIVE
    assert rebalance_protocol(("sticky",)) == EAGER          # KIP-429: StickyAssignor stays EAGER-only


def test_rebalance_protocol_rejects_empty_and_unknown_assignor_lists():
    """ConsumerCoordinator: an empty or unknown partition.assignment.strategy is a configuration error."""
    with pytest.raises(AssignorConfigError, match="empty"):
        rebalance_protocol(())
    with pytest.raises(AssignorConfigError, match="nope"):
        rebalance_protocol(("range", "nope"))


def test_rebalance_protocol_rejects_assignors_with_no_common_protocol(monkeypatch, request):
    """KIP-429: "If there is no common protocols supported across all the assignors, throw an exception"."""
    request.addfinalizer(rebalance_protocol.cache_clear)       # forget the temporary assignor
    only_coop = Assignor(name="coop-only", supported_protocols=(COOPERATIVE,), builtin=False, claims_from="owned",
                         withholds=True, plan=sticky.plan)
    monkeypatch.setitem(ASSIGNORS, "coop-only", only_coop)
    assert rebalance_protocol(("coop-only", "cooperative-sticky")) == COOPERATIVE
    with pytest.raises(AssignorConfigError, match="no rebalance protocol in common"):
        rebalance_protocol(("coop-only", "range"))


# ------------------------------------------------------------------------------ claim resolution

A, B, C = 1, 2, 3


def test_per_partition_generation_same_generation_double_claim_is_contested_and_nobody_keeps_it():
    """KAFKA-14639 (3.5+): two claimants of the same generation both lose the partition this round."""
    kept, contested = resolve_claims([Claim(A, 0b011, 3), Claim(B, 0b110, 3)], "per-partition-generation")
    assert contested == 0b010
    assert kept == {A: 0b001, B: 0b100}


def test_per_partition_generation_higher_generation_wins_in_either_order():
    """KAFKA-14639 (3.5+): a higher-generation claim takes the partition; a lower one leaves it with the earlier."""
    for claims in ([Claim(A, 0b11, 2), Claim(B, 0b10, 4)], [Claim(B, 0b10, 4), Claim(A, 0b11, 2)]):
        kept, contested = resolve_claims(claims, "per-partition-generation")
        assert kept == {A: 0b01, B: 0b10} and contested == 0


def test_per_partition_generation_unique_highest_claimant_keeps_despite_a_lower_tie():
    """A3: the unique claimant of the highest generation keeps the partition, else nobody does."""
    kept, contested = resolve_claims([Claim(A, 1, 3), Claim(B, 1, 3), Claim(C, 1, 4)], "per-partition-generation")
    assert kept == {A: 0, B: 0, C: 1} and contested == 0
    kept, contested = resolve_claims([Claim(A, 1, 4), Claim(B, 1, 3), Claim(C, 1, 4)], "per-partition-generation")
    assert kept == {A: 0, B: 0, C: 0} and contested == 1


def test_highest_generation_only_drops_every_lower_generation_claim():
    """KAFKA-12984 (3.0-3.4): only members of the highest generation keep their ownedPartitions."""
    kept, contested = resolve_claims([Claim(A, 0b011, 2), Claim(B, 0b100, 3), Claim(C, 0b100, 3)],
                                     "highest-generation-only")
    assert kept == {A: 0, B: 0b100, C: 0b100} and contested == 0     # duplicates among the highest stay


def test_trust_all_keeps_every_claim():
    """Kafka 2.4-2.8: the cooperative assignor trusted ownedPartitions regardless of generation."""
    claims = [Claim(A, 0b011, 1), Claim(B, 0b010, 5)]
    assert resolve_claims(claims, "trust-all") == ({A: 0b011, B: 0b010}, 0)


def test_unknown_resolution_rule_is_rejected():
    """Only the three documented claim-resolution rules exist."""
    with pytest.raises(ValueError, match="unknown claim resolution rule"):
        resolve_claims([Claim(A, 1, 1)], "newest-wins")


# ------------------------------------------------------------------------------ withholding

def test_withhold_excludes_maybe_revoking_partitions_from_their_new_owner():
    """KIP-429 2.4: for maybe-revoking partitions whose owner changed, exclude them from the new owner's assignment."""
    out = withhold({A: 0b01, B: 0b10}, {A: 0b11, B: 0}, 0)
    assert out == {A: 0b01, B: 0}            # A loses t0-1 (revokes it); B gets it next round


def test_withhold_gives_ready_to_migrate_partitions_at_once():
    """KIP-429 2.5: partitions nobody owned are safe to move to the new member immediately."""
    out = withhold({A: 0b001, B: 0b110}, {A: 0b001, B: 0}, 0)
    assert out == {A: 0b001, B: 0b110}


def test_withhold_never_hands_out_unknown_but_owned_partitions():
    """KIP-429 2.3.3/2.6: partitions claimed but missing from the assignment go to nobody else."""
    out = withhold({A: 0b0001, B: 0b1110}, {A: 0b1001, B: 0}, 0)
    assert out == {A: 0b0001, B: 0b0110}
    out = withhold({A: 0b01, B: 0b10}, {A: 0b100, B: 0}, 0)      # t-2 assigned to no one
    assert not any(mask & 0b100 for mask in out.values())


def test_withhold_gives_a_contested_partition_to_nobody():
    """A3: a doubly-claimed partition is transferring ownership, so adjustAssignment removes it from its new owner."""
    out = withhold({A: 0b01, B: 0b10}, {A: 0b01, B: 0}, 0b10)
    assert out == {A: 0b01, B: 0}


@FAST
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.integers(0, n), min_size=1, max_size=8),     # previous owner per partition (0: none)
    st.lists(st.integers(1, n), min_size=8, max_size=8),     # intended owner per partition
)))
def test_withheld_assignment_never_violates_the_cooperative_rule(case):
    """validateCooperativeAssignment: after withholding, no partition is both added to one member and revoked from another."""
    n, prev_owner, intended_owner = case
    ids = range(1, n + 1)
    previous = {i: sum(1 << b for b, o in enumerate(prev_owner) if o == i) for i in ids}
    intended = {i: sum(1 << b for b, o in enumerate(intended_owner[:len(prev_owner)]) if o == i) for i in ids}
    final = withhold(intended, previous, 0)
    assert cooperative_violation(previous, final) == 0
    for i in ids:
        assert final[i] & ~intended[i] == 0                          # only ever removes
        assert final[i] & previous[i] == intended[i] & previous[i]   # never withholds a member's own


# ------------------------------------------------------------------------------ cooperative validation

def test_cooperative_violation_reports_a_partition_moved_in_one_round():
    """ConsumerCoordinator#validateCooperativeAssignment: (U added) & (U revoked) must be empty."""
    assert cooperative_violation({A: 0b11, B: 0}, {A: 0b01, B: 0b10}) == 0b10


def test_cooperative_violation_accepts_revoke_now_assign_later_and_new_partitions():
    """KIP-429: revoking without reassigning, and assigning unowned partitions, are both allowed."""
    assert cooperative_violation({A: 0b11, B: 0}, {A: 0b01, B: 0}) == 0
    assert cooperative_violation({A: 0b01, B: 0}, {A: 0b01, B: 0b10}) == 0


def test_cooperative_violation_counts_an_owner_missing_from_the_assignment_as_revoking():
    """validateCooperativeAssignment: a member with no assignment entry revokes everything it owned."""
    assert cooperative_violation({A: 0b1, B: 0}, {B: 0b1}) == 0b1
