"""Target ``librdkafka-mock``: the classic group coordinator of librdkafka's mock cluster
(src/rdkafka_mock_cgrp.c, unchanged from v2.15.0 to the mirror's HEAD; the installed
confluent-kafka bundles 2.16.0), reached over TCP with real Kafka requests encoded by
kafka-python (JoinGroup v5, SyncGroup v3, Heartbeat v3, LeaveGroup v1).

The time bridge: the mock decides on timers, not on requests. A JoinGroup is answered
when its rebalance timer fires (``session_timeout_ms - 1000`` after a rebalance starts,
``group_initial_rebalance_delay_ms`` (0 here) for a first join), so after a JoinGroup the
adapter collects answers for that delay plus a margin; after other requests for
``WINDOW`` seconds. ``advance`` waits for the session timer (1 s tick) or the rebalance
timer. Each slot has its own connection (the mock blocks a connection while it holds a
request on it); ``disconnect`` closes it.
"""
from __future__ import annotations

import socket
import struct
import threading
import time

from kafka.protocol.consumer.group import (
    HeartbeatRequest, HeartbeatResponse, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest,
    LeaveGroupResponse, SyncGroupRequest, SyncGroupResponse,
)
from kafka.errors import for_code

from ..adapter import Hello, Outcome
from ..librdkafka.mock import MockCluster
from .reference import ROLE

SESSION_MS = 2000
WINDOW = 0.15
VERSIONS = {"JoinGroup": (JoinGroupRequest, JoinGroupResponse, 5), "SyncGroup": (SyncGroupRequest, SyncGroupResponse, 3),
            "Heartbeat": (HeartbeatRequest, HeartbeatResponse, 3), "LeaveGroup": (LeaveGroupRequest, LeaveGroupResponse, 1)}


def _error(code: int) -> str:
    import re
    name = for_code(code).__name__.removesuffix("Error")
    return "NONE" if code == 0 else re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


