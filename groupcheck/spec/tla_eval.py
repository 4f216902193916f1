"""An evaluator for the TLA+ subset groupcheck's specs use, on the ``tla`` parser's
syntax tree: it enumerates a spec's initial states and, from any state, every step of
its next-state relation (as TLC does), checks a step against one named action, and
evaluates state predicates. Used by the cross-checks with the Python model
(``crosscheck.py``); it is not a model checker of its own.

    spec = Spec.load(Path("specs/consumer_group/ConsumerGroup.tla"), constants={...})
    spec.init_states()            # [State, ...]
    spec.successors(state)        # [(action name, State), ...]
    spec.steps_by("Handle", s, t) # does s -> t satisfy Handle (with some parameters)?
    spec.holds("no_double_ownership", state)

Supported: see ``tla_compile`` (sets, functions, records, tuples and sequences, bounded
quantifiers, CHOOSE, EXCEPT, IF / CASE / LET, the standard modules' operators in
``tla_builtins``). Anything else is a SpecError naming the construct and ``file:line``."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import tla

from ..files import SPEC_BYTES, InputError, read_text

from .tla_builtins import STANDARD_MODULES
from .tla_actions import ActionCompiler
from .tla_context import Ctx, Definition, SpecError, _name
from .values import show

__all__ = ["Spec", "SpecError", "State"]


class State:
    """A spec state: the value of each variable, in VARIABLES order; hashable."""

    __slots__ = ("_index", "_values", "_hash")

    def __init__(self, index: dict[str, int], values: tuple):
        self._index, self._values, self._hash = index, values, None

    def __getitem__(self, name: str):
        return self._values[self._index[name]]

    def keys(self):
        return self._index.keys()

    def items(self):
        return [(k, self._values[i]) for k, i in self._index.items()]

    def __iter__(self):
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other) -> bool:
        return isinstance(other, State) and self._values == other._values

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._values)
        return self._hash

    def __repr__(self) -> str:
        return "State(" + ", ".join(f"{k} = {show(v)}" for k, v in self.items()) + ")"


_PARSED: dict[tuple[str, str], Any] = {}


def _parse(path: Path) -> Any:
    """The module in ``path``, parsed once per content."""
    try:
        text = read_text(path, "a TLA+ module", SPEC_BYTES)
    except InputError as e:
        raise SpecError(str(e)) from None
    key = (str(path), text)
    if key not in _PARSED:
        quiet = io.StringIO()
        try:
            with contextlib.redirect_stdout(quiet):
                tree = tla.parse(text)
        except Exception:     # the parser raises ValueError("Error while parsing.") and prints its stack
            raise SpecError(_locate_syntax_error(path.name, text)) from None
        if tree is None:
            raise SpecError(f"{path.name}: not a TLA+ module")
        _PARSED[key] = tree
    return _PARSED[key]


def _locate_syntax_error(file: str, text: str) -> str:
    """The parser names no position: parse each top-level unit alone (a unit starts at a
    line with no indentation) and name the first that fails."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines)
              if line and not line[0].isspace() and not line.startswith(("\\*", "(*", "----", "===="))]
    ends = starts[1:] + [next((i for i in range(len(lines) - 1, -1, -1) if lines[i].startswith("====")), len(lines))]
    for start, end in zip(starts, ends):
        chunk = "\n".join(lines[start:end])
        if re.match(r"(EXTENDS|CONSTANTS?|VARIABLES?)\b", chunk):
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                tla.parse(f"---- MODULE Probe ----\n{chunk}\n====")
        except Exception:
            first = lines[start].split("==")[0].strip()
            return f"{file}:{start + 1}: TLA+ syntax error in {first!r} (lines {start + 1}-{end})"
    return f"{file}: TLA+ syntax error (the parser gives no position)"


def _modules(path: Path, seen: set[str] | None = None) -> list[tuple[str, Any]]:
    """The module and everything it EXTENDS from its folder, base modules first."""
    seen = set() if seen is None else seen
    tree = _parse(path)
    out: list[tuple[str, Any]] = []
    for ext in tree.extendees or []:
        name = ext.operator
        if name in STANDARD_MODULES or name in seen:
            continue
        other = path.parent / f"{name}.tla"
        if not other.is_file():
            raise SpecError(f"{path.name}:{ext.start.line + 1}: EXTENDS {name}: no file {name}.tla in "
                            f"{path.parent} (standard modules: {', '.join(sorted(STANDARD_MODULES))})")
        seen.add(name)
        out += _modules(other, seen)
    out.append((path.name, tree))
    return out


