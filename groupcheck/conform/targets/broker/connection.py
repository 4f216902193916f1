"""A TCP connection to a broker (librdkafka's mock, or any broker): ``exchange`` sends one
framed request and returns the response's bytes, for a pure codec of ``model/wire/`` to
read; ``heartbeat`` is that for ConsumerGroupHeartbeat v1
(``groupcheck.model.wire.consumer_group_heartbeat``). A broker target hands these out
(``BrokerCoordinator.connect``; ``kip1071.Members`` keeps one per streams-group member);
the roles drive them. A connection the broker closes is a ConnectionError (an OSError)."""
from __future__ import annotations

import socket
import struct

from groupcheck.model.wire.consumer_group_heartbeat import Response, WireError, decode_response, encode_request


class Connection:
    """One TCP connection to a broker (``host:port``); one request at a time."""

    def __init__(self, address: str, timeout_s: float = 5.0):
        host, _, port = address.rpartition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout_s)
        self.corr = 0

    def heartbeat(self, **fields) -> Response:
        """One ConsumerGroupHeartbeat (``encode_request``'s fields), its decoded answer."""
        sent = self.next_correlation_id()
        corr, resp = decode_response(self.exchange(encode_request(sent, **fields)))
        if corr != sent:
            raise WireError(f"correlation id {corr} answered, {sent} expected")
        return resp

    def exchange(self, frame: bytes) -> bytes:
        """Send one framed request (size, header, body); the response after its size prefix
        (header and body). The caller numbers its requests (``next_correlation_id``)."""
        self.sock.sendall(frame)
        return self._read(struct.unpack(">i", self._read(4))[0])

    def next_correlation_id(self) -> int:
        """The correlation id of the next request on this connection (1, 2, ...)."""
        self.corr += 1
        return self.corr

    def _read(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            buf += chunk
        return buf

    def close(self) -> None:
        self.sock.close()
