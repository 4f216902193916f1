"""HTML reports from the Jinja2 templates in ``groupcheck/templates``, with autoescaping:
every value a report shows (a group id, a member id, a topic, a message) reaches the
page as text, never as markup. Plotly figures come in through ``figure_html``, which
uses plotly's own ``to_html`` (its JSON escapes ``<``, ``>`` and ``/``)."""
from __future__ import annotations

from functools import cache

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup


@cache
def _environment() -> Environment:
    return Environment(loader=PackageLoader("groupcheck", "templates"), autoescape=True,
                       undefined=StrictUndefined, keep_trailing_newline=True)


def page(template: str, **context) -> str:
    """The template ``template`` rendered with ``context`` (every value escaped)."""
    return _environment().get_template(template).render(**context)


def figure_html(figures, config: dict | None = None) -> list[Markup]:
    """Each plotly figure as a ``<div>`` and its script (plotly.js inlined once, in the
    first), marked safe for the templates."""
    import plotly.io as pio
    return [Markup(pio.to_html(f, full_html=False, include_plotlyjs=(i == 0), config=config))
            for i, f in enumerate(figures)]
