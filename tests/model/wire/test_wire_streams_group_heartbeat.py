"""Tests for model.wire.streams_group_heartbeat: hand-assembled golden bytes, round trips,
kafka-python parity for the flexible-version rules, and fuzzing the decoders."""

from __future__ import annotations

import io
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.protocol.schemas import StructField

from groupcheck.model.streams_group.state import (
    CopartitionGroup,
    Endpoint,
    EndpointToPartitions,
    KeyValue,
    Status,
    StreamsGroupHeartbeat,
    StreamsGroupHeartbeatResponse,
    Subtopology,
    TaskIds,
    TaskOffset,
    TopicInfo,
    TopicPartitions,
    Topology,
)
from groupcheck.model.wire import streams_group_heartbeat as codec
from groupcheck.model.wire.errors import DecodeError
from groupcheck.model.wire.streams_group_heartbeat import (
    REQUEST,
    RESPONSE,
    Array,
    Nullable,
    Struct,
    decode_request,
    decode_response,
    encode_request,
    encode_response,
    unsigned_varint,
)

FAST = settings(max_examples=60, deadline=None)

# ------------------------------------------------------------------------------ golden bytes
# Assembled by hand from the schema, one group of bytes per field (flexible version 0):
# compact string = varint(len+1) + UTF-8, null 00; compact array = varint(count+1), null 00;
# nullable struct = int8 ff (null) or 01 (present); every struct ends with its tagged-field
# buffer, 00 when empty.

LEAVE = StreamsGroupHeartbeat(group_id="g", member_id="m", member_epoch=-1)
LEAVE_HEX = (
    "0267"        # GroupId "g": length 1 + 1 = 02, 'g'
    "026d"        # MemberId "m"
    "ffffffff"    # MemberEpoch -1 (leave)
    "00000000"    # EndpointInformationEpoch 0
    "00"          # InstanceId null
    "00"          # RackId null
    "ffffffff"    # RebalanceTimeoutMs -1 (unchanged)
    "ff"          # Topology null: int8 -1
    "00" "00" "00"  # ActiveTasks, StandbyTasks, WarmupTasks null
    "00"          # ProcessId null
    "ff"          # UserEndpoint null: int8 -1
    "00"          # ClientTags null
    "00" "00"     # TaskOffsets, TaskEndOffsets null
    "00"          # ShutdownApplication false
    "00"          # tagged fields: none
)

JOIN = StreamsGroupHeartbeat(
    group_id="app", member_id="m1", member_epoch=0, endpoint_information_epoch=3,
    instance_id="i", rack_id=None, rebalance_timeout_ms=30000,
    topology=Topology(epoch=2, subtopologies=(Subtopology(
        subtopology_id="0",
        source_topics=("in",),
        source_topic_regex=(),
        state_changelog_topics=(TopicInfo("cl", 0, 3, (KeyValue("k", "v"),)),),
        repartition_sink_topics=("rp",),
        repartition_source_topics=(TopicInfo("rp", 4),),
        copartition_groups=(CopartitionGroup((0,), (), (-1,)),),
    ),)),
    active_tasks=(), standby_tasks=None, warmup_tasks=(TaskIds("0", (1, 2)),),
    process_id="p", user_endpoint=Endpoint("h", 65535), client_tags=(KeyValue("z", ""),),
    task_offsets=(TaskOffset("0", 1, 2**40),), task_end_offsets=(), shutdown_application=True,
)
JOIN_HEX = (
    "04617070"      # GroupId "app"
    "036d31"        # MemberId "m1"
    "00000000"      # MemberEpoch 0 (join)
    "00000003"      # EndpointInformationEpoch 3
    "0269"          # InstanceId "i"
    "00"            # RackId null
    "00007530"      # RebalanceTimeoutMs 30000
    "01"            # Topology present: int8 1
    "00000002"      #   Epoch 2
    "02"            #   Subtopologies: 1 element
    "0230"          #     SubtopologyId "0"
    "02" "03696e"   #     SourceTopics ["in"]
    "01"            #     SourceTopicRegex [] (empty, not null: count 0 + 1)
    "02"            #     StateChangelogTopics: 1 TopicInfo
    "03636c"        #       Name "cl"
    "00000000"      #       Partitions 0
    "0003"          #       ReplicationFactor 3 (int16)
    "02" "026b" "0276" "00"  # TopicConfigs [{Key "k", Value "v", no tags}]
    "00"            #       TopicInfo tagged fields
    "02" "037270"   #     RepartitionSinkTopics ["rp"]
    "02"            #     RepartitionSourceTopics: 1 TopicInfo
    "037270" "00000004" "0000" "01" "00"  # "rp", 4 partitions, RF 0, no configs, no tags
    "02"            #     CopartitionGroups: 1 group
    "02" "0000"     #       SourceTopics [0] (int16)
    "01"            #       SourceTopicRegex []
    "02" "ffff"     #       RepartitionSourceTopics [-1]
    "00"            #       CopartitionGroup tagged fields
    "00"            #     Subtopology tagged fields
    "00"            #   Topology tagged fields
    "01"            # ActiveTasks [] (empty: 01, not null: 00)
    "00"            # StandbyTasks null
    "02" "0230" "03" "00000001" "00000002" "00"  # WarmupTasks [{"0", [1, 2]}]
    "0270"          # ProcessId "p"
    "01" "0268" "ffff" "00"  # UserEndpoint present: Host "h", Port 65535 (uint16), no tags
    "02" "027a" "01" "00"    # ClientTags [{Key "z", Value ""}]: "" is length 0 + 1 = 01
    "02" "0230" "00000001" "0000010000000000" "00"  # TaskOffsets [{"0", 1, 2^40 (int64)}]
    "01"            # TaskEndOffsets []
    "01"            # ShutdownApplication true
    "00"            # tagged fields
)

