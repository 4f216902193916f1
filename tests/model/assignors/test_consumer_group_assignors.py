"""KIP-848's server-side assignors: rows ported from Kafka's UniformHomogeneousAssignmentBuilderTest
and RangeAssignorTest (apache/kafka group-coordinator/src/test/java/org/apache/kafka/coordinator/
group/assignor/), with the model's deterministic member order (by id)."""
import pytest

from groupcheck.model.assignors import consumer_group_range as rng
from groupcheck.model.assignors import consumer_group_uniform as uni
from groupcheck.model.assignors.consumer_group_spec import GroupSpec, MemberSpec, PartitionAssignorException


def tp(topic, *ps):
    return tuple((topic, p) for p in ps)


def spec(topics, *members):
    return GroupSpec(tuple(members), tuple(topics))


def sizes(a):
    return sorted(len(v) for v in a.values())


# ---- uniform, homogeneous ----

def test_uniform_one_member_gets_everything():
    a = uni.assign(spec((("t1", 3),), MemberSpec("A", ("t1",))))
    assert a == {"A": tp("t1", 0, 1, 2)}


def test_uniform_balances_and_keeps_what_it_can():
    """testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics (shape):
    a new member takes only what the others exceed their quota by."""
    before = spec((("t1", 3), ("t2", 3)), MemberSpec("A", ("t1", "t2"), tp("t1", 0, 1, 2)),
                  MemberSpec("B", ("t1", "t2"), tp("t2", 0, 1, 2)), MemberSpec("C", ("t1", "t2")))
    a = uni.assign(before)
    assert sizes(a) == [2, 2, 2]
    assert set(a["A"]) <= set(tp("t1", 0, 1, 2)) and set(a["B"]) <= set(tp("t2", 0, 1, 2))
    assert a["C"] == (("t1", 2), ("t2", 2))


def test_uniform_extra_quota_goes_in_member_order():
    """Kafka hands the extra (+1) quota to the first members iterated, whatever they hold."""
    a = uni.assign(spec((("t1", 5),), MemberSpec("A", ("t1",)), MemberSpec("B", ("t1",), tp("t1", 0, 1, 2, 3, 4))))
    assert a == {"A": tp("t1", 2, 3, 4), "B": tp("t1", 0, 1)}


def test_uniform_unsubscribed_topic_is_dropped_and_missing_topic_raises():
    a = uni.assign(spec((("t1", 2),), MemberSpec("A", ("t1",), tp("t2", 0))))
    assert a == {"A": tp("t1", 0, 1)}
    with pytest.raises(PartitionAssignorException):
        uni.assign(spec((("t1", 2),), MemberSpec("A", ("t9",))))


def test_uniform_no_members_no_topics():
    assert uni.assign(spec((("t1", 2),))) == {}
    assert uni.assign(spec((("t1", 2),), MemberSpec("A", ()))) == {"A": ()}


# ---- uniform, heterogeneous (the model's greedy, Kafka's promises) ----

def test_uniform_heterogeneous_each_partition_once_to_a_subscriber_and_balanced():
    s = spec((("t1", 3), ("t2", 3)), MemberSpec("A", ("t1",)), MemberSpec("B", ("t1", "t2")), MemberSpec("C", ("t2",)))
    a = uni.assign(s)
    every = [x for v in a.values() for x in v]
    assert sorted(every) == sorted(tp("t1", 0, 1, 2) + tp("t2", 0, 1, 2))
    assert all(t in m.topics for m in s.members for t, _ in a[m.member_id])
    assert sizes(a) == [2, 2, 2]


# ---- range (3.9+: KAFKA-16944's rewrite; 3.7/3.8: sticky) ----