class Spec:
    """A loaded spec: its variables, constants, definitions, and the compiled Init and
    next-state relation."""

    def __init__(self, path: Path, constants: dict[str, Any], init: str, next: str):
        self.path = path
        declared: list[str] = []
        variables: list[str] = []
        defs: dict[str, Definition] = {}
        for file, tree in _modules(path):
            for unit in tree.units or []:
                if isinstance(unit, str):      # a separator line (----)
                    continue
                kind = _name(unit)
                if kind == "Constants":
                    declared += [n.operator for n in unit.names]
                elif kind == "Variables":
                    variables += [n.operator for n in unit.names]
                elif kind == "OperatorDefinition":
                    if unit.name in defs and defs[unit.name].file != file:
                        raise SpecError(f"{file}:{unit.start.line + 1}: {unit.name} is defined again "
                                        f"(first in {defs[unit.name].file})")
                    params = tuple(p.operator for p in (unit.arity or []))
                    defs[unit.name] = Definition(unit.name, params, unit.definiens, file, bool(unit.function))
                elif kind in ("RecursiveOperators", "Theorem", "Axiom"):
                    continue
                else:
                    raise SpecError(f"{file}:{unit.start.line + 1}: unsupported TLA+ module unit: {kind}")
        missing = [c for c in declared if c not in constants]
        extra = [c for c in constants if c not in declared]
        if missing:
            raise SpecError(f"{path.name}: no value given for CONSTANT {', '.join(missing)}")
        if extra:
            raise SpecError(f"{path.name}: {', '.join(extra)} given a value but not declared as CONSTANT")
        for name in (init, next):
            if name not in defs:
                raise SpecError(f"{path.name}: no definition of {name}")
        self.variables = tuple(variables)
        self.constants = dict(constants)
        self.definitions = tuple(defs)
        self.init_name, self.next_name = init, next
        self._index = {v: i for i, v in enumerate(self.variables)}
        self._c = ActionCompiler(defs, self.constants, self.variables)
        self._init = self._c.action_def(init, init=True)
        self._next = self._c.action_def(next)
        self.action_names = self._actions(defs[next].node, defs)

    @classmethod
    def load(cls, path: Path | str, constants: dict[str, Any], init: str = "Init", next: str = "Next") -> "Spec":
        return cls(Path(path), constants, init, next)

    def _actions(self, node, defs) -> tuple[str, ...]:
        """The action operators Next's disjuncts apply (through \\E, \\/, LET, IF)."""
        out: list[str] = []

        def visit(n):
            kind = _name(n)
            if kind == "OperatorApplication" and n.operator in defs and self._c.def_level(n.operator) == 2:
                if n.operator not in out:
                    out.append(n.operator)
                return
            if kind == "OperatorApplication" and n.operator in ("\\/", "\\lor", "/\\", "\\land"):
                for a in n.arguments:
                    visit(a)
            elif kind == "VerticalList":
                for i in n.arguments:
                    visit(i.expression)
            elif kind == "Quantification":
                visit(n.predicate)
            elif kind in ("Parentheses",):
                visit(n.expression)
            elif kind == "Let":
                visit(n.expression)
            elif kind == "If":
                visit(n.then)
                visit(n.else_)
        visit(node)
        return tuple(out)

    # ------------------------------------------------------------ states

    def state(self, values: dict[str, Any]) -> State:
        """A state from {variable: value}; every variable, no other name."""
        missing = [v for v in self.variables if v not in values]
        extra = [k for k in values if k not in self._index]
        if missing or extra:
            parts = ([f"no value for {', '.join(missing)}"] if missing else []) + (
                [f"{', '.join(extra)} is not a variable of the spec"] if extra else [])
            raise SpecError(f"{self.path.name}: {'; '.join(parts)}")
        return State(self._index, tuple(values[v] for v in self.variables))

    def _complete(self, primed: dict, where: str) -> State:
        if len(primed) != len(self.variables):
            missing = [v for v in self.variables if v not in primed]
            raise SpecError(f"{self.path.name}: {where} leaves {', '.join(missing)} unassigned")
        return State(self._index, tuple(primed[v] for v in self.variables))

    def init_states(self) -> list[State]:
        """Every state satisfying Init, in enumeration order, each once."""
        if not hasattr(self, "_inits"):
            seen: dict[State, None] = {}
            ctx = Ctx({})
            for _, primed in self._init(ctx, {}, {}, None):
                seen.setdefault(self._complete(primed, self.init_name), None)
            self._inits = list(seen)
        return self._inits

    def successors(self, state: State) -> list[tuple[str, State]]:
        """Every (action name, next state) of the next-state relation from ``state``;
        a state appears once per action name."""
        ctx = Ctx(state)
        out: dict[tuple[str, State], None] = {}
        for label, primed in self._next(ctx, {}, {}, None):
            name = label or self.next_name
            out.setdefault((name, self._complete(primed, name)), None)
        return list(out)

    def steps_by(self, action: str, state: State, nxt: State) -> bool:
        """Does ``state -> nxt`` satisfy the action ``action`` (with some parameters)?"""
        ctx = Ctx(state, want=action)
        primed = dict(nxt.items())
        for label, _ in self._next(ctx, {}, primed, None):
            if label == action:
                return True
        return False

    def holds(self, name: str, state: State) -> bool:
        """The state predicate ``name`` at ``state``."""
        if name not in self._c.defs:
            raise SpecError(f"{self.path.name}: no definition of {name}")
        value = self._c.define(name)(Ctx(state), {})
        if not isinstance(value, bool):
            raise SpecError(f"{self.path.name}: {name} is not a predicate (it gives {show(value)})")
        return value

    def holds_step(self, name: str, state: State, nxt: State) -> bool:
        """The step predicate ``name`` (an action-level claim, e.g. an epoch that never
        decreases) on ``state -> nxt``."""
        if name not in self._c.defs:
            raise SpecError(f"{self.path.name}: no definition of {name}")
        value = self._c.define(name)(Ctx(state, dict(nxt.items())), {})
        if not isinstance(value, bool):
            raise SpecError(f"{self.path.name}: {name} is not a predicate (it gives {show(value)})")
        return value

    def evaluate(self, text: str, state: State | None = None) -> Any:
        """An expression in the spec's context (its definitions, constants, and
        ``state``'s variables)."""
        quiet = io.StringIO()
        try:
            with contextlib.redirect_stdout(quiet):
                tree = tla.parse_expr(text)
        except Exception:
            raise SpecError(f"not a TLA+ expression: {text!r}") from None
        return self._c.expr(tree, {}, "<expression>")(Ctx(state or {}), {})

    def show(self, state: State) -> str:
        return "\n".join(f"/\\ {k} = {show(v)}" for k, v in state.items())
