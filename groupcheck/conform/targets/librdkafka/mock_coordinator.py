"""Target ``librdkafka-mock``: the classic group coordinator of librdkafka's mock cluster
(src/rdkafka_mock_cgrp.c, unchanged from v2.15.0 to the mirror's HEAD; the installed
confluent-kafka bundles 2.16.0), reached over TCP as any broker is (``broker.py``), with
what is specific to the mock: it runs in process (``MockCluster``), it keeps the request
versions this target was first judged with (JoinGroup v5, SyncGroup v3, Heartbeat v3,
LeaveGroup v1), it predates KIP-394 (``probe_member_id_required``), and its timers.

The mock decides on timers, not on requests: a JoinGroup is answered when its rebalance
timer fires (``session_timeout_ms - 1000`` after a rebalance starts;
``group_initial_rebalance_delay_ms`` is 0 here), so a JoinGroup's deadline is that
delay plus a margin; ``advance`` waits for the session timer (1 s tick) or the
rebalance timer. No keep-alive heartbeats: the session timeout (2 s) outlasts a
scenario's waits between the model's own heartbeats, as it always has for this target.

For the KIP-848 comparison (role group-coordinator's ``compare_848``) it offers a broker's
effects (``broker.py``'s docstring), with topics made in process (the mock does not answer
CreateTopics), its consumer-group timeouts set at ``open`` (session 30 s, heartbeat
interval 3 s), and ``judgements_key`` ``librdkafka-mock``: the role's judgements that
name the mock's code apply.
"""
from __future__ import annotations

from ...adapter import Hello
from .mock import MockCluster
from .mock_848 import ConsumerGroupMock
from ..broker.broker import BrokerCoordinator
from ..inprocess.coordinator import ROLE

SESSION_MS = 2000
WINDOW = 0.15


class MockCoordinator(BrokerCoordinator):
    name = "librdkafka-mock"
    keepalive = False
    rebalance_factor = 1             # as this target always sent: the mock's timer is session - 1 s anyway
    fixed_versions = {"JoinGroup": 5, "SyncGroup": 3, "Heartbeat": 3, "LeaveGroup": 1}
    consumer_group_timeouts_ms = (30000, 3000)    # KIP-848 groups: session timeout, heartbeat interval

    def __init__(self):
        self.cluster = None
        super().__init__("127.0.0.1:1", name=self.name)
        self.note = "librdkafka's mock cluster classic group coordinator (rdkafka_mock_cgrp.c), over TCP"
        self.config = {"session_timeout_ms": SESSION_MS}

    def open(self) -> Hello:
        self.cluster = MockCluster(1, initial_rebalance_delay_ms=0)
        ConsumerGroupMock(self.cluster).set_timeouts(*self.consumer_group_timeouts_ms)
        host, port = self.cluster.bootstraps.split(",")[0].rsplit(":", 1)
        self.bootstrap = (host, int(port))
        hello = super().open()
        return Hello(self.name, "librdkafka 2.16.0", (ROLE,), extra={"kip394": False, "probes": hello.extra["probes"]}) \
            if hello else hello

    def create_topic(self, name: str, partitions: int) -> bool:
        """The mock does not answer CreateTopics: topics are made in process."""
        self.cluster.topic_create(name, partitions)
        return True

    def _timing(self) -> dict:
        return {"session_timeout_ms": SESSION_MS, "join_delay_s": SESSION_MS / 1000 - 1,
                "source": "the mock's timers (rdkafka_mock_cgrp.c): a join round ends session - 1 s after it starts"}

    def setup(self, role: str, config: dict):
        out = super().setup(role, config)
        self.session_ms = config.get("session_timeout_ms", SESSION_MS)
        self.rebalance_ms = self.rebalance_factor * self.session_ms
        return out

    def request_deadline(self, kind: str) -> float:
        return self.session_ms / 1000 - 0.7 if kind == "JoinGroup" else WINDOW

    def advance_deadline(self, reason: str) -> float:
        return self.session_ms / 1000 + (1.2 if reason == "session_timeout" else 0)

    def probe_member_id_required(self) -> str | None:
        """KIP-394: a JoinGroup v5 without member id on a new group; the message if the
        mock does not answer MEMBER_ID_REQUIRED."""
        self.setup(ROLE, {"group": "gc-probe-kip394"})
        self._send(0, {"kind": "JoinGroup", "member_id": "", "protocols": ["range"], "metadata": ""})
        got = self.wait(0.5, want=1)
        self.close_connections()
        if got and got[0]["response"]["error"] == "MEMBER_ID_REQUIRED":
            return None
        r = got[0]["response"] if got else None
        return ("JoinGroup v5 without member id was " + (f"answered {r['error']} with member id {r['member_id']!r}, "
                f"generation {r['generation']}" if r else "held") + ", not MEMBER_ID_REQUIRED")

    def close(self) -> None:
        super().close()
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
