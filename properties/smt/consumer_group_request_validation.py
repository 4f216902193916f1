"""(k) consumer_validation_differences_exact: how each shipped release's ConsumerGroupHeartbeat
validation differs from the KIP profile's is exactly the documented list, nothing more.

The request is the model's ``model.consumer_group.validation.View``, symbolic: the member epoch
and the rebalance timeout unbounded ints, every nullness, blankness and emptiness a boolean,
"the regex does not compile" and "the assignor is unknown" booleans (with the premises that tie
them: a null list is empty, a blank or invalid string is non-null). ``accepts(P)`` is "no rule of
``validation.rules(P)`` fires". Claim, per profile P: ``accepts(P) == documented(P)`` where

    documented(kafka-4.x) = accepts(kip-848 without regex_invalid)
                            ∧ ¬(MemberId blank ∧ epoch = 0)          (v1: the client generates it)
                            -- a regex that does not compile is the coordinator's to refuse;
    documented(kafka-3.7) = accepts(kip-848)
                            ∧ SubscribedTopicRegex null                (not in the v0 schema)
                            ∧ ¬(epoch = 0 ∧ SubscribedTopicNames empty) (names required at join).

(The 3.7 MemberId rule, "epoch > 0 or -1 or -2", accepts the same requests as the KIP's "not at
epoch 0" because an epoch below -2 is refused anyway; z3 proves that too.)
Weakened (SAT): ``forget:<difference>`` drops one line of a documented list.
"""
from __future__ import annotations

from typing import Any

import z3

from groupcheck.model.consumer_group.profiles import PROFILES
from groupcheck.model.consumer_group.validation import View, rules

from ._common import Instance, Result, run, value
from .streams_request_validation import Z3   # z3's And / Or / Not as validation.Ops

NAME = "consumer_validation_differences_exact"
BOUND = "member epoch and rebalance timeout any ints; every field's nullness/blankness/emptiness free"
_INTS = ("epoch", "rebalance_timeout_ms")
DIFFERENCES = {
    "4.x": ("member_id_at_join", "regex_checked_later"),
    "3.7": ("regex_null", "names_nonempty_at_join"),
}
WEAKENINGS = tuple(f"forget:{family}:{d}" for family, ds in DIFFERENCES.items() for d in ds)


def accepts(v: View, o, profile, dropped: str | None = None):
    return o.And(*[o.Not(r.fires(v, o)) for r in rules(profile) if r.name != dropped])


def family(profile: str) -> str:
    return "3.7" if PROFILES[profile].join_needs_nonempty_names else "4.x"


def documented(v: View, o, profile: str, forget: str | None = None):
    fam = family(profile)
    keep = lambda d: forget != f"{fam}:{d}"   # noqa: E731
    later = fam == "4.x" and keep("regex_checked_later")
    base = accepts(v, o, "kip-848", "regex_invalid" if later else None)
    parts = [base]
    if fam == "4.x" and keep("member_id_at_join"):
        parts.append(o.Not(o.And(v.member_blank, v.epoch == 0)))
    if fam == "3.7":
        if keep("regex_null"):
            parts.append(v.regex_null)
        if keep("names_nonempty_at_join"):
            parts.append(o.Not(o.And(v.epoch == 0, v.names_empty)))
    return o.And(*parts)


def symbolic_view() -> tuple[View, list]:
    v = View(**{f: (z3.Int(f) if f in _INTS else z3.Bool(f)) for f in View._fields})
    premises = [z3.Implies(v.names_null, v.names_empty), z3.Implies(v.partitions_null, v.partitions_empty),
                z3.Implies(v.regex_invalid, z3.Not(v.regex_null)), z3.Implies(v.instance_blank, z3.Not(v.instance_null))]
    return v, premises


def instance(profile: str, forget: str | None) -> Instance:
    v, premises = symbolic_view()
    model_accepts, spec = accepts(v, Z3, profile), documented(v, Z3, profile, forget)

    def describe(m: z3.ModelRef) -> dict[str, Any]:
        return {"profile": profile, "view": {f: value(m, getattr(v, f)) for f in View._fields},
                "accepts": value(m, model_accepts), "documented": value(m, spec)}

    return Instance(premises, {f"{profile}: accepts exactly the documented difference from kip-848": model_accepts == spec},
                    describe, {"profile": profile})


def prove(profiles: tuple[str, ...] | None = None, weakened: bool | str = False) -> Result:
    """Every shipped profile (or ``profiles``) against its documented difference from kip-848;
    ``weakened``: forget one documented difference (``forget:<family>:<difference>``)."""
    if weakened is True:
        weakened = WEAKENINGS[0]
    if weakened and weakened not in WEAKENINGS:
        raise ValueError(f"unknown weakening {weakened!r}; known: {', '.join(WEAKENINGS)}")
    forget = weakened[len("forget:"):] if weakened else None
    names = profiles or tuple(p for p in sorted(PROFILES) if p != "kip-848")
    if forget:   # only the profiles of the weakened family
        names = tuple(p for p in names if family(p) == forget.split(":")[0])
    return run(NAME, BOUND, weakened or None, [instance(p, forget) for p in names])


def view_from(cex: dict[str, Any]) -> View:
    return View(**cex["view"])


__all__ = ["NAME", "WEAKENINGS", "accepts", "documented", "prove", "view_from"]
