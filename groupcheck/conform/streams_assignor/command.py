"""``groupcheck conform --role streams-assignor``: the targets the options name (the
command's driven loop, ``groupcheck/commands/conform.py``, runs them). Bad options raise
``console.fail`` (exit 2, no traceback)."""
from __future__ import annotations

from groupcheck.console import fail

from ..adapter import AdapterError
from ..targets import UnknownTarget
from . import targets


def choose(target: list[str], adapter: str | None, assignor: str | None, timeout: float) -> list:
    chosen = []
    try:
        for name in target:
            chosen += [targets.builtin(n) for n in targets.builtin_names()] if name == "all" else [targets.builtin(name)]
        if assignor:
            chosen.append(targets.python_assignor(assignor))
        if adapter:
            chosen += targets.adapter_targets(adapter, timeout)
    except (UnknownTarget, AdapterError) as e:
        raise fail(str(e)) from None
    if not chosen:
        raise fail("--role streams-assignor: give --target NAME (or all), --assignor pkg.module:Class or "
                   f"--adapter 'COMMAND ...'; built-in targets: {', '.join(targets.builtin_names())}")
    return chosen
