"""The machinery of Kafka's StickyTaskAssignor (group-coordinator/src/main/java/org/apache/kafka/
coordinator/group/streams/assignor/StickyTaskAssignor.java, ProcessState.java), shared by both
task assignors of ``streams_group_tasks``: one call's scratch state and its active and standby passes."""
from __future__ import annotations

from fractions import Fraction

from ..partitions import bits, count
from .streams_group_spec import ACTIVE, STANDBY, WARMUP, GroupAssignment, GroupSpec, MemberAssignment, may_take, processes


# ---- scratch state of one call (Kafka's LocalState / ProcessState) ----

class Work:
    def __init__(self, spec: GroupSpec, warmups_load: bool) -> None:
        self.spec = spec
        self.procs = processes(spec)
        self.proc_of = [self.procs.index(m.process_id) for m in spec.members]
        self.members_of = [[m for m, p in enumerate(self.proc_of) if p == q] for q in range(len(self.procs))]
        k = len(spec.members)
        self.active, self.standby, self.warmup = [0] * k, [0] * k, [0] * k
        self.warmups_load = warmups_load
        n = len(spec.tasks)
        self.pairs: set[tuple[int, int]] = set()
        self.max_pairs = n * (n - 1) // 2

    def tasks_of(self, m: int) -> int:
        return self.active[m] | self.standby[m] | (self.warmup[m] if self.warmups_load else 0)

    def proc_tasks(self, p: int) -> int:
        out = 0
        for m in self.members_of[p]:
            out |= self.tasks_of(m)
        return out

    def load(self, p: int) -> Fraction:
        """ProcessState#load: the tasks a process holds per member it has."""
        return Fraction(sum(count(self.tasks_of(m)) for m in self.members_of[p]), len(self.members_of[p]))

    def has_new_pair(self, t: int, p: int) -> bool:
        """TaskPairs#hasNewPair: would ``t`` on process ``p`` make a task pair not yet seen
        on one process (so no two processes end up with the same tasks)?"""
        if len(self.pairs) == self.max_pairs:
            return False
        held_here = self.proc_tasks(p)
        return not held_here or any((min(t, u), max(t, u)) not in self.pairs for u in bits(held_here))

    def add(self, m: int, t: int, role: str) -> None:
        """ProcessState#addTask then StickyTaskAssignor#updateHelpers (task pairs)."""
        {ACTIVE: self.active, STANDBY: self.standby, WARMUP: self.warmup}[role][m] |= 1 << t
        for u in bits(self.proc_tasks(self.proc_of[m]) & ~(1 << t)):
            self.pairs.add((min(t, u), max(t, u)))

    def least_loaded(self, cands: list[int], t: int, role: str, prefer: list[int] = ()) -> int | None:
        """StickyTaskAssignor#findMemberWithLeastLoad: among the candidates' processes,
        those forming a new task pair (else all), the least loaded (ties: process index);
        there a preferred member (``returnSameMember``) else its least loaded member."""
        cands = [m for m in cands if may_take(self.spec, m, t, role)]
        if not cands:
            return None
        procs = sorted({self.proc_of[m] for m in cands})
        paired = [p for p in procs if self.has_new_pair(t, p)] or procs
        p = min(paired, key=lambda q: (self.load(q), q))
        for m in prefer:
            if self.proc_of[m] == p and may_take(self.spec, m, t, role):
                return m
        inside = [m for m in self.members_of[p] if may_take(self.spec, m, t, role)]
        if not inside:
            return None
        return min(inside, key=lambda m: (count(self.tasks_of(m)), m))

    def result(self) -> GroupAssignment:
        return tuple(MemberAssignment(a, s, w) for a, s, w in zip(self.active, self.standby, self.warmup))


