"""A state, as tables a person reads: the group and every member, from the state's ITF form.

Works on any ITF state (groupcheck's four protocols and traces from Quint or Apalache
alike), so it needs no knowledge of a protocol: scalar fields gather in a key/value
table, a list or ``#map`` of records becomes a table with a row per record (a member,
a client, an inbox message), and a record nests its own tables under its name. Every
cell carries the field path the diff uses (``consumers[1].owned``,
``group.members[m2].joined``), so a changed cell can be highlighted.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

MAX_CELL = 400          # characters of one cell's text; a longer value is cut with "..."


@dataclass
class Cell:
    text: str
    path: str               # the field path (diff.py's form); "" for a row's key cell


@dataclass
class Table:
    title: str              # e.g. "group", "consumers", "group.members"
    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)


def text(value: Any) -> str:
    """An ITF value in a few characters: sets in braces, tuples in parentheses, maps
    as ``k: v``; a record as ``{a: 1, b: 2}``."""
    out = _text(value)
    return out if len(out) <= MAX_CELL else out[: MAX_CELL - 3] + "..."


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return value if value else '""'
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, dict):
        if set(value) == {"#set"} and isinstance(value["#set"], list):
            return "{" + ", ".join(_text(v) for v in value["#set"]) + "}" if value["#set"] else "{}"
        if set(value) == {"#tup"} and isinstance(value["#tup"], list):
            return "(" + ", ".join(_text(v) for v in value["#tup"]) + ")"
        if set(value) == {"#bigint"}:
            return str(value["#bigint"])
        if set(value) == {"#map"} and isinstance(value["#map"], list):
            return "{" + ", ".join(f"{_text(p[0])}: {_text(p[1])}" for p in value["#map"]
                                   if isinstance(p, list) and len(p) == 2) + "}"
        return "{" + ", ".join(f"{k}: {_text(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def _record(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and not any(str(k).startswith("#") for k in value)


def _rows(value: Any) -> list[tuple[str, str, dict]] | None:
    """(key shown, path suffix, record) for each item of a list or ``#map`` of records;
    None when ``value`` is not one (or is empty)."""
    if isinstance(value, list) and value and all(_record(v) for v in value):
        return [(str(i), f"[{i}]", v) for i, v in enumerate(value)]
    if (isinstance(value, dict) and set(value) == {"#map"} and isinstance(value["#map"], list) and value["#map"]
            and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and _record(p[1])
                    for p in value["#map"])):
        return [(k, f"[{k}]", v) for k, v in value["#map"]]
    return None


def _columns(records: list[dict]) -> list[str]:
    seen: dict[str, None] = {}
    for r in records:
        for k in r:
            seen.setdefault(k, None)
    return list(seen)


def _table_of_rows(title: str, where: str, rows: list[tuple[str, str, dict]]) -> Table:
    cols = _columns([r for _, _, r in rows])
    table = Table(title, ["#"] + cols)
    for key, suffix, record in rows:
        base = where + suffix
        table.rows.append([Cell(key, "")] + [
            Cell(text(record[c]) if c in record else "", f"{base}.{c}") for c in cols])
    return table


def tables(state: dict) -> list[Table]:
    """The tables of one ITF state (its ``#meta`` and ``action_taken`` left out)."""
    body = {k: v for k, v in state.items() if k not in ("#meta", "action_taken")}
    return _tables("state", "", body)


def _tables(title: str, where: str, record: dict) -> list[Table]:
    scalars = Table(title, ["field", "value"])
    nested: list[Table] = []
    for key, value in record.items():
        path = f"{where}.{key}" if where else key
        rows = _rows(value)
        if rows is not None:
            nested.append(_table_of_rows(path, path, rows))
        elif _record(value):
            nested.extend(_tables(path, path, value))
        else:
            scalars.rows.append([Cell(key, ""), Cell(text(value), path)])
    return ([scalars] if scalars.rows else []) + nested


def as_json(found: list[Table]) -> list[dict]:
    return [{"title": t.title, "columns": t.columns,
             "rows": [[{"text": c.text, "path": c.path} for c in row] for row in t.rows]} for t in found]
