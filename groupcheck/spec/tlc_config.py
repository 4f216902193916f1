"""A TLC model (``MC<Spec>.tla`` with its ``.cfg``) run by groupcheck's evaluator, as TLC
would run it: the constants the config gives, INIT, NEXT, every CONSTRAINT, every
INVARIANT at every state, every PROPERTY of the form ``[][A]_v`` on every step.

This is what a TLC user gets from the spec folder, checked with groupcheck's evaluator
and no Python model: the same distinct-state counts and verdicts as TLC on every MC
config of specs/ (the counts the MC modules' comments and the manifests promise are
TLC's). It is not TLC: it reads the config keywords the specs use
(CONSTANTS with ``=`` or ``<-``, one per line, a bare name being a model value; INIT;
NEXT; SPECIFICATION of the form ``Init /\\ [][Next]_vars [/\\ Fairness]``, read by
``tlc_formula``; CONSTRAINT; INVARIANT; PROPERTY; CHECK_DEADLOCK) and names any other.
A temporal PROPERTY that is not ``[][A]_v`` (liveness, e.g. ``FairSettles``) and the
fairness of a SPECIFICATION are not checked here: ``Run.left_to_tlc`` names them, for
``groupcheck spec tlc``. Where it and TLC could disagree, TLC is the reference.
"""
from __future__ import annotations

import re
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..files import SPEC_BYTES, InputError, read_text
from .link import read_cfg
from .tla_compile import Compiler
from .tla_context import Ctx, Definition, SpecError
from . import tlc_formula
from .tla_eval import Spec, _name, _parse
from .values import ModelValue

SUPPORTED = ("CONSTANT", "INIT", "NEXT", "SPECIFICATION", "CONSTRAINT", "INVARIANT", "PROPERTY", "CHECK_DEADLOCK")
DEADLOCK = "deadlock"          # the claim a deadlock breaks, as Run.violation names it


@dataclass
class Config:
    path: Path
    module: Path                      # the MC module, next to the config
    constants: dict                   # name -> value
    init: str
    next: str
    constraints: list[str]
    invariants: list[str]
    properties: list[str]             # PROPERTY: each [][A]_v checked on every step, any other left to TLC
    expected: str = ""                # the config's "Expected: ..." comment
    check_deadlock: bool = True       # CHECK_DEADLOCK, or no -deadlock in its TLC command (TLC's default: TRUE)
    fairness: list[str] = field(default_factory=list)   # a SPECIFICATION's fairness conjuncts (TLC's to use)


@dataclass
class Run:
    states: int = 0                   # distinct states, as TLC counts them (within every CONSTRAINT)
    depth: int = 0                    # the longest shortest path from Init, in states (TLC's depth)
    transitions: int = 0
    violation: tuple[str, list] | None = None     # (claim, [(action, state), ...]) from Init; a
                                                  # [][A]_v property's claim is the conjunct of A that broke
    violated: list[str] = field(default_factory=list)   # every claim broken (when not stopping)
    seconds: float = 0.0
    cut: str | None = None
    left_to_tlc: list[str] = field(default_factory=list)   # temporal PROPERTY and fairness not checked here


def _constant(text: str, where: str):
    """A constant's value as the config writes it (a number, string, set, ...); a bare
    name (``NoValue = NoValue``) is a TLC model value."""
    import contextlib
    import io

    import tla
    if re.fullmatch(r"[A-Za-z_]\w*", text.strip()) and text.strip() not in ("TRUE", "FALSE"):
        return ModelValue(text.strip())
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            tree = tla.parse_expr(text)
    except Exception:
        raise SpecError(f"{where}: not a TLA+ value: {text!r}") from None
    return Compiler({}, {}, ()).expr(tree, {}, where)(Ctx({}), {})


def _substitute(module: Path, name: str, where: str):
    """The value of the MC module's own constant definition ``name`` (``X <- name``)."""
    defs = {}
    for unit in _parse(module).units:
        if not isinstance(unit, str) and _name(unit) == "OperatorDefinition" and not unit.arity:
            defs[unit.name] = Definition(unit.name, (), unit.definiens, module.name)
    if name not in defs:
        raise SpecError(f"{where}: {module.name} defines no {name}")
    return Compiler(defs, {}, ()).define(name)(Ctx({}), {})


