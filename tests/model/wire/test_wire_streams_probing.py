"""Version probing on the wire, and the wire codecs tied to the Streams-on-classic model.

Most of "a decoder reading an unknown higher version reads only the two version fields" is
in test_wire_streams_subscription.py (future SubscriptionInfo with arbitrary trailing bytes)
and test_wire_streams_assignment.py (one v12 AssignmentInfo; fuzzed decoders). Added here:
a future SubscriptionInfo whose tail is a whole valid body, every future AssignmentInfo
version (rejected naming the version, or read with ``allow_future=True``), fuzzing the
``allow_future`` path, and the model's versions checked against the codecs."""
from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groupcheck.model.streams_classic import MODEL
from groupcheck.model.streams_classic import releases as rel
from groupcheck.model.streams_classic.member import subscribe
from groupcheck.model.streams_classic.scope import Config, StreamsScope
from groupcheck.model.streams_classic.state import ASSIGNMENT_ERROR, State
from groupcheck.model.streams_classic.step import fresh
from groupcheck.model.wire.streams_metadata import (
    EARLIEST_PROBEABLE_VERSION,
    LATEST_SUPPORTED_VERSION,
    UNKNOWN,
    AssignmentInfo,
    DecodeError,
    SubscriptionInfo,
    decode_assignment_info,
    decode_subscription_info,
    encode_assignment_info,
    encode_subscription_info,
)
from tests.helpers.streams_wire_helpers import PID

FUTURE = st.integers(LATEST_SUPPORTED_VERSION + 1, 2**31 - 1)
V11_BODY = encode_subscription_info(
    SubscriptionInfo(used_version=11, latest_supported_version=11, process_id=PID, user_endpoint="h:1",
                     task_offset_sums={(0, 1): 7}, client_tags={"az": "1"}))[8:]


def int32(v: int) -> bytes:
    return v.to_bytes(4, "big", signed=True)


# ------------------------------------------------------------------------------ future SubscriptionInfo

@pytest.mark.parametrize("used, latest", [(12, 12), (12, 13), (13, 13)])
def test_future_subscription_with_a_valid_body_reads_only_the_versions(used, latest):
    """A v12/v13 sender's body is unknown to us; even a well-formed v11 body is not read."""
    for strict in (True, False):
        info = decode_subscription_info(int32(used) + int32(latest) + V11_BODY, strict=strict)
        assert info == SubscriptionInfo(used_version=used, latest_supported_version=latest)
        assert info.process_id != PID and info.task_offset_sums == () and info.client_tags == ()


# ------------------------------------------------------------------------------ future AssignmentInfo

@settings(max_examples=80, deadline=None)
@given(FUTURE, st.binary(max_size=40))
def test_every_future_assignment_is_a_decode_error_naming_the_version(version, tail):
    data = int32(version) + tail
    for strict in (True, False):
        with pytest.raises(DecodeError) as info:
            decode_assignment_info(data, strict=strict)
        assert info.value.field == "version" and info.value.offset == 0
        assert str(info.value).startswith("version: ") and str(version) in str(info.value)


@settings(max_examples=80, deadline=None)
@given(FUTURE, st.integers(-(2**31), 2**31 - 1), st.binary(max_size=40))
def test_allow_future_reads_only_the_two_versions(version, commonly, tail):
    data = int32(version) + int32(commonly) + tail
    assert decode_assignment_info(data, allow_future=True) == AssignmentInfo(
        used_version=version, commonly_supported_version=commonly)


@pytest.mark.parametrize("tail", [b"", b"\x00", b"\x00\x00\x0b"])
def test_allow_future_needs_the_commonly_supported_version(tail):
    with pytest.raises(DecodeError) as info:
        decode_assignment_info(int32(12) + tail, allow_future=True)
    assert info.value.field == "commonlySupportedVersion" and info.value.offset == 4


def test_allow_future_does_not_change_known_versions():
    data = encode_assignment_info(AssignmentInfo(used_version=11, commonly_supported_version=11, active_tasks=[(0, 1)]))
    assert decode_assignment_info(data, allow_future=True) == decode_assignment_info(data)
    with pytest.raises(DecodeError, match="^TrailingBytes: "):
        decode_assignment_info(data + b"\x00", allow_future=True)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([1, 2, 3, 11, 12, 13, 2**31 - 1, 0, -1]), st.binary(max_size=64), st.booleans())
def test_fuzzed_allow_future_decoder_gives_clear_decode_errors(version, body, strict):
    data = int32(version) + body
    try:
        info = decode_assignment_info(data, strict=strict, allow_future=True)
    except DecodeError as err:
        assert type(err) is DecodeError
        assert err.field and str(err).startswith(err.field + ": ")
        assert 0 <= err.offset <= len(data)
        assert version >= 1 or err.field == "version"
    else:
        assert info.used_version == version
        if version > LATEST_SUPPORTED_VERSION:
            assert info == AssignmentInfo(used_version=version,
                                          commonly_supported_version=int.from_bytes(body[:4], "big", signed=True))


# ------------------------------------------------------------------------------ the model's versions on the wire

def test_model_and_wire_agree_on_the_version_constants():
    assert rel.EARLIEST_PROBEABLE_VERSION == EARLIEST_PROBEABLE_VERSION
    assert rel.release(rel.LATEST_RELEASE).latest == LATEST_SUPPORTED_VERSION
    assert rel.release("next").latest == LATEST_SUPPORTED_VERSION + 1


