"""A TCP connection to a group coordinator (librdkafka's mock, or any broker with API 68) that sends ConsumerGroupHeartbeat v1
requests and reads the answers; the bytes are encoded and decoded by the pure codec
``groupcheck.model.wire.consumer_group_heartbeat``."""
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
        self.corr += 1
        self.sock.sendall(encode_request(self.corr, **fields))
        size = struct.unpack(">i", self._read(4))[0]
        corr, resp = decode_response(self._read(size))
        if corr != self.corr:
            raise WireError(f"correlation id {corr} answered, {self.corr} expected")
        return resp

    def _read(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise WireError("the broker closed the connection")
            buf += chunk
        return buf

    def close(self) -> None:
        self.sock.close()
