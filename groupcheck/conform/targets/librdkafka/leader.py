"""Targets ``librdkafka:<assignor>``: librdkafka's own assignors, run by a real leader.

librdkafka runs its assignor (src/rdkafka_range_assignor.c, rdkafka_roundrobin_assignor.c,
rdkafka_sticky_assignor.c) only inside a consumer elected group leader, so each ``assign``
invocation is one real classic rebalance on a fresh librdkafka mock cluster (``mock.py``):

- every topic of the argument is created with its partition count, plus ``LEADER_TOPIC``
  (one partition, sorted after the model's ``t<n>`` topics);
- a real confluent-kafka consumer (``partition.assignment.strategy`` = the assignor)
  subscribes to ``LEADER_TOPIC`` only, with ``group.instance.id`` ``LEADER_INSTANCE``;
- once it has sent its JoinGroup (its ``JOIN`` debug log), each of the argument's members
  joins over its own TCP connection (JoinGroup v5, kafka-python's classes) with the
  member id and group.instance.id the model names and the ConsumerProtocolSubscription
  (v0-v3: topics, ownedPartitions, generation) the model wrote;
- the mock elects the member with the smallest group.instance.id when every member has
  one (rdkafka_mock_cgrp.c, ``rd_kafka_mock_cgrp_classic_elect_leader``): the consumer.
  It runs its assignor (and, COOPERATIVE, ``rd_kafka_cooperative_protocol_adjust_assignment``)
  and sends the assignment in its SyncGroup; each crafted member's SyncGroup response
  holds its share, and the leader's own share comes from its ``on_assign``.

The answer is the crafted members' shares; a partition of the model's topics the leader
kept for itself is answered under ``LEADER_KEY`` (not a member of the argument: judged by
``assignment_valid``). The leader's extra member and topic leave the model's members'
assignment unchanged for range (per topic) and roundrobin (its topic is laid out last,
``next`` starts before it); librdkafka's sticky assignor has one general algorithm (no
all-subscriptions-equal path), which the extra member does not switch. A round that does
not complete as one generation with the consumer as leader is an ``info`` outcome.
"""
from __future__ import annotations

import json
import socket
import struct
import threading
import time
import uuid

from kafka.protocol.consumer.group import JoinGroupRequest, JoinGroupResponse, SyncGroupRequest, SyncGroupResponse
from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment, ConsumerProtocolSubscription as Sub

from ...adapter import Hello, Outcome
from .mock import MockCluster, MockError

ASSIGNORS = ("range", "roundrobin", "cooperative-sticky")
LEADER_TOPIC = "zz-groupcheck-leader"
LEADER_INSTANCE = "0-groupcheck-leader"      # sorts before every "consumer-NNN"
LEADER_KEY = "librdkafka-leader"
SESSION_MS = 10_000
# the mock's initial rebalance delay: every crafted member joins within it. A round tries the short
# window first (about 0.3 s a round instead of 0.7 s) and, if it did not form as one generation
# (a member came late on a loaded machine), once more with the long one before answering info
JOIN_WINDOWS_MS = (200, 1000)
FIRST_GENERATION = 2        # rdkafka_mock_cgrp.c: a new group starts at 1, +1 at each election
JOIN_GAP = 0.01              # seconds between two crafted JoinGroups
DEADLINE = 20.0               # seconds for one round, then the answer is info


class RoundError(Exception):
    """The round did not go as one generation with the consumer as leader (info)."""


def _subscription(m: dict) -> bytes:
    version = m.get("version", 3)
    owned: dict[str, list[int]] = {}
    for t, p in m["owned_partitions"]:
        owned.setdefault(t, []).append(p)
    sub = Sub(version=version, topics=list(m["topics"]), user_data=b"",
              owned_partitions=[Sub.TopicPartition(topic=t, partitions=sorted(ps)) for t, ps in sorted(owned.items())],
              generation_id=m["generation"])
    return sub.encode(version=version)


