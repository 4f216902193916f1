"""What the driver, the verdict and the regression files need to know of a role.

A ``Role`` bundles one role's pieces: how to record a target (``recorder``), the model
that drives it (``conform_model``), its scenarios, what each scenario leaves unjudged
(``excluded``), the base model whose properties the verdict lists, the per-invocation
claims, and how a written regression test finds the target again (``resolve``). The
driver (BFS, walks with shrinking, Hypothesis) is the same for every role.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from groupcheck.model.core import Model


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
    repro: Callable[..., Any] | None = None              # (where, stem, run, divergence) -> a standalone script or None


def _assignor() -> Role:
    from groupcheck.model.consumer import MODEL, to_dict

    from . import assignor_repro
    from .assignor_role import PER_INVOCATION, Recorder, conform_model
    from .scenarios import EXCLUDED, configurable, scopes
    from .targets import resolve
    return Role("assignor", Recorder, conform_model, scopes, lambda name, target: EXCLUDED.get(name, frozenset()),
                configurable, MODEL, PER_INVOCATION, resolve, to_dict, "the consumer model", assignor_repro.write)


def get(name: str) -> Role:
    """The role called ``name`` (``assignor`` or ``streams-assignor``)."""
    if name == "assignor":
        return _assignor()
    if name == "streams-assignor":
        from .streams_assignor.role import ROLE
        return ROLE
    raise ValueError(f"role {name!r} is not driven by the conformance driver")


def of(target: Any) -> Role:
    """The role a target plays (``target.role``; the assignor role when it names none)."""
    return get(getattr(target, "role", "assignor"))
