"""``groupcheck conform --role streams-assignor``: drive task assignors, write verdicts.

Returns the command's exit code: 0 every property held, 1 a divergence, 2 bad input or
a broken adapter, 3 not proved (a limit cut a search, a scope did not run, an answer was
info), 130 interrupted. Bad options raise ``console.fail`` (exit 2, no traceback).
"""
from __future__ import annotations

import json
from pathlib import Path

from groupcheck.console import (
    BAD_INPUT, FAILED, INTERRUPTED, NOT_PROVED, PASSED, Limits, err, fail, interruptible, out,
)

from .. import driver, verdict
from ..adapter import AdapterError
from ..targets import UnknownTarget
from . import targets
from .scenarios import scopes as scenario_scopes


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


def run(target: list[str], adapter: str | None, assignor: str | None, timeout: float, scope: list[str],
        settings: driver.Settings, limits: Limits, out_dir: Path) -> int:
    chosen = choose(target, adapter, assignor, timeout)
    if scope:
        known = {n for t in chosen for n in scenario_scopes(t)}
        unknown = sorted(set(scope) - known)
        if unknown:
            raise fail(f"--scope: unknown scope(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    out.print(limits.line(), markup=False, highlight=False)
    codes = []
    with interruptible(limits.budget):
        for t in chosen:
            if limits.budget.spent() is not None:
                out.print(f"target {t.name}: not run ({limits.budget.spent()} came first)", markup=False)
                codes.append(NOT_PROVED)
                continue
            try:
                result = driver.run_target(t, settings, limits)
            except AdapterError as e:
                err.print(f"error: {e}", markup=False, highlight=False)
                codes.append(BAD_INPUT)
                continue
            path, _ = verdict.write(result, out_dir)
            data = json.loads(path.read_text())
            out.print(verdict.text(result, data), markup=False, highlight=False)
            out.print(f"  verdict: {path}", markup=False, highlight=False)
            codes.append(_code(data))
    code = INTERRUPTED if limits.budget.interrupted else (
        BAD_INPUT if BAD_INPUT in codes else FAILED if FAILED in codes else NOT_PROVED if NOT_PROVED in codes else PASSED)
    words = {PASSED: "PASSED: every property held", FAILED: "FAILED: divergences found (see above)",
             BAD_INPUT: "ERROR: an adapter broke the protocol", NOT_PROVED: "NOT PROVED: a limit cut a search, a "
             "scope did not run, or an answer was info", INTERRUPTED: "INTERRUPTED: what was found is written"}
    out.print(f"{words[code]} (exit {code})", markup=False, highlight=False)
    return code


def _code(data: dict) -> int:
    if data["divergences"]:
        return FAILED
    if any(s["not_run"] or s["cut"] for s in data["scopes"]) or data["info"] or not data["invocations"]:
        return NOT_PROVED
    return PASSED
