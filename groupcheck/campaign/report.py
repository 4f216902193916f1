"""The campaign's report: one self-contained HTML file (plotly.js inline, so it opens
offline) with four plots and the table of distinct violations.

    Distinct states found against walks run     does the campaign still find new states?
    Action-kind frequencies                      steps taken of each action kind
    Violations by property over walks            cumulative violating walks, per property
    Depth distribution                           steps per walk, and depth of violations
"""
from __future__ import annotations

from itertools import accumulate
from pathlib import Path

import plotly.graph_objects as go

from ..outputs import atomic_write_text
from ..render import figure_html, page

TITLES = ("Distinct states found against walks run", "Action-kind frequencies",
          "Violations by property over walks", "Depth distribution")


def _figures(results) -> list[go.Figure]:
    walks = list(range(1, results.walks + 1))
    states = go.Figure(go.Scatter(x=walks, y=list(accumulate(results.new_states)), mode="lines",
                                  name="distinct states"))
    states.update_layout(title=TITLES[0], xaxis_title="walks run", yaxis_title="distinct states (canonical)")
    kinds = sorted(results.kind_counts.items(), key=lambda kv: -kv[1])
    freq = go.Figure(go.Bar(x=[k for k, _ in kinds], y=[n for _, n in kinds]))
    freq.update_layout(title=TITLES[1], xaxis_title="action kind", yaxis_title="steps taken")
    over = go.Figure()
    for prop in sorted({v["property"] for v in results.violations}):
        at = [v["walk"] + 1 for v in results.violations if v["property"] == prop]
        over.add_trace(go.Scatter(x=at, y=list(range(1, len(at) + 1)), mode="lines+markers", name=prop,
                                  line_shape="hv"))
    over.update_layout(title=TITLES[2], xaxis_title="walk", yaxis_title="violating walks so far", showlegend=True,
                       xaxis_range=[0, max(1, results.walks)])
    depth = go.Figure()
    bins = {"start": -0.5, "end": results.length + 0.5, "size": max(1, results.length // 40)}   # both on one grid
    depth.add_trace(go.Histogram(x=results.depths, name="steps per walk", opacity=0.7, xbins=bins))
    depth.add_trace(go.Histogram(x=[v["depth"] for v in results.violations], name="depth of violations",
                                 opacity=0.7, xbins=bins))
    depth.update_layout(title=TITLES[3], barmode="overlay", xaxis_title="steps", yaxis_title="walks")
    return [states, freq, over, depth]


def render(results) -> str:
    """The report's HTML: the template ``campaign_report.html``, every value escaped."""
    title = f"groupcheck campaign: {results.protocol}"
    meta = (f"{results.walks:,} walks of up to {results.length} steps (seeds {results.seeds.start}.."
            f"{results.seeds.start + results.walks - 1}), {results.steps:,} steps, "
            f"{results.distinct_states:,} distinct states, {len(results.violations):,} violating walks, "
            f"{len(results.distinct)} distinct violations; engine {results.engine}"
            + (" (interrupted: the walks done)" if results.interrupted else ""))
    return page("campaign_report.html", title=title, meta=meta, scope=repr(results.scope), rows=results.distinct,
                figures=figure_html(_figures(results), config={"displaylogo": False}))


def write_report(path: Path, results, *, force: bool = True) -> None:
    """report.html, written whole (``outputs.atomic_write_text``)."""
    atomic_write_text(path, render(results), force=force)
