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

from pathlib import Path
from typing import List, Optional

import typer

from ..conform import roles
from ..conform.roles.assignor import targets
from ..conform.roles.group_coordinator.role import SCENARIOS as COORDINATOR_SCENARIOS
from ..console import MAX_MEMORY, PASSED, PROGRESS_EVERY, fail

CONFORM_MAX_STATES = 200_000       # per BFS search (the assignor scopes stay below it)
CONFORM_MAX_SECONDS = 1800.0     # whole command: --target all takes 7-12 minutes on 2 shared cores
ANSWER_TIMEOUT = 10.0            # seconds per request of an adapter program (open: at least process.OPEN_TIMEOUT)


def conform(
    target: List[str] = typer.Option([], "--target", help="a built-in target (repeatable), or all (every one but librdkafka's): "
                                     + ", ".join(targets.builtin_names())),
    adapter: Optional[str] = typer.Option(None, help="an adapter program and its arguments (no shell), "
                                          "e.g. 'node adapter.js'"),
    assignor: Optional[str] = typer.Option(None, help="your own assignor by import path, e.g. "
                                           "mypkg.assign:MyAssignor (kafka-python style or groupcheck.api)"),
    coordinator: Optional[str] = typer.Option(None, help="group-coordinator: your own coordinator by import path, "
                                              "e.g. mypkg.coord:MyCoordinator (see groupcheck/conform/targets/broken/coordinators.py)"),
    bootstrap: Optional[str] = typer.Option(None, "--bootstrap", help="your Kafka broker (or Redpanda, Tansu) as "
                                            "HOST:PORT: group-coordinator, the same as --target kafka:HOST:PORT; "
                                            "consumer-client with real client targets, the broker they run on "
                                            "(default: Tansu, started and stopped by groupcheck)"),
    role: str = typer.Option("assignor", help=f"the role to drive: {', '.join(roles.NAMES)}"),
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
                                            f"{COORDINATOR_SCENARIOS}; about 3.5 s each on librdkafka's mock)"),
) -> None:
    """Drive real implementations with the model's scenarios; judge them by its properties.

    Exit 0 all held; 1 a divergence; 2 bad options or an adapter that cannot be opened;
    3 not proved (a limit cut a search, a scope did not run, an answer was info: the
    target hung, exited or answered garbage); 130 interrupted.
    """
    if role not in roles.NAMES:
        raise fail(f"--role {role!r}: unknown; known: {', '.join(roles.NAMES)}")
    if bootstrap is not None:
        _check_bootstrap(bootstrap)
    request = roles.Request(targets=tuple(target), adapter=adapter, assignor=assignor, coordinator=coordinator,
                            scope=tuple(scope), walks=walks, walk_length=walk_length, seed=seed, hypothesis=hypothesis,
                            timeout=timeout, max_states=max_states, max_seconds=max_seconds, max_memory=max_memory,
                            progress_every=progress_every, out_dir=out_dir, force=force, scenarios=scenarios,
                            bootstrap=bootstrap)
    code = roles.named(role).command(request)
    if code != PASSED:
        raise typer.Exit(code)


def _check_bootstrap(bootstrap: str) -> None:
    """``--bootstrap HOST:PORT``: a broker address (a role that reaches no broker refuses it); else one line, exit 2."""
    from ..conform.targets.broker.broker import parse_address
    try:
        parse_address(bootstrap)
    except ValueError as e:
        raise fail(f"--bootstrap: {e}; give HOST:PORT (a broker of the cluster)") from None
