"""The model's wire codecs are pure: no module under model/ opens a socket, a process or a
thread (effects live in groupcheck/conform/targets/), and the codecs the conformance roles
use list their public names in ``__all__``."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

MODEL = Path(__file__).resolve().parents[2] / "model"
EFFECTS = {"socket", "subprocess", "threading", "asyncio", "selectors", "multiprocessing", "ssl"}
CODECS = ("group_coordinator_json", "consumer_group_heartbeat")


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_model_module_imports_an_effect():
    found = [f"{p.relative_to(MODEL.parent)}: imports {', '.join(sorted(_imports(p) & EFFECTS))}"
             for p in sorted(MODEL.rglob("*.py")) if _imports(p) & EFFECTS]
    assert not found, "model/ is pure (put connections in groupcheck/conform/targets/):\n" + "\n".join(found)


@pytest.mark.parametrize("name", CODECS)
def test_conformance_codecs_list_their_names(name):
    module = importlib.import_module(f"groupcheck.model.wire.{name}")
    assert module.__all__ and [n for n in module.__all__ if not hasattr(module, n)] == []
    public = {n for n, v in vars(module).items() if callable(v) and not n.startswith("_")
              and getattr(v, "__module__", None) == module.__name__}
    assert public <= set(module.__all__), public - set(module.__all__)