class MockCoordinator:
    name = "librdkafka-mock"
    note = "librdkafka's mock cluster classic group coordinator (rdkafka_mock_cgrp.c), over TCP"
    config = {"session_timeout_ms": SESSION_MS}

    def __init__(self):
        self.cluster = None
        self.lock = threading.Lock()

    def open(self) -> Hello:
        self.cluster = MockCluster(1, initial_rebalance_delay_ms=0)
        host, port = self.cluster.bootstraps.split(",")[0].rsplit(":", 1)
        self.addr = (host, int(port))
        return Hello(self.name, "librdkafka 2.16.0", (ROLE,), extra={"kip394": False})

    # ---- connections ----
    def _conn(self, slot: int):
        if slot not in self.conns:
            s = socket.create_connection(self.addr, timeout=5)
            s.settimeout(None)
            self.conns[slot] = s
            threading.Thread(target=self._read, args=(slot, s), daemon=True).start()
        return self.conns[slot]

    def _read(self, slot: int, s: socket.socket) -> None:
        try:
            while True:
                head = self._exact(s, 4)
                body = self._exact(s, struct.unpack(">i", head)[0])
                corr = struct.unpack(">i", body[:4])[0]
                with self.lock:
                    kind, to, cls, version = self.sent.pop((slot, corr))
                    self.arrived.append((slot, kind, to, cls.decode(body[4:], version=version)))
        except (OSError, KeyError, ValueError):
            return

    @staticmethod
    def _exact(s, n):
        buf = b""
        while len(buf) < n:
            chunk = s.recv(n - len(buf))
            if not chunk:
                raise OSError("closed")
            buf += chunk
        return buf

    def setup(self, role: str, config: dict) -> Outcome:
        self.close_connections()
        self.group, self.session = config["group"], config.get("session_timeout_ms", SESSION_MS)
        self.conns, self.sent, self.arrived, self.corr = {}, {}, [], 0
        return Outcome("ok", {})

    def _send(self, slot: int, req: dict) -> None:
        kind = req["kind"]
        rq, rs, version = VERSIONS[kind]
        if kind == "JoinGroup":
            msg = rq(group_id=self.group, session_timeout_ms=self.session, rebalance_timeout_ms=self.session,
                     member_id=req["member_id"], group_instance_id=None, protocol_type="consumer",
                     protocols=[rq.JoinGroupRequestProtocol(name=p, metadata=req["metadata"].encode())
                                for p in req["protocols"]])
        elif kind == "SyncGroup":
            msg = rq(group_id=self.group, generation_id=req["generation"], member_id=req["member_id"],
                     group_instance_id=None,
                     assignments=[rq.SyncGroupRequestAssignment(member_id=a["member_id"],
                                                                assignment=a["assignment"].encode())
                                  for a in req["assignments"]])
        elif kind == "Heartbeat":
            msg = rq(group_id=self.group, generation_id=req["generation"], member_id=req["member_id"],
                     group_instance_id=None)
        else:
            msg = rq(group_id=self.group, member_id=req["member_id"])
        self.corr += 1
        msg.with_header(correlation_id=self.corr, client_id="groupcheck")
        with self.lock:
            self.sent[(slot, self.corr)] = (kind + "Response", req["member_id"], rs, version)
        self._conn(slot).sendall(msg.encode(version=version, header=True, framed=True))

    def _collect(self, wait: float) -> list[dict]:
        time.sleep(wait)
        with self.lock:
            got, self.arrived = self.arrived, []
        return [{"member": slot, "response": self._response(kind, to, r)} for slot, kind, to, r in got]

    @staticmethod
    def _response(kind: str, to: str, r) -> dict:
        out = {"kind": kind, "to": to, "error": _error(r.error_code)}
        if kind == "JoinGroupResponse":
            out.update(generation=r.generation_id, member_id=r.member_id or "", leader=r.leader or "",
                       protocol=r.protocol_name or "",
                       members=[{"member_id": m.member_id, "metadata": bytes(m.metadata).decode()} for m in r.members])
        elif kind == "SyncGroupResponse":
            out["assignment"] = bytes(r.assignment or b"").decode()
        return out

    def invoke(self, role: str, f: str, value) -> Outcome:
        try:
            if f == "request":
                self._send(value["member"], value["request"])
                join = value["request"]["kind"] == "JoinGroup"
                return Outcome("ok", {"responses": self._collect(self.session / 1000 - 0.7 if join else WINDOW)})
            if f == "advance":
                wait = self.session / 1000 + 1.2 if value["reason"] == "session_timeout" else self.session / 1000
                return Outcome("ok", {"responses": self._collect(wait)})
            if f == "disconnect":
                s = self.conns.pop(value["member"], None)
                if s is not None:
                    s.close()
                return Outcome("ok", {"responses": self._collect(WINDOW)})
        except OSError as e:
            return Outcome("info", error=f"mock connection: {e}")
        return Outcome("fail", error=f"unknown function {f!r}")

    def probe_member_id_required(self) -> str | None:
        """KIP-394: a JoinGroup v5 without member id on a new group; the message if the
        mock does not answer MEMBER_ID_REQUIRED."""
        self.setup(ROLE, {"group": "gc-probe-kip394"})
        self._send(0, {"kind": "JoinGroup", "member_id": "", "protocols": ["range"], "metadata": ""})
        got = self._collect(0.5)
        self.close_connections()
        if got and got[0]["response"]["error"] == "MEMBER_ID_REQUIRED":
            return None
        r = got[0]["response"] if got else None
        return ("JoinGroup v5 without member id was " + (f"answered {r['error']} with member id {r['member_id']!r}, "
                f"generation {r['generation']}" if r else "held") + ", not MEMBER_ID_REQUIRED")

    def close_connections(self) -> None:
        for s in getattr(self, "conns", {}).values():
            try:
                s.close()
            except OSError:
                pass
        self.conns = {}

    def teardown(self) -> None:
        self.close_connections()

    def close(self) -> None:
        self.close_connections()
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
