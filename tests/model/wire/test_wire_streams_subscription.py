"""Tests for model.wire.streams_metadata SubscriptionInfo: golden bytes, Kafka-produced vectors,
round trips, version probing, malformed input (tests covering both messages live in
test_wire_streams_assignment.py)."""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupcheck.model.wire.errors import DecodeError
from groupcheck.model.wire.streams_metadata import (
    LATEST_SUPPORTED_VERSION,
    SubscriptionInfo,
    decode_subscription_info,
    encode_subscription_info,
)
from tests.helpers.streams_wire_helpers import (
    FAST,
    GOLDEN_SUBSCRIPTIONS,
    KAFKA_2_3_SUBSCRIPTIONS,
    KAFKA_TRUNK_SUBSCRIPTIONS,
    PID_HEX,
    h,
    kafka_subscription,
    versioned_subscriptions,
)

# ------------------------------------------------------------------------------ golden bytes (by hand)

@pytest.mark.parametrize("info, data", GOLDEN_SUBSCRIPTIONS, ids=lambda x: None)
def test_golden_subscription(info, data):
    assert encode_subscription_info(info) == data
    assert decode_subscription_info(data) == info


# ------------------------------------------------------------------------------ vectors produced by Kafka

@pytest.mark.parametrize("version, hexed", KAFKA_TRUNK_SUBSCRIPTIONS)
def test_kafka_trunk_subscription_vectors(version, hexed):
    data = bytes.fromhex(hexed)
    assert encode_subscription_info(kafka_subscription(version)) == data
    assert decode_subscription_info(data) == kafka_subscription(version)


@pytest.mark.parametrize("version, hexed", KAFKA_2_3_SUBSCRIPTIONS)
def test_kafka_2_3_subscription_vectors(version, hexed):
    assert encode_subscription_info(kafka_subscription(version, 4)) == bytes.fromhex(hexed)
    assert decode_subscription_info(bytes.fromhex(hexed)) == kafka_subscription(version, 4)


# ------------------------------------------------------------------------------ round trips

@FAST
@given(versioned_subscriptions, st.booleans())
def test_subscription_round_trip(info, strict):
    data = encode_subscription_info(info)
    assert decode_subscription_info(data, strict=strict) == info
    assert int.from_bytes(data[:4], "big") == info.used_version


def test_task_offset_sums_are_grouped_by_subtopology_in_v7_to_v9():
    info = SubscriptionInfo(used_version=8, latest_supported_version=8,
                            task_offset_sums=[((0, 0), 1), ((1, 0), 2), ((0, 1), 3)])
    data = encode_subscription_info(info)
    again = decode_subscription_info(data)
    assert again.task_offset_sums == (((0, 0), 1), ((0, 1), 3), ((1, 0), 2))  # group 0 first, then 1
    assert dict(again.task_offset_sums) == dict(info.task_offset_sums)
    v10 = replace(info, used_version=10, latest_supported_version=10)
    assert decode_subscription_info(encode_subscription_info(v10)) == v10  # flat from v10: order kept


# ------------------------------------------------------------------------------ version probing

@FAST
@given(st.integers(LATEST_SUPPORTED_VERSION + 1, 2**31 - 1), st.data(), st.binary(max_size=24), st.booleans())
def test_future_subscription_reads_only_the_two_versions(version, data, garbage, strict):
    latest = data.draw(st.integers(version, 2**31 - 1))
    payload = version.to_bytes(4, "big") + latest.to_bytes(4, "big") + garbage
    assert decode_subscription_info(payload, strict=strict) == SubscriptionInfo(
        used_version=version, latest_supported_version=latest)


def test_version_12_probe_with_garbage():
    info = decode_subscription_info(h("0000000c", "0000000c", "ffffffff", "deadbeef" * 3))
    assert (info.used_version, info.latest_supported_version) == (12, 12)
    assert info == SubscriptionInfo(used_version=12, latest_supported_version=12)
    assert info.process_id == uuid.UUID(int=0) and info.task_offset_sums == () and info.user_endpoint is None


@pytest.mark.parametrize("data, field", [
    (h("0000000c"), "latestSupportedVersion"),               # no room for the second int
    (h("0000000c", "0000"), "latestSupportedVersion"),
    (h("0000000c", "0000000b"), "latestSupportedVersion"),   # latest < used: validateVersions throws
    (h("0000000c", "ffffffff", "00"), "latestSupportedVersion"),
    (h("00000004", "00000003") + bytes(28), "latestSupportedVersion"),
    (h("00000000", "0000000c"), "version"),                  # versions start at 1
    (h("ffffffff", "0000000c"), "version"),
    (h("000000"), "version"),
])
def test_bad_subscription_versions(data, field):
    for strict in (True, False):
        with pytest.raises(DecodeError) as info:
            decode_subscription_info(data, strict=strict)
        assert info.value.field == field and str(info.value).startswith(f"{field}: ")


# ------------------------------------------------------------------------------ malformed input

@pytest.mark.parametrize("hexed, field", [
    ("00000002" + PID_HEX + "00000000 00000000 00000001 ff", "userEndPoint"),            # invalid UTF-8
    ("0000000b 0000000b" + PID_HEX + "00000000 00000000 00 00000000 00000001 00000001 80 00000000",
     "clientTags[0].key"),
    ("0000000a 0000000a" + PID_HEX + "00000000 00000001 00000000 00000000 0000000000000000 fffe 00 00000000",
     "taskOffsetSums[0].namedTopology"),                                                # -2 is not null
])
def test_malformed_subscription_examples(hexed, field):
    for strict in (True, False):
        with pytest.raises(DecodeError) as info:
            decode_subscription_info(bytes.fromhex(hexed), strict=strict)
        assert info.value.field == field


@pytest.mark.parametrize("hexed, field, lenient", [
    # v7: topicGroupId 0 in two groups -- Kafka's writer groups each subtopology once
    ("00000007 00000007" + PID_HEX + "00000000 00000002 00000000 00000001 00000001 0000000000000001"
     "00000000 00000001 00000002 0000000000000002", "taskOffsetSums[1].topicGroupId",
     (((0, 1), 1), ((0, 2), 2))),
    # v7: an empty group
    ("00000007 00000007" + PID_HEX + "00000000 00000001 00000003 00000000", "taskOffsetSums[0].partitionToOffsetSum",
     ()),
    # v10: empty (not null) namedTopology -- Kafka downgrades it to null and writes null
    ("0000000a 0000000a" + PID_HEX + "00000000 00000001 00000001 00000002 0000000000000003 0000 00 00000000",
     "taskOffsetSums[0].namedTopology", (((1, 2), 3),)),
])
def test_non_canonical_subscriptions_strict_rejects_lenient_accepts(hexed, field, lenient):
    data = bytes.fromhex(hexed)
    with pytest.raises(DecodeError) as info:
        decode_subscription_info(data)
    assert info.value.field == field
    assert decode_subscription_info(data, strict=False).task_offset_sums == lenient
