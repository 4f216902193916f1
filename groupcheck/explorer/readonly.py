"""A trace the model cannot replay, stepped through read-only: Quint's and Apalache's plain ITF
(no groupcheck ``#meta``), or a groupcheck trace the current model no longer replays.

Only what the trace holds is shown: each state's tables, the diff against the state
before, and the action it names (``action_taken``, Quint's convention); there are no
actions to take and no properties to judge.
"""
from __future__ import annotations

from . import diff as diffs
from . import tables as state_tables
from .view import _tables


class Recording:
    """The states of a trace and the one a person is looking at."""

    readonly = True

    def __init__(self, trace: dict, source: str, note: str):
        if not trace["states"]:
            raise ValueError("'states' is empty: nothing to show")
        self.states: list[dict] = trace["states"]
        self.meta: dict = trace.get("#meta", {})
        self.source, self.note = source, note
        self.index = 0

    @property
    def depth(self) -> int:
        return self.index

    def goto(self, index: int) -> "Recording":
        if not isinstance(index, int) or not 0 <= index < len(self.states):
            raise ValueError(f"state {index!r} out of range 0..{len(self.states) - 1}")
        self.index = index
        return self

    def back(self) -> "Recording":
        return self.goto(max(0, self.index - 1))

    def forward(self) -> "Recording":
        return self.goto(min(len(self.states) - 1, self.index + 1))

    @property
    def state(self) -> dict:
        return self.states[self.index]

    def action_text(self, index: int | None = None) -> str:
        i = self.index if index is None else index
        taken = self.states[i].get("action_taken")
        return taken if isinstance(taken, str) and taken else ("initial state" if i == 0 else f"step {i}")

    def tables(self) -> list[state_tables.Table]:
        return state_tables.tables(self.state)

    def diff(self) -> list[diffs.Change]:
        return diffs.changes(self.states[self.index - 1] if self.index else None, self.state)

    def view(self) -> dict:
        changed = self.diff()
        return {
            "readonly": True, "note": self.note, "source": self.source,
            "protocol": self.meta.get("protocol") if isinstance(self.meta.get("protocol"), str) else None,
            "path": [self.index], "ahead": [], "depth": self.index, "length": len(self.states) - 1,
            "action": self.action_text(), "events": [],
            "tables": _tables(self.tables(), changed), "diff": [vars(c) for c in changed],
            "properties": [], "actions": [], "first_violation": None, "recorded": None,
            "history": [{"step": i, "action": self.action_text(i)} for i in range(len(self.states))],
            "state": self.state,
        }
