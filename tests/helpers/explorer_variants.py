"""A known-bug variant's counterexample in the explorer, for the timeline tests: its BFS path
(found once per test process), a session at its violation, and the states along it."""
from __future__ import annotations

from functools import lru_cache

from groupcheck.explorer import Session, open_variant


@lru_cache(maxsize=None)
def path(key: str) -> tuple[int, ...]:
    found = open_variant(key).run_to_violation("bfs")
    assert found.path is not None
    return tuple(found.path)


def at_violation(key: str) -> Session:
    return open_variant(key).goto(list(path(key)))


def states(s: Session) -> list:
    first, steps = s._whole()
    return [first] + [st.next for st in steps]
