"""``groupcheck list``: protocols, behaviour profiles, properties and known-bug variants."""
from __future__ import annotations

from rich.padding import Padding
from rich.table import Table

from groupcheck.model.scopes import behaviour_diff

from ..checker import CHECKER_CLAIMS, CHECKER_DOCS
from ..console import out
from ..protocols import PROTOCOLS, Protocol

# what each behaviour profile stands for, in one line (the rules it changes are derived)
MEANING = {
    "kafka-3.5+": "Kafka 3.5 and later: the reference",
    "kafka-3.1-3.4": "Kafka 3.1-3.4: only the highest generation's ownedPartitions claims count",
    "kafka-3.0.0": "Kafka 3.0.0: as 3.1-3.4, and the built-in cooperative-sticky assignor is validated",
    "kafka-2.4-2.8": "Kafka 2.4-2.8: every claim is trusted; a fenced consumer rejoins still claiming",
    "kip-429": "KIP-429's text where every Kafka release departs: a deleted topic's partitions are lost",
    "release": "every Kafka Streams release follows the rules it shipped (the reference)",
    "kip-268": "every release from 2.0 on follows KIP-268's text, leader-triggered final rebalance included",
    "kafka-2.6+": "every release from 2.0 on follows Kafka 2.6+'s version probing",
}


def _variants() -> dict[str, tuple]:
    """Known-bug variants per protocol that has some (``Protocol.variants``)."""
    return {name: p.variants for name, p in PROTOCOLS.items() if p.variants}


def _profiles(p: Protocol, variants: tuple) -> Table:
    """Each profile: what it means, the rules it sets apart from the reference (the
    first profile), and the known bugs it ships (variants with exactly its behaviour)."""
    behaviours = {name: p.with_profile(p.model.view.default_scope(), name).behaviour for name in p.profiles}
    reference = p.profiles[0]
    table = Table(title=f"{p.name} behaviour profiles")
    for col in ("profile", "means", f"rules apart from {reference}", "known bugs it ships"):
        table.add_column(col, overflow="fold")
    for name, b in behaviours.items():
        rules = behaviour_diff(behaviours[reference], b)
        bugs = [v.key for v in variants if v.behaviour == b]
        table.add_row(name, MEANING.get(name, "-"), ", ".join(rules) or "-", ", ".join(bugs) or "-")
    return table


def _properties(p: Protocol) -> None:
    """Every property with its kind and the whole KIP sentence it enforces."""
    out.print(f"[bold]{p.name} properties[/]")
    for prop in p.model.properties:
        out.print(f"  [bold]{prop.name}[/] ({prop.kind})", highlight=False)
        paragraphs = [" ".join(par.split()) for par in prop.doc.split("\n\n")]
        out.print(Padding("\n\n".join(paragraphs), (0, 0, 0, 4)), markup=False, highlight=False)
    for name, doc in CHECKER_DOCS.items():
        if name != "can_settle" or p.model.settled is not None:
            out.print(f"  [bold]{name}[/] ({CHECKER_CLAIMS[name]}, the checker's own)", highlight=False)
            out.print(Padding(doc, (0, 0, 0, 4)), markup=False, highlight=False)


def command() -> None:
    """Protocols, behaviour profiles, properties and known-bug variants."""
    variants = _variants()
    for name, p in PROTOCOLS.items():
        out.print(f"\n[bold]{name}[/]  profiles: {', '.join(p.profiles)}")
        _properties(p)
        out.print(_profiles(p, variants.get(name, ())))
        for title, columns, rows in (p.reference() if p.reference is not None else []):
            table = Table(title=title)
            for col in columns:
                table.add_column(col, overflow="fold")
            for row in rows:
                table.add_row(*row)
            out.print(table)
    for name, found in variants.items():
        table = Table(title=f"{name} known-bug variants (properties/)")
        for col in ("key", "what", "caught by"):
            table.add_column(col, overflow="fold")
        for v in found:
            table.add_row(v.key, v.title, v.expect)
        out.print(table)
