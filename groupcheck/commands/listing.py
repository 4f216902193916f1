"""``groupcheck list``: protocols, behaviour profiles, properties and known-bug variants."""
from __future__ import annotations

from rich.table import Table

from ..console import out
from ..protocols import PROTOCOLS, get


def command() -> None:
    """Protocols, behaviour profiles, properties and known-bug variants."""
    for name in PROTOCOLS:
        p = get(name)
        out.print(f"[bold]{name}[/]  profiles: {', '.join(p.profiles)}")
        table = Table(show_header=True)
        table.add_column("property")
        table.add_column("kind")
        table.add_column("enforces")
        for prop in p.model.properties:
            table.add_row(prop.name, prop.kind, " ".join(prop.doc.split())[:110] + "...")
        out.print(table)
        for title, columns, rows in p.reference():
            table = Table(title=title)
            for col in columns:
                table.add_column(col)
            for row in rows:
                table.add_row(*row)
            out.print(table)
    try:
        from properties.known_bugs import VARIANTS
        from properties.streams_known_bugs import STREAMS_VARIANTS
    except ImportError:       # installed without the properties/ folder
        return
    for name, where, variants in (("consumer", "known_bugs.py", VARIANTS),
                                  ("streams-classic", "streams_known_bugs.py", STREAMS_VARIANTS)):
        table = Table(title=f"{name} known-bug variants (properties/{where})")
        table.add_column("key")
        table.add_column("what")
        table.add_column("caught by")
        for v in variants:
            table.add_row(v.key, v.title, v.expect)
        out.print(table)


