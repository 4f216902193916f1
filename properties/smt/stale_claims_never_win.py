"""(b) stale_claims_never_win.

KIP-792: "the consumer lead can distribute the partitions as sticky as possible, and
most importantly, without errors" — with the generation carried next to
ownedPartitions, a claim from an older generation must not beat a current one.

One partition, N claimants in member order; claimant i claims it or not and has a
generation in -1..5 (-1: no generation). ``fold`` encodes the *sequential* loop of
``ownership.resolve_claims`` under ``per-partition-generation`` step by step, with
the same state (holder, holder_gen, tied). Claims (``i`` keeps the partition):

* ``keeper_claimed``: only a claimant keeps it;
* ``no_stale_keeper``: a keeper's generation is >= every other claimant's (a stale
  claim never beats a current one);
* ``tie_keeps_from_both``: a keeper's generation differs from every other
  claimant's (together: strictly greater than every other claimant's);
* ``unique_keeper``: at most one claimant keeps it;
* ``unique_top_keeps``: a claimant whose generation is strictly above every other
  claimant's keeps it (the net effect stated in ``ownership``);
* ``contested_iff_top_tie``: the partition is contested exactly when two claimants
  share the highest claiming generation.

Bound: N = 1..4 claimants, generations -1..5. Weakened rules (all SAT):
``trust-all`` (every claimant keeps), ``first-claimant`` (the first claimant in
member order keeps), and ``highest-generation-only`` (Kafka 3.0-3.4: keep iff the
member's generation is the group's top; ``profile`` shows it satisfies
``no_stale_keeper`` but violates the uniqueness parts).
"""
from __future__ import annotations

from typing import Sequence

import z3

from ._common import Instance, Result, pick_weakening, run, run_per_claim, value

NAME = "stale_claims_never_win"
MAX_CLAIMANTS = 4
GENERATIONS = (-1, 5)
RULE = "per-partition-generation"
WEAKENINGS = ("trust-all", "first-claimant", "highest-generation-only")
NONE = -1   # holder index meaning "no holder yet"


def fold(claims: Sequence[z3.BoolRef], gens: Sequence[z3.ArithRef],
         rule: str = RULE) -> tuple[list[z3.BoolRef], z3.BoolRef]:
    """(keeps_i for each claimant, contested) for one partition under ``rule``."""
    n = len(claims)
    if rule == "trust-all":
        return list(claims), z3.BoolVal(False)
    if rule == "first-claimant":
        return [z3.And(claims[i], *[z3.Not(claims[j]) for j in range(i)]) for i in range(n)], z3.BoolVal(False)
    if rule == "highest-generation-only":
        # ``top`` is over every member's generation, claimant of this partition or not.
        top = z3.IntVal(-1)
        for g in gens:
            top = z3.If(g > top, g, top)
        return [z3.And(claims[i], gens[i] == top) for i in range(n)], z3.BoolVal(False)
    if rule != RULE:
        raise ValueError(f"unknown rule {rule!r}")
    holder, holder_gen, tied = z3.IntVal(NONE), z3.IntVal(-1), z3.BoolVal(False)
    for i in range(n):
        c, g = claims[i], gens[i]
        first = holder == NONE
        same = z3.And(z3.Not(first), g == holder_gen)
        higher = z3.And(z3.Not(first), g != holder_gen, g > holder_gen)
        take = z3.And(c, z3.Or(first, higher))
        holder, holder_gen, tied = (
            z3.If(take, z3.IntVal(i), holder),
            z3.If(take, g, holder_gen),
            z3.If(take, z3.BoolVal(False), z3.If(z3.And(c, same), z3.BoolVal(True), tied)),
        )
    claimed = z3.Or(list(claims))
    keeps = [z3.And(claimed, z3.Not(tied), holder == i) for i in range(n)]
    return keeps, z3.And(claimed, tied)


def variables(n: int) -> tuple[list[z3.BoolRef], list[z3.ArithRef]]:
    return ([z3.Bool(f"claims_{i}") for i in range(n)], [z3.Int(f"generation_{i}") for i in range(n)])


def domain(gens: Sequence[z3.ArithRef], generations: tuple[int, int] = GENERATIONS) -> list[z3.BoolRef]:
    lo, hi = generations
    return [z3.And(g >= lo, g <= hi) for g in gens]


def instance(n: int, rule: str = RULE, generations: tuple[int, int] = GENERATIONS) -> Instance:
    claims, gens = variables(n)
    keeps, contested = fold(claims, gens, rule)
    others = [[j for j in range(n) if j != i] for i in range(n)]
    T = z3.BoolVal(True)
    top_tie = z3.Or([z3.And(claims[i], claims[j], gens[i] == gens[j],
                            *[z3.Implies(claims[k], gens[k] <= gens[i]) for k in range(n)])
                     for i in range(n) for j in range(i + 1, n)] or [z3.BoolVal(False)])
    parts = {
        "keeper_claimed": z3.And([z3.Implies(keeps[i], claims[i]) for i in range(n)]),
        "no_stale_keeper": z3.And([z3.Implies(z3.And(keeps[i], claims[j]), gens[j] <= gens[i])
                                   for i in range(n) for j in others[i]] or [T]),
        "tie_keeps_from_both": z3.And([z3.Implies(z3.And(keeps[i], claims[j]), gens[j] != gens[i])
                                       for i in range(n) for j in others[i]] or [T]),
        "unique_keeper": z3.And([z3.Not(z3.And(keeps[i], keeps[j]))
                                 for i in range(n) for j in range(i + 1, n)] or [T]),
        "unique_top_keeps": z3.And([z3.Implies(
            z3.And(claims[i], *[z3.Implies(claims[j], gens[j] < gens[i]) for j in others[i]]), keeps[i])
            for i in range(n)]),
        "contested_iff_top_tie": contested == top_tie,
    }

    def describe(model: z3.ModelRef) -> dict:
        return {
            "claims": [value(model, c) for c in claims],
            "generations": [value(model, g) for g in gens],
            "keeps": [value(model, k) for k in keeps],
            "contested": value(model, contested),
        }

    return Instance(domain(gens, generations), parts, describe, {"claimants": n, "rule": rule})


def _bound(max_claimants: int, generations: tuple[int, int]) -> str:
    return f"N=1..{max_claimants} claimants, generations {generations[0]}..{generations[1]}"


def prove(max_claimants: int = MAX_CLAIMANTS, generations: tuple[int, int] = GENERATIONS,
          weakened: bool | str = False) -> Result:
    """All claims for N = 1..max_claimants; ``weakened`` picks a rule from WEAKENINGS."""
    rule = pick_weakening(weakened, WEAKENINGS) or RULE
    return run(NAME, _bound(max_claimants, generations), None if rule == RULE else rule,
               (instance(n, rule, generations) for n in range(1, max_claimants + 1)))


def profile(rule: str = RULE, max_claimants: int = MAX_CLAIMANTS,
            generations: tuple[int, int] = GENERATIONS) -> dict[str, Result]:
    """Each claim checked on its own under ``rule``: which ones the rule keeps."""
    weakened = None if rule == RULE else rule
    return run_per_claim(NAME, _bound(max_claimants, generations), weakened,
                         lambda n: instance(n, rule, generations), range(1, max_claimants + 1))
