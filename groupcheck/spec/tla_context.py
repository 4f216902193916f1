"""What the compiled closures of a spec share (``tla_compile.py`` for expressions,
``tla_actions.py`` for actions): the error every failure becomes, a module's definitions,
LET operators and the cells that keep their values, the evaluation context (the current
state, the next state bound so far), recursive functions while they are computed, and two
helpers over the ``tla`` parser's nodes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


class SpecError(ValueError):
    """A spec the evaluator cannot read or evaluate; the message names the construct
    and ``file:line``."""


@dataclass(frozen=True)
class Definition:
    name: str
    params: tuple[str, ...]
    node: Any
    file: str
    function: bool = False      # f[x \in S] == ...


@dataclass(frozen=True)
class LetOp:
    """An operator defined by LET: compiled where it is defined, called where used. A
    definition without parameters is computed once per evaluation of its LET: its value
    is kept in a ``Cell`` the LET puts in ``loc`` under ``key`` (copies of ``loc`` below
    share the cell)."""
    params: tuple[str, ...]
    body: Callable
    key: str = ""
    node: Any = None            # the definiens, for an action LET (it mentions a primed variable)
    scope: Any = None
    action: bool = False


class Cell:
    __slots__ = ("value", "done")

    def __init__(self):
        self.done = False


class Ctx:
    __slots__ = ("state", "primed", "want")

    def __init__(self, state, primed=None, want=None):
        self.state, self.primed, self.want = state, primed if primed is not None else {}, want


def _name(node) -> str:
    return type(node).__name__


def _line(node) -> int:
    start = getattr(node, "start", None)
    return start.line + 1 if start is not None else 0


class RecFn:
    """A recursive function ``f[x \\in S] == ...`` while it is being computed."""

    def __init__(self, dom, body, loc, name):
        self.dom, self.body, self.loc, self.name, self.memo = dom, body, loc, name, {}

    def at(self, ctx, x):
        if x not in self.memo:
            if x not in self.dom:
                raise KeyError(x)
            loc = dict(self.loc)
            loc[self.name] = self
            loc["#arg"] = x
            self.memo[x] = self.body(ctx, loc)
        return self.memo[x]
