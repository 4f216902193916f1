"""Tests for model.wire.streams_metadata: golden bytes, Kafka-produced vectors, round trips, fuzzing."""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.wire.errors import DecodeError
from model.wire.streams_metadata import (
    LATEST_SUPPORTED_VERSION,
    NO_NEXT_REBALANCE,
    UNKNOWN,
    AssignmentInfo,
    SubscriptionInfo,
    decode_assignment_info,
    decode_subscription_info,
    encode_assignment_info,
    encode_subscription_info,
)

VERSIONS = range(1, LATEST_SUPPORTED_VERSION + 1)
FAST = settings(max_examples=40, deadline=None)
PID = uuid.UUID("01234567-89ab-cdef-fedc-ba9876543210")
PID_HEX = "0123456789abcdeffedcba9876543210"


def h(*parts: str) -> bytes:
    return bytes.fromhex("".join(parts))


# ------------------------------------------------------------------------------ golden bytes (by hand)

GOLDEN_SUBSCRIPTIONS = [
    # v1: version, processId (msb, lsb), prevTasks [(0,1)], standbyTasks [(2,3), (4,5)]
    (SubscriptionInfo(1, process_id=PID, prev_tasks=[(0, 1)], standby_tasks=[(2, 3), (4, 5)]),
     h("00000001", PID_HEX, "00000001", "00000000 00000001", "00000002", "00000002 00000003",
       "00000004 00000005")),
    # v1: all defaults (zero UUID, no tasks)
    (SubscriptionInfo(1), h("00000001", "00" * 16, "00000000", "00000000")),
    # v2: + userEndPoint "ab:9" as int32 length + UTF-8
    (SubscriptionInfo(2, process_id=PID, standby_tasks=[(0, 0)], user_endpoint="ab:9"),
     h("00000002", PID_HEX, "00000000", "00000001", "00000000 00000000", "00000004", "61623a39")),
    # v2: null userEndPoint is written as empty bytes
    (SubscriptionInfo(2, process_id=PID), h("00000002", PID_HEX, "00000000", "00000000", "00000000")),
    # v3: + latestSupportedVersion right after the version; non-ASCII endpoint "é:1"
    (SubscriptionInfo(3, 3, PID, prev_tasks=[(1, 2)], user_endpoint="é:1"),
     h("00000003", "00000003", PID_HEX, "00000001", "00000001 00000002", "00000000", "00000004", "c3a93a31")),
    # v4: same layout as v3; latest 11, negative task ids
    (SubscriptionInfo(4, 11, PID, prev_tasks=[(-1, -2)]),
     h("00000004", "0000000b", PID_HEX, "00000001", "ffffffff fffffffe", "00000000", "00000000")),
    # v7: no prev/standby; taskOffsetSums grouped by topicGroupId: [0: (1,-2), (3,10)], [2: (0,-3)]
    (SubscriptionInfo(7, 7, PID, task_offset_sums=[((0, 1), -2), ((0, 3), 10), ((2, 0), -3)]),
     h("00000007", "00000007", PID_HEX, "00000000", "00000002",
       "00000000", "00000002", "00000001 fffffffffffffffe", "00000003 000000000000000a",
       "00000002", "00000001", "00000000 fffffffffffffffd")),
    # v8: + uniqueField int8; v9: + errorCode int32
    (SubscriptionInfo(9, 9, PID, user_endpoint="h:1", unique_field=-128, error_code=5),
     h("00000009", "00000009", PID_HEX, "00000003", "683a31", "00000000", "80", "00000005")),
    # v10: flat taskOffsetSums with nullable-string namedTopology
    (SubscriptionInfo(10, 11, PID, task_offset_sums=[((1, 2, "x"), 7), ((3, 4), 0)], unique_field=1),
     h("0000000a", "0000000b", PID_HEX, "00000000", "00000002",
       "00000001 00000002 0000000000000007 0001 78", "00000003 00000004 0000000000000000 ffff",
       "01", "00000000")),
    # v11: + clientTags as (bytes key, bytes value)
    (SubscriptionInfo(11, 11, PID, client_tags={"k": "v"}),
     h("0000000b", "0000000b", PID_HEX, "00000000", "00000000", "00", "00000000",
       "00000001", "00000001 6b", "00000001 76")),
]

GOLDEN_ASSIGNMENTS = [
    # v1: activeTasks [(0,1), (1,0)], standbyTasks {(2,0): [t-0, t-1]} (TopicPartition = writeUTF + int32)
    (AssignmentInfo(1, active_tasks=[(0, 1), (1, 0)], standby_tasks={(2, 0): [("t", 0), ("t", 1)]}),
     h("00000001", "00000002", "00000000 00000001", "00000001 00000000",
       "00000001", "00000002 00000000", "00000002", "0001 74 00000000", "0001 74 00000001")),
    # v2: + partitionsByHost {localhost:8080: [a-0]}
    (AssignmentInfo(2, active_tasks=[(0, 0)], partitions_by_host={("localhost", 8080): [("a", 0)]}),
     h("00000002", "00000001", "00000000 00000000", "00000000",
       "00000001", "0009 6c6f63616c686f7374", "00001f90", "00000001", "0001 61 00000000")),
    # v3: + commonlySupportedVersion after the version; a standby task with no partitions
    (AssignmentInfo(3, 3, standby_tasks={(0, 1): []}, partitions_by_host={("h", 1): []}),
     h("00000003", "00000003", "00000000", "00000001", "00000000 00000001", "00000000",
       "00000001", "0001 68", "00000001", "00000000")),
    # v4: + errCode; topic "\0" in modified UTF-8 is C0 80
    (AssignmentInfo(4, 4, active_tasks=[(7, 7)], partitions_by_host={("h", 65535): [("\x00", 3)]}, error_code=1),
     h("00000004", "00000004", "00000001", "00000007 00000007", "00000000",
       "00000001", "0001 68", "0000ffff", "00000001", "0002 c080 00000003", "00000001")),
    # v5: topic dictionary (index, topic), then hosts with (topicIndex, partition)
    (AssignmentInfo(5, 5, partitions_by_host={("h", 1): [("b", 0), ("a", 1), ("b", 2)]}),
     h("00000005", "00000005", "00000000", "00000000",
       "00000002", "00000000 0001 62", "00000001 0001 61",
       "00000001", "0001 68 00000001", "00000003", "00000000 00000000", "00000001 00000001",
       "00000000 00000002", "00000000")),
    # v7: + standbyPartitionsByHost (v6) sharing the dictionary, + nextRebalanceMs int64
    (AssignmentInfo(7, 7, standby_partitions_by_host={("s", 2): [("c", 0)]}, next_rebalance_ms=0),
     h("00000007", "00000007", "00000000", "00000000", "00000001", "00000000 0001 63",
       "00000000", "00000001", "0001 73 00000002", "00000001", "00000000 00000000",
       "00000000", "0000000000000000")),
    # v10: TaskIds carry int32 char count + UTF-16BE named topology (0 chars = none)
    (AssignmentInfo(10, 10, active_tasks=[(0, 1, "ab"), (2, 3)]),
     h("0000000a", "0000000a", "00000002", "00000000 00000001 00000002 0061 0062",
       "00000002 00000003 00000000", "00000000", "00000000", "00000000", "00000000", "00000000",
       "7fffffffffffffff")),
]


