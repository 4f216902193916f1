"""The roles: what ``groupcheck conform --role NAME`` drives, one package each.

Every role package has the same files: ``scenarios.py`` (what the target is driven
through), ``claims.py`` (what its answers are judged by), ``targets.py`` (the names
``--target`` knows) and ``role.py``, whose ``ROLE`` is the role's entry here: its
``command`` is what the CLI runs (``groupcheck/commands/conform.py`` dispatches through
``named``, with no per-role code of its own).

Two kinds of role:

``Role``          explored by the conformance driver (``driver.py``: BFS, walks with
                  shrinking, Hypothesis) with the target as the model's assignor:
                  assignor, streams-assignor. It names how to record a target
                  (``recorder``), the model that drives it (``conform_model``), its
                  scenarios, what each scenario leaves unjudged (``excluded``), the base
                  model whose properties the verdict lists, the per-invocation claims, and
                  how a written regression test finds the target again (``resolve``).
``ScenarioRole``  a list of scenarios run against each target, divergences shrunk, one
                  verdict per target (``campaign.py``): consumer-client, group-coordinator.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from groupcheck.model.core import Model

# role name -> its package under roles/
PACKAGES = {"assignor": "assignor", "streams-assignor": "streams_assignor", "consumer-client": "consumer_client",
            "group-coordinator": "group_coordinator"}
NAMES = tuple(PACKAGES)


@dataclass(frozen=True)
class Request:
    """What ``groupcheck conform`` was asked, as the role's ``command`` receives it."""
    targets: tuple[str, ...] = ()
    adapter: Optional[str] = None
    assignor: Optional[str] = None
    coordinator: Optional[str] = None
    scope: tuple[str, ...] = ()
    walks: int = 100
    walk_length: int = 60
    seed: int = 0
    hypothesis: int = 0
    timeout: float = 10.0
    max_states: int = 200_000
    max_seconds: float = 1800.0
    max_memory: str = "0"
    progress_every: float = 0.0
    out_dir: Path = Path("groupcheck-out")
    force: bool = False
    scenarios: Optional[int] = None
    bootstrap: Optional[str] = None       # --bootstrap HOST:PORT: a user's broker


@dataclass(frozen=True)
class Role:
    name: str
    recorder: Callable[[Any], Any]                       # target -> a recorder (opened)
    conform_model: Callable[..., Model]                  # (recorder, muted) -> the model to explore
    scopes: Callable[[Any], dict]                        # target -> {scenario name: scope}
    excluded: Callable[[str, Any], frozenset]            # (scenario name, target) -> properties not judged
    configurable: Callable[[Any], str | None]            # scope -> why the model cannot run it, or None
    model: Model                                         # the base model (its properties are listed)
    per_invocation: tuple[str, ...]                      # the claims judged on each answer
    resolve: Callable[[str], Any]                        # a target's key -> the target
    scope_to_dict: Callable[[Any], dict]
    model_words: str                                     # "the consumer model", in a written test's docstring
    command: Optional[Callable[[Request], int]] = None   # the CLI's run of this role (roles/driven.py)
    repro: Optional[Callable[..., Any]] = None           # (where, stem, run, divergence) -> a standalone script or None


@dataclass(frozen=True)
class ScenarioRole:
    name: str
    command: Callable[[Request], int]                    # the CLI's run of this role: the exit code


def named(name: str) -> Role | ScenarioRole:
    """The role called ``name`` (any of ``NAMES``); ``KeyError`` for another name."""
    return importlib.import_module(f"{__name__}.{PACKAGES[name]}.role").ROLE


def get(name: str) -> Role:
    """The driver-explored role called ``name`` (``assignor`` or ``streams-assignor``)."""
    role = named(name) if name in PACKAGES else None
    if not isinstance(role, Role):
        raise ValueError(f"role {name!r} is not driven by the conformance driver")
    return role


def of(target: Any) -> Role:
    """The role a target plays (``target.role``; the assignor role when it names none)."""
    return get(getattr(target, "role", "assignor"))
