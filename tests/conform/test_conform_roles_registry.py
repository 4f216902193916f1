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