def tlc_command(text: str) -> str:
    """The TLC command line a config's ``\\* TLC:`` comment gives ("" if none): what a
    TLA+ user runs. TLC 2.15 reads no CHECK_DEADLOCK keyword, so a config that must not
    check deadlock says ``-deadlock`` there (TLC's flag), and that is read here too."""
    return next((line.split("TLC:", 1)[1].strip() for line in text.splitlines()
                 if line.lstrip().startswith("\\* TLC:")), "")


def read(path: Path) -> Config:
    """The config at ``path`` and the constants it gives, evaluated."""
    path = Path(path)
    try:
        text = read_text(path, "a TLC config", SPEC_BYTES)
    except InputError as e:
        raise SpecError(str(e)) from None
    module = path.with_suffix(".tla")
    if not module.is_file():
        raise SpecError(f"{path.name}: no module {module.name} next to it")
    words = read_cfg(path)
    other = [k for k in words if k not in SUPPORTED]
    if other:
        raise SpecError(f"{path.name}: config keyword {other[0]} is not read here (it reads {', '.join(SUPPORTED)})")
    constants: dict = {}
    inside = False
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.split("\\*", 1)[0].strip()
        head = line.split()[0] if line else ""
        if head in ("CONSTANT", "CONSTANTS"):
            inside, line = True, line[len(head):].strip()
        elif head.rstrip("S") in SUPPORTED or head in ("INVARIANTS", "PROPERTIES", "CONSTRAINTS"):
            inside = False
        if not inside or not line:
            continue
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*(=|<-)\s*(.+)", line)
        if not m:
            raise SpecError(f"{path.name}:{n}: expected one 'Name = value' or 'Name <- Definition' a line")
        name, op, value = m.groups()
        where = f"{path.name}:{n}"
        constants[name] = _constant(value, where) if op == "=" else _substitute(module, value.strip(), where)
    single = {k: words.get(k, []) for k in ("INIT", "NEXT")}
    fairness: list[str] = []
    if "SPECIFICATION" in words:
        if single["INIT"] or single["NEXT"] or len(words["SPECIFICATION"]) != 1:
            raise SpecError(f"{path.name}: give SPECIFICATION with one formula name, or INIT and NEXT, not both")
        formula = tlc_formula.read(module, words["SPECIFICATION"][0], path.name)
        single, fairness = {"INIT": formula.init, "NEXT": formula.next}, formula.fairness
    for k, v in single.items():
        if len(v) != 1:
            raise SpecError(f"{path.name}: {k} needs one operator name, got {v or 'none'}")
    deadlock = words.get("CHECK_DEADLOCK", ["TRUE"])
    if deadlock not in (["TRUE"], ["FALSE"]):
        raise SpecError(f"{path.name}: CHECK_DEADLOCK needs TRUE or FALSE, got {' '.join(deadlock) or 'nothing'}")
    if "-deadlock" in tlc_command(text).split():
        deadlock = ["FALSE"]
    expected = next((line.split("Expected:", 1)[1].strip() for line in text.splitlines() if "Expected:" in line), "")
    return Config(path, module, constants, single["INIT"][0], single["NEXT"][0], words.get("CONSTRAINT", []),
                  words.get("INVARIANT", []), words.get("PROPERTY", []), expected,
                  deadlock == ["TRUE"], fairness)


def load(config: Config) -> Spec:
    return Spec.load(config.module, constants=config.constants, init=config.init, next=config.next)


def _conjuncts(spec: Spec, name: str) -> list[str]:
    """``name`` itself, or the operators its definition conjoins (``A == P /\\ Q``: P, Q),
    each judged alone so that a violation names the claim that broke."""
    defs = spec._c.defs
    node = defs[name].node if name in defs and not defs[name].params else None
    names: list[str] = []

    def visit(n) -> bool:
        if _name(n) == "OperatorApplication" and n.operator in ("/\\", "\\land"):
            return all(visit(a) for a in n.arguments)
        if _name(n) == "VerticalList" and all(_name(i) != "Disjunct" for i in n.arguments):
            return all(visit(i.expression) for i in n.arguments)
        if _name(n) == "OperatorApplication" and not n.arguments and n.operator in defs:
            names.append(n.operator)
            return True
        return False
    return names if node is not None and visit(node) and len(names) > 1 else [name]