@pytest.mark.parametrize("info, data", GOLDEN_SUBSCRIPTIONS, ids=lambda x: None)
def test_golden_subscription(info, data):
    assert encode_subscription_info(info) == data
    assert decode_subscription_info(data) == info


@pytest.mark.parametrize("info, data", GOLDEN_ASSIGNMENTS, ids=lambda x: None)
def test_golden_assignment(info, data):
    assert encode_assignment_info(info) == data
    assert decode_assignment_info(data) == info


def test_golden_covers_v1_to_v4_of_both():
    assert {i.used_version for i, _ in GOLDEN_SUBSCRIPTIONS} >= {1, 2, 3, 4}
    assert {i.used_version for i, _ in GOLDEN_ASSIGNMENTS} >= {1, 2, 3, 4}


# ------------------------------------------------------------------------------ vectors produced by Kafka
# Hex printed by Kafka's own code, compiled from apache/kafka: trunk 1eb7644349c (2024-10)
# AssignmentInfo.java + ConsumerProtocolUtils.java and SubscriptionInfoData generated from
# SubscriptionInfoData.json by Kafka's MessageGenerator, and tag 2.3.0's hand-written
# SubscriptionInfo.java / AssignmentInfo.java (which write LATEST_SUPPORTED_VERSION = 4).
# Java iterated LinkedHashMaps/Sets built in the order of the values below, except for its own
# HashMap topic dictionary (v5+), whose numbering the decoder keeps in topic_dictionary.

def kafka_assignment(version: int, commonly: int = 11) -> AssignmentInfo:
    return AssignmentInfo(
        version, commonly if version >= 3 else UNKNOWN,
        [(0, 1), (2, 3)] + ([(1, 0, "topo\u00e9")] if version >= 10 else []),
        [((1, 1), [("tp", 0), ("\u00e9\x00\U0001F600", 5)]), ((4, 2), [])],
        [(("h", 80), [("a", 0), ("b", 1)]), (("\u00fc", 81), [])] if version >= 2 else [],
        [(("s", 82), [("b", 2), ("c", 3)])] if version >= 6 else [],
        7 if version >= 4 else 0,
        1000 if version >= 7 else NO_NEXT_REBALANCE,
    )


def kafka_subscription(version: int, latest: int = 11) -> SubscriptionInfo:
    v = version
    return SubscriptionInfo(
        v, latest if v >= 3 else UNKNOWN, uuid.UUID("00112233-4455-6677-8899-aabbccddeeff"),
        [(0, 1)] if v <= 6 else [], [(1, 2), (-1, 7)] if v <= 6 else [],
        "h\u00e9:1" if v >= 2 else None,
        ([((0, 1), -2), ((0, 2), 5), ((1, 0), 1 << 40)] if v <= 9 else [((0, 1, "nt"), -2), ((1, 0), 3)])
        if v >= 7 else [],
        -1 if v >= 8 else 0, 3 if v >= 9 else 0,
        [("az", "eu-1"), ("rack", "")] if v >= 11 else [],
    )


