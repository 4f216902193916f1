"""(f) probing_table_complete_and_exclusive: the Streams leader's version decision, as a
table per probing family, picks exactly one row for every version mix.

KIP-268: "In the current implementation, the group leader fails if it receives a
subscription with a higher version number than it understands. We propose to change
this: instead of failing, the leader will send an empty assignment back encoding its
supported version." Kafka 2.4+ (``StreamsPartitionAssignor#assign``, 2.4.1-3.9): a
future member is placed like any other, in a normal assignment at minReceived; a future
subscription next to a v1/v2 one is an IllegalStateException up to 2.6 and, from 2.7
(a7ec005), a TaskAssignmentException that every member gets as ASSIGNMENT_ERROR, encoded
at the leader's LATEST_SUPPORTED_VERSION (``StreamsPartitionAssignor#errorAssignment``).

``TABLE`` holds, per family of the leader (``leader.assign``), rows ``guard -> outcome``
over the leader's view of the mix (``_streams.View``: any future subscription,
minReceived, whether the leader answers with ASSIGNMENT_ERROR):

================  ===========================  =====================================
family            guard                        outcome
================  ===========================  =====================================
pre-probing       future                       leader fails (cannot decode it)
pre-probing       no future                    normal
kip-268           future, minReceived < 3      leader fails (IllegalStateException)
kip-268           future, minReceived >= 3     version probing (empty answers)
kip-268           no future                    normal
kafka-2.6+        future, minReceived < 3,     ASSIGNMENT_ERROR to every member
                  2.7+ (or the profile)
kafka-2.6+        future, minReceived < 3,     leader fails (IllegalStateException)
                  2.4-2.6
kafka-2.6+        future, minReceived >= 3     normal (the future member downgrades)
kafka-2.6+        no future                    normal
================  ===========================  =====================================

Guards are written against ``_streams.Ops``, so the same rows are evaluated by z3 for
the proof and in plain Python for the cross-check against ``leader.assign``. Claims,
per family, for every mix with a leader of that family: ``complete`` (some guard holds)
and ``exclusive: a | b`` for every pair of rows (not both hold). ``reachable`` finds a
witness for each row (the table has no dead row).

Bound: N = 1..12 members, LATEST 1..12, used 1..LATEST, every profile, for each of the
three families. Weakened tables (SAT): ``drop-min-received-row`` (no row for a future
subscription next to a v1/v2 one: not complete) and ``overlap-future-rows`` (the
"future, minReceived >= 3" rows guard on "future" alone: not exclusive).
"""
from __future__ import annotations

from itertools import combinations
from typing import Any, Callable, NamedTuple

import z3

from groupcheck.model.streams_classic import releases as rel

from . import _streams as s
from ._common import Instance, Result, run, pick_weakening

NAME = "probing_table_complete_and_exclusive"
MAX_MEMBERS = 12
WEAKENINGS = ("drop-min-received-row", "overlap-future-rows")

# outcomes (``leader.assign``): what each member is handed
LEADER_FAILS = "leader fails"             # assign() throws, nobody gets an assignment
ASSIGNMENT_ERROR = "ASSIGNMENT_ERROR"     # every member: (LATEST, LATEST, ASSIGNMENT_ERROR)
PROBING = "version probing"               # future: empty at (LATEST, LATEST); rest: (minReceived, adv.)
NORMAL = "normal"                         # every member: (minReceived, advertised; 0 below v3)
OUTCOMES = (LEADER_FAILS, ASSIGNMENT_ERROR, PROBING, NORMAL)


class Row(NamedTuple):
    name: str
    guard: Callable[[s.View, s.Ops], Any]
    outcome: str


def _future(v: s.View, o: s.Ops):
    return v.any_future


def _future_next_to_old(v: s.View, o: s.Ops):
    return o.And(v.any_future, v.min_received < s.PROBEABLE)


def _future_next_to_old_error(v: s.View, o: s.Ops):
    return o.And(v.any_future, v.min_received < s.PROBEABLE, v.leader_errors)


def _future_next_to_old_throws(v: s.View, o: s.Ops):
    return o.And(v.any_future, v.min_received < s.PROBEABLE, o.Not(v.leader_errors))