# A 200-byte string: length + 1 = 201 = 0xc9 needs a two-byte varint, c9 01.
LONG_ID = StreamsGroupHeartbeat(group_id="x" * 200, member_id="", member_epoch=5)
LONG_ID_HEX = "c901" + "78" * 200 + "01" + "00000005" + LEAVE_HEX[16:]

EMPTY_RESPONSE = StreamsGroupHeartbeatResponse()
EMPTY_RESPONSE_HEX = (
    "00000000"   # ThrottleTimeMs 0
    "0000"       # ErrorCode 0
    "00"         # ErrorMessage null
    "01"         # MemberId "" (non-nullable: length 0 + 1)
    "00000000"   # MemberEpoch
    "00000000"   # HeartbeatIntervalMs
    "00000000"   # AcceptableRecoveryLag
    "00000000"   # TaskOffsetIntervalMs
    "00"         # Status null
    "00" "00" "00"  # ActiveTasks, StandbyTasks, WarmupTasks null
    "00000000"   # EndpointInformationEpoch
    "00"         # PartitionsByUserEndpoint null
    "00"         # tagged fields
)

ASSIGNING_RESPONSE = StreamsGroupHeartbeatResponse(
    error_code=0, error_message="ok", member_id="m1", member_epoch=7, heartbeat_interval_ms=5000,
    acceptable_recovery_lag=10000, task_offset_interval_ms=60000,
    status=(Status(4, "bye"), Status(-128)), active_tasks=(TaskIds("1", (0,)),), standby_tasks=(),
    warmup_tasks=None, endpoint_information_epoch=9,
    partitions_by_user_endpoint=(EndpointToPartitions(
        Endpoint("h", 8080), (TopicPartitions("t", (0, 1)),), ()),),
    throttle_time_ms=1,
)
ASSIGNING_RESPONSE_HEX = (
    "00000001"   # ThrottleTimeMs 1
    "0000"       # ErrorCode 0
    "036f6b"     # ErrorMessage "ok"
    "036d31"     # MemberId "m1"
    "00000007"   # MemberEpoch 7
    "00001388"   # HeartbeatIntervalMs 5000
    "00002710"   # AcceptableRecoveryLag 10000
    "0000ea60"   # TaskOffsetIntervalMs 60000
    "03"         # Status: 2 elements
    "04" "04627965" "00"  # StatusCode 4 (int8, SHUTDOWN_APPLICATION), StatusDetail "bye", no tags
    "80" "01" "00"        # StatusCode -128, StatusDetail "", no tags
    "02" "0231" "02" "00000000" "00"  # ActiveTasks [{"1", [0]}]
    "01"         # StandbyTasks []
    "00"         # WarmupTasks null
    "00000009"   # EndpointInformationEpoch 9
    "02"         # PartitionsByUserEndpoint: 1 element
    "0268" "1f90" "00"  # UserEndpoint (non-nullable struct, no marker): Host "h", Port 8080, no tags
    "02" "0274" "03" "00000000" "00000001" "00"  # ActivePartitions [{"t", [0, 1]}]
    "01"         #   StandbyPartitions []
    "00"         #   EndpointToPartitions tagged fields
    "00"         # tagged fields
)

