"""One shape for every role: the registry names each role, each role package has the same
files, and the CLI dispatches through the registry with no per-role branches."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from groupcheck.conform import roles

ROOT = Path(__file__).resolve().parents[2]
CONFORM = ROOT / "groupcheck" / "conform"


def test_the_registry_names_the_four_roles():
    assert roles.NAMES == ("assignor", "streams-assignor", "consumer-client", "group-coordinator")


@pytest.mark.parametrize("name", roles.NAMES)
def test_every_role_has_the_same_files_and_a_command(name):
    folder = CONFORM / "roles" / roles.PACKAGES[name]
    missing = [f for f in ("__init__.py", "scenarios.py", "claims.py", "targets.py", "role.py")
               if not (folder / f).is_file()]
    assert not missing, f"roles/{folder.name}/ lacks {', '.join(missing)}"
    role = roles.named(name)
    assert role.name == name and callable(role.command)


def test_the_driver_roles_are_the_assignor_shaped_ones():
    assert [n for n in roles.NAMES if isinstance(roles.named(n), roles.Role)] == ["assignor", "streams-assignor"]
    with pytest.raises(ValueError, match="not driven"):
        roles.get("group-coordinator")


def test_the_command_has_no_per_role_branch():
    """``groupcheck/commands/conform.py`` compares ``role`` with no role name."""
    tree = ast.parse((ROOT / "groupcheck" / "commands" / "conform.py").read_text())
    found = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
             and any(isinstance(c, ast.Constant) and c.value in roles.NAMES for c in [node.left, *node.comparators])]
    assert not found, f"commands/conform.py compares with a role name at lines {found}: dispatch through roles.named"


def test_no_role_package_opens_a_socket_or_a_process():
    """Effects (processes, sockets, brokers) live only in targets/."""
    effects = {"socket", "subprocess"}
    found = []
    for path in sorted((CONFORM / "roles").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ({a.name for a in node.names} if isinstance(node, ast.Import) else
                     {node.module} if isinstance(node, ast.ImportFrom) and node.level == 0 else set())
            found += [f"{path.relative_to(CONFORM)}:{node.lineno} {n}" for n in names if n in effects]
    assert not found, found


def _imported_modules(path: Path, tree: ast.Module) -> list[tuple[int, str]]:
    """Every module ``path`` imports, relative imports resolved to absolute names
    (``from ... import roles`` counts as ``groupcheck.conform.roles``)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            out += [(node.lineno, base)] + [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return out


def test_no_target_module_imports_a_role():
    """Roles import targets, never the reverse: a target offers effects (processes, sockets,
    brokers) through small methods the role calls; the scenarios, the loop, the comparison
    and the judgements are the role's."""
    found: dict[str, str] = {}
    for path in sorted((CONFORM / "targets").rglob("*.py")):
        for line, name in _imported_modules(path, ast.parse(path.read_text())):
            if name == "groupcheck.conform.roles" or name.startswith("groupcheck.conform.roles."):
                found.setdefault(f"{path.relative_to(CONFORM)}:{line}", name)
    assert not found, "targets/ imports roles/ (invert it: the role calls the target): " + ", ".join(
        f"{where} {name}" for where, name in found.items())


def test_the_import_resolver_sees_relative_and_absolute_role_imports(tmp_path):
    """The check above resolves ``from ...roles.x import y`` and ``from ... import roles``
    from a module in targets/<family>/, and absolute imports, as role imports."""
    path = CONFORM / "targets" / "broker" / "example.py"
    tree = ast.parse("from ...roles.group_coordinator import compare_848\nfrom ... import roles\n"
                     "import groupcheck.conform.roles.assignor\nfrom ..inprocess import coordinator\n")
    names = [n for _, n in _imported_modules(path, tree)]
    assert "groupcheck.conform.roles.group_coordinator" in names and "groupcheck.conform.roles" in names
    assert "groupcheck.conform.roles.assignor" in names and "groupcheck.conform.targets.inprocess" in names
