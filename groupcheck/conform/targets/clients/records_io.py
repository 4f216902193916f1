"""The harness's side of the records (issue 30): one producer of numbered records, and the
broker's final word on them.

``NumberedProducer`` writes records whose value is ``"<partition>:<seq>"`` to every
partition of the scenario's topic (kafka-python ``KafkaProducer``, acks from all
replicas, each send awaited, so the returned offsets are the log's). ``read_offsets``
reads, after every worker has stopped, each partition's log end offset (ListOffsets,
``KafkaConsumer.end_offsets``) and the group's committed offset (OffsetFetch,
``KafkaConsumer.committed``; -1 where the group committed nothing) with a consumer that
never joins the group. ``harness="confluent-kafka"`` does both through confluent-kafka
(``Producer`` with a delivery report per record, ``get_watermark_offsets`` and
``committed``): librdkafka's mock cluster answers it, and kafka-python cannot bootstrap
from the mock.
"""
from __future__ import annotations

SEND_TIMEOUT_S = 30


HARNESSES = ("kafka-python", "confluent-kafka")


def producer(bootstrap: str, topic: str, partitions: int, harness: str = "kafka-python"):
    """The harness's numbered producer through ``harness``'s library."""
    return (ConfluentProducer if harness == "confluent-kafka" else NumberedProducer)(bootstrap, topic, partitions)


class NumberedProducer:
    def __init__(self, bootstrap: str, topic: str, partitions: int):
        from kafka import KafkaProducer
        self.topic, self.partitions = topic, partitions
        self.seq = [0] * partitions
        self.producer = KafkaProducer(bootstrap_servers=bootstrap, client_id="groupcheck-producer", acks="all",
                                      linger_ms=0)

    def produce(self, count: int) -> list[tuple[int, int, str]]:
        """``count`` records to each partition; (partition, offset, value) of each, in order."""
        sent = []
        for p in range(self.partitions):
            for _ in range(count):
                value = f"{p}:{self.seq[p]}"
                self.seq[p] += 1
                sent.append((p, value, self.producer.send(self.topic, value=value.encode(), partition=p)))
        self.producer.flush(SEND_TIMEOUT_S)
        return [(p, future.get(timeout=SEND_TIMEOUT_S).offset, value) for p, value, future in sent]

    def close(self) -> None:
        self.producer.close(timeout=5)


class ConfluentProducer(NumberedProducer):
    """``NumberedProducer`` through confluent-kafka: each record's offset from its delivery report."""

    def __init__(self, bootstrap: str, topic: str, partitions: int):
        import confluent_kafka
        self.topic, self.partitions = topic, partitions
        self.seq = [0] * partitions
        self.producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "client.id": "groupcheck-producer",
                                                  "acks": "all", "linger.ms": 0, "log_level": 2})

    def produce(self, count: int) -> list[tuple[int, int, str]]:
        reports: dict[str, tuple] = {}
        for p in range(self.partitions):
            for _ in range(count):
                value = f"{p}:{self.seq[p]}"
                self.seq[p] += 1
                self.producer.produce(self.topic, value=value.encode(), partition=p,
                                      on_delivery=lambda err, msg, v=value: reports.__setitem__(v, (err, msg)))
        left = self.producer.flush(SEND_TIMEOUT_S)
        failed = [v for v, (err, _) in reports.items() if err is not None]
        if left or failed or len(reports) != count * self.partitions:
            raise RuntimeError(f"the producer could not write {failed or left} record(s) within {SEND_TIMEOUT_S} s")
        return sorted((msg.partition(), msg.offset(), v) for v, (_, msg) in reports.items())

    def close(self) -> None:
        self.producer.flush(5)


def read_offsets(bootstrap: str, group: str, topic: str, partitions: int, harness: str = "kafka-python") -> dict:
    """``{"end": {partition: offset}, "committed": {partition: offset or -1}}`` (string keys,
    as JSON lines carry them)."""
    if harness == "confluent-kafka":
        return _read_offsets_confluent(bootstrap, group, topic, partitions)
    from kafka import KafkaConsumer, TopicPartition
    c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False,
                      client_id="groupcheck-offsets")
    try:
        tps = [TopicPartition(topic, p) for p in range(partitions)]
        end = c.end_offsets(tps)
        committed = {tp.partition: c.committed(tp) for tp in tps}
    finally:
        c.close(autocommit=False)
    return {"end": {str(tp.partition): end[tp] for tp in tps},
            "committed": {str(p): -1 if o is None else o for p, o in committed.items()}}


def _read_offsets_confluent(bootstrap: str, group: str, topic: str, partitions: int) -> dict:
    import confluent_kafka
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                                  "client.id": "groupcheck-offsets", "log_level": 2})
    try:
        tps = [confluent_kafka.TopicPartition(topic, p) for p in range(partitions)]
        end = {tp.partition: c.get_watermark_offsets(tp, timeout=SEND_TIMEOUT_S)[1] for tp in tps}
        committed = {tp.partition: tp.offset for tp in c.committed(tps, timeout=SEND_TIMEOUT_S)}
    finally:
        c.close()
    return {"end": {str(p): o for p, o in end.items()},
            "committed": {str(p): o if o >= 0 else -1 for p, o in committed.items()}}