def model_subscription(name: str, upgrade_from: str | None = None):
    """The (used, latest) a fresh thread of ``name`` puts in its first JoinGroup."""
    scope = StreamsScope(instances=1, plan=(Config(name, upgrade_from),))
    m, _ = subscribe(scope, scope.plan[0], fresh(scope, 0, "joining"), False)
    return m.sub.used, m.sub.latest


def wire_subscription(used: int, latest: int) -> bytes:
    """SubscriptionInfo bytes as the release would write them (v1/v2 carry no latest)."""
    if used > LATEST_SUPPORTED_VERSION:       # "next": no Kafka layout yet; assume v11's body
        return int32(used) + int32(latest) + V11_BODY
    return encode_subscription_info(SubscriptionInfo(
        used_version=used, latest_supported_version=latest if used >= EARLIEST_PROBEABLE_VERSION else UNKNOWN,
        process_id=PID))


def decoded_versions(data: bytes) -> tuple[int, int]:
    """(used, latest) as a leader reads them; v1/v2 latest is the used version."""
    info = decode_subscription_info(data)
    latest = info.latest_supported_version if info.used_version >= EARLIEST_PROBEABLE_VERSION else info.used_version
    return info.used_version, latest


@pytest.mark.parametrize("name", list(rel.RELEASES))
def test_every_releases_subscription_round_trips_with_the_models_versions(name):
    used, latest = model_subscription(name)
    assert used == latest == rel.release(name).latest
    data = wire_subscription(used, latest)
    assert int.from_bytes(data[:4], "big") == used
    assert decoded_versions(data) == (used, latest)
    info = decode_subscription_info(data)
    if name == "next":                         # the probing path: only the versions are read
        assert info == SubscriptionInfo(used_version=12, latest_supported_version=12)
    else:
        assert info.process_id == PID


@pytest.mark.parametrize("name, upgrade_from", [
    (name, value) for name in ("0.10.1", "1.1", "2.0", "2.3", "2.4", "3.9", "next")
    for value in rel.UPGRADE_FROM if rel.accepts_upgrade_from(name, value)
])
def test_subscriptions_under_upgrade_from_round_trip_with_the_models_versions(name, upgrade_from):
    used, latest = model_subscription(name, upgrade_from)
    assert decoded_versions(wire_subscription(used, latest)) == (used, latest)


def test_a_future_subscription_is_future_to_the_model_and_the_wire_alike():
    """A leader treats a subscription as future exactly when its used version is above what
    the leader's release knows; for the wire (which knows v11) that is the probing path."""
    used, _ = model_subscription("next")
    for name, r in rel.RELEASES.items():
        assert (used > r.latest) == (name != "next")
    assert decode_subscription_info(wire_subscription(used, used)) == SubscriptionInfo(
        used_version=used, latest_supported_version=used)


def reachable_assignments(scope: StreamsScope) -> set[tuple[int, int, str]]:
    """(version, supported, error) of every AssignmentInfo the model hands out in ``scope``."""
    init = MODEL.init_states(scope)[0]
    seen: set[State] = {init}
    queue = deque([init])
    out = set()
    while queue:
        state = queue.popleft()
        out |= {m.inbox[:3] for m in state.members if m.inbox is not None}
        if not MODEL.within_bounds(scope, state):
            continue
        for action in MODEL.actions(scope, state):
            nxt, _ = MODEL.step(scope, state, action)
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return out


def wire_assignment(version: int, supported: int, error: str) -> AssignmentInfo:
    return AssignmentInfo(used_version=version,
                          commonly_supported_version=supported if version >= EARLIEST_PROBEABLE_VERSION else UNKNOWN,
                          error_code=3 if error == ASSIGNMENT_ERROR else 0)


@pytest.mark.parametrize("plan", [
    (Config("2.3"), Config("3.9")),
    (Config("3.9"), Config("next")),
    (Config("0.10.0"), Config("2.0", "0.10.0"), Config("2.0")),
], ids=["2.3-3.9", "3.9-next", "0.10.0-2.0"])
def test_every_assignment_the_model_hands_out_is_encodable(plan):
    found = reachable_assignments(StreamsScope(instances=2, tasks=2, plan=plan))
    assert found
    for version, supported, error in found:
        info = wire_assignment(version, supported, error)
        if version > LATEST_SUPPORTED_VERSION:       # a "next" leader's own version: unknown here
            with pytest.raises(DecodeError):
                decode_assignment_info(int32(version) + int32(supported))
            continue
        again = decode_assignment_info(encode_assignment_info(info, drop_unsupported=False))
        assert (again.used_version, again.commonly_supported_version, again.error_code) == (
            info.used_version, info.commonly_supported_version, info.error_code)


def test_the_assignment_error_answer_can_carry_its_error_code():
    """StreamsPartitionAssignor#errorAssignment encodes the ASSIGNMENT_ERROR answer at the
    leader's LATEST_SUPPORTED_VERSION: errCode exists only from AssignmentInfo v4, so at
    minReceived (v1/v2) the error would be dropped on the wire (kafka-behavior.md A1: every
    member gets errCode ASSIGNMENT_ERROR(3))."""
    scope = StreamsScope(instances=2, tasks=2, plan=(Config("3.9", "1.1"), Config("next")))
    found = reachable_assignments(scope)
    errors = [a for a in found if a[2] == ASSIGNMENT_ERROR]
    assert errors                               # reachable: a v12 and a v2 subscription meet a 3.9 leader
    for version, supported, error in errors:
        assert (version, supported) == (rel.release("3.9").latest,) * 2
        data = encode_assignment_info(wire_assignment(version, supported, error), drop_unsupported=False)
        again = decode_assignment_info(data)
        assert (again.used_version, again.commonly_supported_version, again.error_code) == (version, supported, 3)
