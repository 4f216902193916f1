"""What makes two violations the same bug: the property and the message with every
number normalised to ``#``.

Walks reach one bug by many routes and at many depths: "C1 and C2 both own {t0-1}" in
one walk is "C2 and C3 both own {t0-0}" in another, and "EMPTY with group epoch 5 !=
assignment epoch 4" is "... 7 != 5". Member, client, process and partition names carry
their numbers (C1, M2, P1, t0-1), so replacing every run of digits by ``#`` makes those
one signature. The action kinds along the path are deliberately left out: they tell
the route, not the bug, and would keep one bug found by two walks apart."""
from __future__ import annotations

import hashlib
import re

_NUMBER = re.compile(r"\d+")


def normalise(message: str) -> str:
    """The message with every number as ``#``."""
    return _NUMBER.sub("#", message)


def signature(prop: str, message: str) -> str:
    """``property: normalised message``, the key violations are deduplicated by."""
    return f"{prop}: {normalise(message)}"


def short(sig: str) -> str:
    """Eight hex digits naming a signature (for file names)."""
    return hashlib.blake2b(sig.encode(), digest_size=4).hexdigest()
