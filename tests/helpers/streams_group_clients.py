"""A tiny driver for the streams group coordinator tests: members that heartbeat the way a
Streams client does (report what they own, take what the response assigns), and a world
that keeps the log and checks after every heartbeat that replaying it gives the live group."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from groupcheck.model.streams_group.coordinator import Cluster, Config, heartbeat
from groupcheck.model.streams_group.group import Group, mask_of, new_group, task_ids_of
from groupcheck.model.streams_group.records import replay
from groupcheck.model.streams_group.state import StreamsGroupHeartbeat, Subtopology, Topology


def stateless(epoch: int, topic: str = "in") -> Topology:
    return Topology(epoch, (Subtopology(subtopology_id="0", source_topics=(topic,)),))


@dataclass
class Client:
    member_id: str
    process_id: str
    topology: Topology
    epoch: int = 0
    owned: tuple = (0, 0, 0)
    joined: bool = False


@dataclass
class World:
    group: Group
    cluster: Cluster
    profile: str = "kip-1071"
    config: Config = Config()
    log: list = field(default_factory=list)
    shutdown: str | None = None
    responses: list = field(default_factory=list)

    def send(self, request: StreamsGroupHeartbeat):
        out = heartbeat(self.group, request, self.cluster, self.profile, self.config, self.shutdown)
        self.group, self.shutdown = out.group, out.shutdown_member_id
        self.log += out.records
        start = replace(new_group(self.group.group_id, self.group.task_index), dead=True)
        assert replay(self.log, start) == self.group, "replay(log) != live group"
        self.responses.append(out.response)
        return out

    def request(self, c: Client, **kw) -> StreamsGroupHeartbeat:
        idx = self.group.task_index
        base = dict(group_id=self.group.group_id, member_id=c.member_id, member_epoch=c.epoch,
                    process_id=c.process_id)
        if c.epoch == 0:
            base.update(rebalance_timeout_ms=1000, topology=c.topology, active_tasks=(), standby_tasks=(),
                        warmup_tasks=())
        else:
            base.update(active_tasks=task_ids_of(idx, c.owned[0]), standby_tasks=task_ids_of(idx, c.owned[1]),
                        warmup_tasks=task_ids_of(idx, c.owned[2]))
        base.update(kw)
        return StreamsGroupHeartbeat(**base)

    def beat(self, c: Client, **kw):
        out = self.send(self.request(c, **kw))
        r = out.response
        if r.error_code == 0 and r.member_epoch >= 0:
            c.epoch, c.joined = r.member_epoch, True
            if r.active_tasks is not None:
                idx = self.group.task_index
                c.owned = (mask_of(idx, r.active_tasks), mask_of(idx, r.standby_tasks), mask_of(idx, r.warmup_tasks))
        return out

    def leave(self, c: Client):
        out = self.send(self.request(c, member_epoch=-1))
        c.epoch, c.owned, c.joined = 0, (0, 0, 0), False
        return out

    def converge(self, clients, rounds: int = 12, check=None):
        for _ in range(rounds):
            before = self.group
            for c in clients:
                self.beat(c)
                if check:
                    check(self)
            if self.group == before:
                return
        raise AssertionError("the group did not converge")


def fresh(num_tasks: int = 9, topic: str = "in", group_id: str = "app") -> Group:
    from groupcheck.model.streams_group.group import task_index
    return replace(new_group(group_id, task_index({"0": num_tasks})), dead=True)