GOLDEN_REQUESTS = [(LEAVE, LEAVE_HEX), (JOIN, JOIN_HEX), (LONG_ID, LONG_ID_HEX)]
GOLDEN_RESPONSES = [(EMPTY_RESPONSE, EMPTY_RESPONSE_HEX), (ASSIGNING_RESPONSE, ASSIGNING_RESPONSE_HEX)]


@pytest.mark.parametrize("msg, hexed", GOLDEN_REQUESTS)
def test_golden_request(msg, hexed):
    assert encode_request(msg).hex() == hexed
    assert decode_request(bytes.fromhex(hexed)) == msg
    assert encode_request(decode_request(bytes.fromhex(hexed))).hex() == hexed


@pytest.mark.parametrize("msg, hexed", GOLDEN_RESPONSES)
def test_golden_response(msg, hexed):
    assert encode_response(msg).hex() == hexed
    assert decode_response(bytes.fromhex(hexed)) == msg
    assert encode_response(decode_response(bytes.fromhex(hexed))).hex() == hexed


@pytest.mark.parametrize("value, hexed", [
    (0, "00"), (1, "01"), (127, "7f"), (128, "8001"), (201, "c901"), (300, "ac02"), (16383, "ff7f"),
    (16384, "808001"), (2**31 - 1, "ffffffff07"),
])
def test_unsigned_varint(value, hexed):
    assert unsigned_varint(value).hex() == hexed


def test_request_v1_is_v0s_layout_and_response_v1_is_refused():
    assert encode_request(JOIN, version=1) == encode_request(JOIN)
    assert decode_request(bytes.fromhex(JOIN_HEX), version=1) == JOIN
    for call in (lambda: encode_response(EMPTY_RESPONSE, version=1),
                 lambda: decode_response(bytes.fromhex(EMPTY_RESPONSE_HEX), version=1),
                 lambda: encode_request(JOIN, version=2), lambda: decode_request(b"", version=-1)):
        with pytest.raises(ValueError, match=r"^Version: ") as info:
            call()
        assert not isinstance(info.value, DecodeError)


# ------------------------------------------------------------------------------ strategies

strings = st.text(max_size=8)
int16s, int32s, int64s = (st.integers(-(2 ** (b - 1)), 2 ** (b - 1) - 1) for b in (16, 32, 64))
tup = lambda s, n=3: st.lists(s, max_size=n).map(tuple)  # noqa: E731
key_values = st.builds(KeyValue, strings, strings)
topic_infos = st.builds(TopicInfo, strings, int32s, int16s, tup(key_values, 2))
subtopologies = st.builds(
    Subtopology, strings, tup(strings), tup(strings), tup(topic_infos, 2), tup(strings), tup(topic_infos, 2),
    tup(st.builds(CopartitionGroup, tup(int16s), tup(int16s), tup(int16s)), 2))
task_ids = st.builds(TaskIds, strings, tup(int32s, 4))
endpoints = st.builds(Endpoint, strings, st.integers(0, 65535))
task_offsets = st.builds(TaskOffset, strings, int32s, int64s)
maybe = lambda s: st.none() | s  # noqa: E731

requests = st.builds(
    StreamsGroupHeartbeat, strings, strings, int32s, int32s, maybe(strings), maybe(strings), int32s,
    maybe(st.builds(Topology, int32s, tup(subtopologies, 2))), maybe(tup(task_ids)), maybe(tup(task_ids)),
    maybe(tup(task_ids)), maybe(strings), maybe(endpoints), maybe(tup(key_values)), maybe(tup(task_offsets)),
    maybe(tup(task_offsets)), st.booleans())
responses = st.builds(
    StreamsGroupHeartbeatResponse, int16s, maybe(strings), strings, int32s, int32s, int32s, int32s,
    maybe(tup(st.builds(Status, st.integers(-128, 127), strings))), maybe(tup(task_ids)), maybe(tup(task_ids)),
    maybe(tup(task_ids)), int32s,
    maybe(tup(st.builds(EndpointToPartitions, endpoints, tup(st.builds(TopicPartitions, strings, tup(int32s))),
                        tup(st.builds(TopicPartitions, strings, tup(int32s)))), 2)),
    int32s)

