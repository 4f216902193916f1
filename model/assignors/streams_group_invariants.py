"""What every KIP-1071 task assignment must satisfy, as named claims.

``check(spec, assignment)`` returns one line per violation, each starting with the claim's
name, so the coordinator model and the properties can reuse it and a failure names the
broken clause. Claims, in ``CLAIMS`` order:

* ``warmup_caught_up_resolved`` -- "Each warm-up task that has reached
  acceptable.recovery.lag must be turned into an active task or a standby task, or be
  unassigned from the member." (KIP-1071, "Assignment")
* ``one_role_per_process`` -- "A stateful task (in the various roles) cannot be assigned to
  two clients with the same processId." (KIP-1071, "Assignment"); one member holding a task
  in two roles breaks it too.
* ``stale_member_no_new_tasks`` -- "members with a topology epoch that does not correspond to
  the group's topology epoch will not get any new tasks assigned" (KIP-1071, "Topology
  updates"); per role, as ``streams_group_spec.may_take`` reads it.
* ``no_task_active_twice`` -- a task is active on at most one member.
* ``every_task_active_when_possible`` -- a task is active somewhere when some member may take
  it as active (one at the group's topology epoch, or a stale one already running it).
* ``stateless_task_active_only`` -- standbys and warm-ups are for stateful tasks only
  (StickyTaskAssignor#doAssign assigns standbys from ``taskIds(topologyDescriber, false)``,
  the stateful ones; AssignmentRefinerImpl never stages a stateless task).
"""
from __future__ import annotations

from ..partitions import bits
from .streams_group_spec import (ACTIVE, STANDBY, WARMUP, GroupAssignment, GroupSpec, caught_up, held,
                                 may_take, processes)

CLAIMS = ("warmup_caught_up_resolved", "one_role_per_process", "stale_member_no_new_tasks",
          "no_task_active_twice", "every_task_active_when_possible", "stateless_task_active_only")
ROLES = (ACTIVE, STANDBY, WARMUP)


def check(spec: GroupSpec, assignment: GroupAssignment) -> list[str]:
    """Every violated claim of ``assignment`` (per member, in ``spec.members`` order) for
    ``spec``; empty when it satisfies them all."""
    if len(assignment) != len(spec.members):
        raise ValueError(f"check: {len(assignment)} member assignments for {len(spec.members)} members; "
                         "give one MemberAssignment per spec.members entry, in that order")
    out: list[str] = []
    members = spec.members
    for m, (ms, got) in enumerate(zip(members, assignment)):
        for t in bits(ms.warmup & got.warmup):
            if caught_up(spec, t, ms.process_id):
                out.append(f"warmup_caught_up_resolved: task {t} stays a warm-up on {ms.member_id!r}, "
                           f"whose process {ms.process_id!r} has caught up")
        for role in ROLES:
            for t in bits(held(got, role)):
                if not may_take(spec, m, t, role):
                    out.append(f"stale_member_no_new_tasks: {ms.member_id!r} (topology epoch "
                               f"{ms.topology_epoch} < {spec.topology_epoch}) gets task {t} as a new {role} task")
    for t, task in enumerate(spec.tasks):
        bit = 1 << t
        for pid in processes(spec):
            roles = [(ms.member_id, role) for ms, got in zip(members, assignment) if ms.process_id == pid
                     for role in ROLES if held(got, role) & bit]
            if task.stateful and len(roles) > 1:
                out.append(f"one_role_per_process: stateful task {t} is held {len(roles)} times on "
                           f"process {pid!r}: {roles}")
        owners = [ms.member_id for ms, got in zip(members, assignment) if got.active & bit]
        if len(owners) > 1:
            out.append(f"no_task_active_twice: task {t} is active on {owners}")
        if not owners and any(may_take(spec, m, t, ACTIVE) for m in range(len(members))):
            out.append(f"every_task_active_when_possible: task {t} is active nowhere, though a member may take it")
        if not task.stateful:
            copies = [ms.member_id for ms, got in zip(members, assignment) if (got.standby | got.warmup) & bit]
            if copies:
                out.append(f"stateless_task_active_only: stateless task {t} is a standby or warm-up on {copies}")
    return out
