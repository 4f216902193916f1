"""KIP-1071 (StreamsGroupHeartbeat, API 88) over TCP on any broker that advertises it: the
sockets only. What is sent and how the answers are judged is the role's
(``roles/group_coordinator/compare_1071.py``); this module never imports a role.

``Members`` keeps one connection per (group, member) to the group's coordinator (found by
FindCoordinator on the bootstrap broker) and sends one StreamsGroupHeartbeat at a time,
encoded and decoded by the pure codec ``model/wire/streams_group_heartbeat.py`` (request
header v2, response header v1: the API is flexible from v0). Version 0 is sent: the codec
reads response v0 only (v1, KIP-1331, changes the response layout). The topics the topologies
read are made by ``BrokerCoordinator.ensure_topics`` (``topics.py``).
"""
from __future__ import annotations

import socket
import struct

from groupcheck.model.streams_group import StreamsGroupHeartbeat, StreamsGroupHeartbeatResponse
from groupcheck.model.wire.streams_group_heartbeat import (API_KEY, DecodeError, decode_response_frame,
                                                         encode_request_frame)

VERSION = 0
TIMEOUT_S = 10.0       # one answer; a StreamsGroupHeartbeat is answered at once (no purgatory)


class Members:
    """One connection per (group, member) on ``broker`` (a ``BrokerCoordinator`` after its
    ApiVersions: ``advertised``, ``versions``, ``_find_coordinator``)."""

    def __init__(self, broker):
        self.broker = broker
        self.conns: dict[tuple[str, str], socket.socket] = {}
        self.coordinators: dict[str, tuple[str, int]] = {}
        self.corr = 0

    def heartbeat(self, group: str, member: str, request: StreamsGroupHeartbeat) -> StreamsGroupHeartbeatResponse:
        """Send ``request`` on ``member``'s connection; its decoded answer. OSError when the
        connection fails, DecodeError when the answer cannot be read."""
        s = self._conn(group, member)
        self.corr += 1
        s.sendall(encode_request_frame(request, self.corr, version=VERSION))
        size = struct.unpack(">i", _exact(s, 4))[0]
        corr, response = decode_response_frame(_exact(s, size), VERSION)
        if corr != self.corr:
            raise DecodeError("CorrelationId", 0, f"{corr} answered, {self.corr} expected")
        return response

    def _conn(self, group: str, member: str) -> socket.socket:
        if (group, member) not in self.conns:
            if group not in self.coordinators:
                self.coordinators[group] = self.broker._find_coordinator(group)
            self.conns[(group, member)] = socket.create_connection(self.coordinators[group], timeout=TIMEOUT_S)
        return self.conns[(group, member)]

    def close(self) -> None:
        for s in self.conns.values():
            try:
                s.close()
            except OSError:
                pass
        self.conns, self.coordinators = {}, {}


def _exact(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise OSError("connection closed by the broker")
        buf += chunk
    return buf


def speaks(advertised: dict) -> bool:
    """Whether ApiVersions advertised StreamsGroupHeartbeat at a version this codec sends."""
    lo, hi = advertised.get(API_KEY, (0, -1))
    return lo <= VERSION <= hi

