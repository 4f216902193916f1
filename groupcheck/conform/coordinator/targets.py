"""The targets of role group-coordinator: ``reference``, ``librdkafka-mock``, the broken
examples (``broken:<name>``), a Python class by import path, an external program."""
from __future__ import annotations

import importlib
import shlex

from ..adapter import AdapterError
from ..process import ProcessAdapter
from .reference import ROLE, ReferenceCoordinator

BUILTIN = ("reference", "librdkafka-mock")


class UnknownTarget(ValueError):
    pass


def builtin(name: str):
    if name == "reference":
        return ReferenceCoordinator()
    if name == "librdkafka-mock":
        from .mock_target import MockCoordinator
        return MockCoordinator()
    if name.startswith("broken:"):
        from examples.broken_coordinators import BROKEN
        if name[7:] not in BROKEN:
            raise UnknownTarget(f"--target {name}: unknown broken coordinator; known: {', '.join(BROKEN)}")
        return BROKEN[name[7:]]()
    raise UnknownTarget(f"--target {name!r}: unknown for role {ROLE}; known: {', '.join(BUILTIN)}, all, "
                        "broken:<name> (examples/broken_coordinators.py)")


def python_class(spec: str):
    """``pkg.module:Class``: a class with the adapter interface (e.g. a ReferenceCoordinator subclass)."""
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise UnknownTarget(f"--coordinator {spec!r}: give pkg.module:Class")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise UnknownTarget(f"--coordinator {spec!r}: cannot import: {e}") from None
    return cls()


def external(command: str, timeout: float) -> ProcessAdapter:
    argv = shlex.split(command)
    adapter = ProcessAdapter(argv, timeout=timeout)
    adapter.note = f"external program {command!r}"
    return adapter


def check_hello(hello, who: str) -> None:
    if ROLE not in hello.roles:
        raise AdapterError(f"{who}: its hello lists roles {list(hello.roles)}, not {ROLE}")
