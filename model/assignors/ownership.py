"""How the leader reads ownedPartitions claims, and the cooperative rules around them.

These are the rules the known bugs got wrong, so each historical behaviour is a
named option:

``per-partition-generation`` (Kafka 3.5+, KAFKA-14639; AbstractStickyAssignor
    ``allSubscriptionsEqual``): per partition, members in order: no earlier claimant
    keeps it; an earlier claimant of the *same* generation makes both lose it this
    round; a higher generation takes it; a lower one leaves it with the earlier.
    Net effect: the unique claimant of the highest generation keeps it, else nobody.
``highest-generation-only`` (Kafka 3.0-3.4, the KAFKA-12984 fix): only members of
    the highest generation keep their claims; every claim of a lower generation is
    dropped, duplicates among the highest are all kept.
``trust-all`` (Kafka 2.4-2.8): generation ignored, every claim kept.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

from ..partitions import bits

RESOLUTION_RULES = ("per-partition-generation", "highest-generation-only", "trust-all")


class Claim(NamedTuple):
    member_id: int
    owned: int
    generation: int   # -1: no generation (subscription v0/v1 or a reset member)


class Resolved(NamedTuple):
    kept: dict[int, int]   # member_id -> claims it keeps as previous owner
    contested: int         # partitions claimed at the same highest generation twice


def resolve_claims(claims: Sequence[Claim], rule: str) -> Resolved:
    """Apply one of ``RESOLUTION_RULES`` to the claims, in member-id order."""
    if rule == "trust-all":
        return Resolved({c.member_id: c.owned for c in claims}, 0)
    if rule == "highest-generation-only":
        top = max((c.generation for c in claims), default=-1)
        return Resolved({c.member_id: (c.owned if c.generation == top else 0) for c in claims}, 0)
    if rule != "per-partition-generation":
        raise ValueError(f"unknown claim resolution rule {rule!r}; known: {', '.join(RESOLUTION_RULES)}")
    kept = {c.member_id: 0 for c in claims}
    contested = 0
    every = 0
    for c in claims:
        every |= c.owned
    for b in bits(every):
        holder, holder_gen, tied = None, None, False
        for c in claims:
            if not c.owned >> b & 1:
                continue
            if holder is None:
                holder, holder_gen, tied = c.member_id, c.generation, False
            elif c.generation == holder_gen:
                tied = True
            elif c.generation > holder_gen:
                holder, holder_gen, tied = c.member_id, c.generation, False
        if tied:
            contested |= 1 << b
        else:
            kept[holder] |= 1 << b
    return Resolved(kept, contested)


def withhold(intended: dict[int, int], previous: dict[int, int], contested: int) -> dict[int, int]:
    """CooperativeStickyAssignor#adjustAssignment, in KIP-429's words.

    "For maybe-revoking-partitions, check if the owner has changed. If yes, exclude
    them from the assigned-partitions list to the new owner." A contested partition
    (two previous owners) is transferring too, so nobody gets it this round.
    ``previous`` is the resolved previous ownership.
    """
    out = {}
    for mid, mask in intended.items():
        others = contested
        for other, owned in previous.items():
            if other != mid:
                others |= owned
        out[mid] = mask & ~others
    return out


def cooperative_violation(owned: dict[int, int], assigned: dict[int, int]) -> int:
    """ConsumerCoordinator#validateCooperativeAssignment: partitions both added and revoked.

    added = assigned - owned and revoked = owned - assigned per member; a non-empty
    (U added) & (U revoked) means the assignor moved a partition in one round:
    "Assignor supporting the COOPERATIVE protocol violates its requirements".
    ``owned`` are the raw ownedPartitions of the subscriptions.
    """
    added = revoked = 0
    for mid, mask in assigned.items():
        mine = owned.get(mid, 0)
        added |= mask & ~mine
        revoked |= mine & ~mask
    for mid, mine in owned.items():
        if mid not in assigned:
            revoked |= mine
    return added & revoked
