"""Distinct divergences of a conformance run: a signature per divergence, and a ledger
that keeps one divergence per (claim, signature) with a count of how often it was met.

Every role's runner uses it (the conformance driver of the assignor roles and the
group-coordinator campaign), so a run reports every distinct divergence it meets
instead of the first one, and the same divergence met in many scenarios once.

A SIGNATURE names what sets one failure of a claim apart from another, and nothing that
changes from run to run or from scenario to scenario: the words of the claim's message
(the request and response kinds, the expected and observed error codes, the field that
differs), without any token that holds a digit (member ids, generation numbers, member
slots, partitions, assignments written as JSON) or punctuation; a message of several
``;``-separated parts is the set of its distinct parts. ``kind`` adds what the message
does not say (the group-coordinator runner gives the request kind of the divergent step).
"""
from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from typing import Any

def _words(part: str) -> str:
    """The words of ``part`` without those that hold a digit, a word repeated in a row once."""
    words = [w for w in re.split(r"[^\w-]+", part) if w and not any(c.isdigit() for c in w)]
    return " ".join(w for i, w in enumerate(words) if i == 0 or w != words[i - 1])


def signature(message: str, kind: str = "") -> str:
    """What distinguishes this failure of a claim from another (see the module's docstring)."""
    parts = sorted({_words(p) for p in message.split(";")} - {""})
    return (f"{kind}: " if kind else "") + "; ".join(parts)


@dataclass
class Met:
    """One distinct divergence: its claim and signature, the smallest found of it (whatever
    the role records: a scenario, a path), and how many times it was met."""

    claim: str
    signature: str
    found: Any
    size: int = 0            # the size of ``found`` (e.g. steps): a smaller one met later replaces it
    count: int = 1


@dataclass
class Ledger:
    """The distinct divergences of one run, in the order first met."""

    met: dict[tuple[str, str], Met] = field(default_factory=dict)

    def meet(self, claim: str, sig: str, found: Any, size: int = 0) -> Met | None:
        """Count one meeting of (claim, sig); the new ``Met`` when it was not met before,
        else None (and a smaller ``found``, by ``size``, replaces the kept one)."""
        key = (claim, sig)
        old = self.met.get(key)
        if old is None:
            self.met[key] = Met(claim=claim, signature=sig, found=found, size=size)
            return self.met[key]
        old.count += 1
        if size < old.size:
            old.found, old.size = found, size
        return None

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self.met

    def __len__(self) -> int:
        return len(self.met)

    def __iter__(self):
        return iter(self.met.values())



def unmet(model, known: set[tuple[str, str]]):
    """``model`` whose properties hold wherever they would only repeat a divergence in
    ``known`` (claim, signature): a search goes on past it to the divergences not yet met.
    (Muting the whole claim instead would hide a second, different failure of it.)"""
    def quiet(prop):
        @functools.wraps(prop.check)
        def check(*args):
            message = prop.check(*args)
            return None if message is not None and (prop.name, signature(message)) in known else message
        return dataclasses.replace(prop, check=check)
    return dataclasses.replace(model, properties=tuple(quiet(p) for p in model.properties))
