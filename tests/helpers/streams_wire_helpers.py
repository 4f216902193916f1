"""Shared data for the streams-metadata wire tests (model.wire.streams_metadata).

A plain module, not a test file: hand-written golden bytes, vectors printed by Kafka's own code
and the values they encode, and the Hypothesis strategies, used by
test_wire_streams_subscription.py and test_wire_streams_assignment.py.
"""

from __future__ import annotations

import uuid

from hypothesis import settings
from hypothesis import strategies as st

from groupcheck.model.wire.streams_metadata import (
    LATEST_SUPPORTED_VERSION,
    NO_NEXT_REBALANCE,
    UNKNOWN,
    AssignmentInfo,
    SubscriptionInfo,
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
    (SubscriptionInfo(used_version=1, process_id=PID, prev_tasks=[(0, 1)], standby_tasks=[(2, 3), (4, 5)]),
     h("00000001", PID_HEX, "00000001", "00000000 00000001", "00000002", "00000002 00000003",
       "00000004 00000005")),
    # v1: all defaults (zero UUID, no tasks)
    (SubscriptionInfo(used_version=1), h("00000001", "00" * 16, "00000000", "00000000")),
    # v2: + userEndPoint "ab:9" as int32 length + UTF-8
    (SubscriptionInfo(used_version=2, process_id=PID, standby_tasks=[(0, 0)], user_endpoint="ab:9"),
     h("00000002", PID_HEX, "00000000", "00000001", "00000000 00000000", "00000004", "61623a39")),
    # v2: null userEndPoint is written as empty bytes
    (SubscriptionInfo(used_version=2, process_id=PID), h("00000002", PID_HEX, "00000000", "00000000", "00000000")),
    # v3: + latestSupportedVersion right after the version; non-ASCII endpoint "é:1"
    (SubscriptionInfo(used_version=3, latest_supported_version=3, process_id=PID, prev_tasks=[(1, 2)],
                      user_endpoint="é:1"),
     h("00000003", "00000003", PID_HEX, "00000001", "00000001 00000002", "00000000", "00000004", "c3a93a31")),
    # v4: same layout as v3; latest 11, negative task ids
    (SubscriptionInfo(used_version=4, latest_supported_version=11, process_id=PID, prev_tasks=[(-1, -2)]),
     h("00000004", "0000000b", PID_HEX, "00000001", "ffffffff fffffffe", "00000000", "00000000")),
    # v7: no prev/standby; taskOffsetSums grouped by topicGroupId: [0: (1,-2), (3,10)], [2: (0,-3)]
    (SubscriptionInfo(used_version=7, latest_supported_version=7, process_id=PID,
                      task_offset_sums=[((0, 1), -2), ((0, 3), 10), ((2, 0), -3)]),
     h("00000007", "00000007", PID_HEX, "00000000", "00000002",
       "00000000", "00000002", "00000001 fffffffffffffffe", "00000003 000000000000000a",
       "00000002", "00000001", "00000000 fffffffffffffffd")),
    # v8: + uniqueField int8; v9: + errorCode int32
    (SubscriptionInfo(used_version=9, latest_supported_version=9, process_id=PID, user_endpoint="h:1",
                      unique_field=-128, error_code=5),
     h("00000009", "00000009", PID_HEX, "00000003", "683a31", "00000000", "80", "00000005")),
    # v10: flat taskOffsetSums with nullable-string namedTopology
    (SubscriptionInfo(used_version=10, latest_supported_version=11, process_id=PID,
                      task_offset_sums=[((1, 2, "x"), 7), ((3, 4), 0)], unique_field=1),
     h("0000000a", "0000000b", PID_HEX, "00000000", "00000002",
       "00000001 00000002 0000000000000007 0001 78", "00000003 00000004 0000000000000000 ffff",
       "01", "00000000")),
    # v11: + clientTags as (bytes key, bytes value)
    (SubscriptionInfo(used_version=11, latest_supported_version=11, process_id=PID, client_tags={"k": "v"}),
     h("0000000b", "0000000b", PID_HEX, "00000000", "00000000", "00", "00000000",
       "00000001", "00000001 6b", "00000001 76")),
]