class _Member:
    """One crafted member on its own connection: JoinGroup, then SyncGroup; its answers."""

    def __init__(self, addr, group: str, assignor: str, m: dict):
        self.addr, self.group, self.assignor, self.m = addr, group, assignor, m
        self.join = self.sync = None
        self.error = ""
        self.sock = None

    def _send(self, msg, version: int, corr: int) -> None:
        msg.with_header(correlation_id=corr, client_id=self.m["member_id"])
        self.sock.sendall(msg.encode(version=version, header=True, framed=True))

    def _receive(self, response, version: int):
        size = struct.unpack(">i", self._exact(4))[0]
        return response.decode(self._exact(size)[4:], version=version)

    def _exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise OSError("connection closed by the mock")
            buf += chunk
        return buf

    def send(self) -> None:
        """Connect, send the JoinGroup and, pipelined, the SyncGroup: the mock reads the
        SyncGroup as soon as it answers the JoinGroup, before the leader's (which completes
        the sync at once and would leave a later SyncGroup unanswered: INVALID_REQUEST in
        state Up); a fresh group's first generation is FIRST_GENERATION."""
        mid = self.m["member_id"]
        self.sock = socket.create_connection(self.addr, timeout=DEADLINE)
        self._send(JoinGroupRequest(
            group_id=self.group, session_timeout_ms=SESSION_MS, rebalance_timeout_ms=SESSION_MS, member_id=mid,
            group_instance_id=mid, protocol_type="consumer",
            protocols=[JoinGroupRequest.JoinGroupRequestProtocol(name=self.assignor, metadata=_subscription(self.m))]),
            5, 1)
        self._send(SyncGroupRequest(group_id=self.group, generation_id=FIRST_GENERATION, member_id=mid,
                                    group_instance_id=mid, assignments=[]), 3, 2)

    def run(self) -> None:
        """Read the two answers (in a thread of its own)."""
        try:
            self.join = self._receive(JoinGroupResponse, 5)
            self.sync = self._receive(SyncGroupResponse, 3)
        except (OSError, ValueError, struct.error) as e:
            self.error = f"{self.m['member_id']}: {e}"
        finally:
            self.sock.close()


def _consumer(bootstraps: str, group: str, assignor: str, joined: threading.Event, assigned: list, topics: tuple):
    from confluent_kafka import Consumer

    class Logger:
        """confluent-kafka calls ``log(level, fmt, *args)`` (from poll): the JOIN debug line
        tells that the consumer's JoinGroup is on its way."""
        def log(self, level, fmt, *args):
            try:
                text = fmt % args if args else str(fmt)
            except (TypeError, ValueError):
                text = str(fmt)
            if "JoinGroup" in text or "Joining group" in text:
                joined.set()

    c = Consumer({"bootstrap.servers": bootstraps, "group.id": group, "group.instance.id": LEADER_INSTANCE,
                  "partition.assignment.strategy": assignor, "session.timeout.ms": SESSION_MS,
                  "enable.auto.commit": False, "debug": "cgrp", "log_level": 7}, logger=Logger())
    c.subscribe([LEADER_TOPIC, *topics], on_assign=lambda consumer, tps: assigned.extend((tp.topic, tp.partition) for tp in tps))
    return c


def elect_and_assign(assignor: str, value: dict, leader_topics: tuple[str, ...] = (),
                     order: list[int] | None = None, window_ms: int = JOIN_WINDOWS_MS[-1]) -> dict[str, list]:
    """One rebalance with the consumer as leader and ``value``'s members crafted; the
    assignment the leader computed, as ``{member_id: [[topic, partition], ...]}``.
    ``leader_topics``: more topics the leader subscribes to (the broken twist's: a
    leader that takes a share of the judged topics for itself). The crafted members join
    in the argument's order (``order``: in this order of its indices instead), so the
    leader meets them in the same order each time. ``window_ms``: the mock's initial
    rebalance delay, within which every crafted member must join."""
    cluster = MockCluster(1, initial_rebalance_delay_ms=window_ms)
    consumer, threads = None, []
    try:
        for t, n in sorted(value["topics"].items()):
            cluster.topic_create(t, n)
        cluster.topic_create(LEADER_TOPIC, 1)
        host, port = cluster.bootstraps.split(",")[0].rsplit(":", 1)
        group, joined, assigned = f"gc-{uuid.uuid4().hex[:12]}", threading.Event(), []
        consumer = _consumer(cluster.bootstraps, group, assignor, joined, assigned, leader_topics)
        end = time.monotonic() + DEADLINE
        while not joined.is_set():
            consumer.poll(0.02)
            if time.monotonic() > end:
                raise RoundError("the librdkafka consumer never sent its JoinGroup")
        members = [_Member((host, int(port)), group, assignor, m) for m in value["members"]]
        for m in (members if order is None else [members[i] for i in order]):
            try:
                m.send()
            except OSError as e:
                raise RoundError(f"{m.m['member_id']}: {e}") from None
            threads.append(threading.Thread(target=m.run, daemon=True))
            threads[-1].start()
            time.sleep(JOIN_GAP)        # the mock lists members in the order their JoinGroups arrive
        while (any(t.is_alive() for t in threads) or not assigned) and time.monotonic() < end:
            consumer.poll(0.02)
        return _answer(members, assigned, value)
    finally:
        if consumer is not None:
            consumer.close()
        cluster.close()          # closes the crafted connections the mock still holds
        for t in threads:
            t.join(5)


