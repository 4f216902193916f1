"""A tiny broker for the KIP-1071 tests: the streams-group model's coordinator served over TCP.

No broker on this machine advertises StreamsGroupHeartbeat (API 88), so the transport
(``targets/broker/kip1071.py``) and the comparison (``roles/group_coordinator/
compare_1071.py``) are tested against the model itself: each StreamsGroupHeartbeat frame is
decoded with the byte-exact codec, handed to ``model.streams_group.heartbeat`` under a
profile, and the response encoded back. ApiVersions, FindCoordinator (v0: this server is the
coordinator) and CreateTopics (the topics the model's cluster holds) are kafka-python's
protocol classes. ApiVersions also lists the classic group APIs a ``BrokerCoordinator``
requires (JoinGroup ...), which this server does not answer (it closes the connection):
the tests use only its KIP-1071 path.

``broken`` makes it a wrong coordinator the comparison must catch:
``keeps-old-epoch`` answers every heartbeat (epoch > 0) with the epoch sent;
``assigns-before-revoking`` gives a member its target's active tasks at once, without
waiting for their owner to revoke them.
"""
from __future__ import annotations

import socketserver
import struct
import threading

from kafka.protocol.admin.topics import CreateTopicsRequest, CreateTopicsResponse
from kafka.protocol.metadata import (ApiVersionsRequest, ApiVersionsResponse, FindCoordinatorRequest,
                                     FindCoordinatorResponse)

from groupcheck.conform.roles.group_coordinator.compare_1071 import model_group, names_for
from groupcheck.model.streams_group import Cluster, heartbeat
from groupcheck.model.streams_group.group import task_ids_of
from groupcheck.model.wire.streams_group_heartbeat import decode_request_frame, encode_response_frame

CLASSIC = {11: (0, 5), 14: (0, 3), 12: (0, 3), 13: (0, 3)}     # JoinGroup SyncGroup Heartbeat LeaveGroup
BROKEN = ("keeps-old-epoch", "assigns-before-revoking")


class ModelBroker:
    """Start with ``with ModelBroker(...) as b:``; ``b.address`` is ``127.0.0.1:PORT``."""

    def __init__(self, profile: str = "kafka-4.1", api88: bool = True, broken: str | None = None):
        assert broken in (None, *BROKEN), broken
        self.profile, self.api88, self.broken = profile, api88, broken
        self.lock = threading.Lock()
        self.groups: dict = {}
        self.topics: dict[str, int] = {}
        self.heartbeats = 0

    def __enter__(self) -> "ModelBroker":
        broker = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                broker.serve(self.request)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.address = f"127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    # ---- one connection ----
    def serve(self, s) -> None:
        try:
            while True:
                head = _exact(s, 4)
                if head is None:
                    return
                data = _exact(s, struct.unpack(">i", head)[0])
                api_key, version = struct.unpack(">hh", data[:4])
                answer = self.answer(api_key, version, data)
                if answer is None:
                    return
                s.sendall(answer)
        except OSError:
            return

    def answer(self, api_key: int, version: int, data: bytes) -> bytes | None:
        if api_key == 88:
            return self._streams(data) if self.api88 else None   # an API it does not know: closed
        handlers = {18: (ApiVersionsRequest, self._api_versions), 10: (FindCoordinatorRequest, self._find),
                    19: (CreateTopicsRequest, self._create_topics)}
        if api_key not in handlers:
            return None
        cls, handle = handlers[api_key]
        rq = cls.decode(data, version=version, header=True)
        rs = handle(rq)
        rs.API_VERSION = version                 # before the header: a response header has no version
        rs.with_header(correlation_id=rq.header.correlation_id)
        return rs.encode(header=True, framed=True)

    def _api_versions(self, rq):
        keys = {18: (0, 0), 10: (0, 0), 19: (0, 4), **CLASSIC, **({88: (0, 0)} if self.api88 else {})}
        return ApiVersionsResponse(error_code=0, api_keys=[
            ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi) for k, (lo, hi) in keys.items()])

    def _find(self, rq):
        return FindCoordinatorResponse(error_code=0, node_id=0, host="127.0.0.1", port=self.port)

    def _create_topics(self, rq):
        out = []
        with self.lock:
            for t in rq.topics:
                code = 36 if t.name in self.topics else 0
                self.topics.setdefault(t.name, t.num_partitions)
                out.append(CreateTopicsResponse.CreatableTopicResult(name=t.name, error_code=code))
        return CreateTopicsResponse(topics=out)

    # ---- StreamsGroupHeartbeat: the model's answer ----
    def _streams(self, data: bytes) -> bytes:
        version, corr, request = decode_request_frame(data)
        with self.lock:
            self.heartbeats += 1
            gid = request.group_id
            group = self.groups.get(gid) or model_group(gid, names_for("server"))[0]
            out = heartbeat(group, request, Cluster(topics=tuple(sorted(self.topics.items()))), self.profile)
            self.groups[gid] = out.group
            response = self._break(request, out.response, out.group)
        return encode_response_frame(response, corr, version)

    def _break(self, request, response, group):
        if self.broken is None or response.error_code != 0 or response.member_epoch < 0:
            return response
        if self.broken == "keeps-old-epoch" and request.member_epoch > 0:
            return response._replace(member_epoch=request.member_epoch)
        if self.broken == "assigns-before-revoking" and response.active_tasks is not None:
            target = group.target_of(request.member_id)
            return response._replace(active_tasks=task_ids_of(group.task_index, target[0]))
        return response


def _exact(s, n: int) -> bytes | None:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf
