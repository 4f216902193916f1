"""One real consumer in its own OS process: ``python -m groupcheck.conform.targets.clients.worker``.

The harness (``group.py``) starts one worker per group member. A worker subscribes a
real client (kafka-python, aiokafka or confluent-kafka) to one topic with the given
assignor, polls it, and writes what it sees as JSON lines on stdout, nothing else:

* ``{"kind": "assign" | "revoke" | "lost", "partitions", "member_id", "generation",
  "owned_before", "owned_after", "wall"}`` for every rebalance callback; ``owned_*`` is
  the application's view (what the listener was told it owns);
* ``{"kind": "sample", "member_id", "generation", "assignment", "wall"}`` whenever the
  client's own (member id, generation, assignment) changes between polls, and at least
  once a second while it polls (so the harness knows a sample is fresh);
* ``{"kind": "commit_sent", "member_id", "generation"}`` before and ``{"kind": "commit",
  "member_id", "generation", "error"}`` after the OffsetCommit of a ``commit`` command;
* ``{"kind": "error", "error"}``, ``{"kind": "ready"}``, ``{"kind": "closed"}``.

Commands, one per line on stdin: ``stall`` (stop polling: the application hangs while
the client's heartbeat thread goes on, until ``max.poll.interval.ms`` makes it leave),
``resume``, ``commit`` (a synchronous OffsetCommit of offset 0 for what it owns),
``close``. ``--broken skips-revoke`` makes the application ignore on_revoke (it keeps
processing what it gave back), for the judge's self-test.

``--commit-policy auto | sync-on-revoke | after-processing | none`` turns the record layer
on (``app_records.py``): the application processes every record it is given and commits
by that policy, with ``processed`` / ``commit`` / ``held`` lines; the ``hold`` (``grab``) command makes
it process one more record and block before committing it. Without the option the
worker commits nothing by itself, as before.

``--group-protocol consumer`` (confluent-kafka, ``--assignor consumer``) joins by KIP-848's
ConsumerGroupHeartbeat: the broker assigns, and sets the session and heartbeat interval.

``--pattern`` (the ``grow_topic`` scenario) subscribes by pattern to the topic and its
later siblings ``<topic>-g<k>`` (each with ``--partitions`` partitions, like the first),
with metadata refreshed every second so a new sibling is found at once; partitions are
then numbered in one space: partition p of sibling k is ``k * partitions + p``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import queue
import re
import sys
import threading
import time

from groupcheck.conform.targets.clients.app_records import AUTO_COMMIT_INTERVAL_MS, POLICIES, Records

CLIENTS = ("kafka-python", "aiokafka", "confluent-kafka")
ASSIGNORS = {"kafka-python": ("range", "roundrobin", "cooperative-sticky"),
             "aiokafka": ("range", "roundrobin"),
             "confluent-kafka": ("range", "roundrobin", "cooperative-sticky")}
BROKEN = ("skips-revoke", "commits-before-processing")


METADATA_MAX_AGE_MS = 1000        # with --pattern: find a new matching topic within a second


class Topics:
    """The topics a worker consumes, numbered as one partition space (see the docstring)."""

    def __init__(self, topic: str, partitions: int, pattern: bool):
        self.topic, self.partitions = topic, partitions
        self.pattern = f"^{topic}(-g[0-9]+)?$" if pattern else None       # main() checked the name

    def index(self, topic: str, partition: int) -> int:
        if self.pattern is None or topic == self.topic:
            return partition
        return int(topic.rsplit("-g", 1)[1]) * self.partitions + partition

    def partition(self, index: int) -> tuple[str, int]:
        if self.pattern is None:        # one topic: --partitions is not given then
            return self.topic, index
        k, p = divmod(index, self.partitions)
        return (self.topic if k == 0 else f"{self.topic}-g{k}"), p


def emit(kind: str, **fields) -> None:
    sys.stdout.write(json.dumps({"kind": kind, "wall": time.time(), **fields}) + "\n")
    sys.stdout.flush()


class App:
    """The application: the partitions it believes it owns, told by the callbacks."""

    def __init__(self, broken: str | None, identity, topics: Topics, records: Records | None = None,
                 commit_offsets=None):
        self.owned: set[int] = set()
        self.broken = broken
        self.identity = identity          # () -> (generation, member_id), read from the client
        self.topics = topics
        self.records = records            # with --commit-policy
        self.commit_offsets = commit_offsets   # {partition: offset} -> error name or None (synchronous)
        self.to_commit: dict[int, int] = {}    # what the last revoke callback commits

    def callback(self, kind: str, partitions) -> None:
        parts = {self.topics.index(p.topic, p.partition) for p in partitions}
        before = set(self.owned)
        if kind == "assign":
            self.owned |= parts
        elif kind == "revoke" and self.broken == "skips-revoke":
            return                        # the broken application never acts on it
        else:
            self.owned -= parts
        generation, member_id = self.identity()
        emit(kind, partitions=sorted(parts), member_id=member_id, generation=generation,
             owned_before=sorted(before), owned_after=sorted(self.owned))
        if self.records is not None and kind == "revoke":
            self.to_commit = self.records.revoked(parts)
            if self.commit_offsets is not None:       # else an async listener commits (aiokafka, kafka-python)
                self.records.sync_commit(self.commit_offsets, self.to_commit)
        elif self.records is not None and kind == "lost":
            self.records.lost(parts)


def read_commands() -> queue.Queue:
    q: queue.Queue = queue.Queue()

    def pump():
        for line in sys.stdin:
            q.put(line.strip())
        q.put("close")                    # the harness went away: leave cleanly
    threading.Thread(target=pump, daemon=True).start()
    return q


class Sampler:
    """Emits a sample on change, and at least every ``every`` seconds."""

    def __init__(self, every: float = 1.0):
        self.last, self.at, self.every = None, 0.0, every

    def __call__(self, generation: int, member_id: str, assignment) -> None:
        now = (generation, member_id, sorted(assignment))
        if now != self.last or time.monotonic() - self.at >= self.every:
            self.last, self.at = now, time.monotonic()
            emit("sample", generation=generation, member_id=member_id, assignment=now[2])


def run_kafka_python(a) -> None:
    from kafka import ConsumerRebalanceListener, KafkaConsumer, TopicPartition
    from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
    from kafka.coordinator.assignors.range import RangePartitionAssignor
    from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
    from kafka.errors import KafkaError
    from kafka.structs import OffsetAndMetadata
    cls = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor,
           "cooperative-sticky": CooperativeStickyAssignor}[a.assignor]
    c = KafkaConsumer(bootstrap_servers=a.bootstrap, group_id=a.group, group_instance_id=a.instance_id,
                      client_id=a.name, partition_assignment_strategy=[cls], session_timeout_ms=a.session_timeout_ms,
                      heartbeat_interval_ms=a.heartbeat_interval_ms, max_poll_interval_ms=a.max_poll_interval_ms,
                      enable_auto_commit=a.commit_policy == "auto", auto_offset_reset="earliest",
                      auto_commit_interval_ms=AUTO_COMMIT_INTERVAL_MS,
                      default_offset_commit_callback=lambda offsets, res: auto_committed(offsets, res),
                      **({"metadata_max_age_ms": METADATA_MAX_AGE_MS} if a.pattern else {}))
    topics = Topics(a.topic, a.partitions, a.pattern)

    def identity():
        g = c._coordinator._generation
        return g.generation_id, g.member_id or ""
    records = Records(a.commit_policy, a.broken, identity, emit) if a.commit_policy else None

    def commit_offsets(offsets: dict) -> str | None:
        try:
            c.commit({TopicPartition(*topics.partition(p)): OffsetAndMetadata(o, "", -1) for p, o in offsets.items()})
            return None
        except Exception as e:  # noqa: BLE001 - any failure (a callback swallows it) is its error line
            return type(e).__name__

    def auto_committed(offsets, res) -> None:
        if records is not None:
            records.auto_committed({topics.index(tp.topic, tp.partition): om.offset for tp, om in offsets.items()},
                                   type(res).__name__ if isinstance(res, Exception) else None)
    app = App(a.broken, identity, topics, records)      # RecordsListener commits on revoke

    class Listener(ConsumerRebalanceListener):
        def on_partitions_assigned(self, ps):
            app.callback("assign", ps)

        def on_partitions_revoked(self, ps):
            app.callback("revoke", ps)

        def on_partitions_lost(self, ps):
            app.callback("lost", ps)

    def commit():
        gen, mid = identity()
        emit("commit_sent", generation=gen, member_id=mid)
        try:
            c.commit({TopicPartition(*topics.partition(p)): OffsetAndMetadata(0, "", -1) for p in sorted(app.owned)})
            return gen, mid, None
        except KafkaError as e:
            return gen, mid, type(e).__name__
    if topics.pattern:
        c.subscribe(pattern=topics.pattern, listener=Listener())
    else:
        c.subscribe([a.topic], listener=Listener() if records is None else records_listener(c, app, records, topics))

    def poll():
        if records is None:
            c.poll(timeout_ms=100)
            return
        if records.held:
            time.sleep(0.1)               # blocked before committing: no poll, no callbacks
            return
        for tp, batch in c.poll(timeout_ms=100).items():
            for r in batch:
                if records.record(topics.index(tp.topic, tp.partition), r.offset, commit_offsets):
                    return
    loop(poll, lambda: (*identity(), [topics.index(*tp) for tp in c.assignment()]), commit, c.close, records,
         commit_offsets)


def records_listener(c, app: App, records: Records, topics: Topics):
    """kafka-python 3 refuses a blocking commit in a synchronous listener (RuntimeError
    "Cannot block on net.run() from the IO thread itself", swallowed by the coordinator
    with the rebalance going on): an application that commits on revoke awaits
    ``commit_async``'s future in an async listener, as the error message says."""
    from kafka import AsyncConsumerRebalanceListener, TopicPartition
    from kafka.structs import OffsetAndMetadata

    class RecordsListener(AsyncConsumerRebalanceListener):
        async def on_partitions_assigned(self, ps):
            app.callback("assign", ps)

        async def on_partitions_revoked(self, ps):
            app.callback("revoke", ps)
            if app.to_commit:
                gen, mid = records.begin(app.to_commit)
                try:
                    await c.commit_async({TopicPartition(*topics.partition(p)): OffsetAndMetadata(o, "", -1)
                                          for p, o in app.to_commit.items()})
                    error = None
                except Exception as e:  # noqa: BLE001 - any failure is its error line
                    error = type(e).__name__
                records.end(gen, mid, app.to_commit, error)

        async def on_partitions_lost(self, ps):
            app.callback("lost", ps)
    return RecordsListener()


def group_protocol(a) -> dict:
    """confluent-kafka's group settings: classic (the assignor, session and heartbeat are the
    client's), or ``consumer`` (KIP-848: the broker assigns and sets session and heartbeat;
    librdkafka rejects the classic ones then)."""
    if a.group_protocol == "consumer":
        return {"group.protocol": "consumer"}
    return {"group.protocol": "classic", "partition.assignment.strategy": a.assignor,
            "session.timeout.ms": a.session_timeout_ms, "heartbeat.interval.ms": a.heartbeat_interval_ms}


def run_confluent(a) -> None:
    import confluent_kafka

    from groupcheck.conform.targets.librdkafka.client import parse_group_metadata
    c = confluent_kafka.Consumer({
        "bootstrap.servers": a.bootstrap, "group.id": a.group, "client.id": a.name, **group_protocol(a),
        "max.poll.interval.ms": a.max_poll_interval_ms,
        "auto.offset.reset": "earliest", "enable.auto.commit": a.commit_policy == "auto", "log_level": 2,
        "auto.commit.interval.ms": AUTO_COMMIT_INTERVAL_MS,
        **({"on_commit": lambda err, ps: auto_committed(err, ps)} if a.commit_policy == "auto" else {}),
        **({"group.instance.id": a.instance_id} if a.instance_id else {}),
        **({"topic.metadata.refresh.interval.ms": METADATA_MAX_AGE_MS} if a.pattern else {})})
    topics = Topics(a.topic, a.partitions, a.pattern)

    def identity():
        try:
            return parse_group_metadata(c.consumer_group_metadata())
        except Exception:  # noqa: BLE001 - metadata unavailable: unknown
            return -1, ""
    records = Records(a.commit_policy, a.broken, identity, emit) if a.commit_policy else None

    def commit_offsets(offsets: dict) -> str | None:
        try:
            c.commit(offsets=[confluent_kafka.TopicPartition(*topics.partition(p), o) for p, o in offsets.items()],
                     asynchronous=False)
            return None
        except confluent_kafka.KafkaException as e:
            return e.args[0].name()

    def auto_committed(err, partitions) -> None:
        if err is not None and err.code() == confluent_kafka.KafkaError._NO_OFFSET:
            return                        # nothing to commit: no OffsetCommit was sent
        records.auto_committed({topics.index(tp.topic, tp.partition): tp.offset for tp in partitions
                                if tp.offset >= 0}, None if err is None else err.name())
    app = App(a.broken, identity, topics, records, commit_offsets)

    def commit():
        gen, mid = identity()
        emit("commit_sent", generation=gen, member_id=mid)
        try:
            c.commit(offsets=[confluent_kafka.TopicPartition(*topics.partition(p), 0) for p in sorted(app.owned)],
                     asynchronous=False)
            return gen, mid, None
        except confluent_kafka.KafkaException as e:
            return gen, mid, e.args[0].name()

    def poll():
        if records is not None and records.held:
            time.sleep(0.1)               # blocked before committing: no poll, no callbacks
            return
        msg = c.poll(0.1)
        if msg is not None and msg.error() is not None:
            emit("error", error=msg.error().name())
        elif msg is not None and records is not None:
            records.record(topics.index(msg.topic(), msg.partition()), msg.offset(), commit_offsets)
    c.subscribe([topics.pattern or a.topic], on_assign=lambda _, ps: app.callback("assign", ps),
                on_revoke=lambda _, ps: app.callback("revoke", ps), on_lost=lambda _, ps: app.callback("lost", ps))
    loop(poll, lambda: (*identity(), [topics.index(tp.topic, tp.partition) for tp in c.assignment()]), commit,
         c.close, records, commit_offsets)