def _answer(members: list[_Member], assigned: list, value: dict) -> dict[str, list]:
    crafted = {m["member_id"] for m in value["members"]}
    leaders, generations = set(), set()
    out: dict[str, list] = {}
    for m in members:
        if m.error or m.join is None or m.sync is None:
            raise RoundError(m.error or f"{m.m['member_id']}: no answer within {DEADLINE}s")
        if m.join.error_code or m.sync.error_code:
            raise RoundError(f"{m.m['member_id']}: JoinGroup error {m.join.error_code}, "
                             f"SyncGroup error {getattr(m.sync, 'error_code', None)}")
        leaders.add(m.join.leader)
        generations.add(m.join.generation_id)
        raw = bytes(m.sync.assignment or b"")
        a = ConsumerProtocolAssignment.decode(raw, version=0) if raw else None
        out[m.m["member_id"]] = [[tp.topic, tp.partition] for tp in a.partitions()] if a else []
    if generations != {FIRST_GENERATION} or leaders & crafted or len(leaders) > 1:
        raise RoundError(f"not one round led by the consumer: leaders {sorted(leaders)}, generations {sorted(generations)}")
    if not assigned:
        raise RoundError("the leader's on_assign was not called")
    own = sorted([t, p] for t, p in assigned if t != LEADER_TOPIC)
    if own:
        out[LEADER_KEY] = own
    return out


class LeaderAdapter:
    """``librdkafka:<assignor>`` through the adapter interface (one rebalance per invoke).

    An input asked again (the recorder asks each input twice: ``deterministic``) has its
    crafted members join in the reverse order: Kafka's assignors take the subscriptions as
    a map (ConsumerPartitionAssignor.GroupSubscription), so the order in which members
    joined is not part of the input, and an answer that depends on it is judged not
    deterministic."""

    def __init__(self, assignor: str, leader_topics: tuple[str, ...] = ()):
        import confluent_kafka
        self.assignor, self.version = assignor, f"librdkafka {confluent_kafka.libversion()[0]}"
        self.leader_topics = leader_topics
        self.asked: dict[str, int] = {}
        self.assignor_name = assignor

    def open(self) -> Hello:
        return Hello(f"librdkafka:{self.assignor}", self.version, ("assignor",), (self.assignor,))

    def setup(self, role: str, config: dict) -> Outcome:
        if role != "assignor":
            return Outcome("fail", error=f"role {role}: librdkafka's leader serves the assignor role only")
        return Outcome("ok")

    def invoke(self, role: str, f: str, value) -> Outcome:
        if role != "assignor" or f != "assign":
            return Outcome("fail", error=f"{role}.{f}: not served")
        key = json.dumps(value, sort_keys=True)
        n = self.asked[key] = self.asked.get(key, 0) + 1
        order = None if n % 2 else list(reversed(range(len(value["members"]))))
        for window in JOIN_WINDOWS_MS:
            try:
                answer = elect_and_assign(self.assignor, value, self.leader_topics, order, window)
                return Outcome("ok", {"assignment": answer})
            except RoundError as e:
                late = e
            except MockError as e:
                return Outcome("info", error=f"librdkafka leader round: {e}")
        return Outcome("info", error=f"librdkafka leader round: {late}")

    def teardown(self) -> None:
        pass

    def close(self) -> None:
        pass