KAFKA_TRUNK_ASSIGNMENTS = [
    (1, ("00000001000000020000000000000001000000020000000300000002000000010000000100000002000274700000"
         "0000000ac3a9c080eda0bdedb88000000005000000040000000200000000")),
    (2, ("00000002000000020000000000000001000000020000000300000002000000010000000100000002000274700000"
         "0000000ac3a9c080eda0bdedb8800000000500000004000000020000000000000002000168000000500000000200"
         "016100000000000162000000010002c3bc0000005100000000")),
    (3, ("000000030000000b0000000200000000000000010000000200000003000000020000000100000001000000020002"
         "747000000000000ac3a9c080eda0bdedb88000000005000000040000000200000000000000020001680000005000"
         "00000200016100000000000162000000010002c3bc0000005100000000")),
    (4, ("000000040000000b0000000200000000000000010000000200000003000000020000000100000001000000020002"
         "747000000000000ac3a9c080eda0bdedb88000000005000000040000000200000000000000020001680000005000"
         "00000200016100000000000162000000010002c3bc000000510000000000000007")),
    (5, ("000000050000000b0000000200000000000000010000000200000003000000020000000100000001000000020002"
         "747000000000000ac3a9c080eda0bdedb88000000005000000040000000200000000000000020000000000016100"
         "000001000162000000020001680000005000000002000000000000000000000001000000010002c3bc0000005100"
         "00000000000007")),
    (6, ("000000060000000b0000000200000000000000010000000200000003000000020000000100000001000000020002"
         "747000000000000ac3a9c080eda0bdedb88000000005000000040000000200000000000000030000000200016100"
         "00000000016200000001000163000000020001680000005000000002000000020000000000000000000000010002"
         "c3bc00000051000000000000000100017300000052000000020000000000000002000000010000000300000007")),
    (7, ("000000070000000b0000000200000000000000010000000200000003000000020000000100000001000000020002"
         "747000000000000ac3a9c080eda0bdedb88000000005000000040000000200000000000000030000000200016100"
         "00000000016200000001000163000000020001680000005000000002000000020000000000000000000000010002"
         "c3bc0000005100000000000000010001730000005200000002000000000000000200000001000000030000000700"
         "000000000003e8")),
    (8, ("000000080000000b0000000200000000000000010000000200000003000000020000000100000001000000020002"
         "747000000000000ac3a9c080eda0bdedb88000000005000000040000000200000000000000030000000200016100"
         "00000000016200000001000163000000020001680000005000000002000000020000000000000000000000010002"
         "c3bc0000005100000000000000010001730000005200000002000000000000000200000001000000030000000700"
         "000000000003e8")),
    (9, ("000000090000000b0000000200000000000000010000000200000003000000020000000100000001000000020002"
         "747000000000000ac3a9c080eda0bdedb88000000005000000040000000200000000000000030000000200016100"
         "00000000016200000001000163000000020001680000005000000002000000020000000000000000000000010002"
         "c3bc0000005100000000000000010001730000005200000002000000000000000200000001000000030000000700"
         "000000000003e8")),
    (10, ("0000000a0000000b0000000300000000000000010000000000000002000000030000000000000001000000000000"
         "00050074006f0070006f00e900000002000000010000000100000000000000020002747000000000000ac3a9c080"
         "eda0bdedb88000000005000000040000000200000000000000000000000300000002000161000000000001620000"
         "0001000163000000020001680000005000000002000000020000000000000000000000010002c3bc000000510000"
         "0000000000010001730000005200000002000000000000000200000001000000030000000700000000000003e8")),
    (11, ("0000000b0000000b0000000300000000000000010000000000000002000000030000000000000001000000000000"
         "00050074006f0070006f00e900000002000000010000000100000000000000020002747000000000000ac3a9c080"
         "eda0bdedb88000000005000000040000000200000000000000000000000300000002000161000000000001620000"
         "0001000163000000020001680000005000000002000000020000000000000000000000010002c3bc000000510000"
         "0000000000010001730000005200000002000000000000000200000001000000030000000700000000000003e8")),
]
KAFKA_TRUNK_SUBSCRIPTIONS = [
    (1, ("0000000100112233445566778899aabbccddeeff000000010000000000000001000000020000000100000002ffff"
         "ffff00000007")),
    (2, ("0000000200112233445566778899aabbccddeeff000000010000000000000001000000020000000100000002ffff"
         "ffff000000070000000568c3a93a31")),
    (3, ("000000030000000b00112233445566778899aabbccddeeff00000001000000000000000100000002000000010000"
         "0002ffffffff000000070000000568c3a93a31")),
    (4, ("000000040000000b00112233445566778899aabbccddeeff00000001000000000000000100000002000000010000"
         "0002ffffffff000000070000000568c3a93a31")),
    (5, ("000000050000000b00112233445566778899aabbccddeeff00000001000000000000000100000002000000010000"
         "0002ffffffff000000070000000568c3a93a31")),
    (6, ("000000060000000b00112233445566778899aabbccddeeff00000001000000000000000100000002000000010000"
         "0002ffffffff000000070000000568c3a93a31")),
    (7, ("000000070000000b00112233445566778899aabbccddeeff0000000568c3a93a3100000002000000000000000200"
         "000001fffffffffffffffe0000000200000000000000050000000100000001000000000000010000000000")),
    (8, ("000000080000000b00112233445566778899aabbccddeeff0000000568c3a93a3100000002000000000000000200"
         "000001fffffffffffffffe0000000200000000000000050000000100000001000000000000010000000000ff")),
    (9, ("000000090000000b00112233445566778899aabbccddeeff0000000568c3a93a3100000002000000000000000200"
         "000001fffffffffffffffe0000000200000000000000050000000100000001000000000000010000000000ff0000"
         "0003")),
    (10, ("0000000a0000000b00112233445566778899aabbccddeeff0000000568c3a93a31000000020000000000000001ff"
         "fffffffffffffe00026e7400000001000000000000000000000003ffffff00000003")),
    (11, ("0000000b0000000b00112233445566778899aabbccddeeff0000000568c3a93a31000000020000000000000001ff"
         "fffffffffffffe00026e7400000001000000000000000000000003ffffff000000030000000200000002617a0000"
         "000465752d31000000047261636b00000000")),
]
KAFKA_2_3_ASSIGNMENTS = [
    (3, ("00000003000000040000000200000000000000010000000200000003000000020000000100000001000000020002"
         "747000000000000ac3a9c080eda0bdedb88000000005000000040000000200000000000000020001680000005000"
         "00000200016100000000000162000000010002c3bc0000005100000000")),
    (4, ("00000004000000040000000200000000000000010000000200000003000000020000000100000001000000020002"
         "747000000000000ac3a9c080eda0bdedb88000000005000000040000000200000000000000020001680000005000"
         "00000200016100000000000162000000010002c3bc000000510000000000000007")),
]
KAFKA_2_3_SUBSCRIPTIONS = [
    (3, ("000000030000000400112233445566778899aabbccddeeff00000001000000000000000100000002000000010000"
         "0002ffffffff000000070000000568c3a93a31")),
    (4, ("000000040000000400112233445566778899aabbccddeeff00000001000000000000000100000002000000010000"
         "0002ffffffff000000070000000568c3a93a31")),
]


