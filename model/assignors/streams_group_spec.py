"""KIP-1071 streams groups: what the broker-side task assignors are given and return.

The group coordinator calls one of them "every time the group epoch is bumped" (KIP-1071,
"Assignment") with a ``GroupSpec``: the group's topology epoch, each member's process id,
topology epoch and current active/standby/warm-up tasks, each task's stateful flag and the
lag level each process has for it, and the three assignment configs. Either returns a
``GroupAssignment``: per member (same order as ``spec.members``), the active, standby and
warm-up tasks as bitmasks (task ``t`` is bit ``t``).

Changelog offsets are abstracted to *lag levels* (0 caught up, 1, 2, ... further behind,
absent = unknown). A copy is caught up when its level is known and at most
``acceptable_recovery_lag`` (AssignmentRefinerImpl#isCaughtUp: "endOffset - offset <=
acceptableRecoveryLag"; "a lag that is not known is never within the threshold").

The assignors are in ``streams_group_tasks``; ``streams_group_invariants.check`` names
what an assignment breaks.
"""
from __future__ import annotations

from typing import NamedTuple

ACTIVE, STANDBY, WARMUP = "active", "standby", "warmup"


class TaskSpec(NamedTuple):
    """One task: stateful (has a changelog, so standbys and warm-ups make sense) and, per
    process id, its lag level there; a process not listed has an unknown lag."""

    stateful: bool
    lags: tuple[tuple[str, int], ...] = ()


class MemberSpec(NamedTuple):
    """One member as the assignor sees it (AssignmentMemberSpec, plus the KIP's topology
    epoch): its reconciled current tasks, per role."""

    member_id: str
    process_id: str
    topology_epoch: int = 0
    active: int = 0
    standby: int = 0
    warmup: int = 0


class Configs(NamedTuple):
    """The broker-side assignment configs (KIP-1071, "Assignment configuration");
    ``acceptable_recovery_lag`` is a lag level."""

    num_standby_replicas: int = 0
    num_warmup_replicas: int = 2
    acceptable_recovery_lag: int = 0


class GroupSpec(NamedTuple):
    topology_epoch: int
    members: tuple[MemberSpec, ...]
    tasks: tuple[TaskSpec, ...]
    configs: Configs = Configs()


class MemberAssignment(NamedTuple):
    active: int = 0
    standby: int = 0
    warmup: int = 0


GroupAssignment = tuple[MemberAssignment, ...]


# ---- facts about a spec, shared with streams_group_invariants ----

def held(member: MemberSpec, role: str) -> int:
    return {ACTIVE: member.active, STANDBY: member.standby, WARMUP: member.warmup}[role]


def may_take(spec: GroupSpec, m: int, t: int, role: str) -> bool:
    """Topology updates: "members with a topology epoch that does not correspond to the
    group's topology epoch will not get any new tasks assigned" (KIP-1071). A stale member
    keeps a task only in the role it holds it in: a role change counts as new. (Kafka's
    AssignmentMemberSpec carries no topology epoch: 4.1 rejects topology updates.)"""
    member = spec.members[m]
    return member.topology_epoch >= spec.topology_epoch or bool(held(member, role) >> t & 1)


def lag(spec: GroupSpec, t: int, process_id: str) -> int | None:
    for pid, level in spec.tasks[t].lags:
        if pid == process_id:
            return level
    return None


def caught_up(spec: GroupSpec, t: int, process_id: str) -> bool:
    level = lag(spec, t, process_id)
    return level is not None and level <= spec.configs.acceptable_recovery_lag


def processes(spec: GroupSpec) -> tuple[str, ...]:
    """Process ids in order of first appearance among the members."""
    return tuple(dict.fromkeys(m.process_id for m in spec.members))


def validate(spec: GroupSpec, fn: str) -> None:
    """Misuse an assignor cannot answer. A current task beyond ``spec.tasks`` is not misuse:
    the topology may have shrunk, and it is ignored as StickyTaskAssignor ignores it
    (StickyTaskAssignorTest#shouldRebalanceTasksToClientsBasedOnCapacity)."""
    ids = [m.member_id for m in spec.members]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{fn}: member ids repeat ({ids}); give each member its own id")
