"""The group coordinator's protocol (assignor) agreement across members.

Kafka's GroupMetadata: the candidate protocols are those every member lists; each
member votes for the first of its own protocols that is a candidate; the most votes
wins. Kafka breaks a tie by map iteration order, which is unspecified; this model
breaks it by name so that runs are reproducible (documented in the README).
"""
from __future__ import annotations

from typing import Sequence


def candidates(member_protocols: Sequence[tuple[str, ...]]) -> set[str]:
    if not member_protocols:
        return set()
    common = set(member_protocols[0])
    for protocols in member_protocols[1:]:
        common &= set(protocols)
    return common


def supports(member_protocols: Sequence[tuple[str, ...]], protocols: tuple[str, ...]) -> bool:
    """GroupMetadata#supportsProtocols for a non-empty group: a common protocol remains."""
    if not member_protocols:
        return bool(protocols)
    return bool(candidates(member_protocols) & set(protocols))


def select_protocol(member_protocols: Sequence[tuple[str, ...]]) -> str | None:
    """The protocol the coordinator selects, or None when members share none."""
    common = candidates(member_protocols)
    if not common:
        return None
    votes: dict[str, int] = {}
    for protocols in member_protocols:
        vote = next(p for p in protocols if p in common)
        votes[vote] = votes.get(vote, 0) + 1
    best = max(votes.values())
    return min(p for p, n in votes.items() if n == best)