@pytest.mark.parametrize("version, hexed", KAFKA_TRUNK_ASSIGNMENTS)
def test_kafka_trunk_assignment_vectors(version, hexed):
    data = bytes.fromhex(hexed)
    decoded = decode_assignment_info(data)
    assert decoded == kafka_assignment(version)
    assert encode_assignment_info(decoded) == data  # byte-exact, with Kafka's dictionary numbering
    if version < 5:
        assert encode_assignment_info(kafka_assignment(version)) == data


def test_kafka_dictionary_numbering_is_kept():
    data = bytes.fromhex(dict(KAFKA_TRUNK_ASSIGNMENTS)[6])
    decoded = decode_assignment_info(data)
    assert decoded.topic_dictionary == ((2, "a"), (0, "b"), (1, "c"))  # Java's HashMap order
    fresh = encode_assignment_info(replace(decoded, topic_dictionary=None))
    assert fresh != data and decode_assignment_info(fresh) == decoded  # same value, our numbering


@pytest.mark.parametrize("version, hexed", KAFKA_TRUNK_SUBSCRIPTIONS)
def test_kafka_trunk_subscription_vectors(version, hexed):
    data = bytes.fromhex(hexed)
    assert encode_subscription_info(kafka_subscription(version)) == data
    assert decode_subscription_info(data) == kafka_subscription(version)


@pytest.mark.parametrize("version, hexed", KAFKA_2_3_ASSIGNMENTS)
def test_kafka_2_3_assignment_vectors(version, hexed):
    assert encode_assignment_info(kafka_assignment(version, 4)) == bytes.fromhex(hexed)
    assert decode_assignment_info(bytes.fromhex(hexed)) == kafka_assignment(version, 4)


@pytest.mark.parametrize("version, hexed", KAFKA_2_3_SUBSCRIPTIONS)
def test_kafka_2_3_subscription_vectors(version, hexed):
    assert encode_subscription_info(kafka_subscription(version, 4)) == bytes.fromhex(hexed)
    assert decode_subscription_info(bytes.fromhex(hexed)) == kafka_subscription(version, 4)


def test_java_modified_utf8_and_utf16_forms():
    # writeUTF: U+0000 -> C0 80, U+00E9 -> C3 A9, U+1F600 -> surrogate pair as two 3-byte forms
    data = encode_assignment_info(AssignmentInfo(1, standby_tasks={(0, 0): [("\x00é\U0001F600", 0)]}))
    assert data.endswith(h("000a", "c080", "c3a9", "eda0bd", "edb880", "00000000"))
    # writeChars: UTF-16 code units, the count is in chars (2 for one astral character)
    data = encode_assignment_info(AssignmentInfo(10, 10, active_tasks=[(0, 0, "\U0001F600")]))
    assert h("00000002", "d83d", "de00") in data


# ------------------------------------------------------------------------------ strategies

int8s = st.integers(-(2**7), 2**7 - 1)
int32s = st.integers(-(2**31), 2**31 - 1)
int64s = st.integers(-(2**63), 2**63 - 1)
texts = st.text(max_size=6)  # includes "\0" and astral characters, no lone surrogates
plain_tasks = st.tuples(int32s, int32s)


def tasks(version: int):
    if version < 10:
        return plain_tasks
    return st.tuples(int32s, int32s, st.none() | st.text(min_size=1, max_size=5)).map(
        lambda t: t if t[2] is not None else t[:2])


def grouped(entries):
    """Order task_offset_sums as the v7-9 wire groups them (by topic_group_id, first use)."""
    first: dict[int, int] = {}
    for i, (task, _) in enumerate(entries):
        first.setdefault(task[0], i)
    return sorted(entries, key=lambda e: first[e[0][0]])


@st.composite
def subscription_infos(draw, version: int) -> SubscriptionInfo:
    v = version
    sums = draw(st.lists(st.tuples(tasks(v), int64s), max_size=5)) if v >= 7 else []
    return SubscriptionInfo(
        v,
        draw(st.integers(v, 2**31 - 1)) if v >= 3 else UNKNOWN,
        draw(st.uuids()),
        draw(st.lists(plain_tasks, max_size=4)) if v <= 6 else (),
        draw(st.lists(plain_tasks, max_size=4)) if v <= 6 else (),
        draw(st.none() | texts) if v >= 2 else None,
        grouped(sums) if v < 10 else sums,
        draw(int8s) if v >= 8 else 0,
        draw(int32s) if v >= 9 else 0,
        draw(st.lists(st.tuples(texts, texts), max_size=3)) if v >= 11 else (),
    )


topic_partitions = st.lists(st.tuples(texts, int32s), max_size=4)
host_maps = st.lists(st.tuples(st.tuples(texts, int32s), topic_partitions), max_size=3)


@st.composite
def assignment_infos(draw, version: int, full: bool = False) -> AssignmentInfo:
    """With ``full``, every field is drawn, whatever the version can carry."""
    v = version
    carried = lambda since: full or v >= since
    return AssignmentInfo(
        v,
        draw(int32s) if carried(3) else UNKNOWN,
        draw(st.lists(tasks(v), max_size=4)),
        draw(st.lists(st.tuples(tasks(v), topic_partitions), max_size=3)),
        draw(host_maps) if carried(2) else (),
        draw(host_maps) if carried(6) else (),
        draw(int32s) if carried(4) else 0,
        draw(int64s) if carried(7) else NO_NEXT_REBALANCE,
    )


def project(info: AssignmentInfo) -> AssignmentInfo:
    """What survives encoding at ``info.used_version`` (Kafka writes only that version's fields)."""
    v = info.used_version
    return replace(
        info,
        commonly_supported_version=info.commonly_supported_version if v >= 3 else UNKNOWN,
        partitions_by_host=info.partitions_by_host if v >= 2 else (),
        standby_partitions_by_host=info.standby_partitions_by_host if v >= 6 else (),
        error_code=info.error_code if v >= 4 else 0,
        next_rebalance_ms=info.next_rebalance_ms if v >= 7 else NO_NEXT_REBALANCE,
    )


