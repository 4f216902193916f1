"""librdkafka's mock cluster as the broker of real client processes (issue 30 records).

``MockBroker`` has ``clients.broker.Broker``'s interface (``open``, ``new_topic``,
``create_topic``, ``close``, ``bootstrap``, ``name``, ``min_session_ms``, ``log_path``),
so ``runner_broker.run_scenario`` runs worker processes (``targets/clients/worker.py``,
confluent-kafka) against it exactly as against Tansu: SIGKILL, SIGSTOP and ``hold`` are
the same real means. The cluster (one broker) lives in this process, in librdkafka's
threads (``mock.MockCluster``); the workers reach it over TCP at ``bootstrap``. The
mock serves Produce, Fetch, ListOffsets, OffsetCommit and OffsetFetch, so the harness's
producer and final offset reader work on it -- through confluent-kafka
(``records_io``'s ``harness="confluent-kafka"``): kafka-python cannot bootstrap from it.

``protocol="consumer"`` (KIP-848, ``group.protocol=consumer``): the group's session and
heartbeat interval are the broker's (``group.consumer.*``, set on the mock with
``mock_848.ConsumerGroupMock.set_timeouts``; the client rejects its own), and the mock
assigns with its own range target.
"""
from __future__ import annotations

from ..clients.broker import FreshTopics
from .mock import MockCluster
from .mock_848 import ConsumerGroupMock

PROTOCOLS = ("classic", "consumer")


class MockBroker(FreshTopics):
    def __init__(self, protocol: str = "classic", session_timeout_ms: int = 3000, heartbeat_interval_ms: int = 500):
        super().__init__()
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
        self.protocol = protocol
        self.session_timeout_ms, self.heartbeat_interval_ms = session_timeout_ms, heartbeat_interval_ms
        self.cluster: MockCluster | None = None
        self.name = "librdkafka-mock" + ("-consumer-protocol" if protocol == "consumer" else "")
        self.bootstrap = ""
        self.min_session_ms = 0          # the mock enforces no group.min.session.timeout.ms
        self.log_path = None             # no broker log: the mock logs through its handle

    def open(self) -> "MockBroker":
        self.cluster = MockCluster(brokers=1)
        self.bootstrap = self.cluster.bootstraps
        if self.protocol == "consumer":
            ConsumerGroupMock(self.cluster).set_timeouts(self.session_timeout_ms, self.heartbeat_interval_ms)
        return self

    def create_topic(self, name: str, partitions: int) -> None:
        self.cluster.topic_create(name, partitions)

    def close(self) -> None:
        """Destroy the cluster (idempotent)."""
        cluster, self.cluster = self.cluster, None
        if cluster is not None:
            cluster.close()
