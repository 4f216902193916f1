"""(h) reconcile_never_two_active_owners.

KIP-1071, "Reconciliation of the group": "An active task is assigned as soon as no
other client owns it anymore, that is, once the previous owner (if any) has confirmed
the revocation of the corresponding active task."

An encoded slice of a Streams group: M members, each of a process ``proc_m`` and with,
per role (active, standby, warm-up), ``assigned`` and ``pending`` (pending revocation)
``BitVec(T)`` sets, as the coordinator tracks them. A member *holds* a task in a role
when it is in ``assigned ∪ pending``. Invariant ``inv``: no active task is held by two
members. Step: one member ``k`` is reconciled (model.epochs.reconcile with
model.epochs.group.streams_unreleased) towards an arbitrary target, with an arbitrary
owned set (or none reported), or stays as it is (a waiting UNREVOKED member, a STABLE
member at the target):

    kept = assigned ∩ target;   revoke = assigned − kept;   wanted = target − kept
    blocked_active  = held active by anyone ∪ held standby/warm-up on proc_k
    blocked_standby = blocked_warmup = held in any role on proc_k
    something to revoke that owned may still hold:  assigned′ = kept, pending′ = revoke
    otherwise:                                      assigned′ = kept ∪ (wanted − blocked), pending′ = ∅

Proved: ``inv`` holds initially (all empty) and ``inv ∧ step ⇒ inv′``; so reconciling
one member at a time never lets two members hold one active task. Bound: M = 1..3
members, T = 4 tasks (bitwise, so any T), processes arbitrary.

Weakened (each SAT, with a counterexample):
  ``no-blocking-rule``       the rule answers "released" for every task;
  ``no-unreleased-filter``   the rule is asked, but pending assignment is target − kept;
  ``pending-not-held``       the who-holds view leaves out pending revocation, so a task
                             counts as released before its owner confirmed the revocation.
Not a weakening of this claim: ``keep-revoked`` (revoked tasks stay assigned, nothing
pending) stays UNSAT, since keeping tasks never grows what a member holds; it breaks
convergence to the target, not exclusivity (see README.md of model/epochs).
"""
from __future__ import annotations

from typing import Sequence

import z3

from ._common import Instance, Result, pick_weakening, run, union, value

NAME = "reconcile_never_two_active_owners"
MAX_MEMBERS = 3
TASKS = 4
ROLES = 3
WEAKENINGS = ("no-blocking-rule", "no-unreleased-filter", "pending-not-held")
NOT_WEAKENING = ("keep-revoked",)   # checked and reported as still proved


class Slice:
    """Symbolic per-member, per-role sets of one state."""

    def __init__(self, prefix: str, members: int, tasks: int):
        self.proc = [z3.Int(f"{prefix}proc_{m}") for m in range(members)]
        self.assigned = [[z3.BitVec(f"{prefix}assigned_{m}_{r}", tasks) for r in range(ROLES)]
                         for m in range(members)]
        self.pending = [[z3.BitVec(f"{prefix}pending_{m}_{r}", tasks) for r in range(ROLES)]
                        for m in range(members)]


def held(assigned, pending, m: int, r: int):
    return assigned[m][r] | pending[m][r]


def inv_parts(assigned, pending) -> dict[str, z3.BoolRef]:
    n = len(assigned)
    return {"active_held_by_at_most_one_member": z3.And(
        [held(assigned, pending, i, 0) & held(assigned, pending, j, 0) == 0
         for i in range(n) for j in range(i + 1, n)] or [z3.BoolVal(True)])}


def blocked_z3(proc, assigned, pending, k: int, weakened: str | None) -> list[z3.BitVecRef]:
    """streams_unreleased for member k, per role, as masks."""
    n, width = len(assigned), assigned[0][0].size()
    zero = z3.BitVecVal(0, width)
    if weakened == "no-blocking-rule":
        return [zero] * ROLES
    view = [[assigned[m][r] if weakened == "pending-not-held" else held(assigned, pending, m, r)
             for r in range(ROLES)] for m in range(n)]
    same = [union([z3.If(proc[m] == proc[k], view[m][r], zero) for m in range(n)], width) for r in range(ROLES)]
    anywhere_active = union([view[m][0] for m in range(n)], width)
    own_process = same[0] | same[1] | same[2]
    return [anywhere_active | same[1] | same[2], own_process, own_process]


