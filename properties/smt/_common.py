"""Shared plumbing for the z3 queries: the ``Result`` record and the refutation loop.

A query is a list of ``Instance``s (one per size inside the stated bound). Each
instance is a set of premises and named claims; the claims are *proved* when
``premises ∧ ¬(claim_1 ∧ … ∧ claim_n)`` is UNSAT, otherwise the model is turned into
plain Python values (ints, bools, dicts) and returned as the counterexample, with
the names of the claims it violates.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import z3

PROVED = "proved"
COUNTEREXAMPLE = "counterexample"
TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class Result:
    """The outcome of one query: proved at ``bound``, or a concrete counterexample."""

    name: str
    bound: str
    status: str                              # "proved" | "counterexample"
    counterexample: dict[str, Any] | None    # plain Python values, or None
    seconds: float                           # total z3 ``check()`` time
    weakened: str | None = None              # which rule was weakened, None for the real one

    @property
    def proved(self) -> bool:
        return self.status == PROVED

    def __str__(self) -> str:
        what = self.name if self.weakened is None else f"{self.name} [weakened: {self.weakened}]"
        line = f"{what}: {self.status} ({self.bound}; {self.seconds * 1000:.1f} ms)"
        if self.counterexample is not None:
            line += f"\n  counterexample: {self.counterexample}"
        return line


@dataclass
class Instance:
    """One solver call: ``premises ⇒ all(claims)``; ``describe`` reads a model back."""

    premises: list[z3.BoolRef]
    claims: dict[str, z3.BoolRef]
    describe: Callable[[z3.ModelRef], dict[str, Any]]
    label: dict[str, Any] = field(default_factory=dict)   # e.g. {"members": 3}


def value(model: z3.ModelRef, expr: z3.ExprRef) -> int | bool:
    """A model's value for ``expr`` as a plain Python int or bool."""
    v = model.eval(expr, model_completion=True)
    if z3.is_bool(v):
        return bool(z3.is_true(v))
    return v.as_long() if z3.is_bv_value(v) or z3.is_int_value(v) else int(str(v))


def refute(inst: Instance) -> tuple[str, dict[str, Any] | None, float]:
    solver = z3.Solver()
    solver.set(timeout=TIMEOUT_MS)
    solver.add(*inst.premises)
    solver.add(z3.Or([z3.Not(c) for c in inst.claims.values()]))
    start = time.perf_counter()
    answer = solver.check()
    seconds = time.perf_counter() - start
    if answer == z3.unsat:
        return PROVED, None, seconds
    if answer != z3.sat:
        raise RuntimeError(f"z3 could not decide the query: {solver.reason_unknown()}")
    model = solver.model()
    cex = dict(inst.label)
    cex.update(inst.describe(model))
    cex["violated"] = [n for n, c in inst.claims.items() if not value(model, c)]
    return COUNTEREXAMPLE, cex, seconds


def run(name: str, bound: str, weakened: str | None, instances: Iterable[Instance]) -> Result:
    """Refute each instance in turn; the first counterexample ends the query."""
    total = 0.0
    for inst in instances:
        status, cex, seconds = refute(inst)
        total += seconds
        if status == COUNTEREXAMPLE:
            return Result(name, bound, COUNTEREXAMPLE, cex, total, weakened)
    return Result(name, bound, PROVED, None, total, weakened)


def run_per_claim(name: str, bound: str, weakened: str | None,
                  make: Callable[[int], Instance], sizes: Iterable[int]) -> dict[str, Result]:
    """Each claim of ``make(size)`` refuted on its own over ``sizes``: which ones a
    (weakened) rule keeps. One ``run`` per claim, named ``name.claim``."""
    sizes = list(sizes)
    out: dict[str, Result] = {}
    for part in make(sizes[0]).claims:
        def alone(n: int, part: str = part) -> Instance:
            inst = make(n)
            inst.claims = {part: inst.claims[part]}
            return inst
        out[part] = run(f"{name}.{part}", bound, weakened, (alone(n) for n in sizes))
    return out


def evaluate(premises: Sequence[z3.BoolRef], pins: Sequence[z3.BoolRef],
             outputs: dict[str, z3.ExprRef]) -> dict[str, int | bool] | None:
    """Fix the inputs (``pins``) in the solver and read the encoded outputs.

    Returns None when the premises reject the pinned input. Otherwise returns the
    outputs' values after checking they are *determined* by the input (no other
    value is consistent), so a cross-check compares a function, not one model.
    """
    solver = z3.SimpleSolver()   # pinned inputs: propagation decides it, no need for tactics
    solver.set(timeout=TIMEOUT_MS)
    solver.add(*premises)
    solver.add(*pins)
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    got = {k: value(model, e) for k, e in outputs.items()}
    if outputs:
        solver.add(z3.Or([e != (z3.BoolVal(v) if isinstance(v, bool) else v)
                          for (k, e), v in zip(outputs.items(), got.values())]))
        if solver.check() != z3.unsat:
            raise AssertionError(f"encoded outputs are not determined by the pinned inputs: {got}")
    return got


def pairwise_disjoint(masks: Sequence[z3.BitVecRef]) -> z3.BoolRef:
    return z3.And([masks[i] & masks[j] == 0
                   for i in range(len(masks)) for j in range(i + 1, len(masks))] or [z3.BoolVal(True)])


def union(masks: Sequence[z3.BitVecRef], width: int) -> z3.BitVecRef:
    out = z3.BitVecVal(0, width)
    for m in masks:
        out = out | m
    return out


def pick_weakening(weakened: bool | str | None, known: Sequence[str]) -> str | None:
    """None for the real rule; the first weakening for True; a named one, checked."""
    if weakened is False or weakened is None:
        return None
    name = known[0] if weakened is True else weakened
    if name not in known:
        raise ValueError(f"unknown weakening {name!r}; known: {', '.join(known)}")
    return name
