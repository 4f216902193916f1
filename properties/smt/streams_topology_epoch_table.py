"""(g) topology_epoch_table_complete_and_exclusive: the topology-epoch decision at join
(``model/streams_group/topology.join_rows``) picks exactly one row for every (ER, EG,
same metadata, group has a topology), per profile.

KIP-1071 "Request Handling" 2.iii: "If ER=EG, check if topology metadata in the request is
equal to the topology metadata of the group, otherwise fail with
STREAMS_INVALID_TOPOLOGY_EPOCH; If ER<EG, fail with STREAMS_TOPOLOGY_FENCED; If ER>EG+1, fail
with STREAMS_INVALID_TOPOLOGY_EPOCH; If ER=EG+1, update the topology". Kafka 4.1-4.4 and 4.5
(KAFKA-21370): ``GroupMetadataManager#maybeUpdateTopology``.

The rows' guards are the model's own functions, evaluated here over z3 integers: ER and EG
unbounded non-negative ints, ``same`` and ``has`` booleans. Claims: ``complete`` (some guard
holds) and ``exclusive: a | b`` for every pair of rows. Weakened tables (SAT):
``drop-lower-row`` (no ER<EG row: not complete) and ``overlap-mismatch-row`` (the "ER=EG,
different metadata" row guards on ER>=EG: not exclusive).
"""
from __future__ import annotations

from itertools import combinations
from typing import Any

import z3

from groupcheck.model.streams_group.profiles import PROFILES
from groupcheck.model.streams_group.topology import Row, join_rows
from groupcheck.model.epochs.rules import Ops

from ._common import Instance, Result, pick_weakening, run, value

NAME = "topology_epoch_table_complete_and_exclusive"
WEAKENINGS = ("drop-lower-row", "overlap-mismatch-row")
Z3 = Ops(lambda *a: z3.And(*a), lambda *a: z3.Or(*a), z3.Not)
BOUND = "ER, EG any non-negative ints, same metadata and group-has-topology free, every profile"


def _wide_mismatch(er, eg, same, has, o):
    return o.And(has, er >= eg, o.Not(same))


def rows(profile: str, weakened: str | None = None) -> tuple[Row, ...]:
    out = join_rows(profile)
    if weakened == "drop-lower-row":
        return tuple(r for r in out if r.name != "ER<EG")
    if weakened == "overlap-mismatch-row":
        return tuple(r._replace(guard=_wide_mismatch) if r.name == "ER=EG, different metadata" else r for r in out)
    return out


def instance(profile: str, table: tuple[Row, ...]) -> Instance:
    er, eg = z3.Ints("ER EG")
    same, has = z3.Bools("same has")
    guards = {r.name: r.guard(er, eg, same, has, Z3) for r in table}
    claims = {"complete": z3.Or(list(guards.values()) or [z3.BoolVal(False)])}
    for a, b in combinations(guards, 2):
        claims[f"exclusive: {a} | {b}"] = z3.Not(z3.And(guards[a], guards[b]))

    def describe(m: z3.ModelRef) -> dict[str, Any]:
        return {"ER": value(m, er), "EG": value(m, eg), "same": value(m, same), "has_topology": value(m, has),
                "rows_holding": [n for n, g in guards.items() if z3.is_true(m.eval(g, model_completion=True))]}

    return Instance([er >= 0, eg >= 0], claims, describe, {"profile": profile})


def prove(profile: str | None = None, weakened: bool | str = False) -> Result:
    """Every profile's table (or ``profile``'s) complete and exclusive."""
    w = pick_weakening(weakened, WEAKENINGS)
    names = [profile] if profile else sorted(PROFILES)
    return run(NAME, BOUND, w, (instance(p, rows(p, w)) for p in names))
