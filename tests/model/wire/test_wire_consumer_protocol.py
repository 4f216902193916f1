"""Tests for model.wire.consumer_protocol: golden bytes, round trips, kafka-python parity, fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.protocol.consumer.metadata import (
    ConsumerProtocolAssignment as KpAssignment,
)
from kafka.protocol.consumer.metadata import (
    ConsumerProtocolSubscription as KpSubscription,
)

from groupcheck.model.wire.consumer_protocol import (
    HIGHEST_VERSION,
    Assignment,
    Subscription,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from groupcheck.model.wire.errors import DecodeError

VERSIONS = range(HIGHEST_VERSION + 1)
FAST = settings(max_examples=60, deadline=None)

# ------------------------------------------------------------------------------ strategies

int32s = st.integers(-(2**31), 2**31 - 1)
names = st.text(max_size=12)  # any str without lone surrogates: the wire accepts any UTF-8
user_data = st.none() | st.binary(max_size=16)
topic_partitions = st.lists(
    st.tuples(names, st.lists(int32s, max_size=5).map(tuple)), max_size=4
).map(tuple)


@st.composite
def subscriptions(draw, version: int | None = None) -> Subscription:
    """A Subscription; with ``version``, only fields that version can carry are non-default."""
    v = HIGHEST_VERSION if version is None else version
    return Subscription(
        topics=tuple(draw(st.lists(names, max_size=5))),
        user_data=draw(user_data),
        owned_partitions=draw(topic_partitions) if v >= 1 else (),
        generation_id=draw(int32s) if v >= 2 else -1,
        rack_id=draw(st.none() | names) if v >= 3 else None,
    )


assignments = st.builds(Assignment, topic_partitions, user_data)
versioned_subscriptions = st.sampled_from(VERSIONS).flatmap(lambda v: st.tuples(st.just(v), subscriptions(v)))


def project(sub: Subscription, version: int) -> Subscription:
    """What survives encoding at ``version`` (Kafka drops the ignorable fields it cannot carry)."""
    return Subscription(
        sub.topics,
        sub.user_data,
        sub.owned_partitions if version >= 1 else (),
        sub.generation_id if version >= 2 else -1,
        sub.rack_id if version >= 3 else None,
    )


def decode_or_error(decode, data: bytes, strict: bool):
    """Decode, allowing only a well-formed DecodeError; any other exception fails the test."""
    try:
        return decode(data, strict=strict)
    except DecodeError as err:
        assert type(err) is DecodeError
        assert err.field and err.field in str(err)
        assert 0 <= err.offset <= len(data)
        return None


# ------------------------------------------------------------------------------ golden bytes

GOLDEN_SUBSCRIPTIONS = [
    # v0: Topics ["a","bc"], UserData 0x01
    (0, Subscription(("a", "bc"), b"\x01"),
     "0000" "00000002" "0001" "61" "0002" "6263" "00000001" "01"),
    # v0: no topics, null UserData
    (0, Subscription((), None), "0000" "00000000" "ffffffff"),
    # v1: + OwnedPartitions [t: 0, 1]
    (1, Subscription(("t",), None, (("t", (0, 1)),)),
     "0001" "00000001" "0001" "74" "ffffffff" "00000001" "0001" "74" "00000002" "00000000" "00000001"),
    # v2: empty UserData (not null), no owned partitions, GenerationId 5
    (2, Subscription(("t",), b"", (), 5),
     "0002" "00000001" "0001" "74" "00000000" "00000000" "00000005"),
    # v3: + RackId "r1"
    (3, Subscription(("x",), None, (("x", (2,)),), 10, "r1"),
     "0003" "00000001" "0001" "78" "ffffffff" "00000001" "0001" "78" "00000001" "00000002" "0000000a" "0002" "7231"),
    # v3: null RackId, default GenerationId -1, non-ASCII topic "é" (2 UTF-8 bytes)
    (3, Subscription(("é",), b"\xab\xcd"),
     "0003" "00000001" "0002" "c3a9" "00000002" "abcd" "00000000" "ffffffff" "ffff"),
]

GOLDEN_ASSIGNMENTS = [
    (0, Assignment((("t", (0, 1)),), b"\xab"),
     "0000" "00000001" "0001" "74" "00000002" "00000000" "00000001" "00000001" "ab"),
    (3, Assignment((("ab", ()), ("c", (-1,))), None),
     "0003" "00000002" "0002" "6162" "00000000" "0001" "63" "00000001" "ffffffff" "ffffffff"),
]


@pytest.mark.parametrize("version, sub, hexed", GOLDEN_SUBSCRIPTIONS)
def test_golden_subscription(version, sub, hexed):
    assert encode_subscription(sub, version).hex() == hexed
    assert decode_subscription(bytes.fromhex(hexed)) == (version, sub)


@pytest.mark.parametrize("version, assignment, hexed", GOLDEN_ASSIGNMENTS)
def test_golden_assignment(version, assignment, hexed):
    assert encode_assignment(assignment, version).hex() == hexed
    assert decode_assignment(bytes.fromhex(hexed)) == (version, assignment)


def test_lists_are_normalised_to_tuples():
    sub = Subscription(["a"], None, [("a", [1, 2])])  # type: ignore[arg-type]
    assert sub == Subscription(("a",), None, (("a", (1, 2)),))
    assert hash(sub) == hash(Subscription(("a",), None, (("a", (1, 2)),)))


# ------------------------------------------------------------------------------ round trips

@FAST
@given(versioned_subscriptions)
def test_subscription_round_trip(case):
    version, sub = case
    data = encode_subscription(sub, version)
    assert decode_subscription(data) == (version, sub)
    assert decode_subscription(data, strict=False) == (version, sub)


@FAST
@given(st.sampled_from(VERSIONS), assignments)
def test_assignment_round_trip(version, assignment):
    data = encode_assignment(assignment, version)
    assert decode_assignment(data) == (version, assignment)


@FAST
@given(st.sampled_from(VERSIONS), subscriptions())
def test_ignorable_fields_are_dropped_like_kafka(version, sub):
    data = encode_subscription(sub, version)
    assert data == encode_subscription(project(sub, version), version)
    assert decode_subscription(data) == (version, project(sub, version))


@pytest.mark.parametrize("version, sub, field", [
    (0, Subscription(("t",), None, owned_partitions=(("t", (0,)),)), "OwnedPartitions"),
    (0, Subscription(("t",), None, generation_id=3), "GenerationId"),
    (1, Subscription(("t",), None, generation_id=3), "GenerationId"),
    (0, Subscription(("t",), None, rack_id="r"), "RackId"),
    (2, Subscription(("t",), None, rack_id=""), "RackId"),
])
def test_drop_ignorable_false_rejects_fields_the_version_cannot_carry(version, sub, field):
    with pytest.raises(ValueError, match=rf"^{field}: .* at subscription version {version}\b"):
        encode_subscription(sub, version, drop_ignorable=False)
    assert len(encode_subscription(sub, version)) > 2  # default mirrors Kafka: silently dropped


@pytest.mark.parametrize("call, field", [
    (lambda: encode_subscription(Subscription((), None), 4), "Version"),
    (lambda: encode_subscription(Subscription((), None), -1), "Version"),
    (lambda: encode_assignment(Assignment((), None), 4), "Version"),
    (lambda: encode_subscription(Subscription(("x" * 32768,), None), 0), "Topics[0]"),
    (lambda: encode_subscription(Subscription(("\ud800",), None), 0), "Topics[0]"),
    (lambda: encode_subscription(Subscription((), None, generation_id=2**31), 2), "GenerationId"),
    (lambda: encode_subscription(Subscription((), None, rack_id="é" * 16384), 3), "RackId"),
    (lambda: encode_assignment(Assignment((("t", (0, 2**31)),), None), 0), "AssignedPartitions[0].Partitions[1]"),
    (lambda: encode_subscription(Subscription((), None, (("t", (-(2**31) - 1,)),)), 1), "OwnedPartitions[0].Partitions[0]"),
])
def test_unencodable_values_raise_value_error_naming_the_field(call, field):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value).startswith(f"{field}: ")


def test_longest_string_fits():
    sub = Subscription(("x" * 32767,), None)
    assert decode_subscription(encode_subscription(sub, 0)) == (0, sub)


# ------------------------------------------------------------------------------ kafka-python parity
# kafka-python 3.0.12 generates its classes from the same JSON schemas ("validVersions": "0-3"
# for both), so every version 0-3 is cross-checked.  Its writer also drops ignorable fields, so
# values carrying fields beyond the version are compared too.

def kp_subscription(sub: Subscription, version: int) -> KpSubscription:
    tp = KpSubscription.TopicPartition
    return KpSubscription(
        version=version, topics=list(sub.topics), user_data=sub.user_data,
        owned_partitions=[tp(topic=t, partitions=list(ps)) for t, ps in sub.owned_partitions],
        generation_id=sub.generation_id, rack_id=sub.rack_id,
    )


def kp_assignment(assignment: Assignment, version: int) -> KpAssignment:
    tp = KpAssignment.TopicPartition
    return KpAssignment(
        version=version, user_data=assignment.user_data,
        assigned_partitions=[tp(topic=t, partitions=list(ps)) for t, ps in assignment.assigned_partitions],
    )


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(VERSIONS), subscriptions())
def test_subscription_matches_kafka_python(version, sub):
    theirs = kp_subscription(sub, version).encode(version=version)
    assert encode_subscription(sub, version) == theirs
    assert decode_subscription(theirs) == (version, project(sub, version))
    back = KpSubscription.decode(encode_subscription(sub, version))
    assert back.version == version
    assert back.topics == list(sub.topics) and back.user_data == sub.user_data
    if version >= 1:
        assert [(t.topic, tuple(t.partitions)) for t in back.owned_partitions] == list(sub.owned_partitions)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(VERSIONS), assignments)
def test_assignment_matches_kafka_python(version, assignment):
    theirs = kp_assignment(assignment, version).encode(version=version)
    assert encode_assignment(assignment, version) == theirs
    assert decode_assignment(theirs) == (version, assignment)


# ------------------------------------------------------------------------------ fuzzing the decoders

DECODERS = {"subscription": decode_subscription, "assignment": decode_assignment}
ENCODERS = {"subscription": encode_subscription, "assignment": encode_assignment}
header_versions = st.sampled_from([0, 1, 2, 3, 4, 32767, -1, -32768])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(list(DECODERS)), header_versions, st.binary(max_size=64), st.booleans())
def test_arbitrary_bytes_decode_or_raise_decode_error(kind, version, body, strict):
    data = version.to_bytes(2, "big", signed=True) + body
    result = decode_or_error(DECODERS[kind], data, strict)
    if result is not None and strict and version <= HIGHEST_VERSION:
        # Every accepted strict message is the one canonical encoding of its value.
        assert ENCODERS[kind](result[1], version) == data
    if version < 0:
        assert result is None


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2))
def test_short_header_is_a_version_error(data):
    with pytest.raises(DecodeError) as info:
        decode_subscription(data)
    if len(data) < 2:
        assert info.value.field == "Version"


@FAST
@given(versioned_subscriptions, assignments, st.sampled_from(VERSIONS), st.booleans())
def test_every_truncation_is_a_decode_error(case, assignment, a_version, strict):
    version, sub = case
    for kind, data in (("subscription", encode_subscription(sub, version)),
                       ("assignment", encode_assignment(assignment, a_version))):
        for cut in range(len(data)):
            with pytest.raises(DecodeError) as info:
                DECODERS[kind](data[:cut], strict=strict)
            assert info.value.field and info.value.field in str(info.value)
            assert info.value.offset <= cut


def length_slots(sub: Subscription, version: int) -> list[tuple[str, int, int, bool]]:
    """(field, offset, width, nullable) of every length/count prefix, computed from the value."""
    slots, pos = [("Topics", 2, 4, False)], 6
    for i, topic in enumerate(sub.topics):
        slots.append((f"Topics[{i}]", pos, 2, False))
        pos += 2 + len(topic.encode())
    slots.append(("UserData", pos, 4, True))
    pos += 4 + len(sub.user_data or b"")
    if version >= 1:
        slots.append(("OwnedPartitions", pos, 4, False))
        pos += 4
        for i, (topic, partitions) in enumerate(sub.owned_partitions):
            slots.append((f"OwnedPartitions[{i}].Topic", pos, 2, False))
            pos += 2 + len(topic.encode())
            slots.append((f"OwnedPartitions[{i}].Partitions", pos, 4, False))
            pos += 4 + 4 * len(partitions)
    if version >= 2:
        pos += 4
    if version >= 3:
        slots.append(("RackId", pos, 2, True))
    return slots


@FAST
@given(versioned_subscriptions, st.data())
def test_oversize_and_negative_lengths_fail_at_that_field(case, data):
    version, sub = case
    valid = encode_subscription(sub, version)
    for field, offset, width, nullable in length_slots(sub, version):
        left = len(valid) - offset - width
        lo, hi = -(2 ** (8 * width - 1)), 2 ** (8 * width - 1) - 1
        bad = [hi, left + 1, -2, lo] + ([] if nullable else [-1])
        value = data.draw(st.sampled_from([b for b in bad if lo <= b <= hi]), label=field)
        patched = valid[:offset] + value.to_bytes(width, "big", signed=True) + valid[offset + width:]
        for strict in (True, False):
            with pytest.raises(DecodeError) as info:
                decode_subscription(patched, strict=strict)
            assert info.value.field == field and field in str(info.value)


def test_huge_count_fails_before_looping():
    data = bytes.fromhex("0000" "7fffffff" "00010061")  # 2^31-1 topics, 4 bytes left
    with pytest.raises(DecodeError) as info:
        decode_subscription(data)
    assert info.value.field == "Topics"  # not "Topics[k]": rejected before reading any element
    assert "2147483647" in str(info.value)
    data = bytes.fromhex("0000" "00000001" "0000" "7fffffff" "00")  # 2^31-1 partitions
    with pytest.raises(DecodeError, match=r"^AssignedPartitions\[0\]\.Partitions: "):
        decode_assignment(data)


@pytest.mark.parametrize("hexed, field", [
    ("0000" "00000001" "0001" "ff" "ffffffff", "Topics[0]"),       # invalid UTF-8
    ("0000" "00000001" "0002" "c328" "ffffffff", "Topics[0]"),     # bad continuation byte
    ("0000" "00000001" "ffff" "ffffffff", "Topics[0]"),           # null for a non-nullable string
    ("0000" "00000000" "fffffffe", "UserData"),                   # -2 is not null
    ("0003" "00000000" "ffffffff" "00000000" "ffffffff" "fffe", "RackId"),
    ("0003" "00000000" "ffffffff" "00000000" "ffffffff" "0001" "80", "RackId"),
    ("ffff" "00000000" "ffffffff", "Version"),                    # negative version
    ("0001" "00000000" "ffffffff" "00000001" "0000" "00000002" "00000001", "OwnedPartitions[0].Partitions"),
])
def test_malformed_examples(hexed, field):
    with pytest.raises(DecodeError) as info:
        decode_subscription(bytes.fromhex(hexed), strict=False)
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}: ")


@FAST
@given(versioned_subscriptions, st.sampled_from(VERSIONS), assignments, st.binary(min_size=1, max_size=8))
def test_trailing_bytes_strict_rejects_lenient_ignores(case, a_version, assignment, extra):
    version, sub = case
    for kind, data, expected in (
        ("subscription", encode_subscription(sub, version), (version, sub)),
        ("assignment", encode_assignment(assignment, a_version), (a_version, assignment)),
    ):
        with pytest.raises(DecodeError) as info:
            DECODERS[kind](data + extra, strict=True)
        assert info.value.field == "TrailingBytes" and "TrailingBytes" in str(info.value)
        assert info.value.offset == len(data) and info.value.remaining == len(extra)
        assert DECODERS[kind](data + extra, strict=False) == expected


@FAST
@given(st.sampled_from([4, 5, 100, 32767]), subscriptions(), assignments, st.binary(max_size=8), st.booleans())
def test_future_versions_decode_with_the_v3_layout(version, sub, assignment, extra, strict):
    header = version.to_bytes(2, "big")
    v3_sub = encode_subscription(sub, HIGHEST_VERSION)[2:]
    assert decode_subscription(header + v3_sub + extra, strict=strict) == (version, sub)
    v3_assignment = encode_assignment(assignment, HIGHEST_VERSION)[2:]
    assert decode_assignment(header + v3_assignment + extra, strict=strict) == (version, assignment)


def test_future_version_still_needs_every_v3_field():
    v2_body = encode_subscription(Subscription(("t",), None, (), 7), 2)[2:]  # lacks RackId
    with pytest.raises(DecodeError) as info:
        decode_subscription(b"\x00\x04" + v2_body)
    assert info.value.field == "RackId"


def test_decode_error_pickles():
    import pickle

    err = DecodeError("Topics[1]", 12, "string length 70 runs past the end of the buffer", 9)
    assert str(err) == "Topics[1]: string length 70 runs past the end of the buffer (offset 12, 9 bytes left)"
    again = pickle.loads(pickle.dumps(err))
    assert (again.field, again.offset, str(again)) == (err.field, err.offset, str(err))
