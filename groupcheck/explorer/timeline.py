"""The ownership timeline of a path: one row per partition or task, a bar per owner per step.

Built from the model's ``owners(scope, state)`` at every state of the path; the same
Timeline gives a table (``table()``, ``rich()``) and a plotly chart (``figure()``, and
``figure_json()`` for the web page's plotly.js). An item held by two owners at one step
is outlined in red; each step where a property broke carries a dashed line.

With the record layer on (a model whose ``View.offsets`` gives a track), each partition's row
has a second row under it, its offsets track (``track.py``): log end, committed offset, each
holder's processed offset and position, and a mark where a record is processed twice or
first lost. With records off there is no such row and the chart is as before.

Labels a model gives with a role suffix, "P1 (standby)" or "P1 (warm-up)", are replicas:
drawn hatched in their owner's colour, never counted towards two owners at once.

plotly reads a few HTML tags in its labels (``<br>``, ``<b>``, ``<a href>``): every label
made of data (items, owners, actions, property names) goes to it escaped (``&lt;``, which
plotly shows as ``<``), so a name is shown as written, never as markup.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html import escape as html_escape

import plotly.graph_objects as go
import plotly.io as pio
from rich.markup import escape as rich_escape
from rich.table import Table

from . import track

DOUBLE = "#d62728"           # the outline of two owners at once
REPLICA = (" (standby)", " (warm-up)")   # label suffixes that hold a copy, not ownership
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


@dataclass(frozen=True)
class Timeline:
    items: tuple[str, ...]                             # rows, in natural order (t0-2 before t0-10)
    owners: tuple[dict[str, tuple[str, ...]], ...]     # per state index: item -> its owners
    actions: tuple[str, ...]                           # per state index: the action into it ("init" for 0)
    violations: tuple[tuple[int, str], ...] = ()       # (state index, property) first broken there
    offsets: tuple[dict[str, dict], ...] = ()          # per state index: the offsets track ({} records off)
    marks: tuple[track.Mark, ...] = ()                 # records processed twice or lost, by step

    @property
    def holders(self) -> tuple[str, ...]:
        """Every owner label that appears, in natural order, each owner before its replicas."""
        seen = {o for at in self.owners for who in at.values() for o in who}
        return tuple(sorted(seen, key=lambda o: (_natural(_base(o)), o)))

    def doubles(self) -> list[tuple[int, str]]:
        """(state index, item) wherever an item has two owners or more (replicas aside)."""
        return [(i, item) for i, at in enumerate(self.owners) for item in self.items
                if sum(not _replica(o) for o in at.get(item, ())) > 1]

    def table(self) -> list[dict]:
        """One row per item: ``{"item": "t0-1", "0": "", "1": "C1", "2": "C1+C2", ...}`` (state
        index -> its owners joined by "+", "" for none)."""
        return [{"item": item, **{str(i): "+".join(at.get(item, ())) for i, at in enumerate(self.owners)}}
                for item in self.items]

    def rich(self) -> Table:
        t = Table("item", *[str(i) for i in range(len(self.owners))], title="ownership by step")
        doubled = set(self.doubles())
        for row in self.table():
            item = row["item"]
            cells = [rich_escape(row[str(i)]) for i in range(len(self.owners))]     # a name, not markup
            t.add_row(rich_escape(item), *[f"[bold red]{c}[/]" if (i, item) in doubled else c
                                           for i, c in enumerate(cells)])
            if item in self.tracked:
                t.add_row(rich_escape(f"{item} offsets"), *self._track_cells(item))
        return t

    def _track_cells(self, item: str) -> list[str]:
        """The offsets track as table cells: ``end 2 c 1 C1 1/2`` (log end, committed offset, each
        holder's processed/position); a marked step in bold red, ``twice`` or ``lost``."""
        marked = {(m.step, m.item): m for m in self.marks}
        cells = []
        for i, at in enumerate(self.offsets):
            o = at.get(item)
            text = "" if o is None else " ".join([f"end {o['end']} c {o['committed']}"] + [
                f"{h} {p}/{q}" for h, (p, q) in sorted(o["positions"].items())])
            m = marked.get((i, item))
            if m is not None:
                word = "lost" if m.broken == track.LOST else "twice"
                text = f"[bold red]{rich_escape(text)} {word}[/]" if m.broken else f"{rich_escape(text)} ({word})"
            else:
                text = rich_escape(text)
            cells.append(text)
        return cells

    @property
    def tracked(self) -> tuple[str, ...]:
        """The items with an offsets track (none with records off), in row order."""
        return tuple(item for item in self.items if any(item in at for at in self.offsets))

    def mark_list(self) -> list[dict]:
        """The marks as the page lists them: ``{"step", "item", "text", "broken"}``."""
        return [{"step": m.step, "item": m.item, "text": m.text, "broken": m.broken} for m in self.marks]

    def figure(self) -> go.Figure:
        holders, doubled = self.holders, set(self.doubles())
        tracked = [h for at in self.offsets for t in at.values() for h in t["positions"]]
        colour = {b: PALETTE[k % len(PALETTE)]
                  for k, b in enumerate(dict.fromkeys([_base(o) for o in holders] + sorted(tracked, key=_natural)))}
        rows = track.Rows(self.items, set(self.tracked))
        fig = go.Figure()
        for owner in holders:
            xs, ys, starts, outline, hover, steps = [], [], [], [], [], []
            for i, at in enumerate(self.owners):
                for item in self.items:
                    row = rows.owner[item]
                    who = at.get(item, ())
                    if owner not in who:
                        continue
                    n, j = len(who), who.index(owner)
                    ys.append(row + (j - (n - 1) / 2) * (0.8 / n))   # two owners: two thinner bars
                    xs.append(1)
                    starts.append(i - 0.5)
                    outline.append(DOUBLE if (i, item) in doubled and not _replica(owner) else "rgba(0,0,0,0)")
                    steps.append(i)
                    also = [o for o in who if o != owner]
                    hover.append(escape(f"step {i}: {item} held by {owner}" + (f" (and {', '.join(also)})"
                                                                                if also else ""))
                                 + f"<br>{escape(self.actions[i])}")
            fig.add_trace(go.Bar(
                name=escape(owner), orientation="h", x=xs, y=ys, base=starts, width=0.8 / max(1, self._most()),
                legendgroup=_base(owner), marker={
                    "color": colour[_base(owner)], "line": {"color": outline, "width": 2},
                    "pattern": {"shape": "/" if _replica(owner) else ""}},
                customdata=steps, hovertext=hover, hoverinfo="text"))
        for t in track.traces(self.offsets, rows, colour, self.marks, self.actions, escape):
            fig.add_trace(t)
        legend = sum(t.showlegend is not False for t in fig.data)      # the legend's entries, all shown
        broke: dict[int, list[str]] = {}
        for i, name in self.violations:
            broke.setdefault(i, []).append(name)
        shapes = [{"type": "line", "x0": i, "x1": i, "yref": "paper", "y0": 0, "y1": 1,
                   "line": {"color": DOUBLE, "dash": "dash", "width": 2}} for i in broke]
        notes = [{"x": i, "y": 1, "yref": "paper", "text": escape(", ".join(names)), "showarrow": False,
                  "hovertext": escape(f"step {i}: {', '.join(names)} broken"),
                  "yanchor": "bottom", "xanchor": "right", "font": {"color": DOUBLE, "size": 11}} for i, names in broke.items()]
        fig.update_layout(
            barmode="overlay", showlegend=True, shapes=shapes, annotations=notes, height=120 + max(36 * len(rows.labels), 24 * legend),
            margin={"l": 60, "r": 20, "t": 40, "b": 40}, legend={"title": {"text": "owner"}},
            xaxis={"title": {"text": "step"}, "range": [-0.5, max(0.5, len(self.owners) - 0.5)], "dtick": 1},
            yaxis={"tickvals": list(range(len(rows.labels))), "ticktext": [escape(label) for label in rows.labels],
                   "range": [len(rows.labels) - 0.5, -0.5]}, template="plotly_white")
        return fig

    def _most(self) -> int:
        return max([len(at.get(item, ())) for at in self.owners for item in self.items] + [1])

    def figure_json(self) -> dict:
        """The chart as plotly.js takes it: ``{"data": [...], "layout": {...}}``."""
        return json.loads(pio.to_json(self.figure(), validate=False))


def escape(text: str) -> str:
    """``text`` as plotly shows it literally: ``<`` and ``&`` as entities (plotly decodes
    those, not ``&quot;``, and a quote outside a tag is plain text)."""
    return html_escape(text, quote=False)


def _replica(label: str) -> bool:
    return label.endswith(REPLICA)


def _base(label: str) -> str:
    for suffix in REPLICA:
        if label.endswith(suffix):
            return label[:-len(suffix)]
    return label


def _natural(item: str) -> list:
    """``t0-2`` before ``t0-10``, ``T2`` before ``T10``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", item)]


def timeline(model, scope, states: list, actions: list[str], violations=(), broken=()) -> Timeline | None:
    """The timeline of ``states`` (the action into each in ``actions``); None when the
    model has no ``owners``. ``broken``: per state index, the claims broken there (name ->
    message), which the offsets track's marks follow."""
    if model.view.owners is None:
        return None
    found = [model.view.owners(scope, s) for s in states]
    items = tuple(sorted({item for at in found for item in at}, key=_natural))   # one that comes or goes: () where absent
    owners = tuple({item: tuple(at.get(item, ())) for item in items} for at in found)
    tracks = ()
    if model.view.offsets is not None and getattr(scope, "records", False):    # the record layer is on
        tracks = tuple(model.view.offsets(scope, s) for s in states)
    return Timeline(items, owners, tuple(actions), tuple(violations), tracks,
                    track.marks(tracks, tuple(broken)) if tracks else ())
