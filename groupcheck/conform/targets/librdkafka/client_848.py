"""Real librdkafka consumers with ``group.protocol=consumer`` (KIP-848) in one group on the
mock cluster: the classic target's driver (``librdkafka.client.Group``: one thread polls
each live member in turn, every callback recorded in the order the application saw it),
with the consumer protocol's configuration and the mock's KIP-848 controls.

The **member epoch** is read where the classic target reads the generation:
``Consumer.consumer_group_metadata()`` serialises ``rkcg_generation_id``
(src/rdkafka_cgrp.c, ``RD_KAFKA_OP_CG_METADATA`` in ``rd_kafka_cgrp_op_serve``), and under
the consumer protocol ``rd_kafka_cgrp_handle_ConsumerGroupHeartbeat`` stores the response's
MemberEpoch there (``rkcg->rkcg_generation_id = member_epoch``);
``rd_kafka_cgrp_consumer_reset`` sets it to 0 when the member is fenced and rejoins. So a
``generation`` in the observations is the member epoch of the last heartbeat response the
client handled (librdkafka mirror 4c3b017c3; the wheel bundles 2.16.0).

A member the driver does not poll (``stall``) keeps heartbeating from librdkafka's thread
until ``max.poll.interval.ms``, then leaves the group (epoch -1) and learns so, with
``on_lost``, when polled again; but only once an assignment callback has run since it
subscribed: librdkafka starts that timer in ``rd_kafka_cgrp_incremental_assign``, so a
member stalled with its first callback still queued heartbeats on indefinitely.

**Which member's heartbeat an injected error hit.** The mock's request errors are
cluster-wide (``rd_kafka_mock_next_request_error`` pops the cluster's error stack for the
next ConsumerGroupHeartbeat of any connection), so the operation alone does not say who
was fenced. Each consumer therefore runs with ``debug=consumer`` and a ``logger``:
confluent-kafka forwards librdkafka's log to the consumer's queue, served by ``poll()`` on
the driver's thread, in the order librdkafka handled it, so the line
``ConsumerGroupHeartbeat failed due to...`` (``rd_kafka_cgrp_handle_ConsumerGroupHeartbeat``)
comes before the ``on_lost`` it causes. It is recorded as
``{"kind": "heartbeat_error", "member", "error"}`` (the error's name, from its
``rd_kafka_err2str`` text).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import confluent_kafka

from .client import GROUP, TOPIC, Group, Listener, Member
from .mock_848 import ConsumerGroupMock, error_texts

HEARTBEAT_FAILED = "ConsumerGroupHeartbeat failed"   # every failure line of the handler starts so


@dataclass
class Settings848:
    """Timing of the broker-side consumer group and the clients. The mock's session timer
    ticks every second (rd_kafka_mock_cgrp_consumer_get starts a 1 s timer)."""
    partitions: int = 4
    session_timeout_ms: int = 3000      # group.consumer.session.timeout.ms (broker side)
    heartbeat_interval_ms: int = 300    # group.consumer.heartbeat.interval.ms (broker side)
    max_poll_interval_ms: int = 5000
    poll_s: float = 0.05
    op_bound_s: float = 60.0
    assignor = "consumer"               # read by the classic driver's helpers; KIP-848 has none client side

    def validate(self) -> None:
        if not 1 <= self.partitions <= 64:
            raise ValueError(f"partitions must be 1..64, not {self.partitions}")
        if not 1000 <= self.session_timeout_ms <= 60000:
            raise ValueError(f"session timeout must be 1000..60000 ms, not {self.session_timeout_ms}")
        if not 50 <= self.heartbeat_interval_ms < self.session_timeout_ms:
            raise ValueError(f"heartbeat interval must be 50 ms .. the session timeout, not {self.heartbeat_interval_ms}")
        if not 1000 <= self.max_poll_interval_ms <= 300_000:
            raise ValueError(f"max.poll.interval.ms must be 1000..300000, not {self.max_poll_interval_ms}")


class HeartbeatLog(logging.Handler):
    """One member's librdkafka log: every ConsumerGroupHeartbeat answered with an error,
    recorded in the group's observations as it is served (by ``poll()``, on the driver's
    thread)."""

    def __init__(self, group: "ConsumerGroup", name: str):
        super().__init__(logging.DEBUG)
        self.group, self.name = group, name

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        at = text.find(HEARTBEAT_FAILED)
        if at < 0:
            return
        said = text[at + len(HEARTBEAT_FAILED):]
        known = [n for t, n in self.group.error_texts.items() if t in said]
        error = max(known, key=len) if known else "OTHER: " + said.strip(" :")
        self.group.record("heartbeat_error", member=self.name, error=error)


class ConsumerGroup(Group):
    """``Group`` with ``group.protocol=consumer`` members, broker-side timeouts, injected
    targets and unsubscribe."""

    def __init__(self, settings: Settings848, listener_class=Listener, deadline: float | None = None):
        super().__init__(settings, listener_class, deadline)
        self.target: dict[str, list[int]] | None = None     # the injected target, by member name
        self.observes_heartbeat_errors = True                # each member's heartbeat errors are recorded
        try:
            self.cg = ConsumerGroupMock(self.mock)
            self.cg.set_timeouts(settings.session_timeout_ms, settings.heartbeat_interval_ms)
            self.error_texts = error_texts()
        except Exception:
            self.mock.close()
            raise

    def join(self, name: str) -> None:
        if name in self.members and not self.members[name].closed:
            raise ValueError(f"{name} already joined")
        s = self.settings
        conf = {
            "bootstrap.servers": self.mock.bootstraps, "group.id": GROUP, "group.protocol": "consumer",
            "max.poll.interval.ms": s.max_poll_interval_ms, "auto.offset.reset": "earliest",
            "enable.auto.commit": False, "client.id": name, "topic.metadata.refresh.interval.ms": 1000,
            "debug": "consumer", "log_level": 7, "logger": self._logger(name),
        }
        consumer = confluent_kafka.Consumer(conf)
        member = Member(name, consumer)
        member.listener = self.listener_class(member)
        self.members[name] = member
        self._subscribe(member)
        member.last_poll = time.monotonic()

    def _logger(self, name: str) -> logging.Logger:
        """A logger of this member's own (not in logging's registry): nothing reaches stderr,
        heartbeat errors reach the observations."""
        logger = logging.Logger(f"librdkafka.{name}", logging.DEBUG)
        logger.addHandler(HeartbeatLog(self, name))
        return logger

    def _subscribe(self, member: Member) -> None:
        member.consumer.subscribe([TOPIC],
                                  on_assign=lambda c, ps: self._callback(member, "assign", ps),
                                  on_revoke=lambda c, ps: self._callback(member, "revoke", ps),
                                  on_lost=lambda c, ps: self._callback(member, "lost", ps))
        member.extra["subscribed"] = True

    def unsubscribe(self, name: str) -> None:
        """Consumer.unsubscribe(): revoke everything and leave (epoch -1), handle kept."""
        member = self._member(name)
        member.consumer.unsubscribe()
        member.extra["subscribed"] = False

    def subscribe(self, name: str) -> None:
        member = self._member(name)
        if member.extra.get("subscribed"):
            raise ValueError(f"{name} is already subscribed")
        self._subscribe(member)

    def member_ids(self) -> dict[str, str]:
        """name -> member id of every running member that has one."""
        return {m.name: m.last_sample[1] for m in self.members.values() if not m.closed and m.last_sample[1]}

    def set_target(self, assignment: dict[str, list[int]] | None) -> dict[str, str]:
        """Inject a target (member name -> partitions; None: back to the mock's own). Names
        without a member id yet are skipped (the mock skips unknown ids too). Returns the ids used."""
        ids = self.member_ids()
        self.target = None if assignment is None else {n: sorted(ps) for n, ps in assignment.items()}
        if assignment is None:
            self.cg.target_assignment(GROUP, TOPIC, None)
            return ids
        by_id = {ids[n]: parts for n, parts in assignment.items() if n in ids}
        self.cg.target_assignment(GROUP, TOPIC, by_id)
        return {n: ids[n] for n in assignment if n in ids}

    def subscribed_live(self) -> list[Member]:
        return [m for m in self.live() if m.extra.get("subscribed")]

    def settled(self) -> bool:
        """Every live subscribed member has a member id and a positive epoch, and
        librdkafka's own assignments are the injected target (each member its own list)
        or, under the mock's own assignment, cover the topic exactly once (KIP-848 lets
        members sit at different epochs, so epochs are not compared)."""
        live = self.subscribed_live()
        if not live:
            return True
        if any(m.last_sample[0] <= 0 or not m.last_sample[1] for m in live):
            return False
        if self.target is not None:
            return all(sorted(tp.partition for tp in m.consumer.assignment()) == self.target.get(m.name, [])
                       for m in live)
        owned = [tp.partition for m in live for tp in m.consumer.assignment()]
        return sorted(owned) == list(range(self.settings.partitions))
