"""Real librdkafka consumers in one classic group on the mock cluster, driven from one thread.

A ``Group`` owns a ``MockCluster`` with one topic and up to N ``confluent_kafka.Consumer``
members (named c1..cN). Nothing runs in a thread of ours: the driver polls each live,
non-stalled member in turn with a short timeout, so every rebalance callback runs in
the driver's thread and the recorded order is the order the application saw. A
*stalled* member is simply one the driver stops polling (librdkafka's background
thread keeps heartbeating until ``max.poll.interval.ms`` passes, then leaves the group).

Observations are plain dicts in time order (``t`` seconds since the group started):

* callbacks: ``{"kind": "assign"|"revoke"|"lost", "member", "partitions", "member_id",
  "generation", "owned_before", "owned_after"}``; ``owned_*`` is the application's view
  (what the listener was told it owns), which the broken clients of ``broken.py`` falsify;
* ``{"kind": "sample", "member", "member_id", "generation"}`` whenever a member's
  (member id, generation) changes between polls;
* ``{"kind": "error", "member", "error"}`` for errors poll() returns;
* ``{"kind": "op", "op": name, "args": ...}`` for every operation the driver performs.

The generation comes from ``Consumer.consumer_group_metadata()``: librdkafka serialises
its ``rd_kafka_consumer_group_metadata_t`` (magic ``CGMDv2:``, int32 generation_id in host
order, group id, member id; src/rdkafka_cgrp.c ``rd_kafka_consumer_group_metadata_write``),
taken from ``rkcg_generation_id`` at the call. Read inside a callback it is the generation
the callback belongs to. No log parsing is needed.
"""
from __future__ import annotations

import struct
import time
from dataclasses import dataclass, field

import confluent_kafka

from .mock import MockCluster

TOPIC = "t"
GROUP = "g"
ASSIGNORS = ("range", "roundrobin", "cooperative-sticky")
MAGIC = b"CGMDv2:"


def cooperative(assignor: str) -> bool:
    """KIP-429: cooperative-sticky is librdkafka's only COOPERATIVE assignor."""
    return assignor == "cooperative-sticky"


def parse_group_metadata(blob: bytes) -> tuple[int, str]:
    """(generation, member id) from ``consumer_group_metadata()``'s serialised form."""
    if not blob.startswith(MAGIC) or len(blob) < len(MAGIC) + 4:
        raise ValueError(f"unexpected consumer group metadata {blob[:16]!r}")
    (generation,) = struct.unpack_from("=i", blob, len(MAGIC))
    rest = blob[len(MAGIC) + 4:]
    parts = rest.split(b"\0")
    member_id = parts[1].decode(errors="replace") if len(parts) > 1 else ""
    return generation, member_id


@dataclass
class Settings:
    """Timing of the clients and the mock. The mock's JoinGroup phase into a stable
    group lasts session.timeout.ms - 1000 (rdkafka_mock_cgrp.c), so short sessions
    make rounds short; max.poll.interval.ms must be >= session.timeout.ms."""
    assignor: str = "cooperative-sticky"
    partitions: int = 4
    session_timeout_ms: int = 6000
    heartbeat_interval_ms: int = 500
    max_poll_interval_ms: int = 7000
    poll_s: float = 0.05
    op_bound_s: float = 60.0        # no single operation runs longer than this

    def validate(self) -> None:
        if self.assignor not in ASSIGNORS:
            raise ValueError(f"unknown assignor {self.assignor!r}; known: {', '.join(ASSIGNORS)}")
        if not 1 <= self.partitions <= 64:
            raise ValueError(f"partitions must be 1..64, not {self.partitions}")
        if not 1000 <= self.session_timeout_ms <= 60000:
            raise ValueError(f"session timeout must be 1000..60000 ms, not {self.session_timeout_ms}")
        if self.max_poll_interval_ms < self.session_timeout_ms:
            raise ValueError("max.poll.interval.ms must be >= session.timeout.ms")


class Listener:
    """The application's rebalance listener: it keeps the owned partitions as the
    callbacks say. ``broken.py`` subclasses it to get the contract wrong on purpose."""

    def __init__(self, member: "Member"):
        self.member = member
        self.owned: set[int] = set()

    def on_assign(self, partitions: set[int]) -> None:
        self.owned |= partitions

    def on_revoke(self, partitions: set[int]) -> None:
        self.owned -= partitions

    def on_lost(self, partitions: set[int]) -> None:
        self.owned -= partitions


@dataclass
class Member:
    name: str
    consumer: confluent_kafka.Consumer
    listener: Listener | None = None
    stalled: bool = False
    closed: bool = False
    last_poll: float = 0.0
    last_sample: tuple[int, str] = (-1, "")
    stall_started: float | None = None
    extra: dict = field(default_factory=dict)


