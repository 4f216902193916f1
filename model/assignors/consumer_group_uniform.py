"""KIP-848's server-side ``uniform`` assignor (apache/kafka group-coordinator/src/main/java/org/
apache/kafka/coordinator/group/assignor/UniformAssignor.java): "Balance > Stickiness".

* Every member subscribes to the same topics (HOMOGENEOUS): ``UniformHomogeneousAssignmentBuilder``,
  ported step by step (``build``, ``maybeRevokePartitions``, ``assignRemainingPartitions``). Kafka
  iterates ``groupSpec.memberIds()`` (a hash set) and the subscribed topic ids (a hash set); the
  model iterates members by id and topics by name.
* Otherwise (HETEROGENEOUS): Kafka's ``UniformHeterogeneousAssignmentBuilder`` balances per topic
  over the members subscribed to it, then moves partitions from the most to the least loaded
  member that subscribes to the topic. The model's ``_heterogeneous`` keeps its two promises
  (each member keeps what it still subscribes to unless balance needs it; no partition may move
  to make two members' sizes differ by less) with a simpler deterministic greedy, not the
  builder's exact choices.
"""
from __future__ import annotations

from .consumer_group_spec import Assignment, GroupSpec, PartitionAssignorException, finish

NAME = "uniform"


def assign(spec: GroupSpec) -> Assignment:
    """UniformAssignor#assign: nothing to do without members; homogeneous or heterogeneous."""
    if not spec.members:
        return {}
    for m in spec.members:
        for t in m.topics:
            if spec.partitions(t) == -1:
                raise PartitionAssignorException(
                    f"Members are subscribed to topic {t} which doesn't exist in the topic metadata.")
    return _homogeneous(spec) if spec.homogeneous() else _heterogeneous(spec)


def _homogeneous(spec: GroupSpec) -> Assignment:
    # "subscribedTopicIds = groupSpec.memberSubscription(first member).subscribedTopicIds()"
    topics = sorted(spec.members[0].topics)
    if not topics:
        return finish({}, spec)
    assigned = {tp for m in spec.members for tp in m.assignment}
    unassigned = [(t, p) for t in topics for p in range(spec.partitions(t)) if (t, p) not in assigned]
    total = sum(spec.partitions(t) for t in topics)
    min_quota, extra = divmod(total, len(spec.members))
    out: dict[str, set] = {}
    unfilled: list[tuple[str, int]] = []
    for m in spec.members:                                   # maybeRevokePartitions
        quota = min_quota
        if extra > 0:
            quota += 1
            extra -= 1
        keep = set()
        for t in sorted({t for t, _ in m.assignment}):
            parts = sorted(p for tt, p in m.assignment if tt == t)
            if t not in topics:
                continue                                     # the whole topic is removed
            if len(parts) <= quota:
                quota -= len(parts)
                keep.update((t, p) for p in parts)
            else:
                for p in parts:
                    if quota > 0:
                        quota -= 1
                        keep.add((t, p))
                    else:
                        unassigned.append((t, p))
        out[m.member_id] = keep
        if quota > 0:
            unfilled.append((m.member_id, quota))
    i = 0                                                    # assignRemainingPartitions
    for mid, quota in unfilled:
        take = unassigned[i:i + quota]
        out[mid].update(take)
        i += len(take)
    if i < len(unassigned):
        raise PartitionAssignorException("Partitions were left unassigned")
    return finish(out, spec)


def _heterogeneous(spec: GroupSpec) -> Assignment:
    """Sticky first (a member keeps the partitions of topics it still subscribes to), then
    every other partition to the least-loaded subscriber (ties by member id), then moves from
    a member to a less-loaded subscriber of that topic while that narrows the gap by two."""
    subscribers = {t: [m.member_id for m in spec.members if t in m.topics]
                   for t in sorted({t for m in spec.members for t in m.topics})}
    out = {m.member_id: {tp for tp in m.assignment if tp[0] in m.topics and tp[1] < spec.partitions(tp[0])}
           for m in spec.members}
    owner: dict = {}
    for mid in sorted(out):
        for tp in sorted(out[mid]):
            if tp in owner:                                   # two previous holders: the first keeps it
                out[mid].discard(tp)
            else:
                owner[tp] = mid
    for t, subs in subscribers.items():
        for p in range(spec.partitions(t)):
            if (t, p) not in owner:
                mid = min(subs, key=lambda s: (len(out[s]), s))
                out[mid].add((t, p))
                owner[(t, p)] = mid
    moved = True
    while moved:
        moved = False
        for tp in sorted(owner):
            src = owner[tp]
            dst = min(subscribers[tp[0]], key=lambda s: (len(out[s]), s))
            if len(out[src]) - len(out[dst]) >= 2:
                out[src].discard(tp)
                out[dst].add(tp)
                owner[tp] = dst
                moved = True
    return finish(out, spec)


__all__ = ["NAME", "assign"]
