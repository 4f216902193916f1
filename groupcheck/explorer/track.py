"""The offsets track of the timeline (issue 30): under each partition's ownership row, its log
end, committed offset and each holder's processed offset and fetch position, step by step, and
a mark on the step where a record is processed twice or where ``no_record_lost`` first fails.

Built from the model's ``View.offsets(scope, state)`` (``model/delivery/render.py``: per
partition ``end``, ``committed``, ``base``, ``done``, ``excused`` and ``positions``
``{holder: [processed, position]}``; ``{}`` with records off, and then there is no track and
the chart is the ownership chart alone) and from the claims broken at each step, which decide
what is a violation: a record processed twice is marked "no fault" only on a step that breaks
``no_duplicate_without_failure`` (an excused redelivery, after a crash or a fencing, is marked
grey). Every label made of data reaches plotly escaped (``timeline.escape``).
"""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from groupcheck.model.delivery.render import processed_again

DUPLICATE = "no_duplicate_without_failure"
LOST = "no_record_lost"
RED, GREY, END, COMMITTED = "#d62728", "#7f7f7f", "#aaaaaa", "#000000"


@dataclass(frozen=True)
class Mark:
    """A record event the track marks: ``text`` says what happened in words (the page lists
    it, the chart shows it on hover)."""

    step: int              # the state index: after the step-th action
    item: str              # the partition's row ("t0-0")
    text: str              # "t0-0 offset 1 processed twice (no fault)"
    broken: str | None     # the claim this breaks at this step, None when a fault excuses it
    offset: int | None = None


def marks(tracks: tuple[dict, ...], broken: tuple[dict[str, str], ...]) -> tuple[Mark, ...]:
    """The marks of a path: ``tracks`` is each state's offsets track, ``broken`` each state's
    broken claims (name -> message; index 0 the initial state)."""
    out: list[Mark] = []
    for i in range(1, len(tracks)):
        claims = broken[i] if i < len(broken) else {}
        for item, offset, holder, excused in processed_again(tracks[i - 1], tracks[i]):
            judged = DUPLICATE in claims and not excused
            why = "no fault" if judged else "excused by a fault" if excused else f"not judged by {DUPLICATE}"
            out.append(Mark(step=i, item=item, offset=offset, broken=DUPLICATE if judged else None,
                            text=f"{item} offset {offset} processed twice ({why}), by {holder}"))
    first = next((i for i, claims in enumerate(broken) if LOST in claims), None)
    if first is not None:
        message = broken[first][LOST]
        item = next((it for it in (tracks[first] if first < len(tracks) else {}) if message.startswith(it + " ")), "")
        out.append(Mark(step=first, item=item, text=message, broken=LOST))
    return tuple(sorted(out, key=lambda m: (m.step, m.item, m.text)))


def summary(item: str, at: dict) -> str:
    """One state of one partition in words: ``t0-0 log end 2, committed 1; C1 processed 1, position 2``."""
    committed = at["committed"] if at["committed"] >= 0 else "none"
    held = "".join(f"; {who} processed {_shown(p)}, position {_shown(q)}" for who, (p, q) in sorted(at["positions"].items()))
    return f"{item} log end {at['end']}, committed {committed}{held}"


def _shown(offset: int) -> str:
    return str(offset) if offset >= 0 else "none (awaiting OffsetFetch)"


class Rows:
    """Where each row lies: the ownership row of every item, and right under it the offsets
    track of the items that have one (0, 1, 2, ... from the top)."""

    def __init__(self, items: tuple[str, ...], tracked: set[str]):
        self.labels: list[str] = []
        self.owner: dict[str, int] = {}
        self.track: dict[str, int] = {}
        for item in items:
            self.owner[item] = len(self.labels)
            self.labels.append(item)
            if item in tracked:
                self.track[item] = len(self.labels)
                self.labels.append(f"{item} offsets")


def traces(tracks: tuple[dict, ...], rows: Rows, colour: dict[str, str], found: tuple[Mark, ...],
           actions: tuple[str, ...], escape) -> list[go.Scatter]:
    """The track's lines and marks: per item the log end and committed offset, per holder its
    processed offset (solid) and position (dotted) in its colour, all as steps across the state
    columns; an invisible point per state carries the state in words (hover, click to go there).
    Each line label is in the legend once."""
    top = max([at["end"] for t in tracks for at in t.values()] + [1])
    out: list[go.Scatter] = []
    shown: set[str] = set()
    for n, (item, row) in enumerate(rows.track.items()):
        def y(v: int | None) -> float | None:
            return None if v is None or v < 0 else row + 0.35 - 0.7 * v / top

        def line(values: list, name: str, group: str, colour_: str, dash: str, legend: bool) -> go.Scatter:
            return go.Scatter(x=list(range(len(tracks))), y=[y(v) for v in values], mode="lines", name=escape(name),
                              line={"shape": "hvh", "color": colour_, "dash": dash, "width": 2}, legendgroup=group,
                              showlegend=legend, hoverinfo="skip", connectgaps=False)

        at = [t.get(item) for t in tracks]
        out.append(line([a["end"] if a else None for a in at], "log end", "log end", END, "dash", n == 0))
        out.append(line([a["committed"] if a else None for a in at], "committed", "committed", COMMITTED, "solid", n == 0))
        for holder in sorted({h for a in at if a for h in a["positions"]}):
            held = [a["positions"].get(holder) if a else None for a in at]
            for k, (what, dash) in enumerate((("processed", "solid"), ("position", "dot"))):
                label = f"{holder} {what}"
                out.append(line([h[k] if h else None for h in held], label, holder, colour.get(holder, GREY), dash,
                                label not in shown))
                shown.add(label)
        steps = [i for i, a in enumerate(at) if a is not None]
        out.append(go.Scatter(x=steps, y=[row] * len(steps), mode="markers", marker={"opacity": 0, "size": 14},
                              name=escape(f"{item} offsets"), showlegend=False, customdata=steps, hoverinfo="text",
                              hovertext=[escape(f"step {i}: {summary(item, at[i])}") + f"<br>{escape(actions[i])}"
                                         for i in steps]))
    drawn = [m for m in found if m.item in rows.track]
    if drawn:
        def where(m: Mark) -> float:
            at = tracks[m.step][m.item]
            v = m.offset if m.offset is not None else at["committed"]
            return rows.track[m.item] + 0.35 - 0.7 * max(v, 0) / top
        out.append(go.Scatter(
            x=[m.step for m in drawn], y=[where(m) for m in drawn], mode="markers", name="record marks",
            marker={"symbol": ["x" if m.broken else "circle-open" for m in drawn], "size": 14, "line": {"width": 3},
                    "color": [RED if m.broken else GREY for m in drawn]},
            customdata=[m.step for m in drawn], hoverinfo="text",
            hovertext=[escape(f"step {m.step}: {m.text}") for m in drawn]))
    return out
