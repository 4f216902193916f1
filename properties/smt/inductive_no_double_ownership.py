"""(d) inductive_no_double_ownership.

KIP-429: "the assignor must make sure a partition is revoked by its previous owner
before it can be assigned to a new one".

An encoded slice of cooperative rounds, M members, ``BitVec(P)`` sets. State:
``owned_m`` and ``pending_m`` (the final assignment last sent to m, which m may not
have processed yet). Invariant ``inv``: owned pairwise disjoint ∧ pending pairwise
disjoint ∧ pending_m ∩ owned_k = ∅ for m ≠ k. Step (nondeterministic):

1. member m processes its assignment: ``owned_m := pending_m`` (revocations and
   additions take effect at once; ``pending_m`` stays, so processing again is a no-op);
2. the leader computes a new round: ``pending := withhold(intended, owned, 0)`` for
   an arbitrary pairwise-disjoint ``intended`` (the same encoding as query (a)).

Proved: ``inv(init)`` for the all-empty state (``initiation``) and
``inv ∧ step ⇒ inv′`` (``consecution``), so no reachable state of the slice has a
partition owned twice. Bound: M = 1..3 members, P = 6 partitions (bitwise, so any P).
Weakened: step 2 without withholding (``pending := intended``) is SAT — the invariant
is then not inductive.
"""
from __future__ import annotations

from typing import Sequence

import z3

from ._common import Instance, Result, pairwise_disjoint, run, value
from .cooperative_withholding_never_two_owners import withhold_z3

NAME = "inductive_no_double_ownership"
MAX_MEMBERS = 3
PARTITIONS = 6
WEAKENINGS = ("no-withholding",)


def inv_parts(owned: Sequence[z3.BitVecRef], pending: Sequence[z3.BitVecRef]) -> dict[str, z3.BoolRef]:
    m = len(owned)
    return {
        "owned_pairwise_disjoint": pairwise_disjoint(owned),
        "pending_pairwise_disjoint": pairwise_disjoint(pending),
        "pending_disjoint_from_other_owned": z3.And(
            [pending[a] & owned[b] == 0 for a in range(m) for b in range(m) if a != b] or [z3.BoolVal(True)]),
    }


def inv(owned: Sequence[z3.BitVecRef], pending: Sequence[z3.BitVecRef]) -> z3.BoolRef:
    return z3.And(list(inv_parts(owned, pending).values()))


def step_z3(owned, pending, choice, intended, weakened: str | None = None):
    """(owned′, pending′) for ``choice`` in 0..M-1 (member processes) or M (new round)."""
    m = len(owned)
    zero = z3.BitVecVal(0, owned[0].size())
    new_round = intended if weakened == "no-withholding" else withhold_z3(intended, owned, zero)
    owned2 = [z3.If(choice == i, pending[i], owned[i]) for i in range(m)]
    pending2 = [z3.If(choice == m, new_round[i], pending[i]) for i in range(m)]
    return owned2, pending2


def _state(prefix: str, m: int, p: int) -> tuple[list[z3.BitVecRef], list[z3.BitVecRef]]:
    return ([z3.BitVec(f"{prefix}owned_{i}", p) for i in range(m)],
            [z3.BitVec(f"{prefix}pending_{i}", p) for i in range(m)])


def initiation(members: int, partitions: int) -> Instance:
    owned, pending = _state("", members, partitions)
    premises = [x == 0 for x in owned + pending]
    return Instance(premises, inv_parts(owned, pending),
                    lambda model: {"owned": [value(model, x) for x in owned],
                                   "pending": [value(model, x) for x in pending]},
                    {"phase": "initiation", "members": members, "partitions": partitions})


def consecution(members: int, partitions: int, weakened: str | None = None) -> Instance:
    owned, pending = _state("", members, partitions)
    intended = [z3.BitVec(f"intended_{i}", partitions) for i in range(members)]
    choice = z3.Int("choice")
    owned2, pending2 = step_z3(owned, pending, choice, intended, weakened)
    premises = [inv(owned, pending), choice >= 0, choice <= members, pairwise_disjoint(intended)]

    def describe(model: z3.ModelRef) -> dict:
        return {
            "owned": [value(model, x) for x in owned],
            "pending": [value(model, x) for x in pending],
            "choice": value(model, choice),
            "intended": [value(model, x) for x in intended],
            "owned_next": [value(model, x) for x in owned2],
            "pending_next": [value(model, x) for x in pending2],
        }

    return Instance(premises, inv_parts(owned2, pending2), describe,
                    {"phase": "consecution", "members": members, "partitions": partitions})


def prove(max_members: int = MAX_MEMBERS, partitions: int = PARTITIONS,
          weakened: bool | str = False) -> Result:
    w = None if weakened is False or weakened is None else (WEAKENINGS[0] if weakened is True else weakened)
    if w is not None and w not in WEAKENINGS:
        raise ValueError(f"unknown weakening {w!r}; known: {', '.join(WEAKENINGS)}")
    bound = f"M=1..{max_members} members, P={partitions} partitions"

    def instances():
        for m in range(1, max_members + 1):
            yield initiation(m, partitions)
            yield consecution(m, partitions, w)

    return run(NAME, bound, w, instances())
