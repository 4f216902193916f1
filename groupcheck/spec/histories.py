"""Recorded group histories (``groupcheck trace-check``'s format) judged by a TLA+ spec.

A history holds what a running system showed (callbacks, commits, records), not its
whole state, so it cannot be mapped onto the spec's variables directly. trace-check's
search finds a path of the model that emits exactly the history's observations; the spec
then judges that path as it judges any model trace (``crosscheck.validate_path``): the
first state satisfies Init, each step the spec action named after its kind, every linked
invariant gives the model's verdict. A history is a behaviour of the spec when such a path
exists and the spec accepts every step of it.

Verdicts: ``behaviour`` (explained, and the spec accepts the path), ``not a behaviour``
(explained, and the spec rejects a step or a verdict: the model and the spec part there),
``not explained`` (no path of the model within the scope's bounds emits the history),
``unknown`` (the search hit a bound), ``outside`` (the scope or a state on the path uses
something the spec does not state), ``error`` (an unknown protocol or a bad scope).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..tracecheck import engine, history
from . import crosscheck, manifest

BEHAVIOUR, NOT_BEHAVIOUR, NOT_EXPLAINED, UNKNOWN, OUTSIDE, ERROR = (
    "behaviour", "not a behaviour", "not explained", "unknown", "outside", "error")


@dataclass
class Verdict:
    group: str
    protocol: str
    verdict: str
    events: int
    steps: int = 0             # steps of the explaining path the spec judged
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict == BEHAVIOUR


def judge(g: history.Group, max_states: int = 200_000, max_seconds: float | None = None, budget=None) -> Verdict:
    """One group's history: trace-check's search, then the spec along the path found
    (``budget``: a ``checker.Budget`` a signal may interrupt; the search then ends unknown)."""
    row = engine.judge(g, max_states, max_seconds, budget)
    v = Verdict(g.group, g.protocol, row["verdict"], len(g.events))
    if row["verdict"] == "error":
        v.verdict, v.detail = ERROR, row["error"]
        return v
    if row["verdict"] == "invalid":
        first = json.loads(row["first_unexplained"]) if row["first_unexplained"] else {}
        v.verdict = NOT_EXPLAINED
        v.detail = (f"no path of the model explains event seq {first.get('seq')} "
                    f"({row['explained']} of {row['events']} events explained)")
        return v
    if row["verdict"] == "unknown":
        v.verdict, v.detail = UNKNOWN, f"the model's search hit {row['cut']} before explaining every event"
        return v
    bundle = manifest.load(g.protocol)
    model = bundle.model
    scope = model.view.scope_from_dict(g.scope)
    path = json.loads(row["path"])
    try:
        spec = crosscheck.load_spec(bundle, scope)
        v.steps, problems = crosscheck.validate_path(bundle, scope, path, spec)
    except manifest.OutsideSpec as e:
        v.verdict, v.detail = OUTSIDE, f"{bundle.module} does not state it: {e}"
        return v
    if problems:
        v.verdict, v.detail = NOT_BEHAVIOUR, "; ".join(problems)
    else:
        v.verdict = BEHAVIOUR
        v.detail = f"explained by a path of {len(path) - 1} steps, every one a step of {bundle.module}"
    return v


def judge_files(paths: Iterable[Path], max_states: int = 200_000, max_seconds: float | None = None,
                budget=None) -> list[Verdict]:
    """Every group of the history files (JSON lines or Parquet), or those judged before
    ``budget`` was interrupted; InputError on a bad file."""
    verdicts = []
    for g in history.read(paths):
        verdicts.append(judge(g, max_states, max_seconds, budget))
        if budget is not None and budget.interrupted:
            break
    return verdicts


def is_history(path: Path) -> bool:
    """A history file (JSON lines or Parquet) rather than an ITF trace."""
    return path.suffix in (".jsonl", ".parquet")
