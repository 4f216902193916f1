r"""A TLC config's ``SPECIFICATION`` formula read as INIT, NEXT and fairness.

TLC takes either ``INIT``/``NEXT`` or ``SPECIFICATION Spec`` with ``Spec`` a formula
``Init /\ [][Next]_vars`` and any fairness conjuncts (``WF_vars(A)``, ``SF_vars(A)``, or a
definition such as ``Fairness`` that states them). ``spec mc`` explores Init and Next;
fairness only matters to a temporal PROPERTY, which it leaves to TLC, so the fairness
conjuncts are named and left to TLC too. A named conjunct is opened when its definition
holds the ``[][Next]_v`` (``FairSpec == Spec /\ Fairness``), named as fairness when its
definition is temporal, and taken as Init otherwise; anything else gets one line naming
the form expected."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .tla_context import SpecError
from .tla_eval import _modules, _name

TEMPORAL = ("[]", "<>", "~>")


@dataclass
class Formula:
    init: list[str] = field(default_factory=list)
    next: list[str] = field(default_factory=list)
    fairness: list[str] = field(default_factory=list)     # conjuncts left to TLC, by name


def _definitions(module: Path) -> dict:
    defs = {}
    for _, tree in _modules(module):
        for unit in tree.units or []:
            if not isinstance(unit, str) and _name(unit) == "OperatorDefinition":
                defs[unit.name] = unit.definiens
    return defs


def _mentions(node, defs: dict, test, seen: set) -> bool:
    """Whether ``node`` (or a definition it applies) has a sub-node ``test`` accepts."""
    if isinstance(node, list):
        return any(_mentions(n, defs, test, seen) for n in node)
    if not isinstance(node, tuple) or not hasattr(node, "_fields"):
        return False
    if test(node):
        return True
    if _name(node) == "OperatorApplication" and node.operator in defs and node.operator not in seen:
        seen.add(node.operator)
        if _mentions(defs[node.operator], defs, test, seen):
            return True
    return any(_mentions(getattr(node, f), defs, test, seen) for f in node._fields if f not in ("start", "end"))


def _box_action(node) -> bool:
    return _name(node) == "OperatorApplication" and node.operator == "[]" and bool(node.arguments) \
        and _name(node.arguments[0]) == "SubscriptedAction"


def _temporal(node) -> bool:
    return _name(node) == "Fairness" or (_name(node) == "OperatorApplication" and node.operator in TEMPORAL)


def read(module: Path, name: str, where: str) -> Formula:
    """``SPECIFICATION name`` of the config at ``where`` (its MC ``module``) as INIT, NEXT and
    the fairness conjuncts; SpecError naming the expected form otherwise."""
    defs = _definitions(module)
    if name not in defs:
        raise SpecError(f"{where}: SPECIFICATION {name} is not defined in {module.name} or what it extends")
    out = Formula()
    form = (f"{where}: SPECIFICATION {name} is not of the form Init /\\ [][Next]_vars [/\\ Fairness], the form "
            "read here; give INIT and NEXT instead (and the fairness in the PROPERTY: Fairness => Claim)")

    def visit(node, label: str) -> None:
        kind = _name(node)
        if kind == "OperatorApplication" and node.operator in ("/\\", "\\land"):
            for arg in node.arguments:
                visit(arg, label)
        elif kind == "VerticalList" and node.operator == "/\\":
            for item in node.arguments:
                visit(item.expression, label)
        elif _box_action(node):
            action = node.arguments[0].action
            if _name(action) != "OperatorApplication" or action.arguments:
                raise SpecError(form)
            out.next.append(action.operator)
        elif kind == "Fairness":
            out.fairness.append(f"the {node.operator.rstrip('_')} conjunct of {label}")
        elif kind == "OperatorApplication" and not node.arguments and node.operator in defs:
            body = defs[node.operator]
            if _mentions(body, defs, _box_action, set()):
                visit(body, node.operator)
            elif _mentions(body, defs, _temporal, set()):
                out.fairness.append(node.operator)
            else:
                out.init.append(node.operator)
        else:
            raise SpecError(form)

    visit(defs[name], name)
    if len(out.init) != 1 or len(out.next) != 1:
        raise SpecError(form)
    return out