def loop(poll, sample, commit, close, records: Records | None = None, commit_offsets=None) -> None:
    """Poll until told to close; obey stall / resume / commit / hold (with records, ``commit``
    commits what was processed through ``commit_offsets``)."""
    commands, stalled, sampler = read_commands(), False, Sampler()
    emit("ready")
    while True:
        try:
            cmd = commands.get(timeout=0.1) if stalled else commands.get_nowait()
        except queue.Empty:
            cmd = None
        if cmd == "close":
            close()
            emit("closed")
            return
        if cmd in ("stall", "resume"):
            stalled = cmd == "stall"
        elif cmd == "commit" and records is not None:
            records.commit_processed(commit_offsets)
        elif cmd == "commit":
            gen, mid, error = commit()
            emit("commit", generation=gen, member_id=mid, error=error)
        elif cmd in ("hold", "grab") and records is not None:
            records.ask_hold(grab=cmd == "grab")
        if not stalled:
            poll()
            sampler(*sample())


def run_aiokafka(a) -> None:
    asyncio.run(_aiokafka(a))


async def _aiokafka(a) -> None:
    from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition
    from aiokafka.coordinator.assignors.range import RangePartitionAssignor
    from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
    from aiokafka.errors import KafkaError
    from aiokafka.structs import OffsetAndMetadata
    cls = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor}[a.assignor]
    c = AIOKafkaConsumer(bootstrap_servers=a.bootstrap, group_id=a.group, group_instance_id=a.instance_id,
                         client_id=a.name, partition_assignment_strategy=(cls,),
                         session_timeout_ms=a.session_timeout_ms, heartbeat_interval_ms=a.heartbeat_interval_ms,
                         max_poll_interval_ms=a.max_poll_interval_ms, enable_auto_commit=a.commit_policy == "auto",
                         auto_commit_interval_ms=AUTO_COMMIT_INTERVAL_MS, auto_offset_reset="earliest",
                         **({"metadata_max_age_ms": METADATA_MAX_AGE_MS} if a.pattern else {}))
    topics = Topics(a.topic, a.partitions, a.pattern)

    def identity():
        co = c._coordinator
        return (co.generation, co.member_id or "") if co is not None else (-1, "")
    records = Records(a.commit_policy, a.broken, identity, emit) if a.commit_policy else None
    app = App(a.broken, identity, topics, records)

    async def commit_offsets(offsets: dict) -> None:
        """commitSync of ``offsets`` between its two lines (aiokafka's commit is a coroutine)."""
        if not offsets:
            return
        gen, mid = records.begin(offsets)
        try:
            await c.commit({TopicPartition(*topics.partition(p)): OffsetAndMetadata(o, "") for p, o in offsets.items()})
            error = None
        except Exception as e:  # noqa: BLE001 - any failure is its error line
            error = type(e).__name__
        records.end(gen, mid, offsets, error)

    class Listener(ConsumerRebalanceListener):
        def on_partitions_assigned(self, ps):
            app.callback("assign", ps)

        async def on_partitions_revoked(self, ps):
            app.callback("revoke", ps)
            if records is not None:
                await commit_offsets(app.to_commit)

    await c.start()
    if topics.pattern:
        c.subscribe(pattern=topics.pattern, listener=Listener())
    else:
        c.subscribe([a.topic], listener=Listener())
    commands, stalled, sampler = read_commands(), False, Sampler()
    emit("ready")
    while True:
        try:
            cmd = commands.get_nowait()
        except queue.Empty:
            cmd = None
        if cmd == "close":
            await c.stop()
            emit("closed")
            return
        if cmd in ("stall", "resume"):
            stalled = cmd == "stall"
        elif cmd == "commit" and records is not None:
            await commit_offsets(dict(sorted(records.processed.items())))
        elif cmd == "commit":
            gen, mid = identity()
            emit("commit_sent", generation=gen, member_id=mid)
            try:
                await c.commit({TopicPartition(*topics.partition(p)): OffsetAndMetadata(0, "")
                                for p in sorted(app.owned)})
                error = None
            except KafkaError as e:
                error = type(e).__name__
            emit("commit", generation=gen, member_id=mid, error=error)
        elif cmd in ("hold", "grab") and records is not None:
            records.ask_hold(grab=cmd == "grab")
        if stalled or (records is not None and records.held):
            await asyncio.sleep(0.1)      # the event loop (heartbeats) runs on; getmany is not called
            continue
        batches = await c.getmany(timeout_ms=100)
        if records is not None:
            await _process(records, topics, batches, commit_offsets)
        sampler(*identity(), [topics.index(*tp) for tp in c.assignment()])


