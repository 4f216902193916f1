"""KIP-848's server-side ``range`` assignor (apache/kafka group-coordinator/src/main/java/org/
apache/kafka/coordinator/group/assignor/RangeAssignor.java): per topic, range assignment over
the members subscribed to it, sticky ("Members should retain as much of their previous
assignment as possible") and co-partitioned ("Partitions should be assigned to members in a way
that facilitates the join operation").

Ported step by step from ``RangeAssignor#assign`` (steps 1-5 of its javadoc). Kafka iterates
``groupSpec.memberIds()`` (a hash set) and ``membersPerTopic`` (a hash map); the model iterates
members by id and topics by name, so its ties are deterministic where Kafka's depend on hashing.
"""
from __future__ import annotations

from .consumer_group_spec import Assignment, GroupSpec, PartitionAssignorException, finish

NAME = "range"


def assign(spec: GroupSpec) -> Assignment:
    out: dict[str, set] = {}
    members_per_topic: dict[str, list[str]] = {}
    for m in spec.members:                                                      # step 1
        for t in m.topics:
            if spec.partitions(t) == -1:
                raise PartitionAssignorException("Member is subscribed to a non-existent topic")
            members_per_topic.setdefault(t, []).append(m.member_id)
    current = {m.member_id: m.assignment for m in spec.members}
    for topic in sorted(members_per_topic):
        members = members_per_topic[topic]
        n = spec.partitions(topic)
        min_quota, extra = divmod(n, len(members))
        sticky: set[int] = set()
        unfilled: list[tuple[str, int]] = []
        for mid in members:                                                     # step 2
            mine = sorted(p for t, p in current[mid] if t == topic)
            for p in mine[:min(len(mine), min_quota)]:
                sticky.add(p)
                out.setdefault(mid, set()).add((topic, p))
            remaining = min_quota - len(mine)
            if remaining < 0 and extra > 0:
                extra -= 1
                sticky.add(mine[min_quota])
                out.setdefault(mid, set()).add((topic, mine[min_quota]))
            else:
                unfilled.append((mid, remaining))
        free = [p for p in range(n) if p not in sticky]                         # step 3
        start = 0
        for mid, remaining in unfilled:                                         # steps 4-5
            if extra > 0:
                remaining += 1
                extra -= 1
            if remaining > 0:
                out.setdefault(mid, set()).update((topic, p) for p in free[start:start + remaining])
                start += remaining
    return finish(out, spec)


__all__ = ["NAME", "assign"]
