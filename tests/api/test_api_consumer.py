"""groupcheck.api, consumer group: Kafka's terms in, the model's rules out."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from groupcheck.api import (
    ApiError, CooperativeAssignmentError, StickyUserData, Subscription, TopicPartition, adjust_assignment, assign,
    partitions_transferring_ownership, rebalance_protocol, resolve_claims, select_protocol,
    validate_cooperative_assignment,
)


def tps(topic: str, *partitions: int) -> tuple[TopicPartition, ...]:
    return tuple(TopicPartition(topic, p) for p in partitions)


# ------------------------------------------------------------------------------ assign

def test_range_splits_each_topic_in_member_id_order():
    """RangeAssignorTest#testOneTopicTwoConsumers-style: 3 partitions, the first member
    (by id, whatever the mapping's order) gets the extra one."""
    subs = {"consumer2": Subscription(["t"]), "consumer1": Subscription(["t"])}
    assert assign("range", {"t": 3}, subs) == {"consumer1": tps("t", 0, 1), "consumer2": tps("t", 2)}


def test_member_ids_sort_as_strings_like_kafkas_assignors():
    """Kafka sorts member ids as strings: "consumer-10" comes before "consumer-9"."""
    subs = {"consumer-9": Subscription(["t"]), "consumer-10": Subscription(["t"])}
    assert assign("range", {"t": 2}, subs) == {"consumer-10": tps("t", 0), "consumer-9": tps("t", 1)}


def test_roundrobin_deals_partitions_of_every_topic_around_the_members():
    subs = {"a": Subscription(["x", "y"]), "b": Subscription(["x", "y"])}
    out = assign("roundrobin", {"x": 1, "y": 2}, subs)
    assert out == {"a": tps("x", 0) + tps("y", 1), "b": tps("y", 0)}


def test_a_subscribed_topic_missing_from_the_cluster_gets_no_partitions():
    subs = {"a": Subscription(["gone", "t"]), "b": Subscription(["t"])}
    assert assign("range", {"t": 2}, subs) == {"a": tps("t", 0), "b": tps("t", 1)}


def test_sticky_reads_its_claims_from_user_data_not_owned_partitions():
    """StickyAssignor#memberData: an EAGER member has emptied ownedPartitions; the
    previous assignment travels in userData."""
    subs = {"a": Subscription(["t"], owned_partitions=tps("t", 0, 1)),
            "b": Subscription(["t"], user_data=StickyUserData(tps("t", 0, 1), generation=4))}
    assert assign("sticky", {"t": 2}, subs) == {"a": tps("t", 1), "b": tps("t", 0)}


def test_cooperative_sticky_keeps_owned_partitions_and_withholds_the_one_changing_owner():
    """KIP-429: the owner keeps its quota; the partition over quota is revoked this round
    and given to nobody (adjustAssignment), the free one goes to the newcomer."""
    subs = {"a": Subscription(["t"], tps("t", 0, 1, 2), generation=3), "b": Subscription(["t"], generation=3)}
    assert assign("cooperative-sticky", {"t": 4}, subs) == {"a": tps("t", 0, 1), "b": tps("t", 3)}


def test_cooperative_sticky_drops_a_stale_claim_under_kip_792():
    """A zombie's claim at generation 1 loses to the current owner's at generation 5."""
    subs = {"a": Subscription(["t"], tps("t", 0), generation=1), "b": Subscription(["t"], tps("t", 0), generation=5)}
    assert assign("cooperative-sticky", {"t": 1}, subs) == {"a": (), "b": tps("t", 0)}


def test_the_profile_changes_the_rule_kafka_2_4_trusts_both_claims():
    """kafka-2.4-2.8 ignores generations: both claims count as previous owners, so the
    partition is withheld from whoever the plan gives it to, and nobody gets it."""
    subs = {"a": Subscription(["t"], tps("t", 0), generation=1), "b": Subscription(["t"], tps("t", 0), generation=5)}
    assert assign("cooperative-sticky", {"t": 1}, subs, profile="kafka-2.4-2.8") == {"a": (), "b": ()}


members = st.sampled_from(["a", "b", "c", "d"])
partition = st.builds(TopicPartition, st.sampled_from(["x", "y"]), st.integers(0, 2))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(members, st.tuples(st.lists(partition, max_size=4), st.integers(-1, 3)), min_size=1),
       st.integers(1, 3), st.integers(1, 3))
