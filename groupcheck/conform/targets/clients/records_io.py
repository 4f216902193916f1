"""The harness's side of the records (issue 30): one producer of numbered records, and the
broker's final word on them.

``NumberedProducer`` writes records whose value is ``"<partition>:<seq>"`` to every
partition of the scenario's topic (kafka-python ``KafkaProducer``, acks from all
replicas, each send awaited, so the returned offsets are the log's). ``read_offsets``
reads, after every worker has stopped, each partition's log end offset (ListOffsets,
``KafkaConsumer.end_offsets``) and the group's committed offset (OffsetFetch,
``KafkaConsumer.committed``; -1 where the group committed nothing) with a consumer that
never joins the group.
"""
from __future__ import annotations

SEND_TIMEOUT_S = 30


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


def read_offsets(bootstrap: str, group: str, topic: str, partitions: int) -> dict:
    """``{"end": {partition: offset}, "committed": {partition: offset or -1}}`` (string keys,
    as JSON lines carry them)."""
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