versioned_subscriptions = st.sampled_from(VERSIONS).flatmap(subscription_infos)
versioned_assignments = st.sampled_from(VERSIONS).flatmap(assignment_infos)


# ------------------------------------------------------------------------------ round trips

@FAST
@given(versioned_subscriptions, st.booleans())
def test_subscription_round_trip(info, strict):
    data = encode_subscription_info(info)
    assert decode_subscription_info(data, strict=strict) == info
    assert int.from_bytes(data[:4], "big") == info.used_version


@FAST
@given(versioned_assignments, st.booleans())
def test_assignment_round_trip(info, strict):
    data = encode_assignment_info(info)
    decoded = decode_assignment_info(data, strict=strict)
    assert decoded == info
    assert encode_assignment_info(decoded) == data


@pytest.mark.parametrize("version", VERSIONS)
def test_every_version_round_trips_a_full_value(version):
    for info in (kafka_subscription(version), SubscriptionInfo(version, version if version >= 3 else UNKNOWN)):
        assert decode_subscription_info(encode_subscription_info(info)) == info
    for info in (kafka_assignment(version), AssignmentInfo(version, version if version >= 3 else UNKNOWN)):
        assert decode_assignment_info(encode_assignment_info(info)) == info


@FAST
@given(st.sampled_from(VERSIONS).flatmap(lambda v: assignment_infos(v, full=True)))
def test_assignment_drops_what_the_version_cannot_carry_like_kafka(info):
    data = encode_assignment_info(info)
    assert data == encode_assignment_info(project(info))
    assert decode_assignment_info(data) == project(info)
    if info != project(info):
        with pytest.raises(ValueError):
            encode_assignment_info(info, drop_unsupported=False)
    else:
        assert encode_assignment_info(info, drop_unsupported=False) == data


def test_task_offset_sums_are_grouped_by_subtopology_in_v7_to_v9():
    info = SubscriptionInfo(8, 8, task_offset_sums=[((0, 0), 1), ((1, 0), 2), ((0, 1), 3)])
    data = encode_subscription_info(info)
    again = decode_subscription_info(data)
    assert again.task_offset_sums == (((0, 0), 1), ((0, 1), 3), ((1, 0), 2))  # group 0 first, then 1
    assert dict(again.task_offset_sums) == dict(info.task_offset_sums)
    v10 = replace(info, used_version=10, latest_supported_version=10)
    assert decode_subscription_info(encode_subscription_info(v10)) == v10  # flat from v10: order kept


def test_value_normalisation():
    assert SubscriptionInfo(2, user_endpoint="") == SubscriptionInfo(2)
    assert SubscriptionInfo(7, 7, task_offset_sums={(0, 1, None): 5}).task_offset_sums == (((0, 1), 5),)
    assert AssignmentInfo(10, active_tasks=[[1, 2, ""]]).active_tasks == ((1, 2),)
    assert hash(AssignmentInfo(2, partitions_by_host={("h", 1): [("t", 0)]})) == hash(
        AssignmentInfo(2, partitions_by_host=[(("h", 1), (("t", 0),))]))
    assert AssignmentInfo(5, topic_dictionary=[(3, "x")]) == AssignmentInfo(5)  # a hint, not compared
    with pytest.raises(ValueError):
        SubscriptionInfo(1, prev_tasks=[(1,)])


# ------------------------------------------------------------------------------ version probing

@FAST
@given(st.integers(LATEST_SUPPORTED_VERSION + 1, 2**31 - 1), st.data(), st.binary(max_size=24), st.booleans())
def test_future_subscription_reads_only_the_two_versions(version, data, garbage, strict):
    latest = data.draw(st.integers(version, 2**31 - 1))
    payload = version.to_bytes(4, "big") + latest.to_bytes(4, "big") + garbage
    assert decode_subscription_info(payload, strict=strict) == SubscriptionInfo(version, latest)


def test_version_12_probe_with_garbage():
    info = decode_subscription_info(h("0000000c", "0000000c", "ffffffff", "deadbeef" * 3))
    assert (info.used_version, info.latest_supported_version) == (12, 12)
    assert info == SubscriptionInfo(12, 12)
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


def test_future_assignment_is_an_error_like_kafka_unless_allowed():
    data = h("0000000c", "0000000b", "cafebabe")
    with pytest.raises(DecodeError) as info:
        decode_assignment_info(data)
    assert info.value.field == "version" and info.value.offset == 0 and "12" in str(info.value)
    assert decode_assignment_info(data, allow_future=True) == AssignmentInfo(12, 11)
    with pytest.raises(DecodeError, match="^commonlySupportedVersion: "):
        decode_assignment_info(h("0000000c", "00"), allow_future=True)
    with pytest.raises(DecodeError, match="^version: "):
        decode_assignment_info(h("00000000"), allow_future=True)


def test_v1_with_v2_fields_appended_as_kafka_1_1_1_wrote_it():
    """0.10.2.2 / 0.11.0.3 / 1.0.2 / 1.1.1 with upgrade.from=0.10.0 wrote v1 + the v2 fields."""
    sub = SubscriptionInfo(1, process_id=PID, prev_tasks=[(0, 0)])
    sub_wire = encode_subscription_info(sub) + h("00000003", "683a31")  # + userEndPoint "h:1"
    asg = AssignmentInfo(1, active_tasks=[(0, 0)])
    asg_wire = encode_assignment_info(asg) + h("00000000")  # + empty partitionsByHost
    assert decode_subscription_info(sub_wire, strict=False) == sub
    assert decode_assignment_info(asg_wire, strict=False) == asg
    for decode, wire in ((decode_subscription_info, sub_wire), (decode_assignment_info, asg_wire)):
        with pytest.raises(DecodeError, match="^TrailingBytes: "):
            decode(wire)


