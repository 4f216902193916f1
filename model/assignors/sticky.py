"""The sticky plan shared by StickyAssignor and CooperativeStickyAssignor.

It keeps each member's (already resolved) claims as far as balance allows and hands
out the rest. With equal subscriptions it follows AbstractStickyAssignor's
constrained assignment: quotas ``min = P // N`` and ``max = ceil(P / N)``, at most
``P % N`` members at ``max``; so the result is balanced within 1. With unequal
subscriptions it keeps every eligible claim, gives each free partition to the least
loaded eligible member, then moves partitions while that narrows a gap above 1.
Claims are not de-duplicated here: that is ``ownership.resolve_claims``'s job, and a
behaviour that skips it (KAFKA-12984) really does hand a partition out twice.
"""
from __future__ import annotations

from ..partitions import bits, count


def plan(members, stride: int) -> dict[int, int]:
    if not members:
        return {}
    every = 0
    for m in members:
        every |= m.eligible
    if all(m.eligible == members[0].eligible for m in members):
        return _constrained(members, every)
    return _general(members, every)


def _constrained(members, every: int) -> dict[int, int]:
    total, n = count(every), len(members)
    low, extra = divmod(total, n)
    high = low + (1 if extra else 0)
    at_high = 0
    out: dict[int, int] = {}
    for m in members:
        claims = list(bits(m.claims & every))
        if extra and len(claims) >= high and at_high < extra:
            keep, at_high = claims[:high], at_high + 1
        else:
            keep = claims[:low]
        out[m.member_id] = sum(1 << b for b in keep)
    taken = 0
    for mask in out.values():
        taken |= mask
    free = [b for b in bits(every & ~taken)]
    for m in members:                       # fill every member up to the low quota
        while count(out[m.member_id]) < low and free:
            out[m.member_id] |= 1 << free.pop(0)
    for m in members:                       # then up to ``extra`` members to high
        if not free:
            break
        if count(out[m.member_id]) == low and at_high < extra:
            out[m.member_id] |= 1 << free.pop(0)
            at_high += 1
    for b in free:                          # only reachable with duplicated claims
        least = min(members, key=lambda m: (count(out[m.member_id]), m.member_id))
        out[least.member_id] |= 1 << b
    return out


def _general(members, every: int) -> dict[int, int]:
    out = {m.member_id: m.claims & m.eligible for m in members}
    taken = 0
    for mask in out.values():
        taken |= mask
    for b in bits(every & ~taken):
        who = [m for m in members if m.eligible >> b & 1]
        least = min(who, key=lambda m: (count(out[m.member_id]), m.member_id))
        out[least.member_id] |= 1 << b
    moved = True
    while moved:
        moved = False
        for heavy in sorted(members, key=lambda m: (-count(out[m.member_id]), m.member_id)):
            for light in sorted(members, key=lambda m: (count(out[m.member_id]), m.member_id)):
                if count(out[heavy.member_id]) - count(out[light.member_id]) <= 1:
                    continue
                movable = out[heavy.member_id] & light.eligible
                if movable:
                    b = movable & -movable
                    out[heavy.member_id] ^= b
                    out[light.member_id] |= b
                    moved = True
                    break
            if moved:
                break
    return out