async def _process(records: Records, topics: Topics, batches: dict, commit_offsets) -> None:
    """aiokafka: the application's steps for each record of a getmany, until it holds."""
    for tp, batch in batches.items():
        for r in batch:
            p = topics.index(tp.topic, tp.partition)
            for step in records.steps(p, r.offset):
                if step[0] == "commit":
                    await commit_offsets(step[1])
                elif step[0] == "process":
                    records.process(p, r.offset)
                else:
                    records.hold(p, r.offset)
                    return


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="groupcheck.conform.targets.clients.worker")
    p.add_argument("--client", choices=CLIENTS, required=True)
    p.add_argument("--assignor", required=True)
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--group", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--instance-id", default=None)
    p.add_argument("--broken", choices=BROKEN, default=None)
    p.add_argument("--commit-policy", choices=POLICIES, default=None,
                   help="process the records and commit by this policy (app_records.py)")
    p.add_argument("--group-protocol", choices=("classic", "consumer"), default="classic",
                   help="consumer: KIP-848 (confluent-kafka only; --assignor consumer)")
    p.add_argument("--session-timeout-ms", type=int, default=6000)
    p.add_argument("--heartbeat-interval-ms", type=int, default=1000)
    p.add_argument("--max-poll-interval-ms", type=int, default=9000)
    p.add_argument("--partitions", type=int, default=1, help="each topic's partitions (with --pattern)")
    p.add_argument("--pattern", action="store_true", help="subscribe to the topic and its siblings <topic>-g<k>")
    a = p.parse_args(argv)
    if a.group_protocol == "consumer" and (a.client != "confluent-kafka" or a.assignor != "consumer"):
        p.error("--group-protocol consumer needs --client confluent-kafka --assignor consumer (the broker assigns)")
    elif a.group_protocol == "classic" and a.assignor not in ASSIGNORS[a.client]:
        p.error(f"{a.client} has no assignor {a.assignor!r}; known: {', '.join(ASSIGNORS[a.client])}")
    if a.broken == "commits-before-processing" and a.commit_policy != "after-processing":
        p.error("--broken commits-before-processing needs --commit-policy after-processing")
    if a.pattern and (a.partitions < 1 or not re.fullmatch(r"[A-Za-z0-9_-]+", a.topic)):
        p.error("--pattern needs --partitions >= 1 and a topic of letters, digits, '_' and '-'")
    {"kafka-python": run_kafka_python, "aiokafka": run_aiokafka, "confluent-kafka": run_confluent}[a.client](a)


if __name__ == "__main__":
    main()
