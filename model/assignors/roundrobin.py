"""RoundRobinAssignor: partitions in order, members in a circle, skipping the unsubscribed."""
from __future__ import annotations

from ..partitions import bits


def plan(members, stride: int) -> dict[int, int]:
    out = {m.member_id: 0 for m in members}
    every = 0
    for m in members:
        every |= m.eligible
    i = 0
    n = len(members)
    for b in bits(every):
        for _ in range(n):
            m = members[i % n]
            i += 1
            if m.eligible >> b & 1:
                out[m.member_id] |= 1 << b
                break
    return out