class Group:
    """One mock cluster, one topic of ``settings.partitions`` partitions, members c1..cN."""

    def __init__(self, settings: Settings, listener_class=Listener, deadline: float | None = None):
        settings.validate()
        self.settings = settings
        self.listener_class = listener_class
        self.t0 = time.monotonic()
        self.deadline = deadline
        self.events: list[dict] = []
        self.members: dict[str, Member] = {}
        self.mock = MockCluster(brokers=1, initial_rebalance_delay_ms=0)
        try:
            self.mock.topic_create(TOPIC, settings.partitions)
            self.mock.coordinator_set(GROUP, 1)
        except Exception:
            self.mock.close()
            raise

    # -- recording -------------------------------------------------------------------

    def now(self) -> float:
        return round(time.monotonic() - self.t0, 4)

    def record(self, kind: str, **fields) -> dict:
        ev = {"t": self.now(), "kind": kind, **fields}
        self.events.append(ev)
        return ev

    def _callback(self, member: Member, kind: str, partitions) -> None:
        parts = {p.partition for p in partitions}
        try:
            generation, member_id = parse_group_metadata(member.consumer.consumer_group_metadata())
        except Exception:  # noqa: BLE001 - metadata unavailable: record it as unknown
            generation, member_id = -1, ""
        listener = member.listener
        before = set(listener.owned)
        getattr(listener, "on_" + kind)(parts)
        if kind in ("assign", "revoke", "lost") and getattr(listener, "swallow", None) == kind:
            return  # the broken application never saw this callback
        self.record(kind, member=member.name, partitions=sorted(parts), member_id=member_id,
                    generation=generation, owned_before=sorted(before), owned_after=sorted(listener.owned))

    # -- operations ------------------------------------------------------------------

    def join(self, name: str) -> None:
        """Start a consumer and subscribe it (its first poll sends JoinGroup)."""
        if name in self.members and not self.members[name].closed:
            raise ValueError(f"{name} already joined")
        s = self.settings
        conf = {
            "bootstrap.servers": self.mock.bootstraps, "group.id": GROUP, "group.protocol": "classic",
            "partition.assignment.strategy": s.assignor, "session.timeout.ms": s.session_timeout_ms,
            "heartbeat.interval.ms": s.heartbeat_interval_ms, "max.poll.interval.ms": s.max_poll_interval_ms,
            "auto.offset.reset": "earliest", "enable.auto.commit": False, "client.id": name,
            "topic.metadata.refresh.interval.ms": 1000,
            "log_level": 2,   # broker_down makes every poll log "Connect ... failed" at level 3
        }
        consumer = confluent_kafka.Consumer(conf)
        member = Member(name, consumer)
        member.listener = self.listener_class(member)
        self.members[name] = member
        consumer.subscribe([TOPIC],
                           on_assign=lambda c, ps: self._callback(member, "assign", ps),
                           on_revoke=lambda c, ps: self._callback(member, "revoke", ps),
                           on_lost=lambda c, ps: self._callback(member, "lost", ps))
        member.last_poll = time.monotonic()

    def close(self, name: str) -> None:
        """Consumer.close(): revoke (or lose) what it owns, LeaveGroup."""
        member = self._member(name)
        member.stalled = False
        member.consumer.close()
        member.closed = True

    def stall(self, name: str) -> None:
        """Stop polling the member (the application hangs; librdkafka heartbeats on)."""
        member = self._member(name)
        member.stalled = True
        member.stall_started = self.now()

    def resume(self, name: str) -> None:
        member = self._member(name)
        member.stalled = False

    def _member(self, name: str) -> Member:
        member = self.members.get(name)
        if member is None or member.closed:
            raise ValueError(f"{name} is not a running member")
        return member

    def live(self) -> list[Member]:
        return [m for m in self.members.values() if not m.closed and not m.stalled]

    def poll_round(self) -> None:
        """Poll every live member once; record errors and (generation, member id) changes."""
        for m in self.live():
            msg = m.consumer.poll(self.settings.poll_s)
            m.last_poll = time.monotonic()
            if msg is not None and msg.error() is not None:
                self.record("error", member=m.name, error=msg.error().name())
            try:
                sample = parse_group_metadata(m.consumer.consumer_group_metadata())
            except Exception:  # noqa: BLE001
                continue
            if sample != m.last_sample:
                m.last_sample = sample
                self.record("sample", member=m.name, generation=sample[0], member_id=sample[1])
        if not self.live():
            time.sleep(self.settings.poll_s)

    def wait(self, seconds: float) -> None:
        """Keep polling live members for ``seconds``."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and not self._past_deadline():
            self.poll_round()

    def _past_deadline(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def settled(self) -> bool:
        """Every live member holds the same generation and a member id, and librdkafka's
        own assignments (``Consumer.assignment()``, not the application's view, which a
        broken listener falsifies) cover the topic exactly once."""
        live = self.live()
        if not live:
            return True
        gens = {m.last_sample[0] for m in live}
        if len(gens) != 1 or -1 in gens or any(not m.last_sample[1] for m in live):
            return False
        owned = [tp.partition for m in live for tp in m.consumer.assignment()]
        return sorted(owned) == list(range(self.settings.partitions))

    def settle(self, max_s: float, quiet_s: float) -> tuple[bool, float]:
        """Poll every live member until ``settled()`` has held, with no callback, for
        ``quiet_s``; give up after ``max_s``. Returns (settled, seconds taken)."""
        start = time.monotonic()
        end = start + min(max_s, self.settings.op_bound_s)
        stable_since = None
        seen = len(self.events)
        while time.monotonic() < end and not self._past_deadline():
            self.poll_round()
            changed = any(e["kind"] in ("assign", "revoke", "lost") for e in self.events[seen:])
            seen = len(self.events)
            if changed or not self.settled():
                stable_since = None
            elif stable_since is None:
                stable_since = time.monotonic()
            elif time.monotonic() - stable_since >= quiet_s:
                return True, time.monotonic() - start
        return False, time.monotonic() - start

    def shutdown(self) -> None:
        """Close every member still running, then the mock. Never raises."""
        for m in self.members.values():
            if not m.closed:
                self.record("op", op="close", args={"member": m.name, "teardown": True})
                try:
                    m.stalled = False
                    m.consumer.close()
                except Exception:  # noqa: BLE001 - best effort on teardown
                    pass
                m.closed = True
                self.record("op", op="closed", args={"member": m.name, "teardown": True})
        self.mock.close()
