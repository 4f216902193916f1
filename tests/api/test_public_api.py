"""groupcheck's tools use a protocol package only through its public names: what its
``__init__`` lists in ``__all__`` (the model, its scope, profiles and the conformance
components of ``components.py``), never one of its modules. Every module of groupcheck/
is parsed (the links groupcheck/model and groupcheck/properties are the models themselves).

The shared modules that are no protocol's (model.core, itf, scopes, partitions, epochs,
assignors, wire) are libraries: tools import their modules as they are."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROTOCOLS = ("consumer", "consumer_group", "streams_classic", "streams_group")


def public(package: str) -> set[str]:
    return set(importlib.import_module(f"groupcheck.model.{package}").__all__)


def absolute(module: str | None, level: int, path: str) -> str:
    """The module an import names, relative imports resolved against ``path``."""
    if level == 0:
        return module or ""
    base = path.removesuffix(".py").split("/")[:-level]
    return ".".join(base + ([module] if module else []))


def private_imports(source: str, path: str) -> list[str]:
    """``path:line: what`` for each import of a protocol package's module or of a name its
    ``__all__`` does not list."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            named = [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = absolute(node.module, node.level, path)
            named = [(module, a.name) for a in node.names]
        else:
            continue
        for module, name in named:
            parts = module.split(".")
            if parts[:2] != ["groupcheck", "model"] or len(parts) < 3 or parts[2] not in PROTOCOLS:
                continue
            if len(parts) > 3:
                found.append(f"{path}:{node.lineno}: imports {module}, a module of groupcheck.model.{parts[2]}")
            elif name is not None and name not in public(parts[2]):
                found.append(f"{path}:{node.lineno}: imports {name} from {module}, which its __all__ does not list")
    return found


def tool_modules() -> list[Path]:
    links = (ROOT / "groupcheck" / "model", ROOT / "groupcheck" / "properties")
    return [p for p in sorted((ROOT / "groupcheck").rglob("*.py")) if not any(p.is_relative_to(d) for d in links)]


def test_groupcheck_imports_only_the_public_names_of_protocol_packages():
    modules = tool_modules()
    assert len(modules) > 100
    found = [f for p in modules for f in private_imports(p.read_text(), p.relative_to(ROOT).as_posix())]
    assert not found, "import these from the package (add the name to its __all__ if a tool needs it):\n" + \
        "\n".join(found)


def test_the_check_finds_each_way_of_reaching_inside():
    source = ("from groupcheck.model.consumer.step import dispatch\n"
              "import groupcheck.model.streams_group.world\n"
              "from groupcheck.model.consumer_group import render\n"
              "from ..model.streams_classic.releases import release\n"
              "from groupcheck.model.consumer import MODEL, ConsumerScope\n"
              "from groupcheck.model import streams_classic\n"
              "from groupcheck.model.assignors.ownership import withhold\n")
    assert [f.split(": ")[0] for f in private_imports(source, "groupcheck/conform/x.py")] == [
        "groupcheck/conform/x.py:1", "groupcheck/conform/x.py:2", "groupcheck/conform/x.py:3",
        "groupcheck/conform/x.py:4"]


@pytest.mark.parametrize("package", PROTOCOLS)
def test_every_public_name_is_there_and_the_components_say_what_they_are(package):
    module = importlib.import_module(f"groupcheck.model.{package}")
    assert "MODEL" in module.__all__
    assert [n for n in module.__all__ if not hasattr(module, n)] == []
    components = importlib.import_module(f"groupcheck.model.{package}.components")
    assert set(components.__all__) <= set(module.__all__), set(components.__all__) - set(module.__all__)
    for name in components.__all__:
        value = getattr(components, name)
        assert not callable(value) or (value.__doc__ or "").strip(), f"{package}.components.{name} says nothing"
        assert name in components.__doc__, f"{package}/components.py's docstring leaves out {name}"
