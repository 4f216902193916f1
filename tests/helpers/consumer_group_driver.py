"""(No tests here.) A small driver for the KIP-848 coordinator tests: clients that send ConsumerGroupHeartbeats
the way a KIP-848 consumer does (join with epoch 0, then report owned partitions; revoke what
the coordinator stops assigning), and a World that checks after every handled heartbeat that
replaying all records written so far gives exactly the coordinator's group (failover = replay).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from groupcheck.model.consumer_group.coordinator import Cluster, Config, heartbeat, replay
from groupcheck.model.consumer_group.group import mask_of, new_group, partition_index, topic_partitions_of
from groupcheck.model.consumer_group.state import ConsumerGroupHeartbeat

TOPICS = (("a", 4), ("b", 2))
CLUSTER = Cluster(TOPICS)
INDEX = partition_index(TOPICS)


def fresh(gid="g"):
    return replace(new_group(gid, INDEX), dead=True)


@dataclass
class Client:
    member_id: str
    topics: tuple = ("a",)
    instance_id: str | None = None
    regex: str | None = None
    assignor: str | None = None
    epoch: int = 0
    owned: int = 0


@dataclass
class World:
    group: object = field(default_factory=fresh)
    cluster: Cluster = CLUSTER
    profile: str = "kip-848"
    config: Config = Config()
    switches: tuple = ()
    log: list = field(default_factory=list)

    def send(self, request):
        out = heartbeat(self.group, request, self.cluster, self.profile, self.config, self.switches)
        self.apply(out)
        return out

    def apply(self, out):
        self.log += list(out.records)
        self.group = out.group
        if self.log:   # the soft partition-epoch map (KAFKA-16147) is in no record
            expected = replace(self.group, epoch_map_lost=0) if not self.group.dead else self.group
            assert replay(self.log, None, partition_index=INDEX) == expected, "replay(log) != group"

    def join(self, c: Client, **kw):
        fields = dict(group_id=self.group.group_id, member_id=c.member_id, member_epoch=0, instance_id=c.instance_id,
                      rebalance_timeout_ms=1000, subscribed_topic_names=None if c.regex else c.topics,
                      subscribed_topic_regex=c.regex, server_assignor=c.assignor, topic_partitions=())
        fields.update(kw)
        return self.take(c, self.send(ConsumerGroupHeartbeat(**fields)))

    def beat(self, c: Client, full=False, **kw):
        """A heartbeat reporting what the client owns (a full request when ``full``)."""
        fields = dict(group_id=self.group.group_id, member_id=c.member_id, member_epoch=c.epoch,
                      instance_id=c.instance_id, topic_partitions=topic_partitions_of(INDEX, c.owned))
        if full:
            fields.update(rebalance_timeout_ms=1000, subscribed_topic_names=c.topics)
        fields.update(kw)
        return self.take(c, self.send(ConsumerGroupHeartbeat(**fields)))

    def take(self, c: Client, out):
        r = out.response
        if r.error_code == 0:
            c.epoch = r.member_epoch
            if r.assignment is not None:
                c.owned = mask_of(INDEX, r.assignment)   # revoke what is gone, take what is new
        return out

    def converge(self, clients, rounds=8):
        for _ in range(rounds):
            for c in clients:
                self.beat(c)
        return self


def masks(world, *ids):
    return tuple(world.group.member(i).assigned for i in ids)
