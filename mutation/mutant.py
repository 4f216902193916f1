"""One seeded mutation of a model rule, and how it is applied to a copy of the repo."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FAMILIES = (
    "consumer-callbacks", "consumer-errors", "consumer-leave", "coordinator-rebalance",
    "coordinator-generation", "kip-792", "cooperative", "assignors", "protocol-selection",
    "streams-probing", "streams-cooperative", "streams-warmups", "streams-onAssignment",
    "streams-tasks", "streams-rebalance",
)


@dataclass(frozen=True)
class Mutant:
    """Replace ``old`` (exactly once in ``path``, relative to the repo root) by ``new``.

    ``why`` names the real-world mistake the mutation seeds. ``equivalent`` is non-empty
    for a mutant argued not to change reachable behaviour: it is excluded from the score."""

    name: str
    family: str
    path: str
    old: str
    new: str
    why: str
    equivalent: str = ""


class MutantNotApplicable(Exception):
    """``old`` does not occur exactly once in the file (or the file is missing)."""


def mutated_text(text: str, m: Mutant) -> str:
    """The file's text with the mutation applied; MutantNotApplicable unless ``old``
    occurs exactly once."""
    n = text.count(m.old)
    if n != 1:
        raise MutantNotApplicable(f"{m.name}: `old` occurs {n} times in {m.path} (expected exactly once)")
    return text.replace(m.old, m.new, 1)


def apply(root: Path, m: Mutant) -> None:
    """Mutate the file under ``root`` in place."""
    target = root / m.path
    if not target.is_file():
        raise MutantNotApplicable(f"{m.name}: no file {m.path}")
    target.write_text(mutated_text(target.read_text(), m))
