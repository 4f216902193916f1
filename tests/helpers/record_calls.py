"""The record classes of ``model/`` (NamedTuples and dataclasses) and the calls that build them,
read from the source with ``ast`` (nothing is imported).

    record_classes()          -> {(module, class name): its fields, in order}
    positional_calls(paths)   -> [PositionalCall]: calls to a record class of more than
                                 ``MAX_POSITIONAL`` fields that pass any argument by position

A callee is resolved through the calling module's own classes and its imports (``from .x import
Consumer``, ``from .. import state`` then ``state.Group(...)``); a name it cannot resolve is left
out. Used by ``tests/model/test_records_by_keyword.py`` (the rule) and to find the calls to convert.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple, Optional

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "model"
MAX_POSITIONAL = 5
"""A record with more fields than this is built by keyword."""


class PositionalCall(NamedTuple):
    path: Path
    line: int
    column: int
    record: str          # module.Class below model/
    fields: tuple[str, ...]
    positional: int      # arguments passed by position


def module_of(path: Path) -> tuple[str, ...]:
    """``model/consumer_group/world.py`` -> ``('model', 'consumer_group', 'world')``; properties likewise."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def _is_record(node: ast.ClassDef) -> bool:
    named = any(isinstance(b, ast.Name) and b.id == "NamedTuple" for b in node.bases)
    data = any((isinstance(d, ast.Name) and d.id == "dataclass")
               or (isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "dataclass")
               for d in node.decorator_list)
    return named or data


def _fields(node: ast.ClassDef) -> tuple[str, ...]:
    out = []
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if "ClassVar" in ast.unparse(stmt.annotation):
                continue
            if isinstance(stmt.value, ast.Call) and "init=False" in ast.unparse(stmt.value):
                continue
            out.append(stmt.target.id)
    return tuple(out)


def record_classes() -> dict[tuple[tuple[str, ...], str], tuple[str, ...]]:
    found = {}
    for path in sorted(MODEL.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and _is_record(node):
                found[(module_of(path), node.name)] = _fields(node)
    return found


def _absolute(module: tuple[str, ...], is_package: bool, level: int, name: Optional[str]) -> tuple[str, ...]:
    if level == 0:
        parts = tuple((name or "").split("."))
        return parts[1:] if parts[:1] == ("groupcheck",) else parts
    package = module if is_package else module[:-1]
    base = package[:len(package) - (level - 1)]
    return base + (tuple(name.split(".")) if name else ())


def _bindings(module: tuple[str, ...], is_package: bool, tree: ast.Module, classes, reexports) -> dict[str, object]:
    """Names of the module bound to a record class ((module, name)) or to a module (its parts)."""
    names: dict[str, object] = {}
    for (mod, cls) in classes:
        if mod == module:
            names[cls] = (mod, cls)
    modules = {mod for mod, _ in classes}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(module, is_package, node.level, node.module)
            for alias in node.names:
                local = alias.asname or alias.name
                if (source, alias.name) in classes:
                    names[local] = (source, alias.name)
                elif (source, alias.name) in reexports:
                    names[local] = reexports[(source, alias.name)]
                elif any(m[:len(source) + 1] == source + (alias.name,) for m in modules):
                    names[local] = source + (alias.name,)     # a module (or package) of model/
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = _absolute(module, False, 0, alias.name)
    return names


def _record_reexports(classes) -> dict[tuple[tuple[str, ...], str], tuple[tuple[str, ...], str]]:
    """(module, name) -> the record class it re-exports (``from .record_types import X``), one level."""
    out = {}
    for path in sorted(MODEL.rglob("*.py")):
        module, is_package = module_of(path), path.name == "__init__.py"
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ImportFrom):
                source = _absolute(module, is_package, node.level, node.module)
                for alias in node.names:
                    if (source, alias.name) in classes:
                        out[(module, alias.asname or alias.name)] = (source, alias.name)
    return out


def _resolve(func: ast.expr, names, classes, reexports):
    if isinstance(func, ast.Name):
        bound = names.get(func.id)
        if isinstance(bound, tuple) and len(bound) == 2 and isinstance(bound[1], str) and bound in classes:
            return bound
        if isinstance(bound, tuple) and bound in reexports:
            return reexports[bound]
        return None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        bound = names.get(func.value.id)
        if isinstance(bound, tuple) and all(isinstance(p, str) for p in bound):
            key = (bound, func.attr)
            return key if key in classes else reexports.get(key)
    return None


def calls_in(source: str, module: tuple[str, ...], is_package: bool = False, path: Optional[Path] = None,
             limit: int = MAX_POSITIONAL, any_positional: bool = True) -> list[PositionalCall]:
    """Calls in ``source`` (the text of ``module``, e.g. ``('model', 'consumer', 'step')``) to a
    record class of more than ``limit`` fields that pass arguments by position: any
    (``any_positional``), or more than ``limit``."""
    classes = _classes()
    reexports = _reexports()
    tree = ast.parse(source, str(path or ".".join(module)))
    names = _bindings(module, is_package, tree, classes, reexports)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        key = _resolve(node.func, names, classes, reexports)
        if key is None:
            continue
        fields = classes[key]
        given = len(node.args)
        if len(fields) > limit and (given > limit or (any_positional and given > 0)):
            found.append(PositionalCall(path=path or Path(*module), line=node.lineno, column=node.col_offset,
                                        record=".".join(key[0][1:] + (key[1],)), fields=fields, positional=given))
    return found


def positional_calls(paths, limit: int = MAX_POSITIONAL, any_positional: bool = True) -> list[PositionalCall]:
    """``calls_in`` over the files ``paths`` (below the repository root)."""
    return [call for path in paths
            for call in calls_in(path.read_text(), module_of(path), path.name == "__init__.py", path,
                                 limit, any_positional)]


_CACHE: dict = {}


def _classes():
    if "classes" not in _CACHE:
        _CACHE["classes"] = record_classes()
    return _CACHE["classes"]


def _reexports():
    if "reexports" not in _CACHE:
        _CACHE["reexports"] = _record_reexports(_classes())
    return _CACHE["reexports"]
