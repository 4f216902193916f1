"""KIP-848's server-side assignors: rows ported from Kafka's UniformHomogeneousAssignmentBuilderTest
and RangeAssignorTest (apache/kafka group-coordinator/src/test/java/org/apache/kafka/coordinator/
group/assignor/), with the model's deterministic member order (by id)."""
import pytest

from model.assignors import consumer_group_range as rng
from model.assignors import consumer_group_uniform as uni
from model.assignors.consumer_group_spec import GroupSpec, MemberSpec, PartitionAssignorException


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


# ---- range ----

def test_range_co_partitioned_like_the_classic_range():
    """RangeAssignorTest#testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions (shape)."""
    a = rng.assign(spec((("t1", 3), ("t3", 2)), MemberSpec("A", ("t1", "t3")), MemberSpec("B", ("t1", "t3"))))
    assert a == {"A": tp("t1", 0, 1) + tp("t3", 0), "B": tp("t1", 2) + tp("t3", 1)}


def test_range_is_sticky_when_a_member_joins():
    """RangeAssignorTest#testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics
    (shape): existing members keep the lowest partitions they had up to their quota."""
    a = rng.assign(spec((("t1", 3),), MemberSpec("A", ("t1",), tp("t1", 0, 1)), MemberSpec("B", ("t1",), tp("t1", 2)),
                        MemberSpec("C", ("t1",))))
    assert a == {"A": tp("t1", 0), "B": tp("t1", 2), "C": tp("t1", 1)}


def test_range_more_members_than_partitions():
    a = rng.assign(spec((("t1", 1),), MemberSpec("A", ("t1",)), MemberSpec("B", ("t1",))))
    assert a == {"A": tp("t1", 0), "B": ()}
