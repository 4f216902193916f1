"""The coordinator's inputs to a new target assignment (KIP-1071 "Assignment"): the
partition metadata it tracks, the assignment configs, the assignor it picks, and the
target itself over the group's ``task_index``.

    partition_metadata(topology, topics)      (topic, partitions) of every topic the topology names
    assignment_configs(configs)               the configs as the group-metadata record stores them
    choose_assignor(topology, name)           KIP: highly_available for stateful, sticky for stateless
    new_target(group, configured, ...)        member id -> (active, standby, warm-up) bitmasks

Sources (apache/kafka, group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
``GroupMetadataManager#updateStreamsTargetAssignment`` and ``streams/TargetAssignmentBuilder``
(each member's spec carries its *target* tasks, not its current ones; a topology that is not
ready assigns nothing), ``streams/StreamsGroup#computeMetadataHash`` (the model keeps the
counts instead of their hash).
"""
from __future__ import annotations

from typing import Mapping, NamedTuple, Optional

from ..assignors.streams_group_tasks import Configs, GroupSpec, MemberSpec, TaskSpec, assign
from .group import NO_TASKS, Group, Tasks
from .state import TaskOffset, Topology
from .topology import ConfiguredTopology


def partition_metadata(topology: Optional[Topology], topics: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """KIP: "The partition metadata for the group ... is the partition metadata of all input
    topics". The model also counts the topology's internal topics, as Kafka's metadata hash
    covers every topic the topology names, so a created internal topic is a metadata change."""
    if topology is None:
        return ()
    names = set()
    for s in topology.subtopologies:
        names |= set(s.source_topics) | set(s.repartition_sink_topics)
        names |= {t.name for t in (*s.state_changelog_topics, *s.repartition_source_topics)}
    return tuple(sorted((n, topics[n]) for n in names if n in topics))


class AssignmentConfigs(NamedTuple):
    """KIP-1071 "Assignment configuration" (group-level, broker-side). ``acceptable_recovery_lag``
    is a lag level, as in ``assignors.streams_group_spec``."""

    num_standby_replicas: int = 0
    num_warmup_replicas: int = 2
    acceptable_recovery_lag: int = 0


def assignment_configs(c: AssignmentConfigs) -> tuple[tuple[str, str], ...]:
    """The configs as ``StreamsGroupMetadataValue.LastAssignmentConfigs`` stores them."""
    return (("acceptable.recovery.lag", str(c.acceptable_recovery_lag)),
            ("num.standby.replicas", str(c.num_standby_replicas)),
            ("num.warmup.replicas", str(c.num_warmup_replicas)))


def stateful(topology: Topology, subtopology_id: str) -> bool:
    return any(s.subtopology_id == subtopology_id and s.state_changelog_topics for s in topology.subtopologies)


def choose_assignor(topology: Topology, name: Optional[str]) -> str:
    """KIP: "If no task assignor is configured ... the AK implementation will choose
    highly_available for stateful topologies and sticky for stateless topologies"."""
    if name is not None:
        return name
    return "highly_available" if any(s.state_changelog_topics for s in topology.subtopologies) else "sticky"


def _positions(group: Group, number_of_tasks: Mapping[str, int]) -> list[int]:
    """The group's task-index positions of the configured tasks, in index order."""
    wanted = {(s, p) for s, n in number_of_tasks.items() for p in range(n)}
    missing = wanted - set(group.task_index)
    if missing:
        raise ValueError(f"new_target: configured tasks {sorted(missing)[:3]} are not in the group's "
                         "task_index; build the group with a task_index covering the scope's topics")
    return [i for i, task in enumerate(group.task_index) if task in wanted]


def _compact(mask: int, positions: list[int]) -> int:
    return sum(1 << k for k, i in enumerate(positions) if mask >> i & 1)


def _expand(mask: int, positions: list[int]) -> int:
    return sum(1 << i for k, i in enumerate(positions) if mask >> k & 1)


def lag_levels(offsets: tuple[TaskOffset, ...] | None, end_offsets: tuple[TaskOffset, ...] | None) -> dict:
    """(subtopology, partition) -> end offset - offset, for tasks reported in both lists."""
    ends = {(o.subtopology_id, o.partition): o.offset for o in end_offsets or ()}
    return {(o.subtopology_id, o.partition): ends[(o.subtopology_id, o.partition)] - o.offset
            for o in offsets or () if (o.subtopology_id, o.partition) in ends}


def new_target(group: Group, configured: ConfiguredTopology, configs: AssignmentConfigs,
               assignor: Optional[str], lags: Mapping[str, dict] = {},
               first_holder_unchecked: bool = False) -> dict[str, Tasks]:
    """The target for every member of ``group`` (its topology set). Not ready: every member
    gets nothing (KIP: "Only after the topology metadata is initialized and all source topics
    and internal topics exist, the group coordinator starts assigning tasks"). ``lags``:
    process id -> {task: lag level} as reported in this heartbeat (nothing else is kept)."""
    if not configured.ready or not group.members:
        return {m.member_id: NO_TASKS for m in group.members}
    topology = group.topology
    positions = _positions(group, configured.number_of_tasks)
    tasks = tuple(TaskSpec(stateful(topology, group.task_index[i][0]),
                           tuple(sorted((pid, lv[group.task_index[i]]) for pid, lv in lags.items()
                                        if group.task_index[i] in lv)))
                  for i in positions)
    specs = []
    for m in group.members:
        active, standby, warmup = (_compact(x, positions) for x in group.target_of(m.member_id))
        specs.append(MemberSpec(member_id=m.member_id, process_id=m.process_id, topology_epoch=m.topology_epoch,
                                active=active, standby=standby, warmup=warmup))
    members = tuple(specs)
    spec = GroupSpec(topology.epoch, members, tasks, Configs(*configs))
    result = assign(choose_assignor(topology, assignor), spec, first_holder_unchecked)
    return {ms.member_id: (_expand(a.active, positions), _expand(a.standby, positions), _expand(a.warmup, positions))
            for ms, a in zip(members, result)}
