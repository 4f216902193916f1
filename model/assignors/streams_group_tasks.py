"""KIP-1071 streams groups: the broker-side task assignors, ``sticky`` and ``highly_available``.

"The AK implementation will provide the following assignors: highly_available - Similar to
the current HighAvailabilityTaskAssignor; sticky - similar to the current StickyTaskAssignor"
(KIP-1071, "Assignment"). Both take a ``GroupSpec`` and return a ``GroupAssignment`` (per
member, in ``spec.members`` order: active, standby and warm-up tasks as bitmasks); both are
pure and deterministic (ties by member, process or task index), give a member behind the
group's topology epoch no task it does not hold (``may_take``) and never put a stateful
task on one process twice. ``streams_group_invariants.check`` names what an assignment
breaks. The value objects live in ``streams_group_spec`` and are re-exported here.
"""
from __future__ import annotations

from .streams_group_placement import Work, assign_active, assign_standby
from .streams_group_spec import (ACTIVE, STANDBY, WARMUP, Configs, GroupAssignment, GroupSpec,  # noqa: F401
                                 MemberAssignment, MemberSpec, TaskSpec, caught_up, lag, may_take,
                                 validate)

ASSIGNORS = ("sticky", "highly_available")


def sticky(spec: GroupSpec, first_holder_unchecked: bool = False) -> GroupAssignment:
    """Kafka's StickyTaskAssignor: actives balanced over processes then members and kept by
    their previous owners up to their share, then by previous standby holders; standbys
    on other processes; warm-ups never (``new MemberAssignment(active, standby, new
    HashMap<>())``)."""
    validate(spec, "sticky")
    w = Work(spec, warmups_load=False)

    def standby_holders(t: int) -> list[int]:
        return [m for m, ms in enumerate(spec.members) if ms.standby >> t & 1]

    assign_active(w, standby_holders)
    assign_standby(w, standby_holders, first_holder_unchecked)
    return w.result()


def highly_available(spec: GroupSpec, first_holder_unchecked: bool = False) -> GroupAssignment:
    """The KIP's highly_available assignor, built like Kafka trunk's target assignment plus
    AssignmentRefinerImpl: a sticky target in which an orphaned task prefers the most
    caught-up copy; then each stateful active move that would stop processing waits on
    its old owner while the target owner warms up (``_stage``, ``_warm_up``); then
    standbys, which a caught-up warm-up may become."""
    validate(spec, "highly_available")
    w = Work(spec, warmups_load=True)
    members = spec.members

    def best_copy_holders(t: int) -> list[int]:
        """"selecting the client with the maximal cumulative task changelog offset that
        fulfils all other requirements" (KIP-1071): of the previous standby and warm-up
        holders, those with the lowest known lag level (all of them if none is known)."""
        holders = [m for m, ms in enumerate(members) if (ms.standby | ms.warmup) >> t & 1]
        levels = [lag(spec, t, members[m].process_id) for m in holders]
        known = [x for x in levels if x is not None]
        return [m for m, x in zip(holders, levels) if x == min(known)] if known else holders

    def standby_holders(t: int) -> list[int]:
        """Previous standbys, and caught-up warm-ups: "Each warm-up task that has reached
        acceptable.recovery.lag must be turned into an active task or a standby task, or
        be unassigned from the member" (KIP-1071)."""
        return [m for m, ms in enumerate(members) if ms.standby >> t & 1
                or (ms.warmup >> t & 1 and caught_up(spec, t, ms.process_id))]

    assign_active(w, best_copy_holders)
    _warm_up(w, _stage(w))
    assign_standby(w, standby_holders, first_holder_unchecked)
    return w.result()


def _stage(w: Work) -> list[tuple[int, int]]:
    """AssignmentRefinerImpl#analyzeTasks: a stateful task whose target owner is not its
    current active holder moves now ("granted") when nobody holds it, when the holder is
    still restoring it (its process's lag is known and not caught up: "staging would
    protect nothing"), when both members share a process (isReady: "there is no way to
    warm the target owner up"), or when the target's process "already holds a caught-up
    copy of the task" (standby or warm-up). Otherwise it is *staged*: it stays with the
    holder. Returns the staged (task, target owner) pairs in task order."""
    spec, members = w.spec, w.spec.members
    staged = []
    for t, task in enumerate(spec.tasks):
        target = next((m for m in range(len(members)) if w.active[m] >> t & 1), None)
        holder = next((m for m, ms in enumerate(members) if ms.active >> t & 1), None)
        if not task.stateful or target is None or holder is None or target == holder:
            continue
        hp, tp = members[holder].process_id, members[target].process_id
        restoring = lag(spec, t, hp) is not None and not caught_up(spec, t, hp)
        copy_ready = caught_up(spec, t, tp) and any(
            (ms.standby | ms.warmup) >> t & 1 for ms in members if ms.process_id == tp)
        if restoring or hp == tp or copy_ready:
            continue
        w.active[target] &= ~(1 << t)
        w.active[holder] |= 1 << t
        staged.append((t, target))
    return staged


def _warm_up(w: Work, staged: list[tuple[int, int]]) -> None:
    """Warm-ups for staged moves, at most ``num.warmup.replicas`` in the group (KIP-1071,
    "Assignment configuration"; the refiner's budget): first a warm-up the target's process
    already runs keeps running, on the member that has it ("the process is already restoring
    the task and must not be handed a second copy of it"); then a target process with no
    copy at all gets a new warm-up on the target owner. A staged move that is not funded
    still waits, "with nothing warming up". A process holding a standby copy needs none."""
    spec, members = w.spec, w.spec.members
    budget = spec.configs.num_warmup_replicas
    for t, target in staged:
        tp = members[target].process_id
        warm = [m for m, ms in enumerate(members) if ms.process_id == tp and ms.warmup >> t & 1]
        if warm and budget > 0:
            w.add(warm[0], t, WARMUP)
            budget -= 1
    for t, target in staged:
        tp = members[target].process_id
        if budget > 0 and may_take(spec, target, t, WARMUP) and not any(
                (ms.active | ms.standby | ms.warmup) >> t & 1 for ms in members if ms.process_id == tp):
            w.add(target, t, WARMUP)
            budget -= 1


def assign(name: str, spec: GroupSpec, first_holder_unchecked: bool = False) -> GroupAssignment:
    """The assignor the group is configured with, by its KIP name (``first_holder_unchecked``:
    the KAFKA-20899 switch, ``streams_group_placement.assign_standby``)."""
    if name == "sticky":
        return sticky(spec, first_holder_unchecked)
    if name == "highly_available":
        return highly_available(spec, first_holder_unchecked)
    raise ValueError(f"assign: unknown task assignor {name!r}; choose one of {ASSIGNORS}")