GOLDEN_ASSIGNMENTS = [
    # v1: activeTasks [(0,1), (1,0)], standbyTasks {(2,0): [t-0, t-1]} (TopicPartition = writeUTF + int32)
    (AssignmentInfo(used_version=1, active_tasks=[(0, 1), (1, 0)], standby_tasks={(2, 0): [("t", 0), ("t", 1)]}),
     h("00000001", "00000002", "00000000 00000001", "00000001 00000000",
       "00000001", "00000002 00000000", "00000002", "0001 74 00000000", "0001 74 00000001")),
    # v2: + partitionsByHost {localhost:8080: [a-0]}
    (AssignmentInfo(used_version=2, active_tasks=[(0, 0)], partitions_by_host={("localhost", 8080): [("a", 0)]}),
     h("00000002", "00000001", "00000000 00000000", "00000000",
       "00000001", "0009 6c6f63616c686f7374", "00001f90", "00000001", "0001 61 00000000")),
    # v3: + commonlySupportedVersion after the version; a standby task with no partitions
    (AssignmentInfo(used_version=3, commonly_supported_version=3, standby_tasks={(0, 1): []},
                    partitions_by_host={("h", 1): []}),
     h("00000003", "00000003", "00000000", "00000001", "00000000 00000001", "00000000",
       "00000001", "0001 68", "00000001", "00000000")),
    # v4: + errCode; topic "\0" in modified UTF-8 is C0 80
    (AssignmentInfo(used_version=4, commonly_supported_version=4, active_tasks=[(7, 7)],
                    partitions_by_host={("h", 65535): [("\x00", 3)]}, error_code=1),
     h("00000004", "00000004", "00000001", "00000007 00000007", "00000000",
       "00000001", "0001 68", "0000ffff", "00000001", "0002 c080 00000003", "00000001")),
    # v5: topic dictionary (index, topic), then hosts with (topicIndex, partition)
    (AssignmentInfo(used_version=5, commonly_supported_version=5,
                    partitions_by_host={("h", 1): [("b", 0), ("a", 1), ("b", 2)]}),
     h("00000005", "00000005", "00000000", "00000000",
       "00000002", "00000000 0001 62", "00000001 0001 61",
       "00000001", "0001 68 00000001", "00000003", "00000000 00000000", "00000001 00000001",
       "00000000 00000002", "00000000")),
    # v7: + standbyPartitionsByHost (v6) sharing the dictionary, + nextRebalanceMs int64
    (AssignmentInfo(used_version=7, commonly_supported_version=7, standby_partitions_by_host={("s", 2): [("c", 0)]},
                    next_rebalance_ms=0),
     h("00000007", "00000007", "00000000", "00000000", "00000001", "00000000 0001 63",
       "00000000", "00000001", "0001 73 00000002", "00000001", "00000000 00000000",
       "00000000", "0000000000000000")),
    # v10: TaskIds carry int32 char count + UTF-16BE named topology (0 chars = none)
    (AssignmentInfo(used_version=10, commonly_supported_version=10, active_tasks=[(0, 1, "ab"), (2, 3)]),
     h("0000000a", "0000000a", "00000002", "00000000 00000001 00000002 0061 0062",
       "00000002 00000003 00000000", "00000000", "00000000", "00000000", "00000000", "00000000",
       "7fffffffffffffff")),
]


# ------------------------------------------------------------------------------ vectors produced by Kafka
# Hex printed by Kafka's own code, compiled from apache/kafka: trunk 1eb7644349c (2024-10)
# AssignmentInfo.java + ConsumerProtocolUtils.java and SubscriptionInfoData generated from
# SubscriptionInfoData.json by Kafka's MessageGenerator, and tag 2.3.0's hand-written
# SubscriptionInfo.java / AssignmentInfo.java (which write LATEST_SUPPORTED_VERSION = 4).
# Java iterated LinkedHashMaps/Sets built in the order of the values below, except for its own
# HashMap topic dictionary (v5+), whose numbering the decoder keeps in topic_dictionary.