def step_z3(proc, assigned, pending, k: int, moves: z3.BoolRef, target, owned, reported: z3.BoolRef,
            weakened: str | None = None):
    """(assigned′, pending′) after member k is reconciled (``moves``) or left as it is."""
    width = assigned[0][0].size()
    zero = z3.BitVecVal(0, width)
    a, p = assigned[k], pending[k]
    kept = [a[r] & target[r] for r in range(ROLES)]
    revoke = [a[r] & ~kept[r] for r in range(ROLES)]
    wanted = [target[r] & ~kept[r] for r in range(ROLES)]
    blocked = blocked_z3(proc, assigned, pending, k, weakened)
    add = [wanted[r] if weakened == "no-unreleased-filter" else wanted[r] & ~blocked[r] for r in range(ROLES)]
    must_revoke = z3.And(z3.Or([x != 0 for x in revoke]),
                         z3.Or(z3.Not(reported), z3.Or([owned[r] & revoke[r] != 0 for r in range(ROLES)])))
    if weakened == "keep-revoked":
        new_a = [z3.If(must_revoke, a[r], a[r] | add[r]) for r in range(ROLES)]
        new_p = [zero] * ROLES
    else:
        new_a = [z3.If(must_revoke, kept[r], kept[r] | add[r]) for r in range(ROLES)]
        new_p = [z3.If(must_revoke, revoke[r], zero) for r in range(ROLES)]
    assigned2 = [list(row) for row in assigned]
    pending2 = [list(row) for row in pending]
    for r in range(ROLES):
        assigned2[k][r] = z3.If(moves, new_a[r], a[r])
        pending2[k][r] = z3.If(moves, new_p[r], p[r])
    return assigned2, pending2


def _flat(rows: Sequence[Sequence[z3.ExprRef]], model: z3.ModelRef) -> list[list[int]]:
    return [[value(model, x) for x in row] for row in rows]


def initiation(members: int, tasks: int) -> Instance:
    s = Slice("", members, tasks)
    premises = [x == 0 for row in s.assigned + s.pending for x in row]
    return Instance(premises, inv_parts(s.assigned, s.pending),
                    lambda model: {"assigned": _flat(s.assigned, model), "pending": _flat(s.pending, model)},
                    {"phase": "initiation", "members": members, "tasks": tasks})


def consecution(members: int, tasks: int, k: int, weakened: str | None = None) -> Instance:
    s = Slice("", members, tasks)
    target = [z3.BitVec(f"target_{r}", tasks) for r in range(ROLES)]
    owned = [z3.BitVec(f"owned_{r}", tasks) for r in range(ROLES)]
    reported, moves = z3.Bool("owned_reported"), z3.Bool("moves")
    assigned2, pending2 = step_z3(s.proc, s.assigned, s.pending, k, moves, target, owned, reported, weakened)
    premises = [z3.And(list(inv_parts(s.assigned, s.pending).values()))]
    premises += [z3.And(0 <= x, x < members) for x in s.proc]
    # the member's own sets are disjoint, as reconcile leaves them
    premises += [s.assigned[m][r] & s.pending[m][r] == 0 for m in range(members) for r in range(ROLES)]

    def describe(model: z3.ModelRef) -> dict:
        return {
            "member": k, "moves": value(model, moves),
            "proc": [value(model, x) for x in s.proc],
            "assigned": _flat(s.assigned, model), "pending": _flat(s.pending, model),
            "target": [value(model, x) for x in target],
            "owned": [value(model, x) for x in owned] if value(model, reported) else None,
            "assigned_next": _flat(assigned2, model), "pending_next": _flat(pending2, model),
        }

    return Instance(premises, inv_parts(assigned2, pending2), describe,
                    {"phase": "consecution", "members": members, "tasks": tasks})


def prove(max_members: int = MAX_MEMBERS, tasks: int = TASKS, weakened: bool | str = False) -> Result:
    w = weakened if weakened in NOT_WEAKENING else pick_weakening(weakened, WEAKENINGS)
    bound = f"M=1..{max_members} members, T={tasks} tasks, any processes"

    def instances():
        for m in range(1, max_members + 1):
            yield initiation(m, tasks)
            for k in range(m):          # members are symmetric; every k keeps the encoding honest
                yield consecution(m, tasks, k, w)

    return run(NAME, bound, w, instances())
