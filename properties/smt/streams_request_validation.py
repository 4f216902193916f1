"""(i) request_validation_matches_kip: the model's request validation under ``kip-1071``
accepts exactly the StreamsGroupHeartbeat requests KIP-1071's "Request Validation" allows.

The KIP's valid request, written here from the KIP's list and not from the model's rules
(``kip_valid``): "GroupId must be non-empty. Either MemberId is non-empty or MemberEpoch is 0.
MemberEpoch must be >= -2. InstanceId, if not null, must be non-empty. RebalanceTimeoutMs must
be larger than zero in the first heartbeat request. ActiveTasks, StandbyTasks and WarmupTasks
have to be disjoint sets ... have to be non-null and empty when joining (member epoch is 0).
If MemberEpoch is 0, Topology should be non-null. Otherwise, it should be null." and, for a
topology, its five STREAMS_INVALID_TOPOLOGY invariants.

The request is the model's ``validation.View``, symbolic: the member epoch and the rebalance
timeout are unbounded ints, every nullness, blankness and emptiness a boolean, the overlap of
the task lists and each broken topology invariant a boolean (with the premises that tie
them: a null list is empty, a blank string is non-null, an overlap needs two non-empty
lists, a null topology breaks nothing). Claim: ``accepts == kip_valid`` where ``accepts`` is
"no rule of ``validation.rules(profile)`` fires". Under ``kip-1071`` it is proved; under a
shipped profile the counterexample is a difference between the KIP and Kafka. Weakened
(SAT): ``drop:<rule>`` for every rule of the KIP profile.
"""
from __future__ import annotations

from typing import Any

import z3

from groupcheck.model.epochs.rules import PY, Ops
from groupcheck.model.streams_group.validation import INVARIANTS, View, rules

from ._common import Instance, Result, run, value

NAME = "request_validation_matches_kip"
Z3 = Ops(lambda *a: z3.And(*a), lambda *a: z3.Or(*a), z3.Not)
BOUND = "member epoch and rebalance timeout any ints; every field's nullness/blankness/emptiness, overlap, invariants free"
WEAKENINGS = tuple(f"drop:{r.name}" for r in rules("kip-1071"))
_INTS = ("epoch", "rebalance_timeout_ms")


def _implies(o: Ops, a, b):
    return o.Or(o.Not(a), b)


def kip_valid(v: View, o: Ops):
    """The KIP's "Request Validation" list, clause by clause."""
    joining = v.epoch == 0
    return o.And(
        o.Not(v.group_blank),
        o.Or(o.Not(v.member_blank), joining),
        v.epoch >= -2,
        _implies(o, o.Not(v.instance_null), o.Not(v.instance_blank)),
        _implies(o, joining, v.rebalance_timeout_ms > 0),
        o.Not(v.overlap),
        _implies(o, joining, o.And(o.Not(v.active_null), v.active_empty, o.Not(v.standby_null), v.standby_empty,
                                   o.Not(v.warmup_null), v.warmup_empty)),
        _implies(o, joining, o.Not(v.topology_null)),
        _implies(o, o.Not(joining), v.topology_null),
        _implies(o, o.Not(v.topology_null), o.And(*[o.Not(getattr(v, n)) for n in INVARIANTS])),
    )


def accepts(v: View, o: Ops, profile: str, dropped: str | None = None):
    return o.And(*[o.Not(r.fires(v, o)) for r in rules(profile) if r.name != dropped])


def symbolic_view() -> tuple[View, list[z3.BoolRef]]:
    v = View(**{f: (z3.Int(f) if f in _INTS else z3.Bool(f)) for f in View._fields})
    lists = [(v.active_null, v.active_empty), (v.standby_null, v.standby_empty), (v.warmup_null, v.warmup_empty)]
    filled = [z3.And(z3.Not(n), z3.Not(e)) for n, e in lists]
    premises = [z3.Implies(n, e) for n, e in lists]
    premises += [z3.Implies(v.instance_blank, z3.Not(v.instance_null)), z3.Implies(v.rack_blank, z3.Not(v.rack_null)),
                 z3.Implies(v.overlap, z3.Or(z3.And(filled[0], filled[1]), z3.And(filled[0], filled[2]),
                                             z3.And(filled[1], filled[2]))),
                 z3.Implies(v.topology_null, z3.And(z3.Not(v.regex_used), *[z3.Not(getattr(v, n)) for n in INVARIANTS]))]
    return v, premises


def instance(profile: str, dropped: str | None) -> Instance:
    v, premises = symbolic_view()
    model_accepts, spec = accepts(v, Z3, profile, dropped), kip_valid(v, Z3)

    def describe(m: z3.ModelRef) -> dict[str, Any]:
        return {"view": {f: value(m, getattr(v, f)) for f in View._fields},
                "model_accepts": value(m, model_accepts), "kip_valid": value(m, spec)}

    return Instance(premises, {"accepts exactly the KIP's valid requests": model_accepts == spec}, describe,
                    {"profile": profile})


def prove(profile: str = "kip-1071", weakened: bool | str = False) -> Result:
    """``profile``'s validation against the KIP's list; ``weakened``: drop one KIP-profile rule."""
    if weakened is True:
        weakened = WEAKENINGS[0]
    if weakened and weakened not in WEAKENINGS:
        raise ValueError(f"unknown weakening {weakened!r}; known: {', '.join(WEAKENINGS)}")
    dropped = weakened[len("drop:"):] if weakened else None
    return run(NAME, BOUND, weakened or None, [instance(profile, dropped)])


def view_from(cex: dict[str, Any]) -> View:
    """A counterexample's view as a Python ``View`` (to run the rules on it with ``PY``)."""
    return View(**cex["view"])


__all__ = ["NAME", "PY", "WEAKENINGS", "accepts", "kip_valid", "prove", "view_from"]