# ------------------------------------------------------------------------------ encoding errors

@pytest.mark.parametrize("call, field", [
    (lambda: encode_subscription_info(SubscriptionInfo(0)), "version"),
    (lambda: encode_subscription_info(SubscriptionInfo(12, 12)), "version"),
    (lambda: encode_assignment_info(AssignmentInfo(12, 12)), "version"),
    (lambda: encode_assignment_info(AssignmentInfo(-1)), "version"),
    (lambda: encode_subscription_info(SubscriptionInfo(2, 11)), "latestSupportedVersion"),
    (lambda: encode_subscription_info(SubscriptionInfo(3)), "latestSupportedVersion"),
    (lambda: encode_subscription_info(SubscriptionInfo(5, 4)), "latestSupportedVersion"),
    (lambda: encode_subscription_info(SubscriptionInfo(1, user_endpoint="h:1")), "userEndPoint"),
    (lambda: encode_subscription_info(SubscriptionInfo(7, 7, prev_tasks=[(0, 0)])), "prevTasks"),
    (lambda: encode_subscription_info(SubscriptionInfo(11, 11, standby_tasks=[(0, 0)])), "standbyTasks"),
    (lambda: encode_subscription_info(SubscriptionInfo(6, 6, task_offset_sums={(0, 0): 1})), "taskOffsetSums"),
    (lambda: encode_subscription_info(SubscriptionInfo(7, 7, unique_field=1)), "uniqueField"),
    (lambda: encode_subscription_info(SubscriptionInfo(8, 8, error_code=1)), "errorCode"),
    (lambda: encode_subscription_info(SubscriptionInfo(10, 10, client_tags={"a": "b"})), "clientTags"),
    (lambda: encode_subscription_info(SubscriptionInfo(8, 8, unique_field=128)), "uniqueField"),
    (lambda: encode_subscription_info(SubscriptionInfo(9, 9, task_offset_sums={(0, 0, "n"): 1})),
     "taskOffsetSums[0]"),
    (lambda: encode_subscription_info(SubscriptionInfo(3, 3, prev_tasks=[(0, 2**31)])), "prevTasks[0].partition"),
    (lambda: encode_subscription_info(SubscriptionInfo(7, 7, task_offset_sums={(0, 0): 2**63})),
     "taskOffsetSums[0].offsetSum"),
    (lambda: encode_subscription_info(SubscriptionInfo(2, user_endpoint="\ud800")), "userEndPoint"),
    (lambda: encode_subscription_info(SubscriptionInfo(10, 10, task_offset_sums={(0, 0, "é" * 16384): 1})),
     "taskOffsetSums[0].namedTopology"),
    (lambda: encode_subscription_info(SubscriptionInfo(11, 11, client_tags={"k": "\udfff"})), "clientTags[0].value"),
    (lambda: encode_assignment_info(AssignmentInfo(9, 9, active_tasks=[(0, 0, "n")])), "activeTasks[0]"),
    (lambda: encode_assignment_info(AssignmentInfo(1, standby_tasks={(0, 0, "n"): []})), "standbyTasks[0]"),
    (lambda: encode_assignment_info(AssignmentInfo(1, standby_tasks={(0, 0): [("x" * 65536, 0)]})),
     "standbyTasks[0].partitions[0].topic"),
    (lambda: encode_assignment_info(AssignmentInfo(2, partitions_by_host={("\x00" * 32768, 1): []})),
     "partitionsByHost[0].host"),
    (lambda: encode_assignment_info(AssignmentInfo(2, partitions_by_host={("h", 2**31): []})),
     "partitionsByHost[0].port"),
    (lambda: encode_assignment_info(AssignmentInfo(7, 7, next_rebalance_ms=2**63)), "nextRebalanceMs"),
    (lambda: encode_assignment_info(AssignmentInfo(4, 4, error_code=-(2**31) - 1)), "errCode"),
    (lambda: encode_assignment_info(AssignmentInfo(5, 5, partitions_by_host={("h", 1): [("a", 0)]},
                                                   topic_dictionary=[(0, "b")])), "topicDictionary"),
    (lambda: encode_assignment_info(AssignmentInfo(5, 5, topic_dictionary=[(0, "a"), (0, "b")])),
     "topicDictionary"),
    (lambda: encode_assignment_info(AssignmentInfo(1, error_code=3), drop_unsupported=False), "errCode"),
    (lambda: encode_assignment_info(AssignmentInfo(2, 2), drop_unsupported=False), "commonlySupportedVersion"),
])
def test_unencodable_values_raise_value_error_naming_the_field(call, field):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value).startswith(f"{field}: ")
    assert not isinstance(info.value, DecodeError)


@pytest.mark.parametrize("call, field", [
    (lambda: encode_subscription_info(SubscriptionInfo(1, process_id="not-a-uuid")), "processId"),
    (lambda: encode_subscription_info(SubscriptionInfo(3, 3, prev_tasks=[(0, "1")])), "prevTasks[0].partition"),
    (lambda: encode_assignment_info(AssignmentInfo(1, standby_tasks={(0, 0): [(b"t", 0)]})),
     "standbyTasks[0].partitions[0].topic"),
    (lambda: encode_assignment_info(AssignmentInfo(10, 10, active_tasks=[(0, 0, 5)])), "activeTasks[0].namedTopology"),
])
def test_wrong_types_raise_type_error_naming_the_field(call, field):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value).startswith(f"{field}: ")


def test_longest_strings_fit():
    longest = AssignmentInfo(1, standby_tasks={(0, 0): [("é" * 32767 + "x", 0)]})  # 65535 bytes
    assert decode_assignment_info(encode_assignment_info(longest)) == longest
    sub = SubscriptionInfo(10, 10, task_offset_sums={(0, 0, "x" * 32767): 1})
    assert decode_subscription_info(encode_subscription_info(sub)) == sub


