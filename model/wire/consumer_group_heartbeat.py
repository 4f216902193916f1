"""ConsumerGroupHeartbeat v1 (ApiKey 68) on the wire, to talk to the mock coordinator directly.

kafka-python 3.0.12 has no KIP-848 messages, so the request and response are written here
from the schemas (apache/kafka clients/src/main/resources/common/message/
ConsumerGroupHeartbeatRequest.json / ...Response.json; v1 is flexible: compact strings and
arrays, tagged fields; request header v2, response header v1). The mock accepts v1 only
(rdkafka_mock_handlers.c, the ApiVersions table: ``{1, 1, ...}`` for ConsumerGroupHeartbeat).

The mock *asserts* on some malformed requests instead of answering them
(``rd_kafka_mock_handle_ConsumerGroupHeartbeat``: ``rd_assert`` on a null GroupId or MemberId,
MemberEpoch < -2, RebalanceTimeoutMs < -1; rdkafka_mock_cgrp.c ``validate_subscription``
unless SubscribedTopicNames and SubscribedTopicRegex are both null or both set, and on empty
names with an empty regex): ``Connection.heartbeat`` refuses those before sending,
since an abort would take this process down.
"""
from __future__ import annotations

import struct
import uuid
from typing import NamedTuple, Optional

__all__ = ["API_KEY", "API_VERSION", "Response", "WireError", "decode_response", "encode_request"]

API_KEY, API_VERSION = 68, 1


class WireError(RuntimeError):
    """A request this module will not send, or an answer it cannot read."""


class Response(NamedTuple):
    error_code: int
    error_message: Optional[str]
    member_id: Optional[str]
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: Optional[dict]          # topic id (uuid str) -> sorted partitions; None: not sent


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _cstr(s: Optional[str]) -> bytes:
    if s is None:
        return b"\0"
    b = s.encode()
    return _uvarint(len(b) + 1) + b


def encode_request(correlation_id: int, group_id: str, member_id: str, member_epoch: int,
                   instance_id: Optional[str] = None, rack_id: Optional[str] = None, rebalance_timeout_ms: int = -1,
                   topic_names: Optional[list[str]] = None, topic_regex: Optional[str] = None,
                   server_assignor: Optional[str] = None, owned: Optional[dict] = None) -> bytes:
    """A framed ConsumerGroupHeartbeat v1 request. ``owned``: topic id (uuid str) -> partitions, or None."""
    if not member_id or not group_id:
        raise WireError("the mock asserts on an empty GroupId / MemberId (KIP-1082: the client generates one)")
    if member_epoch < -2 or rebalance_timeout_ms < -1:
        raise WireError("the mock asserts on MemberEpoch < -2 or RebalanceTimeoutMs < -1")
    if (topic_names is None) != (topic_regex is None):
        raise WireError("the mock asserts unless SubscribedTopicNames and SubscribedTopicRegex are both null or both"
                        " set (librdkafka sends the regex \"\" with names; Kafka's Java client sends null)")
    if topic_names is not None and not topic_names and not topic_regex:
        raise WireError("the mock asserts on an empty SubscribedTopicNames without a regex")
    header = struct.pack(">hhi", API_KEY, API_VERSION, correlation_id) + struct.pack(">h", 9) + b"groupchk" + b"k" \
        + b"\0"
    body = _cstr(group_id) + _cstr(member_id) + struct.pack(">i", member_epoch) + _cstr(instance_id) + _cstr(rack_id)
    body += struct.pack(">i", rebalance_timeout_ms)
    body += b"\0" if topic_names is None else _uvarint(len(topic_names) + 1) + b"".join(_cstr(t) for t in topic_names)
    body += _cstr(topic_regex) + _cstr(server_assignor)
    if owned is None:
        body += b"\0"
    else:
        body += _uvarint(len(owned) + 1)
        for tid, parts in owned.items():
            body += uuid.UUID(tid).bytes + _uvarint(len(parts) + 1) + b"".join(struct.pack(">i", p) for p in parts)
            body += b"\0"
    body += b"\0"
    msg = header + body
    return struct.pack(">i", len(msg)) + msg


class _Reader:
    def __init__(self, data: bytes):
        self.d, self.i = data, 0

    def take(self, n: int) -> bytes:
        if self.i + n > len(self.d):
            raise WireError("truncated ConsumerGroupHeartbeat response")
        b = self.d[self.i:self.i + n]
        self.i += n
        return b

    def unpack(self, fmt: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def uvarint(self) -> int:
        n = shift = 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n

    def cstr(self) -> Optional[str]:
        n = self.uvarint()
        return None if n == 0 else self.take(n - 1).decode()

    def tags(self) -> None:
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def decode_response(data: bytes) -> tuple[int, Response]:
    """(correlation id, Response) from a response frame without its length prefix."""
    r = _Reader(data)
    corr = r.unpack(">i")
    r.tags()
    r.unpack(">i")                      # ThrottleTimeMs
    err = r.unpack(">h")
    msg = r.cstr()
    mid = r.cstr()
    epoch = r.unpack(">i")
    hb = r.unpack(">i")
    assignment = None
    if r.unpack(">b") >= 0:
        assignment = {}
        for _ in range(r.uvarint() - 1):
            tid = str(uuid.UUID(bytes=r.take(16)))
            parts = [r.unpack(">i") for _ in range(r.uvarint() - 1)]
            r.tags()
            assignment[tid] = sorted(parts)
        r.tags()
    r.tags()
    return corr, Response(error_code=err, error_message=msg, member_id=mid, member_epoch=epoch,
                          heartbeat_interval_ms=hb, assignment=assignment)
