"""``groupcheck conform``: drive real implementations with the model's scenarios and
judge them with its properties (``groupcheck/conform/``).

    groupcheck conform --target kafka-python:sticky          # a built-in target
    groupcheck conform --target all                           # every built-in target
    groupcheck conform --assignor mypkg.assign:MyAssignor     # your own, in process
    groupcheck conform --adapter 'node adapter.js'            # any program speaking PROTOCOL.md
    groupcheck conform --role consumer-client --target librdkafka:cooperative-sticky
    groupcheck conform --role consumer-client --target librdkafka-consumer-protocol     # KIP-848
    groupcheck conform --role consumer-client --target kafka-python:cooperative-sticky  # real clients on Tansu
    groupcheck conform --role consumer-client --target aiokafka:range+static --bootstrap HOST:PORT
    groupcheck conform --role streams-assignor --assignor mypkg.tasks:MyTaskAssignor
    groupcheck conform --role group-coordinator --target librdkafka-mock
    groupcheck conform --role group-coordinator --target librdkafka-mock-consumer-protocol

Exit 0 every property held on every target; 1 a divergence (written as an ITF trace and
a pytest regression file); 2 bad options or an adapter program that cannot be opened; 3
not proved (a limit cut a search, a scope did not run, or an answer was info: a target
that hangs, exits or answers garbage, which is also 3 when it never answered at all);
130 interrupted (Ctrl-C), 143 by SIGTERM (what was found is written).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ..console import (
    BAD_INPUT, FAILED, INTERRUPTED, MAX_MEMORY, NOT_PROVED, PASSED, PROGRESS_EVERY, TERMINATED, Limits, err, fail,
    interruptible, out, stop_code,
)
from ..conform import adapter as _adapter
from ..conform import driver, targets, verdict
from ..conform.scenarios import scopes as scenario_scopes
from ..outputs import folder_for_command

ROLES = ("assignor", "streams-assignor", "consumer-client", "group-coordinator")
CONFORM_MAX_STATES = 200_000       # per BFS search (the assignor scopes stay below it)
CONFORM_MAX_SECONDS = 1800.0     # whole command: --target all takes 7-12 minutes on 2 shared cores
CLIENT_SCENARIOS, COORDINATOR_SCENARIOS = 10, 100
ANSWER_TIMEOUT = 10.0            # seconds per request of an adapter program (open: at least process.OPEN_TIMEOUT)


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
    except (targets.UnknownTarget, _adapter.AdapterError) as e:
        raise fail(str(e)) from None
    if not chosen:
        raise fail(f"{role + ': ' if role else ''}give --target NAME (or all), --assignor pkg.module:Class or "
                   f"--adapter 'COMMAND ...'; built-in targets: {', '.join(kind.builtin_names())}")
    return chosen


def conform(
    target: List[str] = typer.Option([], "--target", help="a built-in target (repeatable), or all (every one but librdkafka's): "
                                     + ", ".join(targets.builtin_names())),
    adapter: Optional[str] = typer.Option(None, help="an adapter program and its arguments (no shell), "
                                          "e.g. 'node adapter.js'"),
    assignor: Optional[str] = typer.Option(None, help="your own assignor by import path, e.g. "
                                           "mypkg.assign:MyAssignor (kafka-python style or groupcheck.api)"),
    coordinator: Optional[str] = typer.Option(None, help="group-coordinator: your own coordinator by import path, "
                                              "e.g. mypkg.coord:MyCoordinator (see examples/broken_coordinators.py)"),
    role: str = typer.Option("assignor", help=f"the role to drive: {', '.join(ROLES)}"),
    scope: List[str] = typer.Option([], "--scope", help="run only these scenario scopes (repeatable)"),
    walks: int = typer.Option(100, min=0, help="random swarm walks per scope after BFS"),
    walk_length: int = typer.Option(60, min=1, help="steps per walk"),
    seed: int = typer.Option(0, help="seed of the walks (and of Hypothesis)"),
    hypothesis: int = typer.Option(0, min=0, help="Hypothesis state-machine test cases per scope after the walks "
                                   "(0: none)"),
    timeout: float = typer.Option(ANSWER_TIMEOUT, "--answer-timeout", "--timeout", min=0.05,
                                  help="seconds an adapter program may take to answer one request; then it is "
                                  "killed, the step is info (not judged) and the program is started again"),
    max_states: int = typer.Option(CONFORM_MAX_STATES, min=0, help="stop a search after this many distinct "
                                   "states (per search; 0: no limit)"),
    max_seconds: float = typer.Option(CONFORM_MAX_SECONDS, min=0, help="stop after this many seconds of wall "
                                      "time (whole command; 0: no limit)"),
    max_memory: str = typer.Option(MAX_MEMORY, help="stop once resident memory reaches this (0: no limit)"),
    progress_every: float = typer.Option(PROGRESS_EVERY, min=0, help="seconds between progress lines on stderr"),
    out_dir: Path = typer.Option(Path("groupcheck-out"), "--out", help="where verdicts and divergences go; a "
                                 "folder that is not empty is kept: the run goes to OUT-2, OUT-3, ... beside it"),
    force: bool = typer.Option(False, "--force", help="write into --out even if it is not empty, replacing the "
                               "files this run writes"),
    scenarios: Optional[int] = typer.Option(None, min=1, help="consumer-client: scenarios per target (default 10; "
                                            "each a few rebalances of real consumers on librdkafka's mock cluster, "
                                            "about 10 s); group-coordinator: paths replayed per target (default "
                                            f"{COORDINATOR_SCENARIOS}; about 3 s each on librdkafka's mock)"),
    bootstrap: Optional[str] = typer.Option(None, help="consumer-client with a real client target: the broker "
                                            "HOST:PORT to run on (default: Tansu, started and stopped by groupcheck)"),
) -> None:
    """Drive real implementations with the model's scenarios; judge them by its properties.

    Exit 0 all held; 1 a divergence; 2 bad options or an adapter that cannot be opened;
    3 not proved (a limit cut a search, a scope did not run, an answer was info: the
    target hung, exited or answered garbage); 130 interrupted.
    """
    if role not in ROLES:
        raise fail(f"--role {role!r}: unknown; known: {', '.join(ROLES)}")
    if role == "consumer-client":
        from ..conform.targets.clients import campaign as clients
        if target and all(clients.is_client_target(t) for t in target):
            from ..conform.targets.clients.cli import run_targets
            raise typer.Exit(run_targets(target, scenarios, seed, max_seconds, out_dir, force, bootstrap))
        if bootstrap:
            raise fail("--bootstrap HOST:PORT is for real client targets (e.g. --target kafka-python:range)")
        raise typer.Exit(_consumer_client(target, scenarios or CLIENT_SCENARIOS, seed, max_seconds, out_dir, force))
    if coordinator and role != "group-coordinator":
        raise fail("--coordinator names a coordinator class: give it with --role group-coordinator")
    if role == "group-coordinator":
        if assignor:
            raise fail("--role group-coordinator: give your coordinator class with --coordinator pkg.module:Class")
        raise typer.Exit(_group_coordinator(target, adapter, coordinator, scenarios or COORDINATOR_SCENARIOS, seed,
                                            timeout, max_seconds, folder_for_command(out_dir, force=force)))
    limits = Limits(max_states, max_seconds, max_memory)
    if role == "streams-assignor":
        from ..conform.streams_assignor import targets as streams_targets
        from ..conform.streams_assignor.scenarios import scopes as streams_scopes
        chosen = _targets(streams_targets, target, adapter, assignor, timeout, "--role streams-assignor")
        scopes_of = streams_scopes
    else:
        chosen, scopes_of = _targets(targets, target, adapter, assignor, timeout), scenario_scopes
    settings = driver.Settings(walks, walk_length, seed, True, progress_every, tuple(scope), True, hypothesis)
    code = _drive(chosen, scope, scopes_of, settings, limits, out_dir, force)
    if code != PASSED:
        raise typer.Exit(code)


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


CLIENT_TARGETS = ("librdkafka:range", "librdkafka:roundrobin", "librdkafka:cooperative-sticky")


def _consumer_client(target: list[str], scenarios: int, seed: int, max_seconds: float, out_dir: Path,
                     force: bool) -> int:
    """Role consumer-client: real librdkafka consumers in one group on the mock cluster,
    scenarios from the consumer model's walks, judged by the model's properties over live,
    non-fenced members (``groupcheck/conform/librdkafka/``)."""
    names = list(CLIENT_TARGETS) if target == ["all"] else target
    known = CLIENT_TARGETS + targets.CONSUMER_PROTOCOL_TARGETS
    unknown = [n for n in names if n not in known]
    if not names or unknown:
        raise fail(f"--role consumer-client: give --target {' | '.join(known)} or all, or a real client on a "
                   "broker CLIENT:ASSIGNOR[+static] (kafka-python, aiokafka, confluent-kafka)"
                   + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    out_dir = folder_for_command(out_dir, force=force)
    codes = []
    for name in names:
        if name in targets.CONSUMER_PROTOCOL_TARGETS:      # KIP-848: group.protocol=consumer
            from ..conform.librdkafka_848 import campaign
            key = name.partition(":")[2] or "librdkafka"
        else:
            from ..conform.librdkafka import campaign
            key = name.split(":", 1)[1]
        where = out_dir / "conform" / name.replace(":", "-")
        try:
            report = campaign.run(key, campaign.Options(scenarios=scenarios, max_seconds=max_seconds or 600.0,
                                                        seed=seed, out=str(where)),
                                  progress=lambda line: err.print(line, markup=False, highlight=False))
        except (campaign.OptionError, ValueError) as e:
            raise fail(f"{name}: {e}") from None
        _write_report(name, report, where)
        if report.stopped == "interrupted":
            return INTERRUPTED
        violated = report.divergences or any(report.verdict(p) == "violated" for p in report.per_property)
        codes.append(FAILED if violated else NOT_PROVED if report.stopped else PASSED)
    code = FAILED if FAILED in codes else NOT_PROVED if NOT_PROVED in codes else PASSED
    out.print({PASSED: "PASSED: every property held or was not exercised (exit 0)",
               FAILED: "FAILED: divergences found (see above) (exit 1)",
               NOT_PROVED: "NOT PROVED: a limit stopped a campaign early (exit 3)"}[code], markup=False, highlight=False)
    return code


def _write_report(name: str, report, where: Path) -> None:
    """A consumer-client campaign's verdict: verdict.json / verdict.txt under ``where``, and stdout."""
    from ..conform.librdkafka_848.campaign import save
    save(report, where)
    out.print(f"target {name}", markup=False, highlight=False)
    out.print(report.text(), markup=False, highlight=False, end="")
    out.print(f"  verdict: {where / 'verdict.json'}", markup=False, highlight=False)