# ------------------------------------------------------------------------------ fuzzing the decoders

def decode_or_error(decode, data: bytes, strict: bool):
    """Decode, allowing only a well-formed DecodeError; any other exception fails the test."""
    try:
        return decode(data, strict=strict)
    except DecodeError as err:
        assert type(err) is DecodeError
        assert err.field and str(err).startswith(err.field + ": ")
        assert 0 <= err.offset <= len(data)
        return None


DECODERS = {"subscription": decode_subscription_info, "assignment": decode_assignment_info}
ENCODERS = {"subscription": encode_subscription_info, "assignment": encode_assignment_info}
header_versions = st.sampled_from([*VERSIONS, 12, 2**31 - 1, 0, -1, -(2**31)])


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(list(DECODERS)), header_versions, st.binary(max_size=96), st.booleans())
def test_arbitrary_bytes_decode_or_raise_decode_error(kind, version, body, strict):
    data = version.to_bytes(4, "big", signed=True) + body
    result = decode_or_error(DECODERS[kind], data, strict)
    if version < 1:
        assert result is None
    if result is not None:
        assert result.used_version == version
        if strict and version <= LATEST_SUPPORTED_VERSION:
            # Every message accepted strictly is the one encoding of its value (dictionary kept).
            assert ENCODERS[kind](result) == data


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(list(DECODERS)), st.sampled_from(VERSIONS), st.data())
def test_mutated_valid_messages_decode_or_raise_decode_error(kind, version, data):
    strategy = subscription_infos(version) if kind == "subscription" else assignment_infos(version)
    valid = bytearray(ENCODERS[kind](data.draw(strategy)))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(4, len(valid) - 1)) if len(valid) > 4 else 0
        valid[i] = data.draw(st.integers(0, 255))
    result = decode_or_error(DECODERS[kind], bytes(valid), True)
    if result is not None:
        assert ENCODERS[kind](result) == bytes(valid)


@settings(max_examples=30, deadline=None)
@given(versioned_subscriptions, versioned_assignments, st.booleans())
def test_every_truncation_is_a_decode_error(sub, asg, strict):
    for kind, data in (("subscription", encode_subscription_info(sub)), ("assignment", encode_assignment_info(asg))):
        for cut in range(len(data)):
            with pytest.raises(DecodeError) as info:
                DECODERS[kind](data[:cut], strict=strict)
            assert info.value.field and str(info.value).startswith(info.value.field + ": ")
            assert info.value.offset <= cut


def mutf8_len(s: str) -> int:
    units = s.encode("utf-16-be", "surrogatepass")
    codes = [int.from_bytes(units[i:i + 2], "big") for i in range(0, len(units), 2)]
    return sum(1 if 1 <= u <= 0x7F else 2 if u <= 0x7FF else 3 for u in codes)


def subscription_slots(info: SubscriptionInfo) -> list[tuple[str, int, int, str]]:
    """(field, offset, width, kind) of every length/count prefix, computed from the value."""
    v, slots = info.used_version, []
    pos = 4 + (4 if v >= 3 else 0) + 16

    def slot(name, width, kind):
        nonlocal pos
        slots.append((name, pos, width, kind))
        pos += width

    if v <= 6:
        for name, tasks_ in (("prevTasks", info.prev_tasks), ("standbyTasks", info.standby_tasks)):
            slot(name, 4, "signed")
            pos += 8 * len(tasks_)
    if v >= 2:
        slot("userEndPoint", 4, "signed")
        pos += len((info.user_endpoint or "").encode())
    if 7 <= v <= 9:
        groups: dict[int, int] = {}
        for task, _ in info.task_offset_sums:
            groups[task[0]] = groups.get(task[0], 0) + 1
        slot("taskOffsetSums", 4, "signed")
        for i, n in enumerate(groups.values()):
            pos += 4
            slot(f"taskOffsetSums[{i}].partitionToOffsetSum", 4, "signed")
            pos += 12 * n
    elif v >= 10:
        slot("taskOffsetSums", 4, "signed")
        for i, (task, _) in enumerate(info.task_offset_sums):
            pos += 16
            slot(f"taskOffsetSums[{i}].namedTopology", 2, "nullable")
            pos += len(task[2].encode()) if len(task) == 3 else 0
    pos += (1 if v >= 8 else 0) + (4 if v >= 9 else 0)
    if v >= 11:
        slot("clientTags", 4, "signed")
        for i, (key, value) in enumerate(info.client_tags):
            slot(f"clientTags[{i}].key", 4, "signed")
            pos += len(key.encode())
            slot(f"clientTags[{i}].value", 4, "signed")
            pos += len(value.encode())
    return slots


