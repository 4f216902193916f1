"""(c) protocol_selection_sound: both places a protocol is agreed on.

KIP-429: "Only consider protocols that are supported by all the assignors. If there
is no common protocols supported across all the assignors, throw an exception during
starting up time. If there are multiple protocols that are commonly supported,
select the one with the highest id".

Coordinator side (``model.consumer.selection.select_protocol``): N members, a
universe of 3 protocol (assignor) names; member i's preference list is a set
``BitVec(3)`` plus an order, an Int index into the 6 permutations of the universe
(the list is the permutation restricted to the set; empty lists allowed).
Candidates = protocols every member lists; each member votes for its first
candidate; most votes wins, ties by name. Claims:
``listed_by_every_member`` (the result is in every member's list) and
``none_iff_no_common`` (no selection exactly when no protocol is common).

Client side (``model.assignors.rebalance_protocol``): K configured assignors, each
an Int index into the ``ASSIGNORS`` table (read at call time, so the encoding
follows the table), protocols as bits by ``PROTOCOL_IDS``. Claims:
``supported_by_every_assignor``, ``highest_common_id``, ``error_iff_no_common``.
``prove_client(table="any")`` lets every assignor support any protocol subset.

Bound: N = 1..4 members; K = 1..4 assignors. Weakened (SAT): ``union`` (candidates
or common protocols are the union, on both sides) and ``lowest-id`` (the client
picks the lowest common id).
"""
from __future__ import annotations

from itertools import permutations
from typing import Mapping, Sequence

import z3

from groupcheck.model.assignors import ASSIGNORS, PROTOCOL_IDS

from ._common import Instance, Result, run, value, pick_weakening

NAME = "protocol_selection_sound"
MAX_MEMBERS = 4
MAX_ASSIGNORS = 4
UNIVERSE = ("cooperative-sticky", "range", "roundrobin")   # sorted: index order = name order
PERMS = tuple(permutations(range(len(UNIVERSE))))
NO_PROTOCOL = -1
WEAKENINGS = ("union", "lowest-id")


def _has(mask: z3.BitVecRef, bit: int) -> z3.BoolRef:
    return z3.Extract(bit, bit, mask) == 1


# --------------------------------------------------------------------------- coordinator

def member_list(mask: int, order: int) -> tuple[str, ...]:
    """The preference list a (set, permutation index) pair encodes."""
    return tuple(UNIVERSE[p] for p in PERMS[order] if mask >> p & 1)


def encode_member(protocols: Sequence[str]) -> tuple[int, int]:
    """A (set, permutation index) pair whose ``member_list`` is ``protocols``."""
    idx = [UNIVERSE.index(p) for p in protocols]
    rest = [p for p in range(len(UNIVERSE)) if p not in idx]
    return sum(1 << p for p in idx), PERMS.index(tuple(idx + rest))


def select_z3(sets: Sequence[z3.BitVecRef], orders: Sequence[z3.ArithRef],
              weakened: str | None = None) -> tuple[z3.ArithRef, z3.BitVecRef]:
    """(selected protocol index or -1, candidate mask), as ``select_protocol``."""
    u = len(UNIVERSE)
    cand = sets[0]
    for s in sets[1:]:
        cand = (cand | s) if weakened == "union" else (cand & s)
    votes_for = [0] * u
    for s, order in zip(sets, orders):
        listed = s & cand
        vote = z3.IntVal(NO_PROTOCOL)
        for k in reversed(range(len(PERMS))):
            first = z3.IntVal(NO_PROTOCOL)
            for p in reversed(PERMS[k]):
                first = z3.If(_has(listed, p), z3.IntVal(p), first)
            vote = z3.If(order == k, first, vote) if k < len(PERMS) - 1 else first
        votes_for = [votes_for[p] + z3.If(vote == p, 1, 0) for p in range(u)]
    best = votes_for[0]
    for v in votes_for[1:]:
        best = z3.If(v > best, v, best)
    winner = z3.IntVal(u - 1)
    for p in reversed(range(u - 1)):
        winner = z3.If(votes_for[p] == best, z3.IntVal(p), winner)
    return z3.If(cand == 0, z3.IntVal(NO_PROTOCOL), winner), cand


def coordinator_variables(n: int) -> tuple[list[z3.BitVecRef], list[z3.ArithRef]]:
    return ([z3.BitVec(f"protocols_{i}", len(UNIVERSE)) for i in range(n)],
            [z3.Int(f"order_{i}") for i in range(n)])


def coordinator_domain(orders: Sequence[z3.ArithRef]) -> list[z3.BoolRef]:
    return [z3.And(o >= 0, o < len(PERMS)) for o in orders]


def coordinator_instance(n: int, weakened: str | None = None) -> Instance:
    sets, orders = coordinator_variables(n)
    result, _ = select_z3(sets, orders, weakened)
    common = sets[0]
    for s in sets[1:]:
        common = common & s
    claims = {
        "listed_by_every_member": z3.And([z3.Implies(result == p, _has(common, p))
                                          for p in range(len(UNIVERSE))]
                                         + [z3.Or(result == NO_PROTOCOL,
                                                  *[result == p for p in range(len(UNIVERSE))])]),
        "none_iff_no_common": (result == NO_PROTOCOL) == (common == 0),
    }

    def describe(model: z3.ModelRef) -> dict:
        lists = [member_list(value(model, s), value(model, o)) for s, o in zip(sets, orders)]
        r = value(model, result)
        return {"side": "coordinator", "member_protocols": lists,
                "selected": None if r == NO_PROTOCOL else UNIVERSE[r]}

    return Instance(coordinator_domain(orders), claims, describe, {"members": n})