CODECS = {"request": (encode_request, decode_request, requests, REQUEST),
          "response": (encode_response, decode_response, responses, RESPONSE)}


@settings(max_examples=150, deadline=None)
@given(requests, responses)
def test_round_trip(request, response):
    for encode, decode, msg in ((encode_request, decode_request, request),
                                (encode_response, decode_response, response)):
        data = encode(msg)
        assert decode(data) == msg
        assert encode(decode(data)) == data


def test_lists_encode_like_tuples():
    as_lists = JOIN._replace(warmup_tasks=[TaskIds("0", [1, 2])], client_tags=[KeyValue("z", "")])
    assert encode_request(as_lists).hex() == JOIN_HEX


# ------------------------------------------------------------------------------ kafka-python parity
# kafka-python 3.0.12 ships no StreamsGroupHeartbeat, but its StructField builds a generic
# flexible-version codec from any Kafka JSON schema. Fed the same field list, it checks the
# encoding rules (varints, compact strings and arrays, int8 null markers, tag buffers)
# independently; the field list itself is pinned by the hand-assembled vectors above.

def kafka_schema(name: str, typ) -> dict:
    field = {"name": name, "versions": "0+"}
    if isinstance(typ, Nullable):
        field["nullableVersions"] = "0+"
        typ = typ.inner
    if isinstance(typ, Array):
        if typ.nullable:
            field["nullableVersions"] = "0+"
        inner = typ.element
        field["type"] = "[]" + (inner.name if isinstance(inner, Struct) else inner)
        typ = inner
    else:
        field["type"] = typ.name if isinstance(typ, Struct) else typ
    if isinstance(typ, Struct):
        field["fields"] = [kafka_schema(n, t) for n, _, t in typ.fields]
    return field


