"""(j) consumer_reconcile_never_two_owners.

KIP-848, "Rebalance Process": a partition moves to its new owner only after the previous owner
revoked it. Kafka: modern/consumer/CurrentAssignmentBuilder#computeNextAssignment withholds a
partition while ``currentPartitionEpoch`` says another member still holds it (assigned or
pending revocation); before KAFKA-19449 the member's own pending revocation blocked it too.

An encoded slice of a consumer group: M members, each with ``assigned`` and ``pending``
(pending revocation) ``BitVec(P)`` sets as the coordinator tracks them; a member *holds* a
partition in ``assigned ∪ pending``. Invariant ``inv``: no partition is held by two members.
Step: one member ``k`` is reconciled (model.epochs.reconcile with
model.epochs.group.consumer_unreleased) towards an arbitrary target with an arbitrary owned set
(or none reported), or stays as it is:

    kept = assigned ∩ target;   revoke = assigned − kept;   wanted = target − kept
    blocked = ∪_{m ≠ k} held_m   (∪ pending_k with ``own_pending_blocks``, before KAFKA-19449)
    something to revoke that owned may still hold:  assigned′ = kept, pending′ = revoke
    otherwise:                                      assigned′ = kept ∪ (wanted − blocked), pending′ = ∅

Proved for both blocking rules (4.1's and KAFKA-19449's): ``inv`` holds initially and
``inv ∧ step ⇒ inv′``; so dropping the member's own pending revocation from the rule (the fix)
never lets two members hold one partition. Bound: M = 1..3 members, P = 4 partitions (bitwise).

Weakened (each SAT, with a counterexample replayed in ``properties/test_z3_consumer_group.py``):
  ``no-blocking-rule``   every partition counts as released;
  ``pending-not-held``   the who-holds view leaves out pending revocation, so a partition
                         counts as released before its owner confirmed the revocation.
"""
from __future__ import annotations

import z3

from ._common import Instance, Result, pick_weakening, run, union, value

NAME = "consumer_reconcile_never_two_owners"
MAX_MEMBERS = 3
PARTITIONS = 4
WEAKENINGS = ("no-blocking-rule", "pending-not-held")


def inv_parts(assigned, pending) -> dict[str, z3.BoolRef]:
    n = len(assigned)
    return {"partition_held_by_at_most_one_member": z3.And(
        [(assigned[i] | pending[i]) & (assigned[j] | pending[j]) == 0
         for i in range(n) for j in range(i + 1, n)] or [z3.BoolVal(True)])}


def blocked_z3(assigned, pending, k: int, own_pending_blocks: bool, weakened: str | None):
    """consumer_unreleased for member k, as a mask."""
    width = assigned[0].size()
    if weakened == "no-blocking-rule":
        return z3.BitVecVal(0, width)
    others = [assigned[m] if weakened == "pending-not-held" else assigned[m] | pending[m]
              for m in range(len(assigned)) if m != k]
    blocked = union(others, width)
    return blocked | pending[k] if own_pending_blocks else blocked


def step_z3(assigned, pending, k, moves, target, owned, reported, own_pending_blocks, weakened=None):
    width = assigned[0].size()
    a = assigned[k]
    kept, zero = a & target, z3.BitVecVal(0, width)
    revoke, wanted = a & ~kept, target & ~kept
    add = wanted & ~blocked_z3(assigned, pending, k, own_pending_blocks, weakened)
    must_revoke = z3.And(revoke != 0, z3.Or(z3.Not(reported), owned & revoke != 0))
    assigned2, pending2 = list(assigned), list(pending)
    assigned2[k] = z3.If(moves, z3.If(must_revoke, kept, kept | add), a)
    pending2[k] = z3.If(moves, z3.If(must_revoke, revoke, zero), pending[k])
    return assigned2, pending2


def initiation(members: int, partitions: int) -> Instance:
    a = [z3.BitVec(f"assigned_{m}", partitions) for m in range(members)]
    p = [z3.BitVec(f"pending_{m}", partitions) for m in range(members)]
    return Instance([x == 0 for x in a + p], inv_parts(a, p),
                    lambda model: {"assigned": [value(model, x) for x in a]},
                    {"phase": "initiation", "members": members})


def consecution(members: int, partitions: int, k: int, own_pending_blocks: bool, weakened=None) -> Instance:
    a = [z3.BitVec(f"assigned_{m}", partitions) for m in range(members)]
    p = [z3.BitVec(f"pending_{m}", partitions) for m in range(members)]
    target, owned = z3.BitVec("target", partitions), z3.BitVec("owned", partitions)
    reported, moves = z3.Bool("owned_reported"), z3.Bool("moves")
    a2, p2 = step_z3(a, p, k, moves, target, owned, reported, own_pending_blocks, weakened)
    premises = [z3.And(list(inv_parts(a, p).values()))] + [a[m] & p[m] == 0 for m in range(members)]

    def describe(model: z3.ModelRef) -> dict:
        return {"member": k, "moves": value(model, moves), "own_pending_blocks": own_pending_blocks,
                "assigned": [value(model, x) for x in a], "pending": [value(model, x) for x in p],
                "target": value(model, target),
                "owned": value(model, owned) if value(model, reported) else None,
                "assigned_next": [value(model, x) for x in a2], "pending_next": [value(model, x) for x in p2]}

    return Instance(premises, inv_parts(a2, p2), describe,
                    {"phase": "consecution", "members": members, "own_pending_blocks": own_pending_blocks})


def prove(max_members: int = MAX_MEMBERS, partitions: int = PARTITIONS, weakened: bool | str = False,
          own_pending_blocks: bool | None = None) -> Result:
    """Both blocking rules (None) or one; ``weakened``: one of WEAKENINGS."""
    w = pick_weakening(weakened, WEAKENINGS)
    rules = (True, False) if own_pending_blocks is None else (own_pending_blocks,)
    bound = f"M=1..{max_members} members, P={partitions} partitions, own pending blocking {list(rules)}"

    def instances():
        for m in range(1, max_members + 1):
            yield initiation(m, partitions)
            for own in rules:
                for k in range(m):
                    yield consecution(m, partitions, k, own, w)

    return run(NAME, bound, w, instances())


__all__ = ["NAME", "WEAKENINGS", "prove", "step_z3"]
