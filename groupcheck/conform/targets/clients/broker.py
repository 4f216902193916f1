"""The broker real clients meet: Tansu started by groupcheck, or a user's ``HOST:PORT``.

``Broker.open`` starts Tansu (``targets/broker/tansu.py``: a free port, memory storage, its
log kept in ``log_dir``) or checks that the address answers ApiVersions, reads the
broker's minimum session timeout where it says one (DescribeConfigs, via
``coordinator/broker.py``). ``new_topic`` creates a fresh topic per scenario and
``create_topic`` a named one (a topic growing: a new sibling that the members' pattern
subscription matches, by CreateTopics, which every broker answers; Tansu 0.6.0 does not
advertise CreatePartitions); ``close`` stops
Tansu (SIGTERM, then SIGKILL) and is idempotent.
"""
from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
import time
from pathlib import Path

from kafka.protocol.metadata import ApiVersionsRequest, ApiVersionsResponse

from groupcheck.conform.targets.broker.broker import BrokerCoordinator, BrokerError, parse_address, roundtrip


class FreshTopics(ABC):
    """What every broker of the worker processes shares: a fresh (topic, group id) per
    scenario, named by this run; ``create_topic`` is the broker's own."""

    def __init__(self):
        self.counter = itertools.count(1)
        self.run_id = time.strftime("%H%M%S") + f"-{time.monotonic_ns() % 100000}"

    def new_topic(self, partitions: int) -> tuple[str, str]:
        """A fresh (topic, group id) for one scenario."""
        n = next(self.counter)
        topic, group = f"gc-{self.run_id}-t{n}", f"gc-{self.run_id}-g{n}"
        self.create_topic(topic, partitions)
        return topic, group

    @abstractmethod
    def create_topic(self, name: str, partitions: int) -> None:
        """Create topic ``name`` with ``partitions`` partitions on this broker."""


class Broker(FreshTopics):
    def __init__(self, bootstrap: str | None = None, log_dir: Path | None = None):
        super().__init__()
        self.given = bootstrap
        if bootstrap is not None:
            parse_address(bootstrap)          # BrokerError (one line) on a bad address
        self.log_dir = log_dir
        self.tansu = None
        self.admin = None

    def open(self) -> "Broker":
        if self.given is None:
            from groupcheck.conform.targets.broker.tansu import TansuCoordinator
            self.tansu = TansuCoordinator()
            self.tansu.log_dir = self.log_dir
            self.tansu.open()
            self.bootstrap = f"127.0.0.1:{self.tansu.port}"
            self.name = "tansu"
        else:
            self.bootstrap, self.name = self.given, f"kafka:{self.given}"
        probe = self.tansu or BrokerCoordinator(self.bootstrap)
        try:
            r = roundtrip(parse_address(self.bootstrap), ApiVersionsRequest(), ApiVersionsResponse, 0)
            self.apis = {a.api_key: (a.min_version, a.max_version) for a in r.api_keys}
            probe.versions = probe.versions if self.tansu else probe._versions()
            self.min_session_ms = int(probe._describe_configs().get("group.min.session.timeout.ms") or 0)
            from kafka.admin import KafkaAdminClient
            self.admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, client_id="groupcheck-admin")
        except Exception as e:     # noqa: BLE001 - any failure to reach or use it: one line
            self.close()
            if isinstance(e, BrokerError):
                raise
            raise BrokerError(f"broker {self.bootstrap}: {type(e).__name__}: {e}") from None
        return self

    @property
    def log_path(self):
        return getattr(self.tansu, "log_path", None)

    def create_topic(self, name: str, partitions: int) -> None:
        from kafka.admin import NewTopic
        self.admin.create_topics([NewTopic(name, partitions, 1)])

    def close(self) -> None:
        admin, self.admin = self.admin, None
        if admin is not None:
            try:
                admin.close()
            except Exception:  # noqa: BLE001 - best effort
                pass
        tansu, self.tansu = self.tansu, None
        if tansu is not None:
            tansu.close()