def _group_coordinator(target: list[str], adapter: Optional[str], coordinator: Optional[str], scenarios: int,
                       seed: int, timeout: float, max_seconds: float, out_dir: Path) -> int:
    """Role group-coordinator: paths of the consumer model replayed as requests against a
    coordinator, its responses compared with the model's (``groupcheck/conform/coordinator/``);
    ``--coordinator pkg.module:Class`` names an in-process coordinator class.
    ``librdkafka-mock-consumer-protocol``: the mock's ConsumerGroupHeartbeat answers against
    the KIP-848 model coordinator's (``librdkafka_848.compare``)."""
    if target and all(t in targets.CONSUMER_PROTOCOL_COORDINATORS for t in target):
        from ..conform.librdkafka_848.compare import main as compare_main
        code = compare_main("kafka-4.1", out_dir / "conform" / target[0],
                            say=lambda text: out.print(text, markup=False, highlight=False))
        return FAILED if code else PASSED
    from ..conform.coordinator.campaign import Options, main

    opts = Options(scenarios=scenarios, seed=seed, max_seconds=max_seconds or 600.0, out=out_dir)
    return main(target, adapter, coordinator, opts, timeout,
                progress=lambda line: err.print(line, markup=False, highlight=False),
                say=lambda text: out.print(text, markup=False, highlight=False))
