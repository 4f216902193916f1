"""The command of the roles the conformance driver explores (assignor, streams-assignor):
the targets the options name, every one through its scopes (``driver.run_target``), a
verdict each (``verdict.write``) under the run's folder, and the command's exit code."""
from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Optional

from groupcheck.console import (
    BAD_INPUT, FAILED, INTERRUPTED, NOT_PROVED, PASSED, TERMINATED, Limits, err, fail, interruptible, out, stop_code,
)
from groupcheck.outputs import folder_for_command

from .. import adapter as _adapter
from .. import driver, verdict
from . import Request


def command_for(kind, scopes_of, label: str = ""):
    """The ``command`` of a driver-explored role: ``kind`` its targets module, ``scopes_of``
    target -> its scopes, ``label`` what an error about the targets starts with."""
    return partial(command, kind, scopes_of, label)


def command(kind, scopes_of, label: str, req: Request) -> int:
    if req.coordinator:
        raise fail("--coordinator names a coordinator class: give it with --role group-coordinator")
    if req.bootstrap:
        raise fail("--bootstrap names a broker: give it with --role group-coordinator or consumer-client")
    limits = Limits(req.max_states, req.max_seconds, req.max_memory)
    chosen = _targets(kind, list(req.targets), req.adapter, req.assignor, req.timeout, label)
    settings = driver.Settings(req.walks, req.walk_length, req.seed, True, req.progress_every, req.scope, True,
                               req.hypothesis)
    return _drive(chosen, list(req.scope), scopes_of, settings, limits, req.out_dir, req.force)


def _targets(kind, target: list[str], adapter: Optional[str], assignor: Optional[str], timeout: float,
             role: str = "") -> list:
    """The targets the options name; ``kind`` is the role's targets module (``builtin``,
    ``builtin_names``, ``python_assignor``, ``adapter_targets``)."""
    chosen = []
    try:
        for name in target:
            every = getattr(kind, "all_names", kind.builtin_names)()         # what "all" runs
            chosen += [kind.builtin(n) for n in every] if name == "all" else [kind.builtin(name)]
        if assignor:
            chosen.append(kind.python_assignor(assignor))
        if adapter:
            chosen += kind.adapter_targets(adapter, timeout)
    except (_adapter.UnknownTarget, _adapter.AdapterError) as e:
        raise fail(str(e)) from None
    if not chosen:
        raise fail(f"{role + ': ' if role else ''}give --target NAME (or all), --assignor pkg.module:Class or "
                   f"--adapter 'COMMAND ...'; built-in targets: {', '.join(kind.builtin_names())}")
    return chosen


def _drive(chosen: list, scope: list[str], scopes_of, settings: driver.Settings, limits: Limits, out_dir: Path,
           force: bool) -> int:
    """The roles the conformance driver explores (assignor, streams-assignor): every
    chosen target through its scopes, a verdict each under the run's folder (the
    folder rule, ``outputs.run_folder``, once the options are known good); the command's
    exit code."""
    if scope:
        known = {n for t in chosen for n in scopes_of(t)}
        unknown = sorted(set(scope) - known)
        if unknown:
            raise fail(f"--scope: unknown scope(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    out_dir = folder_for_command(out_dir, force=force)
    out.print(limits.line(), markup=False, highlight=False)
    codes, broken = [], []
    with interruptible(limits.budget):
        for t in chosen:
            if limits.budget.spent() is not None:
                out.print(f"target {t.name}: not run ({limits.budget.spent()} came first)", markup=False)
                codes.append(NOT_PROVED)
                continue
            try:
                run = driver.run_target(t, settings, limits)
            except _adapter.AdapterError as e:
                err.print(f"error: {e}", markup=False, highlight=False)
                codes.append(BAD_INPUT)
                continue
            path, _ = verdict.write(run, out_dir)
            data = json.loads(path.read_text())           # the summary, with the files written
            out.print(verdict.text(run, data), markup=False, highlight=False)
            out.print(f"  verdict: {path}", markup=False, highlight=False)
            codes.append(_code(data))
            broken.append(bool(data["info"]) and not data["judged_answers"])
    code = stop_code(limits.budget) if limits.budget.interrupted else (
        BAD_INPUT if BAD_INPUT in codes else FAILED if FAILED in codes else NOT_PROVED if NOT_PROVED in codes else PASSED)
    words = {PASSED: "PASSED: every property held", FAILED: "FAILED: divergences found (see above)",
             BAD_INPUT: "ERROR: bad input (see above)", NOT_PROVED: "NOT PROVED: a limit cut a search, a "
             "scope did not run, or an answer was info", INTERRUPTED: "INTERRUPTED: what was found is written",
             TERMINATED: "INTERRUPTED by SIGTERM: what was found is written"}
    if code == NOT_PROVED and broken and all(broken):
        words[code] = ("NOT PROVED: the target never gave an answer that could be judged (it hung, exited or "
                       "answered garbage: every answer was info)")
    out.print(f"{words[code]} (exit {code})", markup=False, highlight=False)
    return code


def _code(data: dict) -> int:
    if data["divergences"]:
        return FAILED
    incomplete = any(s["not_run"] or s["cut"] or s["info"] for s in data["scopes"])
    if incomplete or data["info"] or not data["invocations"]:
        return NOT_PROVED
    return PASSED