def _step_claims(spec: Spec, name: str) -> list[str] | None:
    """The step predicates of a property ``name == [][A]_v``: A, or the claims A conjoins;
    None for a property of another form (a temporal claim left to TLC)."""
    defs = spec._c.defs
    if name not in defs:
        raise SpecError(f"{spec.path.name}: PROPERTY {name} is not defined in it or what it extends")
    node = defs[name].node
    if _name(node) != "OperatorApplication" or node.operator != "[]" \
            or _name(node.arguments[0]) != "SubscriptedAction" or _name(node.arguments[0].action) != "OperatorApplication":
        return None
    return _conjuncts(spec, node.arguments[0].action.operator)


def run(config: Config, *, max_states: int = 1_000_000, stop: bool = True,
        progress: Callable[[int, int], None] | None = None, budget=None) -> Run:
    """Breadth-first, with TLC's semantics (measured on TLC 2.15 by
    tests/spec/fixtures/tlc_semantics): a state that breaks a CONSTRAINT is not counted
    and not explored, yet every invariant is checked on it (and every [][A]_v property on
    the step to it); a state with no successor at all is a deadlock when the config's
    CHECK_DEADLOCK is TRUE (TLC's default), and ends the run, as in TLC, even with
    ``stop`` False. ``stop``: end at the first violation (TLC's default) with its shortest
    trace; otherwise explore everything (TLC's -continue) and list every claim broken. ``budget`` (a ``checker.Budget``), looked at every 256 states
    expanded with ``progress(states, queue)``, ends the run early (``cut``: the limit)."""
    started = time.perf_counter()
    spec = load(config)
    for name in config.invariants + config.constraints:
        if name not in spec.definitions:
            raise SpecError(f"{config.path.name}: {name} is not defined in {config.module.name} or what it extends")
    read = {p: _step_claims(spec, p) for p in config.properties}
    claims = [c for found in read.values() if found is not None for c in found]
    temporal = [f"PROPERTY {p}" for p, found in read.items() if found is None]
    # a SPECIFICATION's fairness matters only to a temporal property (it constrains no state)
    out = Run(left_to_tlc=temporal + [f"fairness ({f})" for f in config.fairness if temporal])
    parent: dict = {}            # every state generated -> (its parent, the action), None for Init
    level: dict = {}             # a counted state -> its BFS level (Init: 1), TLC's "depth"
    queue: deque = deque()

    def trace(state) -> list:
        steps = []
        while state is not None:
            up = parent[state]
            steps.append((up[1] if up else "Init", state))
            state = up[0] if up else None
        return steps[::-1]

    def broken(name: str, steps: Callable[[], list]) -> bool:
        if name in out.violated:
            return False
        out.violated.append(name)
        if out.violation is None:
            out.violation = (name, steps())
        return stop

    def admit(state, up) -> bool:
        """A state generated for the first time, in TLC's order: counted (when within
        every CONSTRAINT), then its invariants checked. True when the run must end."""
        parent[state] = up
        inside = all(spec.holds(c, state) for c in config.constraints)
        if inside:               # outside the model: checked, not counted, not explored
            level[state] = level[up[0]] + 1 if up else 1
            out.states += 1
            out.depth = max(out.depth, level[state])
            queue.append(state)
        for inv in config.invariants:
            if not spec.holds(inv, state) and broken(inv, lambda: trace(state)):
                return True
        if out.states >= max_states:
            out.cut = "max-states"
            return True
        return False

    def expand(state) -> bool:
        """Every successor admitted, then every [][A]_v claim checked on the step (also to
        a state seen before), as TLC does; a state with no successor is a deadlock."""
        deadlocked = True
        for label, nxt in spec.successors(state):
            deadlocked = False
            out.transitions += 1
            if nxt not in parent and admit(nxt, (state, label)):
                return True
            for claim in claims:
                if not spec.holds_step(claim, state, nxt) and broken(claim, lambda: trace(state) + [(label, nxt)]):
                    return True
        if deadlocked and config.check_deadlock:     # TLC stops there, even with -continue
            broken(DEADLOCK, lambda: trace(state))
            return True
        return False

    expanded = 0
    try:
        done = any(admit(s, None) for s in spec.init_states() if s not in parent)
        while queue and not done:
            done = expand(queue.popleft())
            expanded += 1
            if expanded % 256 == 0 and not done:
                if budget is not None:
                    out.cut = budget.spent()
                    done = out.cut is not None
                if progress is not None:
                    progress(out.states, len(queue))
    except KeyboardInterrupt:
        out.cut = "interrupted"
    out.seconds = time.perf_counter() - started
    return out
