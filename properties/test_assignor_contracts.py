"""The eager assignors' documented contracts, as properties over any group Hypothesis draws.

Kafka fixes what RangeAssignor and RoundRobinAssignor answer (their javadoc describes
the layout exactly), so a different answer is a different assignor, not a legitimate
choice: these claims are what ``groupcheck conform`` holds a real range or roundrobin
assignor to. Each claim is stated in the javadoc's own terms (lay out, divide, round
robin), not by calling the model's code. Sticky assignors are judged in the state
machine (``sticky_balanced``, ``no_double_ownership``) and by z3 (withholding, claims).
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from groupcheck.model.assignors import Member, lookup
from groupcheck.model.partitions import bits, topic_mask

STRIDE = 8


@st.composite
def groups(draw, equal_subscriptions: bool = False):
    """1-5 members (member ids increasing, as the leader sorts them), 1-3 topics of
    1-8 partitions, each member subscribed to a non-empty set of topics."""
    topics = draw(st.lists(st.integers(1, STRIDE), min_size=1, max_size=3))
    n = draw(st.integers(1, 5))
    every = (1 << len(topics)) - 1
    if equal_subscriptions:
        subs = [draw(st.integers(1, every))] * n
    else:
        subs = [draw(st.integers(1, every)) for _ in range(n)]
    ids = sorted(draw(st.lists(st.integers(0, 50), min_size=n, max_size=n, unique=True)))
    members = []
    for mid, sub in zip(ids, subs):
        eligible = 0
        for t, count in enumerate(topics):
            if sub >> t & 1:
                eligible |= topic_mask(STRIDE, t, count)
        members.append(Member(member_id=mid, eligible=eligible, claims=0, topics=sub))
    return tuple(members), topics


def owners(assignment: dict[int, int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for mid, mask in assignment.items():
        for b in bits(mask):
            out.setdefault(b, []).append(mid)
    return out


def assert_valid(members, topics, assignment) -> None:
    """ConsumerPartitionAssignor's contract: every partition of a subscribed topic to
    exactly one member subscribed to it, nothing else, every member answered."""
    assert set(assignment) == {m.member_id for m in members}
    eligible = {m.member_id: m.eligible for m in members}
    wanted = 0
    for m in members:
        wanted |= m.eligible
    by_partition = owners(assignment)
    assert set(by_partition) == set(bits(wanted)), "a subscribed partition unassigned, or an unknown one assigned"
    for b, who in by_partition.items():
        assert len(who) == 1, f"partition bit {b} assigned to {who}"
        assert eligible[who[0]] >> b & 1, f"partition bit {b} to member {who[0]}, not subscribed to its topic"


@settings(max_examples=400, deadline=None)
@given(groups())
def test_range_lays_out_each_topic_in_consecutive_ranges_first_consumers_one_extra(group):
    """RangeAssignor: "For each topic, we lay out the available partitions in numeric order
    and the consumers in lexicographic order. We then divide the number of partitions by
    the total number of consumers to determine the number of partitions to assign to each
    consumer. If it does not evenly divide, then the first few consumers will have one
    extra partition." (consumers: those subscribed to the topic)"""
    members, topics = group
    assignment = lookup("range").plan(members, STRIDE)
    assert_valid(members, topics, assignment)
    for t, count in enumerate(topics):
        consumers = [m.member_id for m in members if m.topics >> t & 1]
        if not consumers:
            continue
        per, extra = divmod(count, len(consumers))
        start = 0
        for i, mid in enumerate(consumers):
            n = per + (1 if i < extra else 0)
            expect = sum(1 << (t * STRIDE + p) for p in range(start, start + n))
            assert assignment[mid] & topic_mask(STRIDE, t, count) == expect, (t, mid, i)
            start += n


@settings(max_examples=400, deadline=None)
@given(groups())
def test_roundrobin_deals_partitions_in_order_to_the_next_subscribed_consumer(group):
    """RoundRobinAssignor: "lays out all the available partitions and all the available
    consumers. It then proceeds to do a round robin assignment from partition to
    consumer." Claim: walking the partitions in order, each goes to the next consumer
    in the circle, after the previous partition's owner, that subscribes to its topic."""
    members, topics = group
    assignment = lookup("roundrobin").plan(members, STRIDE)
    assert_valid(members, topics, assignment)
    by_partition = {b: who[0] for b, who in owners(assignment).items()}
    order = [m.member_id for m in members]
    position = -1
    for b in sorted(by_partition):
        owner = order.index(by_partition[b])
        skipped = [order[(position + k) % len(order)] for k in range(1, (owner - position) % len(order) or len(order))]
        eligible = {m.member_id: m.eligible for m in members}
        assert not any(eligible[mid] >> b & 1 for mid in skipped), (b, by_partition[b], skipped)
        position = owner


@settings(max_examples=300, deadline=None)
@given(groups(equal_subscriptions=True))
def test_roundrobin_with_identical_subscriptions_is_within_one(group):
    """RoundRobinAssignor: "If the subscriptions of all consumer instances are identical,
    then the partitions will be uniformly distributed. (i.e., the partition ownership
    counts will be within a delta of exactly one across all consumers.)" """
    members, topics = group
    counts = [bin(mask).count("1") for mask in lookup("roundrobin").plan(members, STRIDE).values()]
    assert max(counts) - min(counts) <= 1, counts