@pytest.mark.parametrize("fn", [rng.assign, rng.assign_sticky])
def test_range_co_partitioned_like_the_classic_range(fn):
    """RangeAssignorTest#testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions (shape)."""
    a = fn(spec((("t1", 3), ("t3", 2)), MemberSpec("A", ("t1", "t3")), MemberSpec("B", ("t1", "t3"))))
    assert a == {"A": tp("t1", 0, 1) + tp("t3", 0), "B": tp("t1", 2) + tp("t3", 1)}


def test_range_member_added_after_two_members_two_topics():
    """RangeAssignorTest#testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics
    (apache/kafka, after KAFKA-16944): A: t1 0-1, t2 0-1 and B: t1 2, t2 2, C joins: A 0, B 1, C 2 in
    both topics. The sticky 3.7 assignor instead keeps B on 2 and gives C partition 1."""
    s = spec((("t1", 3), ("t2", 3)), MemberSpec("A", ("t1", "t2"), tp("t1", 0, 1) + tp("t2", 0, 1)),
             MemberSpec("B", ("t1", "t2"), tp("t1", 2) + tp("t2", 2)), MemberSpec("C", ("t1", "t2")))
    assert rng.assign(s) == {"A": tp("t1", 0) + tp("t2", 0), "B": tp("t1", 1) + tp("t2", 1),
                             "C": tp("t1", 2) + tp("t2", 2)}
    assert rng.assign_sticky(s) == {"A": tp("t1", 0) + tp("t2", 0), "B": tp("t1", 2) + tp("t2", 2),
                                    "C": tp("t1", 1) + tp("t2", 1)}


def test_range_first_assignment_three_members_three_topics_different_subscriptions():
    """RangeAssignorTest#testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions: t1, t2: 3
    partitions, t3: 2; A {t1, t2}, B {t3}, C {t2, t3} -> A t1 0-2 + t2 0-1, B t3 0, C t2 2 + t3 1."""
    a = rng.assign(spec((("t1", 3), ("t2", 3), ("t3", 2)), MemberSpec("A", ("t1", "t2")), MemberSpec("B", ("t3",)),
                        MemberSpec("C", ("t2", "t3"))))
    assert a == {"A": tp("t1", 0, 1, 2) + tp("t2", 0, 1), "B": tp("t3", 0), "C": tp("t2", 2) + tp("t3", 1)}


def test_range_static_members_first_by_instance_id():
    """sortMemberIds: testStaticMembership - a static member that rejoins under a new member id
    keeps its range, since the order is by instance id."""
    s1 = spec((("t1", 3),), MemberSpec("A", ("t1",), instance_id="iA"), MemberSpec("B", ("t1",), instance_id="iB"))
    s2 = spec((("t1", 3),), MemberSpec("B", ("t1",), instance_id="iB"), MemberSpec("Z", ("t1",), instance_id="iA"))
    first, second = rng.assign(s1), rng.assign(s2)
    assert first["A"] == second["Z"] and first["B"] == second["B"]
    mixed = rng.assign(spec((("t1", 2),), MemberSpec("A", ("t1",)), MemberSpec("B", ("t1",), instance_id="x")))
    assert mixed == {"A": tp("t1", 1), "B": tp("t1", 0)}


@pytest.mark.parametrize("fn", [rng.assign, rng.assign_sticky])
def test_range_more_members_than_partitions(fn):
    a = fn(spec((("t1", 1),), MemberSpec("A", ("t1",)), MemberSpec("B", ("t1",))))
    assert a == {"A": tp("t1", 0), "B": ()}


def test_uniform_two_members_two_topics_given_unbalanced_previous_assignment():
    """OptimizedUniformAssignmentBuilderTest#testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment
    (apache/kafka 3.9): A t1 0-1 + t2 0-1, B t1 2 + t2 2 -> A t1 0-1 + t2 0, B t1 2 + t2 1-2."""
    a = uni.assign(spec((("t1", 3), ("t2", 3)), MemberSpec("A", ("t1", "t2"), tp("t1", 0, 1) + tp("t2", 0, 1)),
                        MemberSpec("B", ("t1", "t2"), tp("t1", 2) + tp("t2", 2))))
    assert a == {"A": tp("t1", 0, 1) + tp("t2", 0), "B": tp("t1", 2) + tp("t2", 1, 2)}


