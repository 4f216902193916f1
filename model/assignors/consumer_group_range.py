"""KIP-848's server-side ``range`` assignor (apache/kafka group-coordinator/src/main/java/org/
apache/kafka/coordinator/group/assignor/RangeAssignor.java), in its two shipped forms:

* ``assign`` (3.9+, KAFKA-16944 "Rewrite Range Assignor", apache/kafka #16504): members sorted
  static first by instance id, then by member id (``sortMemberIds``); per topic, each member in
  that order takes the next range of ``numPartitions / numMembers`` partitions, one more while
  extra partitions remain (``addPartitionsToAssignment``). Not sticky: a new member can move
  partitions between old ones (RangeAssignorTest#testReassignmentWhenOneMemberAddedAfter-
  InitialAssignmentWithTwoMembersTwoTopics expects A: 0, B: 1, C: 2 after A: 0-1, B: 2).
* ``assign_sticky`` (3.7 / 3.8): per topic over the members subscribed to it, "Members should
  retain as much of their previous assignment as possible"; ported step by step from that
  version's ``assign`` (steps 1-5 of its javadoc). Kafka iterates hash sets there; the model
  iterates members by id and topics by name.
"""
from __future__ import annotations

from .consumer_group_spec import Assignment, GroupSpec, PartitionAssignorException, finish

NAME = "range"


def _sorted_members(spec: GroupSpec):
    """sortMemberIds: static members first (by instance id), then the others by member id."""
    return sorted(spec.members, key=lambda m: (m.instance_id is None, m.instance_id or "", m.member_id))


def assign(spec: GroupSpec) -> Assignment:
    """RangeAssignor#assign since KAFKA-16944 (3.9+): homogeneous and heterogeneous groups alike,
    each topic's ranges handed out in ``sortMemberIds`` order to the members subscribed to it."""
    members = _sorted_members(spec)
    subscribers: dict[str, int] = {}
    for m in members:
        for t in m.topics:
            if spec.partitions(t) == -1:
                raise PartitionAssignorException("Member is subscribed to a non-existent topic")
            subscribers[t] = subscribers.get(t, 0) + 1
    quota = {t: divmod(spec.partitions(t), n) for t, n in subscribers.items()}
    next_range = dict.fromkeys(subscribers, 0)
    extra = {t: q[1] for t, q in quota.items()}
    out: dict[str, set] = {}
    for m in members:
        for t in m.topics:
            start, take = next_range[t], quota[t][0]
            if extra[t] > 0:
                take += 1
                extra[t] -= 1
            end = min(start + take, spec.partitions(t))
            next_range[t] = end
            out.setdefault(m.member_id, set()).update((t, p) for p in range(start, end))
    return finish(out, spec)


def assign_sticky(spec: GroupSpec) -> Assignment:
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


__all__ = ["NAME", "assign", "assign_sticky"]
