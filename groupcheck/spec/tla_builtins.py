"""The TLA+ operators the evaluator knows: the built-in ones and those of the standard
modules Naturals, Integers, Sequences, FiniteSets and TLC that the specs use.

Each entry is a Python function over values (``values.py``); a TypeError, KeyError or
ValueError it raises becomes a SpecError naming the operator and its line."""
from __future__ import annotations

import itertools
from typing import Any

from .values import Fcn, apply, domain, fcn, order

STANDARD_MODULES = frozenset({"Naturals", "Integers", "Sequences", "FiniteSets", "TLC"})


class Infinite:
    """``Nat`` and ``Int``: membership only (they cannot be enumerated)."""

    def __init__(self, name: str, low: int | None):
        self.name, self.low = name, low

    def __contains__(self, v) -> bool:
        return type(v) is int and (self.low is None or v >= self.low)

    def __iter__(self):
        raise ValueError(f"{self.name} is infinite and cannot be enumerated")

    def __repr__(self) -> str:
        return self.name


class Strings:
    """``STRING``: membership only."""

    def __contains__(self, v) -> bool:
        return isinstance(v, str)

    def __iter__(self):
        raise ValueError("STRING is infinite and cannot be enumerated")

    def __repr__(self) -> str:
        return "STRING"


class RecordSet:
    r"""``[f1 : S1, f2 : S2]`` with a field set that cannot be enumerated (``Int``,
    ``STRING``, another such record set): membership only, as TLC checks ``r \in
    [epoch : Int]`` field by field without enumerating (a TypeOK's record types)."""

    def __init__(self, fields: dict):
        self.fields = fields

    def __contains__(self, v) -> bool:
        return isinstance(v, Fcn) and set(v.keys()) == set(self.fields) and all(
            v[k] in s for k, s in self.fields.items())

    def __iter__(self):
        raise ValueError("a set of records with a field of an infinite set cannot be enumerated")

    def __repr__(self) -> str:
        return "[" + ", ".join(f"{k} : {s!r}" for k, s in self.fields.items()) + "]"


CONSTANT_SETS = {"Nat": Infinite("Nat", 0), "Int": Infinite("Int", None)}


def _int(v: Any) -> int:
    if type(v) is not int:
        raise TypeError(f"expected an integer, got {v!r}")
    return v


def _set(v: Any):
    if not isinstance(v, (frozenset, Infinite, Strings, RecordSet)):
        raise TypeError(f"expected a set, got {v!r}")
    return v


def _fset(v: Any) -> frozenset:
    if not isinstance(v, frozenset):
        raise TypeError(f"expected a finite set, got {v!r}")
    return v


def _seq(v: Any) -> tuple:
    if not isinstance(v, tuple):
        raise TypeError(f"expected a sequence, got {v!r}")
    return v


def _bool(v: Any) -> bool:
    if type(v) is not bool:
        raise TypeError(f"expected a Boolean, got {v!r}")
    return v


def _in(x, s) -> bool:
    return x in _set(s)


def _subseteq(a, b) -> bool:
    a = _fset(a)
    if isinstance(b, frozenset):
        return a <= b
    return all(x in _set(b) for x in a)


def _concat(a, b) -> tuple:
    return _seq(a) + _seq(b)


def _head(s):
    s = _seq(s)
    if not s:
        raise ValueError("Head of the empty sequence")
    return s[0]


def _tail(s):
    s = _seq(s)
    if not s:
        raise ValueError("Tail of the empty sequence")
    return s[1:]


def _subseq(s, m, n):
    s, m, n = _seq(s), _int(m), _int(n)
    if m > n:
        return ()
    if m < 1 or n > len(s):
        raise ValueError(f"SubSeq({m}, {n}) outside 1..{len(s)}")
    return s[m - 1:n]


def _range(a, b) -> frozenset:
    return frozenset(range(_int(a), _int(b) + 1))


def _div(a, b) -> int:
    if _int(b) == 0:
        raise ValueError("division by zero")
    return _int(a) // b


def _mod(a, b) -> int:
    if _int(b) <= 0:
        raise ValueError("% needs a positive divisor")
    return _int(a) % b


def _merge(f, g):
    """``f @@ g`` (TLC): f's values win where the domains overlap."""
    m = {k: apply(g, k) for k in domain(g)}
    m.update({k: apply(f, k) for k in domain(f)})
    return fcn(m)


def _powerset(s) -> frozenset:
    items = sorted(_fset(s), key=order)
    return frozenset(frozenset(c) for r in range(len(items) + 1) for c in itertools.combinations(items, r))


def _union(s) -> frozenset:
    out: set = set()
    for x in _fset(s):
        out |= _fset(x)
    return frozenset(out)


def _domain(f) -> frozenset:
    if not isinstance(f, (tuple, Fcn)):
        raise TypeError(f"DOMAIN of a non-function {f!r}")
    return domain(f)


def _neg(a) -> int:
    return -_int(a)


def _not(a) -> bool:
    return not _bool(a)


INFIX = {
    "+": lambda a, b: _int(a) + _int(b),
    "-": lambda a, b: _int(a) - _int(b),
    "*": lambda a, b: _int(a) * _int(b),
    "\\div": _div,
    "%": _mod,
    "<": lambda a, b: _int(a) < _int(b),
    ">": lambda a, b: _int(a) > _int(b),
    "<=": lambda a, b: _int(a) <= _int(b),
    "=<": lambda a, b: _int(a) <= _int(b),
    "\\leq": lambda a, b: _int(a) <= _int(b),
    ">=": lambda a, b: _int(a) >= _int(b),
    "\\geq": lambda a, b: _int(a) >= _int(b),
    "..": _range,
    "=": lambda a, b: a == b,
    "#": lambda a, b: a != b,
    "/=": lambda a, b: a != b,
    "\\in": _in,
    "\\notin": lambda a, b: not _in(a, b),
    "\\subseteq": _subseteq,
    "\\cup": lambda a, b: _fset(a) | _fset(b),
    "\\union": lambda a, b: _fset(a) | _fset(b),
    "\\cap": lambda a, b: _fset(a) & _fset(b),
    "\\intersect": lambda a, b: _fset(a) & _fset(b),
    "\\": lambda a, b: _fset(a) - _fset(b),
    "\\o": _concat,
    ":>": lambda a, b: fcn({a: b}),
    "@@": _merge,
}

PREFIX = {
    "-": _neg,
    "~": _not,
    "\\lnot": _not,
    "\\neg": _not,
    "DOMAIN": _domain,
    "SUBSET": _powerset,
    "UNION": _union,
}

# the standard modules' operators, applied as Name(args)
NAMED = {
    "Len": lambda s: len(_seq(s)),
    "Append": lambda s, e: _seq(s) + (e,),
    "Head": _head,
    "Tail": _tail,
    "SubSeq": _subseq,
    "Cardinality": lambda s: len(_fset(s)),
    "IsFiniteSet": lambda s: isinstance(s, frozenset),
}

BOOLEAN = frozenset({False, True})
LOGIC = {"/\\", "\\land", "\\/", "\\lor", "=>", "<=>", "\\equiv"}