def test_cooperative_sticky_output_always_passes_validate_cooperative_assignment(claims, nx, ny):
    """KAFKA-13406's premise: the built-in cooperative assignor never moves a partition
    in one round, whatever the claims (zombies, duplicates, gone partitions)."""
    subs = {m: Subscription(["x", "y"], owned, generation=g) for m, (owned, g) in claims.items()}
    out = assign("cooperative-sticky", {"x": nx, "y": ny}, subs)
    validate_cooperative_assignment({m: s.owned_partitions for m, s in subs.items()}, out)


# ------------------------------------------------------------------------------ claims, withholding, validation

def test_resolve_claims_per_profile():
    subs = {"a": Subscription(["t"], tps("t", 0, 1), generation=2),
            "b": Subscription(["t"], tps("t", 0), generation=2),
            "c": Subscription(["t"], tps("t", 2), generation=1)}
    latest = resolve_claims(subs)
    assert latest.kept == {"a": tps("t", 1), "b": (), "c": tps("t", 2)}
    assert latest.partitions_with_multiple_previous_owners == tps("t", 0)
    highest = resolve_claims(subs, profile="kafka-3.1-3.4")
    assert highest.kept == {"a": tps("t", 0, 1), "b": tps("t", 0), "c": ()}
    assert resolve_claims(subs, profile="kafka-2.4-2.8").kept == {"a": tps("t", 0, 1), "b": tps("t", 0),
                                                                  "c": tps("t", 2)}


def test_partitions_transferring_ownership_and_adjust_assignment():
    subs = {"a": Subscription(["t"], tps("t", 0, 1), generation=2), "b": Subscription(["t"], generation=2)}
    intended = {"a": tps("t", 0), "b": tps("t", 1, 2)}
    assert partitions_transferring_ownership(intended, subs) == {TopicPartition("t", 1): "b"}
    assert adjust_assignment(intended, subs) == {"a": tps("t", 0), "b": tps("t", 2)}


def test_validate_cooperative_assignment_names_the_moved_partitions():
    owned = {"a": tps("t", 0, 1)}
    validate_cooperative_assignment(owned, {"a": tps("t", 0), "b": ()})      # a revocation alone is fine
    with pytest.raises(CooperativeAssignmentError, match="violates its requirements: t-1") as e:
        validate_cooperative_assignment(owned, {"a": tps("t", 0), "b": tps("t", 1)})
    assert e.value.partitions == tps("t", 1)


# ------------------------------------------------------------------------------ protocol selection

def test_rebalance_protocol_is_the_highest_protocol_every_assignor_supports():
    assert rebalance_protocol(["cooperative-sticky"]) == "COOPERATIVE"
    assert rebalance_protocol(["range", "cooperative-sticky"]) == "EAGER"


def test_select_protocol_votes_for_each_members_first_common_choice():
    votes = {"a": ["cooperative-sticky", "range"], "b": ["range", "cooperative-sticky"], "c": ["range"]}
    assert select_protocol(votes) == "range"
    assert select_protocol({"a": ["range"], "b": ["sticky"]}) is None


# ------------------------------------------------------------------------------ errors name the field

@pytest.mark.parametrize("call, field", [
    (lambda: assign("range", {"t": -1}, {}), "cluster['t']"),
    (lambda: assign("range", ["t"], {}), "cluster"),
    (lambda: assign("range", {"t": 1}, {"a": {"topics": ["t"]}}), "subscriptions['a']"),
    (lambda: assign("my-own", {"t": 1}, {}), "assignor"),
    (lambda: assign("range", {"t": 1}, {}, profile="kafka-9"), "profile"),
    (lambda: Subscription("t"), "Subscription.topics"),
    (lambda: Subscription(["t"], [("t", -1)]), "Subscription.owned_partitions[0]"),
    (lambda: Subscription(["t"], [("t",)]), "Subscription.owned_partitions[0]"),
    (lambda: Subscription(["t"], generation="3"), "Subscription.generation"),
    (lambda: adjust_assignment({"zz": []}, {"a": Subscription(["t"])}), "assignment['zz']"),
    (lambda: validate_cooperative_assignment({"a": 5}, {}), "owned_partitions['a']"),
    (lambda: rebalance_protocol(["range", "nope"]), "assignors"),
    (lambda: select_protocol({"a": "range"}), "member_protocols['a']"),
])
def test_bad_input_raises_api_error_naming_the_field(call, field):
    with pytest.raises(ApiError) as e:
        call()
    assert str(e.value).startswith(field), str(e.value)
