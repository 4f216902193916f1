"""Known-bug switches: a profile with some of its rules switched, by name.

Each protocol keeps a table ``SWITCHES``: name -> a function that takes its profile and returns
it with one rule changed (the known-bug variants of ``properties/``); a scope names the
switches it runs with.
"""
from __future__ import annotations

from typing import Callable, Iterable, Mapping, TypeVar

P = TypeVar("P")


def apply_switches(profile: P, names: Iterable[str], table: Mapping[str, Callable[[P], P]], what: str) -> P:
    """``profile`` with each switch of ``names`` applied in order; a name not in ``table`` is a
    KeyError naming the ``what`` (e.g. "consumer group") and the known switches."""
    for name in names:
        if name not in table:
            raise KeyError(f"unknown {what} switch {name!r}; known: {', '.join(table)}")
        profile = table[name](profile)
    return profile
