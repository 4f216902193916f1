"""What one step changed: the fields of two ITF states that differ, leaf by leaf.

The field paths are ``traces.differences``'s (``consumers[1].owned``,
``group.members[m2].joined``); a changed ``#set`` also names the items it gained and
lost, which is what a reader of ownedPartitions wants to see.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import traces
from .tables import text


@dataclass(frozen=True)
class Change:
    field: str              # e.g. "consumers[1].owned"; "" for the whole state
    before: str             # the old value's text ("(absent)" when the field is new)
    after: str
    added: tuple[str, ...] = ()      # for sets: the items gained
    removed: tuple[str, ...] = ()    # and lost

    def line(self) -> str:
        if self.added or self.removed:
            parts = [f"+{', '.join(self.added)}" if self.added else "", f"-{', '.join(self.removed)}" if self.removed else ""]
            return f"{self.field}: {self.before} -> {self.after} ({' '.join(p for p in parts if p)})"
        return f"{self.field}: {self.before} -> {self.after}"


def _shown(value: Any) -> str:
    return "(absent)" if value is traces.ABSENT else text(value)


def _items(value: Any) -> list[str] | None:
    if isinstance(value, dict) and set(value) == {"#set"} and isinstance(value["#set"], list):
        return [text(v) for v in value["#set"]]
    return None


def changes(before: dict | None, after: dict) -> list[Change]:
    """Every field that differs between ``before`` and ``after`` (their ``#meta`` and
    ``action_taken`` left out); none for the initial state (``before`` None)."""
    if before is None:
        return []
    body = lambda s: {k: v for k, v in s.items() if k not in ("#meta", "action_taken")}  # noqa: E731
    out = []
    for where, old, new in traces.changed_fields(body(before), body(after)):
        a, b = _items(old), _items(new)
        if a is not None and b is not None:
            out.append(Change(where, _shown(old), _shown(new), tuple(x for x in b if x not in a),
                              tuple(x for x in a if x not in b)))
        else:
            out.append(Change(where, _shown(old), _shown(new)))
    return out


def touches(cell_path: str, changed: list[Change]) -> bool:
    """Whether a table cell at ``cell_path`` shows a changed field (or holds one)."""
    if not cell_path:
        return False
    for c in changed:
        f = c.field
        if f == cell_path or f.startswith(cell_path + ".") or f.startswith(cell_path + "[") \
                or cell_path.startswith(f + ".") or cell_path.startswith(f + "["):
            return True
    return False
