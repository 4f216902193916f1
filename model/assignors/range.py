"""RangeAssignor: per topic, consecutive ranges to the subscribed members in member-id order."""
from __future__ import annotations

from ..partitions import bits


def plan(members, stride: int) -> dict[int, int]:
    out = {m.member_id: 0 for m in members}
    every = 0
    for m in members:
        every |= m.eligible
    by_topic: dict[int, list[int]] = {}
    for b in bits(every):
        by_topic.setdefault(b // stride, []).append(b)
    for parts in by_topic.values():
        who = [m.member_id for m in members if m.eligible >> parts[0] & 1]
        per, extra = divmod(len(parts), len(who))
        start = 0
        for i, mid in enumerate(who):
            n = per + (1 if i < extra else 0)
            for b in parts[start:start + n]:
                out[mid] |= 1 << b
            start += n
    return out
