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

from groupcheck.model.streams_group import StreamsGroupHeartbeat, StreamsGroupHeartbeatResponse
from groupcheck.model.wire.streams_group_heartbeat import (API_KEY, DecodeError, decode_response_frame,
                                                         encode_request_frame)

from .connection import Connection

VERSION = 0
TIMEOUT_S = 10.0       # one answer; a StreamsGroupHeartbeat is answered at once (no purgatory)


class Members:
    """One connection per (group, member) on ``broker`` (a ``BrokerCoordinator`` after its
    ApiVersions: ``advertised``, ``versions``, ``_find_coordinator``)."""

    def __init__(self, broker):
        self.broker = broker
        self.conns: dict[tuple[str, str], Connection] = {}
        self.coordinators: dict[str, str] = {}

    def heartbeat(self, group: str, member: str, request: StreamsGroupHeartbeat) -> StreamsGroupHeartbeatResponse:
        """Send ``request`` on ``member``'s connection; its decoded answer. OSError when the
        connection fails, DecodeError when the answer cannot be read."""
        conn = self._conn(group, member)
        sent = conn.next_correlation_id()
        corr, response = decode_response_frame(conn.exchange(encode_request_frame(request, sent, version=VERSION)),
                                               VERSION)
        if corr != sent:
            raise DecodeError("CorrelationId", 0, f"{corr} answered, {sent} expected")
        return response

    def _conn(self, group: str, member: str) -> Connection:
        if (group, member) not in self.conns:
            if group not in self.coordinators:
                self.coordinators[group] = self.broker.coordinator_for(group)
            self.conns[(group, member)] = Connection(self.coordinators[group], timeout_s=TIMEOUT_S)
        return self.conns[(group, member)]

    def close(self) -> None:
        for c in self.conns.values():
            try:
                c.close()
            except OSError:
                pass
        self.conns, self.coordinators = {}, {}


def speaks(advertised: dict) -> bool:
    """Whether ApiVersions advertised StreamsGroupHeartbeat at a version this codec sends."""
    lo, hi = advertised.get(API_KEY, (0, -1))
    return lo <= VERSION <= hi
