"""ConsumerGroupHeartbeat validation per profile: Kafka's order of checks and messages
(GroupCoordinatorService#throwIfConsumerGroupHeartbeatRequestIsInvalid, 4.0+;
GroupMetadataManager#throwIfConsumerGroupHeartbeatRequestIsInvalid at tag 3.7.0)."""
import pytest

from groupcheck.model.consumer_group.state import ConsumerGroupHeartbeat as H
from groupcheck.model.consumer_group.validation import validate

JOIN = dict(group_id="g", member_id="m", member_epoch=0, rebalance_timeout_ms=100, subscribed_topic_names=("a",),
            topic_partitions=())


def err(req, profile="kafka-4.0"):
    e = validate(req, profile)
    return None if e is None else (e.code, e.message)


@pytest.mark.parametrize("profile", ["kip-848", "kafka-3.7", "kafka-4.0", "kafka-4.2"])
def test_a_good_join_and_heartbeat_pass(profile):
    assert err(H(**JOIN), profile) is None
    assert err(H(group_id="g", member_id="m", member_epoch=5), profile) is None


@pytest.mark.parametrize("fields,expected", [
    (dict(member_id=" "), ("INVALID_REQUEST", "MemberId can't be empty.")),
    (dict(group_id=""), ("INVALID_REQUEST", "GroupId can't be empty.")),
    (dict(instance_id="\t"), ("INVALID_REQUEST", "InstanceId can't be empty.")),
    (dict(rack_id=""), ("INVALID_REQUEST", "RackId can't be empty.")),
    (dict(rebalance_timeout_ms=-1), ("INVALID_REQUEST", "RebalanceTimeoutMs must be provided in first request.")),
    (dict(topic_partitions=None), ("INVALID_REQUEST", "TopicPartitions must be empty when (re-)joining.")),
    (dict(subscribed_topic_names=None),
     ("INVALID_REQUEST", "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")),
    (dict(server_assignor="sticky"),
     ("UNSUPPORTED_ASSIGNOR", "ServerAssignor sticky is not supported. Supported assignors: uniform, range.")),
    (dict(subscribed_topic_regex="("), ("INVALID_REGULAR_EXPRESSION",
                                        "SubscribedTopicRegex `(` is not a valid regular expression.")),
])
def test_join_rules_4_0(fields, expected):
    if expected[0] == "INVALID_REGULAR_EXPRESSION":   # 4.0: the coordinator checks it; the KIP profile here
        assert err(H(**{**JOIN, **fields})) is None
        assert err(H(**{**JOIN, **fields}), "kip-848") == expected
        return
    assert err(H(**{**JOIN, **fields})) == expected


def test_empty_names_are_a_valid_join_in_4_0_but_not_in_3_7():
    req = H(**{**JOIN, "subscribed_topic_names": ()})
    assert err(req) is None
    assert err(req, "kafka-3.7") == ("INVALID_REQUEST", "SubscribedTopicNames must be set in first request.")


def test_epoch_rules():
    assert err(H(group_id="g", member_id="m", member_epoch=-2)) == ("INVALID_REQUEST", "InstanceId can't be null.")
    assert err(H(group_id="g", member_id="m", member_epoch=-3)) == ("INVALID_REQUEST", "MemberEpoch is invalid.")


def test_member_id_at_join_per_profile():
    req = H(**{**JOIN, "member_id": ""})
    assert err(req, "kafka-4.0") == ("INVALID_REQUEST", "MemberId can't be empty.")   # v1: the client generates it
    assert err(req, "kip-848") is None and err(req, "kafka-3.7") is None


def test_order_differs_in_3_7():
    """3.7 checks GroupId before MemberId; 4.0 MemberId first."""
    req = H(group_id="", member_id="", member_epoch=3)
    assert err(req, "kafka-3.7")[1] == "GroupId can't be empty."
    assert err(req, "kafka-4.0")[1] == "MemberId can't be empty."
    assert err(H(group_id="g", member_id="", member_epoch=-2, instance_id="i"),
               "kafka-3.7")[1] == "MemberId can't be empty."
    assert err(H(group_id="g", member_id="", member_epoch=-2, instance_id="i"),
               "kip-848")[1] == "MemberId can't be empty."


def test_custom_assignor_list():
    req = H(**{**JOIN, "server_assignor": "range"})
    e = validate(req, "kafka-4.0", ("uniform",))
    assert (e.code, e.message) == ("UNSUPPORTED_ASSIGNOR",
                                   "ServerAssignor range is not supported. Supported assignors: uniform.")