def kafka_assignment(version: int, commonly: int = 11) -> AssignmentInfo:
    return AssignmentInfo(
        used_version=version, commonly_supported_version=commonly if version >= 3 else UNKNOWN,
        active_tasks=[(0, 1), (2, 3)] + ([(1, 0, "topo\u00e9")] if version >= 10 else []),
        standby_tasks=[((1, 1), [("tp", 0), ("\u00e9\x00\U0001F600", 5)]), ((4, 2), [])],
        partitions_by_host=[(("h", 80), [("a", 0), ("b", 1)]), (("\u00fc", 81), [])] if version >= 2 else [],
        standby_partitions_by_host=[(("s", 82), [("b", 2), ("c", 3)])] if version >= 6 else [],
        error_code=7 if version >= 4 else 0,
        next_rebalance_ms=1000 if version >= 7 else NO_NEXT_REBALANCE,
    )


def kafka_subscription(version: int, latest: int = 11) -> SubscriptionInfo:
    v = version
    return SubscriptionInfo(
        used_version=v, latest_supported_version=latest if v >= 3 else UNKNOWN,
                            process_id=uuid.UUID("00112233-4455-6677-8899-aabbccddeeff"),
        prev_tasks=[(0, 1)] if v <= 6 else [], standby_tasks=[(1, 2), (-1, 7)] if v <= 6 else [],
        user_endpoint="h\u00e9:1" if v >= 2 else None,
        task_offset_sums=([((0, 1), -2), ((0, 2), 5), ((1, 0), 1 << 40)] if v <= 9 else [((0, 1, "nt"), -2),
                                                                                         ((1, 0), 3)])
        if v >= 7 else [],
        unique_field=-1 if v >= 8 else 0, error_code=3 if v >= 9 else 0,
        client_tags=[("az", "eu-1"), ("rack", "")] if v >= 11 else [],
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
        used_version=v,
        latest_supported_version=draw(st.integers(v, 2**31 - 1)) if v >= 3 else UNKNOWN,
        process_id=draw(st.uuids()),
        prev_tasks=draw(st.lists(plain_tasks, max_size=4)) if v <= 6 else (),
        standby_tasks=draw(st.lists(plain_tasks, max_size=4)) if v <= 6 else (),
        user_endpoint=draw(st.none() | texts) if v >= 2 else None,
        task_offset_sums=grouped(sums) if v < 10 else sums,
        unique_field=draw(int8s) if v >= 8 else 0,
        error_code=draw(int32s) if v >= 9 else 0,
        client_tags=draw(st.lists(st.tuples(texts, texts), max_size=3)) if v >= 11 else (),
    )


topic_partitions = st.lists(st.tuples(texts, int32s), max_size=4)
host_maps = st.lists(st.tuples(st.tuples(texts, int32s), topic_partitions), max_size=3)


@st.composite
def assignment_infos(draw, version: int, full: bool = False) -> AssignmentInfo:
    """With ``full``, every field is drawn, whatever the version can carry."""
    v = version

    def carried(since: int) -> bool:
        return full or v >= since
    return AssignmentInfo(
        used_version=v,
        commonly_supported_version=draw(int32s) if carried(3) else UNKNOWN,
        active_tasks=draw(st.lists(tasks(v), max_size=4)),
        standby_tasks=draw(st.lists(st.tuples(tasks(v), topic_partitions), max_size=3)),
        partitions_by_host=draw(host_maps) if carried(2) else (),
        standby_partitions_by_host=draw(host_maps) if carried(6) else (),
        error_code=draw(int32s) if carried(4) else 0,
        next_rebalance_ms=draw(int64s) if carried(7) else NO_NEXT_REBALANCE,
    )

versioned_subscriptions = st.sampled_from(VERSIONS).flatmap(subscription_infos)
versioned_assignments = st.sampled_from(VERSIONS).flatmap(assignment_infos)