# ---- properties over random groups (Kafka's checkValidityAndBalance, UniformHeterogeneous-
# AssignmentBuilder#isBalanced, and stickiness as the builders promise it) ----

from hypothesis import given, settings, strategies as st  # noqa: E402

TOPICS = (("t1", 3), ("t2", 2), ("t3", 5))


@st.composite
def groups(draw, homogeneous: bool):
    n = draw(st.integers(1, 4))
    subs = draw(st.lists(st.sampled_from(["t1", "t2", "t3"]), min_size=1, max_size=3, unique=True).map(sorted))
    members = []
    owned: set = set()
    for i in range(n):
        topics = tuple(subs) if homogeneous else tuple(sorted(draw(st.lists(st.sampled_from(["t1", "t2", "t3"]),
                                                                            min_size=1, max_size=3, unique=True))))
        prev = draw(st.lists(st.sampled_from([(t, p) for t, k in TOPICS for p in range(k)]), max_size=6, unique=True))
        prev = tuple(sorted(x for x in prev if x not in owned))        # previous targets are disjoint
        owned |= set(prev)
        members.append(MemberSpec(f"m{i}", topics, prev))
    return spec(TOPICS, *members)


def valid(s, a):
    every = [x for v in a.values() for x in v]
    wanted = {(t, p) for m in s.members for t in m.topics for p in range(s.partitions(t))}
    assert sorted(every) == sorted(wanted), "each subscribed partition exactly once"
    for m in s.members:
        assert all(t in m.topics for t, _ in a[m.member_id]), "only to a subscriber"


