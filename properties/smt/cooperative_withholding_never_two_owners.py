"""(a) cooperative_withholding_never_two_owners.

KIP-429: "the assignor must make sure a partition is revoked by its previous owner
before it can be assigned to a new one", and for the leader's adjustment: "For
maybe-revoking-partitions, check if the owner has changed. If yes, exclude them from
the assigned-partitions list to the new owner."

Encodes ``model.assignors.ownership.withhold`` over ``BitVec(P)`` partition sets.
Premises: the previous ownership (the resolved claims) is pairwise disjoint, the
contested set is disjoint from it (and empty for a single member: a contested
partition has two claimants), and the intended assignment (any assignor's
output) is pairwise disjoint and only names existing partitions. Claims, for every
m != k (KIP-429's per-member sets: owned ∩ assigned stays, ready-to-migrate =
assigned − owned, unknown-but-owned / maybe-revoking = owned − assigned):

* ``final_disjoint_from_other_previous``: final_m ∩ previous_k = ∅ (nobody is
  handed a partition another member still owns);
* ``final_disjoint_from_contested``: final_m ∩ contested = ∅;
* ``finals_pairwise_disjoint``: final_m ∩ final_k = ∅;
* ``final_within_intended``: final_m ⊆ intended_m (withholding only removes);
* ``owned_and_assigned_stays``: intended_m ∩ previous_m ⊆ final_m;
* ``ready_to_migrate_goes_to_new_member``: the partitions of assigned − owned
  that no other member owns and nobody contests are in final_m;
* ``unknown_but_owned_not_given_away``: (previous_m − intended_m) ∩ final_k = ∅.

Bound: M = 1..4 members, P = 6 partitions. Every premise and claim is bitwise, so
a counterexample at any P projects to a single violating partition: the P = 6
proof covers every partition count. Weakened: ``no-withholding`` (final =
intended) and ``ignore-contested`` (withhold with an empty contested set) are SAT.
"""
from __future__ import annotations

from typing import Sequence

import z3

from ._common import Instance, Result, pairwise_disjoint, run, union, value, pick_weakening

NAME = "cooperative_withholding_never_two_owners"
MAX_MEMBERS = 4
PARTITIONS = 6
WEAKENINGS = ("no-withholding", "ignore-contested")


def withhold_z3(intended: Sequence[z3.BitVecRef], previous: Sequence[z3.BitVecRef],
                contested: z3.BitVecRef) -> list[z3.BitVecRef]:
    """``ownership.withhold`` with members indexed 0..M-1 (same loop, same masks)."""
    out = []
    for m, mask in enumerate(intended):
        others = contested
        for k, owned in enumerate(previous):
            if k != m:
                others = others | owned
        out.append(mask & ~others)
    return out


def instance(members: int, partitions: int, weakened: str | None = None) -> Instance:
    P = partitions
    previous = [z3.BitVec(f"previous_{m}", P) for m in range(members)]
    intended = [z3.BitVec(f"intended_{m}", P) for m in range(members)]
    contested = z3.BitVec("contested", P)
    existing = z3.BitVec("existing", P)
    premises = [
        pairwise_disjoint(previous),
        *[contested & p == 0 for p in previous],
        pairwise_disjoint(intended),
        *[i & ~existing == 0 for i in intended],
    ]
    if members == 1:   # a contested partition has two claimants among the members
        premises.append(contested == 0)
    if weakened == "no-withholding":
        final = list(intended)
    elif weakened == "ignore-contested":
        final = withhold_z3(intended, previous, z3.BitVecVal(0, P))
    else:
        final = withhold_z3(intended, previous, contested)
    all_previous = union(previous, P)
    pairs = [(m, k) for m in range(members) for k in range(members) if m != k]
    T = [z3.BoolVal(True)]
    claims = {
        "final_disjoint_from_other_previous":
            z3.And([final[m] & previous[k] == 0 for m, k in pairs] or T),
        "final_disjoint_from_contested": z3.And([f & contested == 0 for f in final]),
        "finals_pairwise_disjoint": pairwise_disjoint(final),
        "final_within_intended": z3.And([final[m] & ~intended[m] == 0 for m in range(members)]),
        "owned_and_assigned_stays":
            z3.And([intended[m] & previous[m] & ~final[m] == 0 for m in range(members)]),
        "ready_to_migrate_goes_to_new_member":
            z3.And([intended[m] & ~all_previous & ~contested & ~final[m] == 0 for m in range(members)]),
        "unknown_but_owned_not_given_away":
            z3.And([(previous[m] & ~intended[m]) & final[k] == 0 for m, k in pairs] or T),
    }

    def describe(model: z3.ModelRef) -> dict:
        return {
            "existing": value(model, existing),
            "previous": {m: value(model, previous[m]) for m in range(members)},
            "contested": value(model, contested),
            "intended": {m: value(model, intended[m]) for m in range(members)},
            "final": {m: value(model, final[m]) for m in range(members)},
        }

    return Instance(premises, claims, describe, {"members": members, "partitions": P})


def prove(max_members: int = MAX_MEMBERS, partitions: int = PARTITIONS,
          weakened: bool | str = False) -> Result:
    """Prove the claims for M = 1..max_members and ``partitions`` partitions."""
    w = pick_weakening(weakened, WEAKENINGS)
    bound = f"M=1..{max_members} members, P={partitions} partitions"
    return run(NAME, bound, w, (instance(m, partitions, w) for m in range(1, max_members + 1)))
