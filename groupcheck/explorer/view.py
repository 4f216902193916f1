"""What the web page shows of a session's state, as one JSON object (the page is a thin
view over it; the Python API gives the same parts as objects)."""
from __future__ import annotations

from dataclasses import asdict

from groupcheck.model.scopes import profile_label

from . import diff as diffs
from . import tables as state_tables


def _tables(found: list[state_tables.Table], changed: list[diffs.Change]) -> list[dict]:
    return [{"title": t.title, "columns": t.columns,
             "rows": [[{"text": c.text, "path": c.path, "changed": diffs.touches(c.path, changed)} for c in row]
                      for row in t.rows]} for t in found]


def history(session) -> list[dict]:
    """Every step of the path and the way ahead: its number and action."""
    first, steps = session._whole()
    return [{"step": 0, "action": "initial state"}] + [
        {"step": i, "action": session.model.view.describe_action(session.scope, s.prev, s.action)}
        for i, s in enumerate(steps, start=1)]


def view(session) -> dict:
    changed = session.diff()
    found = session.first_violation()
    return {
        "readonly": False,
        "protocol": session.protocol.name,
        "source": session.source,
        "scope": session.model.view.scope_to_dict(session.scope),
        "scope_text": session.protocol.scope_text(session.scope),
        "profile_label": profile_label(session.scope),
        "path": session.path,
        "ahead": session.ahead,
        "depth": session.depth,
        "action": session.action_text(),
        "events": session.events(),
        "tables": _tables(session.tables(), changed),
        "diff": [asdict(c) for c in changed],
        "properties": [asdict(p) for p in session.properties()],
        "actions": [{"index": m.index, "text": m.text, "kind": m.kind, "fault": m.fault,
                     "breaks": {"property": m.breaks[0], "message": m.breaks[1]} if m.breaks else None}
                    for m in session.actions()],
        "first_violation": asdict(found) if found else None,
        "recorded": session.recorded,
        "history": history(session),
        "state": session.itf_state(),
    }