# --------------------------------------------------------------------------- client

def protocol_width() -> int:
    return max(PROTOCOL_IDS.values()) + 1


def protocol_name(pid: int) -> str:
    return next(name for name, i in PROTOCOL_IDS.items() if i == pid)


def table_masks(table: Mapping[str, Sequence[str]] | None = None) -> tuple[tuple[str, int], ...]:
    """(assignor name, supported-protocol mask) in table order; default: ``ASSIGNORS``."""
    if table is None:
        table = {name: a.supported_protocols for name, a in ASSIGNORS.items()}
    return tuple((name, sum(1 << PROTOCOL_IDS[p] for p in protos)) for name, protos in table.items())


def client_z3(supported: Sequence[z3.BitVecRef], weakened: str | None = None) -> tuple[z3.ArithRef, z3.BitVecRef]:
    """(protocol id, or -1 for AssignorConfigError; common mask), as ``rebalance_protocol``."""
    common = supported[0]
    for s in supported[1:]:
        common = (common | s) if weakened == "union" else (common & s)
    ids = range(protocol_width())
    order = list(ids) if weakened == "lowest-id" else list(reversed(ids))
    pick = z3.IntVal(NO_PROTOCOL)
    for pid in reversed(order):
        pick = z3.If(_has(common, pid), z3.IntVal(pid), pick)
    return pick, common


def client_instance(k: int, weakened: str | None = None,
                    table: Mapping[str, Sequence[str]] | str | None = None) -> Instance:
    w = protocol_width()
    premises: list[z3.BoolRef] = []
    if table == "any":
        chosen = [z3.BitVec(f"supported_{i}", w) for i in range(k)]
        supported = chosen
        names = None
    else:
        masks = table_masks(table)
        names = [name for name, _ in masks]
        chosen = [z3.Int(f"assignor_{i}") for i in range(k)]
        premises += [z3.And(c >= 0, c < len(masks)) for c in chosen]
        supported = []
        for c in chosen:
            s = z3.BitVecVal(masks[-1][1], w)
            for j in reversed(range(len(masks) - 1)):
                s = z3.If(c == j, z3.BitVecVal(masks[j][1], w), s)
            supported.append(s)
    result, _ = client_z3(supported, weakened)
    common = supported[0]
    for s in supported[1:]:
        common = common & s
    ids = range(w)
    claims = {
        "supported_by_every_assignor": z3.And([z3.Implies(result == p, _has(common, p)) for p in ids]
                                              + [z3.Or(result == NO_PROTOCOL, *[result == p for p in ids])]),
        "highest_common_id": z3.And([z3.Implies(_has(common, p), result >= p) for p in ids]),
        "error_iff_no_common": (result == NO_PROTOCOL) == (common == 0),
    }

    def describe(model: z3.ModelRef) -> dict:
        r = value(model, result)
        out = {"side": "client", "selected": None if r == NO_PROTOCOL else protocol_name(r)}
        if names is None:
            out["supported"] = [tuple(protocol_name(p) for p in ids if value(model, s) >> p & 1)
                                for s in supported]
        else:
            out["assignors"] = [names[value(model, c)] for c in chosen]
        return out

    return Instance(premises, claims, describe, {"assignors": k})


# --------------------------------------------------------------------------- queries

def prove(max_members: int = MAX_MEMBERS, max_assignors: int = MAX_ASSIGNORS,
          weakened: bool | str = False) -> Result:
    """Both sides: coordinator for N = 1..max_members, client for K = 1..max_assignors."""
    w = pick_weakening(weakened, WEAKENINGS)
    bound = (f"coordinator: N=1..{max_members} members over {len(UNIVERSE)} protocols; "
             f"client: K=1..{max_assignors} assignors from ASSIGNORS")
    instances = [lambda n=n: coordinator_instance(n, w) for n in range(1, max_members + 1)]
    instances += [lambda k=k: client_instance(k, w) for k in range(1, max_assignors + 1)]
    return run(NAME, bound, w, (make() for make in instances))


def prove_coordinator(max_members: int = MAX_MEMBERS, weakened: bool | str = False) -> Result:
    w = pick_weakening(weakened, WEAKENINGS)
    bound = f"N=1..{max_members} members over {len(UNIVERSE)} protocols"
    return run(f"{NAME}.coordinator", bound, w,
               (coordinator_instance(n, w) for n in range(1, max_members + 1)))


def prove_client(max_assignors: int = MAX_ASSIGNORS, weakened: bool | str = False,
                 table: Mapping[str, Sequence[str]] | str | None = None) -> Result:
    w = pick_weakening(weakened, WEAKENINGS)
    source = "any protocol subsets" if table == "any" else (
        "ASSIGNORS" if table is None else f"table {sorted(table)}")
    bound = f"K=1..{max_assignors} assignors from {source}"
    return run(f"{NAME}.client", bound, w,
               (client_instance(k, w, table) for k in range(1, max_assignors + 1)))