def assign_active(w: Work, copy_holders) -> None:
    """StickyTaskAssignor#assignActive, its three passes in task order:
    1. "re-assigning existing active tasks to clients that previously had the same active
       tasks", while the member is under ``tasksPerMember`` (ceil(tasks / members));
    2. "re-assigning tasks to clients that previously have seen the same task (as standby
       task)" (``copy_holders(t)``), under the same quota;
    3. "assign any remaining unassigned tasks" to the least loaded process's least loaded
       member. Each member whose process reaches ``tasksPerMember`` actives leaves the quota
       computation (``maybeUpdateTasksPerMember``, Kafka's own counting)."""
    spec = w.spec
    quota = {"tasks": len(spec.tasks), "capacity": len(spec.members)}

    def per_member() -> int:
        return -(-quota["tasks"] // quota["capacity"]) if quota["capacity"] else 0

    tpm = [per_member()]

    def place(m: int, t: int) -> None:
        w.add(m, t, ACTIVE)
        n_proc = sum(count(w.active[x]) for x in w.members_of[w.proc_of[m]])
        if n_proc == tpm[0]:
            quota["capacity"] -= 1
            quota["tasks"] -= n_proc
            tpm[0] = per_member()

    left = list(range(len(spec.tasks)))
    owners = [next((m for m, ms in enumerate(spec.members) if ms.active >> t & 1), None) for t in left]
    for t in list(left):
        m = owners[t]
        if m is not None and count(w.tasks_of(m)) < tpm[0]:
            place(m, t)
            left.remove(t)
    for t in list(left):
        holders = copy_holders(t)
        m = w.least_loaded(holders, t, ACTIVE, prefer=holders)
        if m is not None and count(w.tasks_of(m)) < tpm[0]:
            place(m, t)
            left.remove(t)
    everyone = list(range(len(spec.members)))
    for t in left:
        m = w.least_loaded(everyone, t, ACTIVE)
        if m is not None:       # Kafka throws TaskAssignorException; here nobody may take it
            place(m, t)


def assign_standby(w: Work, copy_holders, first_holder_unchecked: bool = False) -> None:
    """StickyTaskAssignor#assignStandby: ``num.standby.replicas`` standbys per stateful task,
    only on processes not holding the task yet ("A stateful task (in the various roles)
    cannot be assigned to two clients with the same processId", KIP-1071); first the
    previous active owner, then a previous copy holder, when its process is load balanced
    (``isLoadBalanced``: under capacity or least loaded), else the least loaded member.

    ``first_holder_unchecked``: KAFKA-20899 unfixed (apache/kafka PR #23096):
    StickyTaskAssignor#findPrevMemberWithLeastLoad began with ``candidate = members.get(0)``
    and applied "A process that already owns a standby task (either as active or standby)
    cannot take it again" only to the others, so the first previous holder could get the
    standby on a process that already holds the task."""
    spec = w.spec
    owners = [next((m for m, ms in enumerate(spec.members) if ms.active >> t & 1), None)
              for t in range(len(spec.tasks))]

    def balanced(p: int) -> bool:
        held_count = sum(count(w.tasks_of(m)) for m in w.members_of[p])
        return held_count < len(w.members_of[p]) or all(w.load(q) >= w.load(p) for q in range(len(w.procs)))

    for t, task in enumerate(spec.tasks):
        if not task.stateful:
            continue
        for _ in range(spec.configs.num_standby_replicas):
            free = [p for p in range(len(w.procs)) if not w.proc_tasks(p) >> t & 1]
            cands = [m for m in range(len(spec.members)) if w.proc_of[m] in free]
            m = owners[t]
            if not (m in cands and may_take(spec, m, t, STANDBY) and balanced(w.proc_of[m])
                    and w.has_new_pair(t, w.proc_of[m])):
                holders = [h for h in copy_holders(t) if h in cands]
                if first_holder_unchecked and copy_holders(t):
                    # KAFKA-20899: the first previous holder, unchecked. (Kafka's loop may
                    # swap in a later holder that is less loaded in process and member;
                    # the balance check below already moves such a task to the least
                    # loaded member, so that loop changes no assignment the model reaches.)
                    m = copy_holders(t)[0]
                else:
                    m = w.least_loaded(holders, t, STANDBY, prefer=holders) if holders else None
                if m is not None and not balanced(w.proc_of[m]):
                    m = None
            if m is None:
                m = w.least_loaded(cands, t, STANDBY)
            if m is None:
                break           # "There is not enough available capacity."
            w.add(m, t, STANDBY)