def assignment_slots(info: AssignmentInfo) -> list[tuple[str, int, int, str]]:
    """As subscription_slots, for an AssignmentInfo without a topic_dictionary hint."""
    v, slots = info.used_version, []
    pos = 4 + (4 if v >= 3 else 0)

    def slot(name, width, kind):
        nonlocal pos
        slots.append((name, pos, width, kind))
        pos += width

    def task(name, t):
        nonlocal pos
        pos += 8
        if v >= 10:
            slot(f"{name}.namedTopology", 4, "signed")
            pos += 2 * (len(t[2].encode("utf-16-be", "surrogatepass")) // 2) if len(t) == 3 else 0

    def topic_partitions_(name, tps):
        nonlocal pos
        slot(name, 4, "signed")
        for j, (topic, _) in enumerate(tps):
            slot(f"{name}[{j}].topic", 2, "unsigned")
            pos += mutf8_len(topic) + 4

    slot("activeTasks", 4, "signed")
    for i, t in enumerate(info.active_tasks):
        task(f"activeTasks[{i}]", t)
    slot("standbyTasks", 4, "signed")
    for i, (t, tps) in enumerate(info.standby_tasks):
        task(f"standbyTasks[{i}]", t)
        topic_partitions_(f"standbyTasks[{i}].partitions", tps)
    if 2 <= v <= 4:
        slot("partitionsByHost", 4, "signed")
        for i, ((host, _), tps) in enumerate(info.partitions_by_host):
            slot(f"partitionsByHost[{i}].host", 2, "unsigned")
            pos += mutf8_len(host) + 4
            topic_partitions_(f"partitionsByHost[{i}].partitions", tps)
    elif v >= 5:
        maps = [("partitionsByHost", info.partitions_by_host)]
        if v >= 6:
            maps.append(("standbyPartitionsByHost", info.standby_partitions_by_host))
        topics = dict.fromkeys(tp[0] for _, m in maps for _, tps in m for tp in tps)
        slot("topicDictionary", 4, "signed")
        for i, topic in enumerate(topics):
            pos += 4
            slot(f"topicDictionary[{i}].topic", 2, "unsigned")
            pos += mutf8_len(topic)
        for name, m in maps:
            slot(name, 4, "signed")
            for i, ((host, _), tps) in enumerate(m):
                slot(f"{name}[{i}].host", 2, "unsigned")
                pos += mutf8_len(host) + 4
                slot(f"{name}[{i}].partitions", 4, "signed")
                pos += 8 * len(tps)
    return slots


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(DECODERS)), st.sampled_from(VERSIONS), st.data())
def test_oversize_and_negative_lengths_fail_at_that_field(kind, version, data):
    if kind == "subscription":
        info = data.draw(subscription_infos(version))
        slots = subscription_slots(info)
    else:
        info = data.draw(assignment_infos(version))
        slots = assignment_slots(info)
    valid = ENCODERS[kind](info)
    assert DECODERS[kind](valid) == info
    for field_, offset, width, how in slots:
        left = len(valid) - offset - width
        if how == "unsigned":
            bad = [b for b in (0xFFFF, left + 1) if b <= 0xFFFF]
        else:
            lo, hi = -(2 ** (8 * width - 1)), 2 ** (8 * width - 1) - 1
            bad = [b for b in (hi, left + 1, -2, lo) if lo <= b <= hi] + ([] if how == "nullable" else [-1])
        if not bad:
            continue
        value = data.draw(st.sampled_from(bad), label=field_)
        patched = valid[:offset] + value.to_bytes(width, "big", signed=how != "unsigned") + valid[offset + width:]
        for strict in (True, False):
            with pytest.raises(DecodeError) as info_:
                DECODERS[kind](patched, strict=strict)
            assert info_.value.field == field_, (field_, value)


def test_huge_counts_fail_before_looping():
    data = h("00000001", "00" * 16, "7fffffff", "00000000")
    with pytest.raises(DecodeError) as info:
        decode_subscription_info(data)
    assert info.value.field == "prevTasks" and "2147483647" in str(info.value)
    with pytest.raises(DecodeError, match=r"^activeTasks: "):
        decode_assignment_info(h("0000000a", "0000000a", "7fffffff", "00" * 12))
    with pytest.raises(DecodeError, match=r"^activeTasks\[0\]\.namedTopology: "):
        decode_assignment_info(h("0000000a", "0000000a", "00000001", "00000000 00000000", "7fffffff", "0061"))
    with pytest.raises(DecodeError, match=r"^taskOffsetSums: "):
        decode_subscription_info(h("0000000a", "0000000a", "00" * 16, "00000000", "40000000", "00" * 20))


@pytest.mark.parametrize("hexed, field", [
    # modified UTF-8 that writeUTF never produces
    ("00000001 00000000 00000001 00000000 00000000 00000001 0001 00 00000000", "standbyTasks[0].partitions[0].topic"),
    ("00000001 00000000 00000001 00000000 00000000 00000001 0002 c181 00000000", "standbyTasks[0].partitions[0].topic"),
    ("00000001 00000000 00000001 00000000 00000000 00000001 0003 e08080 00000000", "standbyTasks[0].partitions[0].topic"),
    ("00000001 00000000 00000001 00000000 00000000 00000001 0004 f09f9880 00000000", "standbyTasks[0].partitions[0].topic"),
    ("00000001 00000000 00000001 00000000 00000000 00000001 0002 c3 41 00000000", "standbyTasks[0].partitions[0].topic"),
    ("00000001 00000000 00000001 00000000 00000000 00000001 0001 c3 00000000", "standbyTasks[0].partitions[0].topic"),
    ("00000001 00000000 00000001 00000000 00000000 00000001 0001 80 00000000", "standbyTasks[0].partitions[0].topic"),
    # topic dictionary: unknown index, repeated index, repeated topic
    ("00000005 00000005 00000000 00000000 00000000 00000001 0001 68 00000001 00000001 00000000 00000000 00000000",
     "partitionsByHost[0].partitions[0].topicIndex"),
    ("00000005 00000005 00000000 00000000 00000002 00000000 0001 61 00000000 0001 62 00000000 00000000",
     "topicDictionary[1].index"),
    ("00000005 00000005 00000000 00000000 00000002 00000000 0001 61 00000001 0001 61 00000000 00000000",
     "topicDictionary[1].topic"),
])
def test_malformed_assignment_examples(hexed, field):
    for strict in (True, False):
        with pytest.raises(DecodeError) as info:
            decode_assignment_info(bytes.fromhex(hexed), strict=strict)
        assert info.value.field == field


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


@FAST
@given(versioned_subscriptions, versioned_assignments, st.binary(min_size=1, max_size=8))
def test_trailing_bytes_strict_rejects_lenient_ignores(sub, asg, extra):
    for kind, value in (("subscription", sub), ("assignment", asg)):
        data = ENCODERS[kind](value)
        with pytest.raises(DecodeError) as info:
            DECODERS[kind](data + extra, strict=True)
        assert info.value.field == "TrailingBytes"
        assert info.value.offset == len(data) and info.value.remaining == len(extra)
        assert DECODERS[kind](data + extra, strict=False) == value