@settings(max_examples=200, deadline=None)
@given(groups(homogeneous=True))
def test_uniform_homogeneous_valid_balanced_sticky(s):
    a = uni.assign(s)
    valid(s, a)
    sizes_ = [len(a[m.member_id]) for m in s.members]
    assert max(sizes_) - min(sizes_) <= 1
    total = sum(sizes_)
    quota = -(-total // len(s.members))
    for m in s.members:
        kept = set(a[m.member_id]) & {x for x in m.assignment if x[0] in m.topics}
        prev = [x for x in m.assignment if x[0] in m.topics]
        assert len(kept) >= min(len(prev), total // len(s.members)), "keeps its previous partitions up to its quota"
        assert len(a[m.member_id]) <= quota


@settings(max_examples=200, deadline=None)
@given(groups(homogeneous=False))
def test_uniform_heterogeneous_valid_and_balanced_as_kafka_defines_it(s):
    a = uni.assign(s)
    valid(s, a)
    owner = {x: mid for mid, xs in a.items() for x in xs}
    size = {mid: len(xs) for mid, xs in a.items()}
    for m in s.members:                 # isBalanced: no partition could move to m and narrow the gap
        for t in m.topics:
            for p in range(s.partitions(t)):
                other = owner[(t, p)]
                assert other == m.member_id or size[m.member_id] + 1 >= size[other]


@settings(max_examples=200, deadline=None)
@given(groups(homogeneous=False))
def test_range_valid_and_even_per_topic(s):
    for fn in (rng.assign, rng.assign_sticky):
        a = fn(s)
        valid(s, a)
        for t, n in TOPICS:
            counts = [len([x for x in a[m.member_id] if x[0] == t]) for m in s.members if t in m.topics]
            if counts:
                assert max(counts) - min(counts) <= 1


def test_subscription_type_names_versus_a_regex_resolving_to_them():
    """ModernGroup#subscriptionType: a member naming the topics another member's regex resolves
    to makes the group HETEROGENEOUS (different builders, possibly other choices)."""
    from groupcheck.model.consumer_group.group import Member, new_group
    from groupcheck.model.consumer_group.target import homogeneous
    g = new_group("g")
    names = g.with_member(Member(member_id="A", subscribed_topic_names=("a",))).with_member(Member(
        member_id="B", subscribed_topic_names=("a",)))
    assert homogeneous(names)
    mixed = g.with_member(Member(member_id="A", subscribed_topic_names=("a",))).with_member(Member(
        member_id="B", subscribed_topic_regex="a"))
    assert not homogeneous(mixed)
    same_rx = g.with_member(Member(member_id="A", subscribed_topic_regex="a")).with_member(Member(
        member_id="B", subscribed_topic_regex="a"))
    assert homogeneous(same_rx)
    partial = g.with_member(Member(member_id="A", subscribed_topic_names=("a", "b"))).with_member(Member(
        member_id="B", subscribed_topic_names=("a",)))
    assert not homogeneous(partial)


# ---- uniform, heterogeneous: rows of Kafka's UniformHeterogeneousAssignmentBuilderTest (members in
# id order there too: its TestGroupSpecImpl sorts them) ----

def _het(topics, *members):
    return uni.assign(GroupSpec(tuple(members), tuple(topics), False))


def test_het_first_assignment_two_members_two_topics():
    a = _het((("t1", 3), ("t3", 6)), MemberSpec("A", ("t1", "t3")), MemberSpec("B", ("t3",)))
    assert a == {"A": tp("t1", 0, 1, 2) + tp("t3", 4), "B": tp("t3", 0, 1, 2, 3, 5)}


def test_het_first_assignment_more_members_than_partitions():
    a = _het((("t1", 2), ("t3", 1)), MemberSpec("A", ("t3",)), MemberSpec("B", ("t3",)), MemberSpec("C", ("t1",)))
    assert a == {"A": tp("t3", 0), "B": (), "C": tp("t1", 0, 1)}


def test_het_reassignment_two_members_three_topics_given_unbalanced_previous_assignment():
    a = _het((("t1", 6), ("t2", 4), ("t3", 4)),
             MemberSpec("A", ("t1",), tp("t1", 0, 1, 2)),
             MemberSpec("B", ("t1", "t2"), tp("t1", 3) + tp("t2", 0)),
             MemberSpec("C", ("t1", "t2", "t3"), tp("t1", 4, 5) + tp("t2", 1, 2, 3) + tp("t3", 0, 1, 2, 3)))
    assert a == {"A": tp("t1", 0, 1, 2, 5), "B": tp("t1", 3) + tp("t2", 0, 1, 2, 3),
                 "C": tp("t1", 4) + tp("t3", 0, 1, 2, 3)}


def test_het_reassignment_when_partitions_are_added_for_two_members():
    a = _het((("t1", 6), ("t2", 5), ("t3", 3), ("t4", 3)),
             MemberSpec("A", ("t1", "t3"), tp("t1", 0, 1, 2, 3) + tp("t3", 0, 1)),
             MemberSpec("B", ("t1", "t2", "t3", "t4"), tp("t2", 0, 1, 2) + tp("t4", 0, 1, 2)))
    assert a == {"A": tp("t1", 0, 1, 2, 3, 4, 5) + tp("t3", 0, 1, 2), "B": tp("t2", 0, 1, 2, 3, 4) + tp("t4", 0, 1, 2)}


def test_het_reassignment_when_one_member_and_partitions_are_added():
    a = _het((("t1", 6), ("t2", 7)),
             MemberSpec("A", ("t1",), tp("t1", 0, 2) + tp("t2", 0)),
             MemberSpec("B", ("t1", "t2"), tp("t1", 1) + tp("t2", 1, 2)),
             MemberSpec("C", ("t1", "t2")))
    assert a == {"A": tp("t1", 0, 2, 3, 4, 5), "B": tp("t1", 1) + tp("t2", 1, 2, 6), "C": tp("t2", 0, 3, 4, 5)}