def _future_probeable(v: s.View, o: s.Ops):
    return o.And(v.any_future, o.Not(v.min_received < s.PROBEABLE))


def _no_future(v: s.View, o: s.Ops):
    return o.Not(v.any_future)


OLD, FUTURE, NONE = "future next to v1/v2", "future", "no future"
OLD_ERROR, OLD_THROWS = f"{OLD}, 2.7+", f"{OLD}, 2.4-2.6"

TABLE: dict[str, tuple[Row, ...]] = {
    rel.PRE_PROBING: (Row(FUTURE, _future, LEADER_FAILS),
                        Row(NONE, _no_future, NORMAL)),
    rel.KIP_268: (Row(OLD, _future_next_to_old, LEADER_FAILS),
                    Row(FUTURE, _future_probeable, PROBING),
                    Row(NONE, _no_future, NORMAL)),
    rel.KAFKA_26: (Row(OLD_ERROR, _future_next_to_old_error, ASSIGNMENT_ERROR),
                     Row(OLD_THROWS, _future_next_to_old_throws, LEADER_FAILS),
                     Row(FUTURE, _future_probeable, NORMAL),
                     Row(NONE, _no_future, NORMAL)),
}


def table(weakened: str | None = None) -> dict[str, tuple[Row, ...]]:
    """``TABLE``, or a weakened copy."""
    if weakened is None:
        return dict(TABLE)
    if weakened == "drop-min-received-row":
        return {f: tuple(r for r in rows if not r.name.startswith(OLD)) for f, rows in TABLE.items()}
    if weakened == "overlap-future-rows":
        return {f: tuple(r._replace(guard=_future) if r.guard is _future_probeable else r for r in rows)
                for f, rows in TABLE.items()}
    raise ValueError(f"unknown weakening {weakened!r}")


def select(rows: tuple[Row, ...], v: s.View) -> list[Row]:
    """The rows whose guard holds for a concrete (Python) view."""
    return [r for r in rows if r.guard(v, s.PY)]


def _setup(n: int, family: str) -> tuple[s.Mix, s.View, list[z3.BoolRef]]:
    m = s.mix(n)
    v = s.view(m)
    return m, v, s.domain(m) + v.defs + [v.leader_family == s.FAMILIES.index(family)]


def instance(n: int, family: str, rows: tuple[Row, ...]) -> Instance:
    m, v, premises = _setup(n, family)
    guards = {r.name: r.guard(v, s.Z3) for r in rows}
    claims = {"complete": z3.Or(list(guards.values()) or [z3.BoolVal(False)])}
    for a, b in combinations(guards, 2):
        claims[f"exclusive: {a} | {b}"] = z3.Not(z3.And(guards[a], guards[b]))

    def describe(model: z3.ModelRef) -> dict[str, Any]:
        out = s.describe_mix(model, m)
        out["rows_holding"] = [name for name, g in guards.items() if model.eval(g, model_completion=True)]
        return out

    return Instance(premises, claims, describe, {"family": family, "members": n})


def bound(max_members: int = MAX_MEMBERS) -> str:
    return (f"N=1..{max_members} members, LATEST 1..{s.max_version()}, used 1..LATEST, "
            f"profiles {'/'.join(s.PROFILE_NAMES)}, per leader family")


def prove(max_members: int = MAX_MEMBERS, weakened: bool | str = False) -> Result:
    """Every family's rows, complete and exclusive, for N = 1..max_members."""
    w = pick_weakening(weakened, WEAKENINGS)
    rows = table(w)
    return run(NAME, bound(max_members), w,
               (instance(n, fam, rows[fam]) for fam in s.FAMILIES for n in range(1, max_members + 1)))


def reachable(family: str, row: Row, max_members: int = 3) -> dict[str, Any] | None:
    """A mix of at most ``max_members`` whose leader has ``family`` and selects ``row``
    (members, profile, LATEST and used per member), or None when there is none."""
    for n in range(1, max_members + 1):
        m, v, premises = _setup(n, family)
        solver = z3.Solver()
        solver.add(*premises, row.guard(v, s.Z3))
        if solver.check() == z3.sat:
            return {"members": n, **s.describe_mix(solver.model(), m)}
    return None
