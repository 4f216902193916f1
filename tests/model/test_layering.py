"""The model's layering, read from the source (``ast``) of every module under ``model/``.

* Shared layer: ``core``, ``itf``, ``scopes``, ``partitions``, ``epochs``, ``assignors``, ``wire``, ``delivery``;
  every package may import it. ``epochs`` and ``delivery`` import no protocol package.
* Protocol packages: ``consumer``, ``consumer_group``, ``streams_classic``, ``streams_group``.
  None imports a sibling, except that the two epoch protocols (``consumer_group``,
  ``streams_group``) import the classic ``consumer`` model: their KIP-848 / KIP-1071 migration
  moves classic members. What both epoch protocols share lives in ``model/epochs/``.
* Every import stands at the top of its module, before its first other statement (no imports
  at the bottom or inside a function to break a cycle).
"""
from __future__ import annotations

import ast
from pathlib import Path

MODEL = Path(__file__).resolve().parents[2] / "model"

SHARED = {"core", "itf", "scopes", "partitions", "epochs", "assignors", "wire", "delivery"}
PROTOCOLS = {"consumer", "consumer_group", "streams_classic", "streams_group"}

ALLOWED_PROTOCOL_IMPORTS = {
    "consumer_group": {"consumer"},      # KIP-848 migration of classic members
    "streams_group": {"consumer"},       # KIP-1071 migration of classic members
    # the wire codecs encode the models' own message records (the Streams group heartbeat's
    # bytes; the group-coordinator role's JSON of the classic requests); no protocol package
    # imports wire: a codec of the protocol, not a cycle
    "wire": {"streams_group", "consumer"},
}
"""Protocol packages a package may import beyond the shared layer. Anything absent: none."""


def _modules() -> list[Path]:
    return sorted(MODEL.rglob("*.py"))


def _module_name(path: Path) -> list[str]:
    """``model/consumer_group/world.py`` -> ``['consumer_group', 'world']`` (package parts, below model)."""
    parts = list(path.relative_to(MODEL).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _targets(path: Path, node: ast.AST) -> list[list[str]]:
    """The modules (as parts below ``model``) one import statement names; others (stdlib) are left out."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here[:-1]
    if isinstance(node, ast.Import):
        return [name.name.split(".")[2:] for name in node.names if name.name.startswith("groupcheck.model.")]
    assert isinstance(node, ast.ImportFrom)
    if node.level == 0:
        if node.module == "groupcheck.model":
            return [[alias.name] for alias in node.names]
        if node.module and node.module.startswith("groupcheck.model."):
            return [node.module.split(".")[2:]]
        return []
    base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
    if node.module:
        return [base + node.module.split(".")]
    return [base + [alias.name] for alias in node.names]


def _top(parts: list[str]) -> str:
    return parts[0] if parts else "model"


def layering_violations() -> list[str]:
    """Every import across packages that the layering forbids, one line each."""
    found = []
    for path in _modules():
        own = _top(_module_name(path))
        allowed = SHARED | ALLOWED_PROTOCOL_IMPORTS.get(own, set()) | {own}
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _targets(path, node):
                other = _top(target)
                if other not in allowed and other in SHARED | PROTOCOLS:
                    found.append(f"model/{path.relative_to(MODEL)}:{node.lineno} ({own}) imports "
                                 f"model.{'.'.join(target)}: {own} may import only "
                                 f"{', '.join(sorted(allowed - {own}))} besides itself")
    return found


def late_imports() -> list[str]:
    """Imports that stand after a module's first other statement, or inside a function or class
    (an import put off to break a cycle)."""
    found = []
    for path in _modules():
        tree = ast.parse(path.read_text(), str(path))
        body = tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]    # the docstring
        first_other = None
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if first_other is not None:
                    found.append(f"model/{path.relative_to(MODEL)}:{node.lineno} imports after the "
                                 f"module's first other statement (line {first_other.lineno})")
            elif first_other is None:
                first_other = node
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                found.append(f"model/{path.relative_to(MODEL)}:{node.lineno} imports inside a function or block")
    return found


def test_the_model_has_its_packages():
    packages = {p.name for p in MODEL.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in MODEL.glob("*.py")} - {"__init__"}
    assert packages | modules == SHARED | PROTOCOLS, (
        "a package under model/ is neither shared nor a protocol: add it to SHARED or PROTOCOLS here")


def test_import_targets_are_resolved():
    world = MODEL / "consumer_group" / "world.py"
    line = ast.parse("from ..streams_group.world import member_id\nfrom .. import scopes\n"
                     "from . import state\nfrom groupcheck.model.wire import reader\n").body
    assert [_targets(world, node) for node in line] == [
        [["streams_group", "world"]], [["scopes"]], [["consumer_group", "state"]], [["wire"]]]


def test_no_protocol_package_imports_a_sibling():
    found = layering_violations()
    assert not found, ("imports across protocol packages (shared pieces belong in model/epochs/ or another "
                       "shared package):\n" + "\n".join(found))


def test_imports_stand_at_the_top_of_every_module():
    found = late_imports()
    assert not found, "imports below a module's code (move them up, or break the cycle):\n" + "\n".join(found)
