"""The consumer-client role as an in-process adapter (PROTOCOL.md's shape), over librdkafka
consumers on its mock cluster (the target: ``targets/librdkafka/client.py``'s ``Group``).

``open`` -> hello; ``setup("consumer-client", {assignor, partitions, session_timeout_ms,
max_poll_interval_ms, client})`` starts a mock cluster; ``invoke("consumer-client", f,
value)`` performs one scenario operation (f is the op name, value its arguments, see
scenarios.py) and answers ``ok`` with the observations it caused; ``f="judge"`` answers
the verdict per property so far; ``teardown`` closes the consumers and the mock.

An operation that raises answers ``fail`` when it is refused before acting (bad
arguments, a member not running) and ``info`` when it broke half-way (never judged).

Outcome and Hello are the conformance core's (``groupcheck.conform.adapter``).
"""
from __future__ import annotations

from typing import Any

import confluent_kafka

from ...adapter import Hello, Outcome
from ...targets.broken.clients import BROKEN
from ...targets.librdkafka.client import Group, Listener, Settings, cooperative
from .claims import judge
from .scenarios import ScenarioError, execute, validate

ROLE = "consumer-client"


class LibrdkafkaConsumerAdapter:
    def __init__(self):
        self.group: Group | None = None
        self.settings: Settings | None = None

    def open(self) -> Hello:
        return Hello(name="librdkafka", version=confluent_kafka.libversion()[0], roles=(ROLE,),
                     assignors=("range", "roundrobin", "cooperative-sticky"))

    def setup(self, role: str, config: dict) -> Outcome:
        if role != ROLE:
            return Outcome("fail", error=f"role {role!r} is not supported; this adapter has {ROLE!r}")
        try:
            config = dict(config)
            client = config.pop("client", "librdkafka")
            if client != "librdkafka" and client not in BROKEN:
                raise ValueError(f"unknown client {client!r}")
            self.settings = Settings(**config)
            self.group = Group(self.settings, BROKEN.get(client, Listener))
        except (TypeError, ValueError) as e:
            return Outcome("fail", error=str(e))
        return Outcome("ok")

    def invoke(self, role: str, f: str, value: Any) -> Outcome:
        if role != ROLE or self.group is None:
            return Outcome("fail", error="setup the consumer-client role first")
        if f == "judge":
            j = judge(self.group.events, cooperative=cooperative(self.settings.assignor),
                      partitions=self.settings.partitions,
                      max_poll_interval_ms=self.settings.max_poll_interval_ms)
            return Outcome("ok", value=j.summary())
        op = {"op": f, **(value or {})}
        try:
            validate([op], members=8)
        except ScenarioError as e:
            return Outcome("fail", error=str(e))
        seen = len(self.group.events)
        try:
            execute(self.group, op, settle_quiet_s=1.0)
        except ValueError as e:          # refused before acting (member not running, ...)
            return Outcome("fail", error=str(e))
        except Exception as e:  # noqa: BLE001
            return Outcome("info", error=f"{type(e).__name__}: {e}")
        return Outcome("ok", value=self.group.events[seen:])

    def teardown(self) -> None:
        if self.group is not None:
            self.group.shutdown()
            self.group = None

    def close(self) -> None:
        self.teardown()