def as_plain(value):
    """NamedTuples and kafka-python's dicts/lists alike as nested tuples of (attribute, value)."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        value = value._asdict()
    if isinstance(value, dict):
        return tuple(sorted((k, as_plain(v)) for k, v in value.items() if not k.startswith("_")))
    if isinstance(value, (list, tuple)):
        return tuple(as_plain(v) for v in value)
    return value


KAFKA_PYTHON = {kind: StructField({**kafka_schema(spec.name, spec), "validVersions": "0"})
                for kind, (_, _, _, spec) in CODECS.items()}


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(CODECS)), st.data())
def test_matches_kafka_pythons_generic_flexible_codec(kind, data):
    encode, decode, strategy, _ = CODECS[kind]
    msg = data.draw(strategy)
    theirs = KAFKA_PYTHON[kind].encode(as_dict(msg), version=0, compact=True, tagged=True)
    assert encode(msg) == theirs
    back = KAFKA_PYTHON[kind].decode(io.BytesIO(encode(msg)), version=0, compact=True, tagged=True)
    assert as_plain(back) == as_plain(msg)


def as_dict(value):
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: as_dict(v) for k, v in value._asdict().items()}
    if isinstance(value, tuple):
        return [as_dict(v) for v in value]
    return value


# ------------------------------------------------------------------------------ tagged fields

def test_unknown_tagged_fields_are_skipped_like_kafka():
    # Top level: 2 tagged fields (tag 0, 3 bytes; tag 200 = c801, 0 bytes) replace the empty buffer.
    tagged = bytes.fromhex(LEAVE_HEX[:-2] + "02" + "00" "03" "aabbcc" + "c801" "00")
    assert decode_request(tagged) == LEAVE
    # Nested: the UserEndpoint's buffer carries tag 7 with 1 byte.
    plain = encode_request(LEAVE._replace(user_endpoint=Endpoint("h", 1)))
    at = plain.index(bytes.fromhex("01" "0268" "0001" "00")) + 5
    nested = plain[:at] + bytes.fromhex("01" "07" "01" "ff") + plain[at + 1:]
    assert decode_request(nested) == LEAVE._replace(user_endpoint=Endpoint("h", 1))
    with pytest.raises(DecodeError) as info:
        decode_request(bytes.fromhex(LEAVE_HEX[:-2] + "01" "00" "05" "aabb"))
    assert info.value.field == "TaggedFields[0]"
    with pytest.raises(DecodeError) as info:
        decode_request(nested[:at + 3])  # tag 7, size 1, no byte
    assert info.value.field == "UserEndpoint.TaggedFields[0]"


# ------------------------------------------------------------------------------ encode errors

@pytest.mark.parametrize("call, field, error", [
    (lambda: encode_request(LEAVE._replace(user_endpoint=Endpoint("h", 65536))), "UserEndpoint.Port", ValueError),
    (lambda: encode_request(LEAVE._replace(user_endpoint=Endpoint("h", -1))), "UserEndpoint.Port", ValueError),
    (lambda: encode_response(StreamsGroupHeartbeatResponse(status=(Status(128),))), "Status[0].StatusCode",
     ValueError),
    (lambda: encode_request(JOIN._replace(topology=Topology(1, (Subtopology(
        subtopology_id="0", state_changelog_topics=(TopicInfo("c", 0, 2**15),)),)))),
     "Topology.Subtopologies[0].StateChangelogTopics[0].ReplicationFactor", ValueError),
    (lambda: encode_request(JOIN._replace(topology=Topology(1, (Subtopology(
        subtopology_id="0", copartition_groups=(CopartitionGroup((), (-(2**15) - 1,)),)),)))),
     "Topology.Subtopologies[0].CopartitionGroups[0].SourceTopicRegex[0]", ValueError),
    (lambda: encode_request(LEAVE._replace(task_offsets=(TaskOffset("0", 0, 2**63),))), "TaskOffsets[0].Offset",
     ValueError),
    (lambda: encode_request(LEAVE._replace(member_epoch=2**31)), "MemberEpoch", ValueError),
    (lambda: encode_request(LEAVE._replace(group_id=None)), "GroupId", ValueError),
    (lambda: encode_request(LEAVE._replace(topology=Topology(1, None))), "Topology.Subtopologies", ValueError),
    (lambda: encode_request(LEAVE._replace(rack_id="é" * 16384)), "RackId", ValueError),
    (lambda: encode_request(LEAVE._replace(process_id="\ud800")), "ProcessId", ValueError),
    (lambda: encode_response(StreamsGroupHeartbeatResponse(partitions_by_user_endpoint=(
        EndpointToPartitions(None),))), "PartitionsByUserEndpoint[0].UserEndpoint", ValueError),
    (lambda: encode_request(LEAVE._replace(shutdown_application=1)), "ShutdownApplication", TypeError),
    (lambda: encode_request(LEAVE._replace(member_epoch="1")), "MemberEpoch", TypeError),
    (lambda: encode_request(LEAVE._replace(user_endpoint=("h", 1))), "UserEndpoint", TypeError),
    (lambda: encode_request(LEAVE._replace(active_tasks=TaskIds("0"))), "ActiveTasks", TypeError),
])
def test_unencodable_values_name_the_field(call, field, error):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(f"{field}: ")
    assert not isinstance(info.value, DecodeError)


def test_longest_string_fits():
    longest = LEAVE._replace(rack_id="é" * 16383 + "x")  # 32767 UTF-8 bytes
    assert decode_request(encode_request(longest)) == longest


# ------------------------------------------------------------------------------ malformed input

@pytest.mark.parametrize("hexed, field, offset", [
    ("0167" + LEAVE_HEX[4:], "MemberId", 2),                   # GroupId "" then 'g' read as MemberId length 0x67
    ("00" + LEAVE_HEX[4:], "GroupId", 0),                      # null for a non-nullable string
    ("8000" + LEAVE_HEX[4:], "GroupId", 0),                    # varint 0 padded to two bytes
    (LEAVE_HEX[:24] + "8000" + LEAVE_HEX[26:], "InstanceId", 12),  # null, but padded: not canonical
    ("820067" + LEAVE_HEX[4:], "GroupId", 0),                  # "g" with its length 2 padded to 82 00
    ("ffffffffff" + LEAVE_HEX[4:], "GroupId", 0),              # varint longer than 5 bytes
    ("ffffffff0f" + LEAVE_HEX[4:], "GroupId", 0),              # varint 2^32 - 1: not an int32
    ("81800267", "GroupId", 0),                                # length 32768 > 0x7fff
    ("02ff" + LEAVE_HEX[4:], "GroupId", 1),                    # invalid UTF-8
    (LEAVE_HEX[:36] + "00" + LEAVE_HEX[38:], "Topology", 18),  # struct marker 0 (only -1 / 1)
    (LEAVE_HEX[:36] + "fe" + LEAVE_HEX[38:], "Topology", 18),
    (LEAVE_HEX[:-4] + "02" "00", "ShutdownApplication", 27),   # bool 2
    (LEAVE_HEX + "00", "TrailingBytes", 29),
    (LEAVE_HEX[:38] + "ffffffff07" + LEAVE_HEX[40:], "ActiveTasks", 19),  # 2^31 - 2 tasks, 9 bytes left
])
def test_malformed_requests(hexed, field, offset):
    with pytest.raises(DecodeError) as info:
        decode_request(bytes.fromhex(hexed))
    assert (info.value.field, info.value.offset) == (field, offset)
    assert str(info.value).startswith(f"{field}: ")


def test_errors_name_nested_fields():
    data = bytearray(bytes.fromhex(JOIN_HEX))
    at = data.index(bytes.fromhex("026b0276"))  # TopicConfigs[0].Key "k"
    data[at] = 0
    with pytest.raises(DecodeError) as info:
        decode_request(bytes(data))
    assert info.value.field == "Topology.Subtopologies[0].StateChangelogTopics[0].TopicConfigs[0].Key"
    assert info.value.offset == at


def test_huge_count_fails_before_looping():
    data = bytes.fromhex(EMPTY_RESPONSE_HEX[:48] + "ffffffff07" + EMPTY_RESPONSE_HEX[50:])
    with pytest.raises(DecodeError) as info:
        decode_response(data)
    assert info.value.field == "Status" and "2147483646" in str(info.value)


def decode_or_error(decode, data: bytes):
    """Decode, allowing only a well-formed DecodeError; any other exception fails the test."""
    try:
        return decode(data)
    except DecodeError as err:
        assert type(err) is DecodeError
        assert err.field and str(err).startswith(err.field + ": ")
        assert 0 <= err.offset <= len(data)
        return None


def plain_varint(data: bytes, at: int) -> int:
    """A varint read leniently (padding allowed, a cut-off one reads as what is there)."""
    value = shift = 0
    while at < len(data):
        value, shift, at = value | (data[at] & 0x7F) << shift, shift + 7, at + 1
        if not data[at - 1] & 0x80:
            break
    return value


def decode_canonical(kind: str, data: bytes):
    """Decode (only a DecodeError allowed); an accepted message must be the one encoding of its
    value unless it carried unknown tagged fields, the one thing decoding drops."""
    encode, decode, _, _ = CODECS[kind]
    tagged, skip = [], codec._skip_tagged_fields

    def recording(r, path):
        tagged.append(plain_varint(r.data, r.pos) > 0)
        skip(r, path)

    with mock.patch.object(codec, "_skip_tagged_fields", recording):
        result = decode_or_error(decode, data)
    if result is not None:
        assert decode(encode(result)) == result
        if not any(tagged):
            assert encode(result) == data
    return result


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(CODECS)), st.binary(max_size=96))
def test_arbitrary_bytes_decode_or_raise_decode_error(kind, data):
    decode_canonical(kind, data)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(CODECS)), st.data())
def test_mutated_valid_messages_decode_or_raise_decode_error(kind, data):
    encode, decode, strategy, _ = CODECS[kind]
    valid = bytearray(encode(data.draw(strategy)))
    for _ in range(data.draw(st.integers(1, 4))):
        how = data.draw(st.sampled_from(["set", "insert", "delete"]))
        i = data.draw(st.integers(0, len(valid) - 1))
        if how == "set":
            valid[i] = data.draw(st.integers(0, 255))
        elif how == "insert":
            valid[i:i] = data.draw(st.binary(min_size=1, max_size=3))
        elif len(valid) > 1:
            del valid[i]
    decode_canonical(kind, bytes(valid))


@pytest.mark.slow
@FAST
@given(requests, responses)
def test_every_truncation_is_a_decode_error(request, response):
    for decode, data in ((decode_request, encode_request(request)), (decode_response, encode_response(response))):
        for cut in range(len(data)):
            with pytest.raises(DecodeError) as info:
                decode(data[:cut])
            assert info.value.offset <= cut
