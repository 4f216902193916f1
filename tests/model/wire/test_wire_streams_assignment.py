"""Tests for model.wire.streams_metadata AssignmentInfo, and for both messages together: golden
bytes, Kafka-produced vectors, round trips, version probing, encoding errors, fuzzing the decoders
(SubscriptionInfo-only tests live in test_wire_streams_subscription.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groupcheck.model.wire.errors import DecodeError
from groupcheck.model.wire.streams_metadata import (
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
from tests.helpers.streams_wire_helpers import (
    FAST,
    GOLDEN_ASSIGNMENTS,
    GOLDEN_SUBSCRIPTIONS,
    KAFKA_2_3_ASSIGNMENTS,
    KAFKA_TRUNK_ASSIGNMENTS,
    PID,
    VERSIONS,
    assignment_infos,
    h,
    kafka_assignment,
    kafka_subscription,
    subscription_infos,
    versioned_assignments,
    versioned_subscriptions,
)

# ------------------------------------------------------------------------------ golden bytes (by hand)

@pytest.mark.parametrize("info, data", GOLDEN_ASSIGNMENTS, ids=lambda x: None)
def test_golden_assignment(info, data):
    assert encode_assignment_info(info) == data
    assert decode_assignment_info(data) == info


def test_golden_covers_v1_to_v4_of_both():
    assert {i.used_version for i, _ in GOLDEN_SUBSCRIPTIONS} >= {1, 2, 3, 4}
    assert {i.used_version for i, _ in GOLDEN_ASSIGNMENTS} >= {1, 2, 3, 4}


# ------------------------------------------------------------------------------ vectors produced by Kafka

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


@pytest.mark.parametrize("version, hexed", KAFKA_2_3_ASSIGNMENTS)
def test_kafka_2_3_assignment_vectors(version, hexed):
    assert encode_assignment_info(kafka_assignment(version, 4)) == bytes.fromhex(hexed)
    assert decode_assignment_info(bytes.fromhex(hexed)) == kafka_assignment(version, 4)


def test_java_modified_utf8_and_utf16_forms():
    # writeUTF: U+0000 -> C0 80, U+00E9 -> C3 A9, U+1F600 -> surrogate pair as two 3-byte forms
    data = encode_assignment_info(AssignmentInfo(used_version=1, standby_tasks={(0, 0): [("\x00é\U0001F600", 0)]}))
    assert data.endswith(h("000a", "c080", "c3a9", "eda0bd", "edb880", "00000000"))
    # writeChars: UTF-16 code units, the count is in chars (2 for one astral character)
    data = encode_assignment_info(AssignmentInfo(used_version=10, commonly_supported_version=10,
                                                 active_tasks=[(0, 0, "\U0001F600")]))
    assert h("00000002", "d83d", "de00") in data


# ------------------------------------------------------------------------------ round trips

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


@FAST
@given(versioned_assignments, st.booleans())
def test_assignment_round_trip(info, strict):
    data = encode_assignment_info(info)
    decoded = decode_assignment_info(data, strict=strict)
    assert decoded == info
    assert encode_assignment_info(decoded) == data


@pytest.mark.parametrize("version", VERSIONS)
def test_every_version_round_trips_a_full_value(version):
    for info in (kafka_subscription(version), SubscriptionInfo(
        used_version=version, latest_supported_version=version if version >= 3 else UNKNOWN)):
        assert decode_subscription_info(encode_subscription_info(info)) == info
    for info in (kafka_assignment(version), AssignmentInfo(
        used_version=version, commonly_supported_version=version if version >= 3 else UNKNOWN)):
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


def test_value_normalisation():
    assert SubscriptionInfo(used_version=2, user_endpoint="") == SubscriptionInfo(used_version=2)
    assert SubscriptionInfo(used_version=7, latest_supported_version=7,
                            task_offset_sums={(0, 1, None): 5}).task_offset_sums == (((0, 1), 5),)
    assert AssignmentInfo(used_version=10, active_tasks=[[1, 2, ""]]).active_tasks == ((1, 2),)
    assert hash(AssignmentInfo(used_version=2, partitions_by_host={("h", 1): [("t", 0)]})) == hash(
        AssignmentInfo(used_version=2, partitions_by_host=[(("h", 1), (("t", 0),))]))
    assert AssignmentInfo(used_version=5, topic_dictionary=[(3, "x")]) == AssignmentInfo(
        used_version=5)  # a hint, not compared
    with pytest.raises(ValueError):
        SubscriptionInfo(used_version=1, prev_tasks=[(1,)])


# ------------------------------------------------------------------------------ version probing

def test_future_assignment_is_an_error_like_kafka_unless_allowed():
    data = h("0000000c", "0000000b", "cafebabe")
    with pytest.raises(DecodeError) as info:
        decode_assignment_info(data)
    assert info.value.field == "version" and info.value.offset == 0 and "12" in str(info.value)
    assert decode_assignment_info(data, allow_future=True) == AssignmentInfo(
        used_version=12, commonly_supported_version=11)
    with pytest.raises(DecodeError, match="^commonlySupportedVersion: "):
        decode_assignment_info(h("0000000c", "00"), allow_future=True)
    with pytest.raises(DecodeError, match="^version: "):
        decode_assignment_info(h("00000000"), allow_future=True)


def test_v1_with_v2_fields_appended_as_kafka_1_1_1_wrote_it():
    """0.10.2.2 / 0.11.0.3 / 1.0.2 / 1.1.1 with upgrade.from=0.10.0 wrote v1 + the v2 fields."""
    sub = SubscriptionInfo(used_version=1, process_id=PID, prev_tasks=[(0, 0)])
    sub_wire = encode_subscription_info(sub) + h("00000003", "683a31")  # + userEndPoint "h:1"
    asg = AssignmentInfo(used_version=1, active_tasks=[(0, 0)])
    asg_wire = encode_assignment_info(asg) + h("00000000")  # + empty partitionsByHost
    assert decode_subscription_info(sub_wire, strict=False) == sub
    assert decode_assignment_info(asg_wire, strict=False) == asg
    for decode, wire in ((decode_subscription_info, sub_wire), (decode_assignment_info, asg_wire)):
        with pytest.raises(DecodeError, match="^TrailingBytes: "):
            decode(wire)


# ------------------------------------------------------------------------------ encoding errors

@pytest.mark.parametrize("call, field", [
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=0)), "version"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=12, latest_supported_version=12)), "version"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=12, commonly_supported_version=12)), "version"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=-1)), "version"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=2, latest_supported_version=11)),
     "latestSupportedVersion"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=3)), "latestSupportedVersion"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=5, latest_supported_version=4)),
     "latestSupportedVersion"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=1, user_endpoint="h:1")), "userEndPoint"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=7, latest_supported_version=7,
                                                       prev_tasks=[(0, 0)])), "prevTasks"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=11, latest_supported_version=11,
                                                       standby_tasks=[(0, 0)])), "standbyTasks"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=6, latest_supported_version=6,
                                                       task_offset_sums={(0, 0): 1})), "taskOffsetSums"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=7, latest_supported_version=7, unique_field=1)),
     "uniqueField"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=8, latest_supported_version=8, error_code=1)),
     "errorCode"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=10, latest_supported_version=10,
                                                       client_tags={"a": "b"})), "clientTags"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=8, latest_supported_version=8, unique_field=128)),
     "uniqueField"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=9, latest_supported_version=9,
                                                       task_offset_sums={(0, 0, "n"): 1})),
     "taskOffsetSums[0]"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=3, latest_supported_version=3,
                                                       prev_tasks=[(0, 2**31)])), "prevTasks[0].partition"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=7, latest_supported_version=7,
                                                       task_offset_sums={(0, 0): 2**63})),
     "taskOffsetSums[0].offsetSum"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=2, user_endpoint="\ud800")), "userEndPoint"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=10, latest_supported_version=10,
                                                       task_offset_sums={(0, 0, "é" * 16384): 1})),
     "taskOffsetSums[0].namedTopology"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=11, latest_supported_version=11,
                                                       client_tags={"k": "\udfff"})), "clientTags[0].value"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=9, commonly_supported_version=9,
                                                   active_tasks=[(0, 0, "n")])), "activeTasks[0]"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=1, standby_tasks={(0, 0, "n"): []})),
     "standbyTasks[0]"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=1, standby_tasks={(0, 0): [("x" * 65536, 0)]})),
     "standbyTasks[0].partitions[0].topic"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=2, partitions_by_host={("\x00" * 32768, 1): []})),
     "partitionsByHost[0].host"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=2, partitions_by_host={("h", 2**31): []})),
     "partitionsByHost[0].port"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=7, commonly_supported_version=7,
                                                   next_rebalance_ms=2**63)), "nextRebalanceMs"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=4, commonly_supported_version=4,
                                                   error_code=-(2**31) - 1)), "errCode"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=5, commonly_supported_version=5,
                                                   partitions_by_host={("h", 1): [("a", 0)]},
                                                   topic_dictionary=[(0, "b")])), "topicDictionary"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=5, commonly_supported_version=5,
                                                   topic_dictionary=[(0, "a"), (0, "b")])),
     "topicDictionary"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=1, error_code=3), drop_unsupported=False), "errCode"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=2, commonly_supported_version=2),
                                    drop_unsupported=False), "commonlySupportedVersion"),
])
def test_unencodable_values_raise_value_error_naming_the_field(call, field):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value).startswith(f"{field}: ")
    assert not isinstance(info.value, DecodeError)


@pytest.mark.parametrize("call, field", [
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=1, process_id="not-a-uuid")), "processId"),
    (lambda: encode_subscription_info(SubscriptionInfo(used_version=3, latest_supported_version=3,
                                                       prev_tasks=[(0, "1")])), "prevTasks[0].partition"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=1, standby_tasks={(0, 0): [(b"t", 0)]})),
     "standbyTasks[0].partitions[0].topic"),
    (lambda: encode_assignment_info(AssignmentInfo(used_version=10, commonly_supported_version=10,
                                                   active_tasks=[(0, 0, 5)])), "activeTasks[0].namedTopology"),
])
def test_wrong_types_raise_type_error_naming_the_field(call, field):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value).startswith(f"{field}: ")


def test_longest_strings_fit():
    longest = AssignmentInfo(used_version=1, standby_tasks={(0, 0): [("é" * 32767 + "x", 0)]})  # 65535 bytes
    assert decode_assignment_info(encode_assignment_info(longest)) == longest
    sub = SubscriptionInfo(used_version=10, latest_supported_version=10, task_offset_sums={(0, 0, "x" * 32767): 1})
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
    ("00000001 00000000 00000001 00000000 00000000 00000001 0003 e08080 00000000",
     "standbyTasks[0].partitions[0].topic"),
    ("00000001 00000000 00000001 00000000 00000000 00000001 0004 f09f9880 00000000",
     "standbyTasks[0].partitions[0].topic"),
    ("00000001 00000000 00000001 00000000 00000000 00000001 0002 c3 41 00000000",
     "standbyTasks[0].partitions[0].topic"),
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
