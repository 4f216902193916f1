"""TLA+ values as the evaluator holds them, and their conversions.

* integers, booleans and strings are Python's;
* a set is a ``frozenset``;
* a function whose domain is ``1..n`` (a sequence, a tuple ``<<a, b>>``) is a Python
  ``tuple``; the empty function and ``<<>>`` are ``()``;
* any other function, records included (a record is a function on strings), is a
  ``Fcn``: a frozen, hashable mapping;
* a model value (a TLC config's ``NoValue = NoValue``) is a ``ModelValue``: equal only
  to itself, and unequal to (not an error against) any other value, as in TLC.

Every function is normalised on construction (``fcn``), so equality is structural: the
record ``[a |-> 1]`` equals ``[x \\in {"a"} |-> 1]``, and ``[i \\in 1..2 |-> i]``
equals ``<<1, 2>>``, as in TLA+."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from groupcheck.model.partitions import bits


class ModelValue:
    """A TLC model value: a constant the config names without giving it a value."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other) -> bool:
        return isinstance(other, ModelValue) and self.name == other.name

    def __hash__(self) -> int:
        return hash(("ModelValue", self.name))

    def __repr__(self) -> str:
        return self.name


class Fcn:
    """A TLA+ function (or record) that is not a sequence: immutable and hashable."""

    __slots__ = ("_map", "_hash")

    def __init__(self, mapping: Mapping):
        self._map = dict(mapping)
        self._hash = None

    def __getitem__(self, key):
        return self._map[key]

    def __contains__(self, key) -> bool:
        return key in self._map

    def get(self, key, default=None):
        return self._map.get(key, default)

    def keys(self):
        return self._map.keys()

    def items(self):
        return self._map.items()

    def values(self):
        return self._map.values()

    def __len__(self) -> int:
        return len(self._map)

    def __iter__(self):
        return iter(self._map)

    def __eq__(self, other) -> bool:
        return isinstance(other, Fcn) and self._map == other._map

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._map.items()))
        return self._hash

    def __repr__(self) -> str:
        return f"Fcn({show(self)})"


def fcn(mapping: Mapping) -> Any:
    """A function from a mapping, normalised: ``()`` when empty, a tuple when the domain
    is ``1..n``, otherwise a ``Fcn``."""
    n = len(mapping)
    if n == 0:
        return ()
    if all(type(k) is int for k in mapping) and set(mapping) == set(range(1, n + 1)):
        return tuple(mapping[i] for i in range(1, n + 1))
    return Fcn(mapping)


def rec(**fields: Any) -> Any:
    """A record: ``rec(epoch=1, owned=tset(...))``."""
    return fcn(fields)


def tset(items: Iterable = ()) -> frozenset:
    return frozenset(items)


def mask_set(mask: int) -> frozenset:
    """A model bitmask (partitions, tasks, slots) as the set of its bit positions."""
    return frozenset(bits(mask))


def seq(items: Iterable = ()) -> tuple:
    return tuple(items)


def domain(f: Any) -> frozenset:
    if isinstance(f, tuple):
        return frozenset(range(1, len(f) + 1))
    return frozenset(f.keys())


def apply(f: Any, x: Any) -> Any:
    """``f[x]``; KeyError when ``x`` is outside the domain."""
    if isinstance(f, tuple):
        if type(x) is int and 1 <= x <= len(f):
            return f[x - 1]
        raise KeyError(x)
    return f._map[x]


def update(f: Any, x: Any, value: Any) -> Any:
    """``[f EXCEPT ![x] = value]`` for ``x`` in the domain (KeyError otherwise)."""
    if isinstance(f, tuple):
        if type(x) is int and 1 <= x <= len(f):
            return f[:x - 1] + (value,) + f[x:]
        raise KeyError(x)
    if x not in f._map:
        raise KeyError(x)
    m = dict(f._map)
    m[x] = value
    return Fcn(m)


def order(v: Any) -> tuple:
    """A total order over all values (booleans, integers, strings, sequences, sets,
    functions), for CHOOSE, for sorting, and for printing sets the same way each time."""
    if isinstance(v, bool):
        return (0, v)
    if isinstance(v, int):
        return (1, v)
    if isinstance(v, str):
        return (2, v)
    if isinstance(v, tuple):
        return (3, len(v), tuple(order(x) for x in v))
    if isinstance(v, frozenset):
        return (4, len(v), tuple(sorted(order(x) for x in v)))
    if isinstance(v, Fcn):
        return (5, len(v), tuple(sorted((order(k), order(x)) for k, x in v.items())))
    if isinstance(v, ModelValue):
        return (6, v.name)
    raise TypeError(f"not a TLA+ value: {v!r}")


def show(v: Any) -> str:
    """TLA+ text of a value."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, tuple):
        return "<<" + ", ".join(show(x) for x in v) + ">>"
    if isinstance(v, frozenset):
        return "{" + ", ".join(show(x) for x in sorted(v, key=order)) + "}"
    if isinstance(v, Fcn):
        keys = sorted(v.keys(), key=order)
        if all(isinstance(k, str) and k.isidentifier() for k in keys):
            return "[" + ", ".join(f"{k} |-> {show(v[k])}" for k in keys) + "]"
        return "(" + " @@ ".join(f"{show(k)} :> {show(v[k])}" for k in keys) + ")"
    if isinstance(v, ModelValue):
        return v.name
    return repr(v)


def from_itf(value: Any) -> Any:
    """An ITF JSON value (Apalache ADR-015) as a TLA+ value: ``#set``, ``#map``, ``#tup``,
    ``#bigint``; a list is a sequence, an object a record."""
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, list):
        return tuple(from_itf(x) for x in value)
    if isinstance(value, dict):
        if "#set" in value:
            return frozenset(from_itf(x) for x in value["#set"])
        if "#tup" in value:
            return tuple(from_itf(x) for x in value["#tup"])
        if "#map" in value:
            return fcn({from_itf(k): from_itf(x) for k, x in value["#map"]})
        if "#bigint" in value:
            return int(value["#bigint"])
        if "#unserializable" in value:
            return ModelValue(value["#unserializable"])
        return fcn({k: from_itf(x) for k, x in value.items()})
    raise ValueError(f"not an ITF value: {value!r}")


def to_itf(v: Any) -> Any:
    """A TLA+ value as ITF JSON (sets and non-record functions tagged)."""
    if isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v if abs(v) < 2 ** 53 else {"#bigint": str(v)}
    if isinstance(v, tuple):
        return [to_itf(x) for x in v]
    if isinstance(v, frozenset):
        return {"#set": [to_itf(x) for x in sorted(v, key=order)]}
    if isinstance(v, Fcn):
        keys = sorted(v.keys(), key=order)
        if all(isinstance(k, str) for k in keys):
            return {k: to_itf(v[k]) for k in keys}
        return {"#map": [[to_itf(k), to_itf(v[k])] for k in keys]}
    if isinstance(v, ModelValue):
        return {"#unserializable": v.name}
    raise ValueError(f"not a TLA+ value: {v!r}")
