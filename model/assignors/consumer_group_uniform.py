"""KIP-848's server-side ``uniform`` assignor (apache/kafka group-coordinator/src/main/java/org/
apache/kafka/coordinator/group/assignor/UniformAssignor.java): "Balance > Stickiness".

* Every member subscribes to the same topics (HOMOGENEOUS): ``UniformHomogeneousAssignmentBuilder``,
  ported step by step (``build``, ``maybeRevokePartitions``, ``assignRemainingPartitions``). Kafka
  iterates ``groupSpec.memberIds()`` (a hash set) and the subscribed topic ids (a hash set); the
  model iterates members by id and topics by name.
* Otherwise (HETEROGENEOUS): ``UniformHeterogeneousAssignmentBuilder`` as Kafka 4.x ships it
  (the rewrite with ``MemberAssignmentBalancer``, apache/kafka commit fc28b22b), ported step by
  step in ``_heterogeneous`` / ``_Balancer`` / ``_balance_topic``; it is deterministic in Kafka
  too (members by index, topics by partitions per subscriber, then subscribers, then id).
"""
from __future__ import annotations

from fractions import Fraction

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


MAX_ITERATION_COUNT = 16   # "The maximum number of iterations to perform in the final iterative balancing phase."


class _Balancer:
    """UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer: the least loaded and the
    most loaded ranges of a topic's subscribers, sorted by (assigned count, member index); the
    counts are read live from ``sizes``."""

    def __init__(self, sizes: list[int]):
        self.sizes = sizes
        self.sorted: list[int] = []

    def initialize(self, members: list[int]) -> int:
        s = self.sizes
        self.sorted = sorted(members, key=lambda i: (s[i], i))
        self.least_end, self.least_count, self.next_least = 0, s[self.sorted[0]] - 1, 0
        n = len(self.sorted)
        self.most_start, self.most_end = n, n
        self.most_count, self.next_most = s[self.sorted[-1]] + 1, n - 1
        return s[self.sorted[-1]] - s[self.sorted[0]]

    def next_least_loaded(self) -> int:
        if self.next_least >= self.least_end:       # the range is full: bump its level, expand it
            self.least_count += 1
            while self.least_end < len(self.sorted) and self.sizes[self.sorted[self.least_end]] == self.least_count:
                self.least_end += 1
            self.next_least = 0
        i = self.sorted[self.next_least]
        self.next_least += 1
        return i

    def next_most_loaded(self) -> int:
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_count = self.sizes[self.sorted[self.most_start - 1]]
            else:
                self.most_count -= 1
            while self.most_start > 0 and self.sizes[self.sorted[self.most_start - 1]] == self.most_count:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        i = self.sorted[self.next_most]
        self.next_most -= 1
        return i

    def exclude_most_loaded(self) -> None:
        k = self.next_most + 1
        self.sorted[k], self.sorted[self.most_end - 1] = self.sorted[self.most_end - 1], self.sorted[k]
        self.most_end -= 1

    def balanced(self) -> bool:
        return self.most_count - self.least_count <= 1


def _heterogeneous(spec: GroupSpec) -> Assignment:
    """UniformHeterogeneousAssignmentBuilder#build (Kafka 4.x), ported step by step: revoke what a
    member no longer subscribes to; hand out the unassigned partitions topic by topic to the least
    loaded subscribers; then balance each topic with two or more subscribers, moving partitions
    from the most to the least loaded, at most MAX_ITERATION_COUNT rounds. Members are indexed in
    id order, topics compared by name (Kafka: by Uuid)."""
    members = spec.members
    subscribers: dict[str, list[int]] = {}
    for i, m in enumerate(members):
        for t in m.topics:
            subscribers.setdefault(t, []).append(i)
    if not subscribers:
        return finish({}, spec)
    sizes = [0] * len(members)
    owners = {t: [-1] * spec.partitions(t) for t in subscribers}
    out: dict[str, set] = {m.member_id: set() for m in members}

    def topic_order(t: str):   # partitions per subscriber desc, subscribers asc, topic asc
        return (Fraction(-spec.partitions(t), len(subscribers[t])), len(subscribers[t]), t)

    def assign_partition(t: str, p: int, i: int) -> None:
        old = owners[t][p]
        if old != -1:
            out[members[old].member_id].discard((t, p))
            sizes[old] -= 1
        out[members[i].member_id].add((t, p))
        owners[t][p] = i
        sizes[i] += 1

    for i, m in enumerate(members):                             # maybeRevokePartitions
        for t, p in m.assignment:
            if t in m.topics and p < spec.partitions(t):
                assign_partition(t, p, i)
    balancer = _Balancer(sizes)
    unassigned = {t: [p for p, o in enumerate(owners[t]) if o == -1] for t in subscribers}
    for t in sorted((t for t in unassigned if unassigned[t]), key=topic_order):   # assignRemainingPartitions
        balancer.initialize(subscribers[t])
        for p in unassigned[t]:
            assign_partition(t, p, balancer.next_least_loaded())
    topics = sorted((t for t in subscribers if len(subscribers[t]) >= 2), key=topic_order)   # balance
    last = -1
    for _ in range(MAX_ITERATION_COUNT):                          # balanceTopics
        for k, t in enumerate(topics):
            if k == last:
                return finish(out, spec)
            if _balance_topic(t, subscribers[t], owners[t], balancer, assign_partition) > 0 or last == -1:
                last = k
    return finish(out, spec)


def _balance_topic(t, subs, owners, balancer: _Balancer, assign_partition) -> int:
    """balanceTopic: the topic's partitions grouped by owner; the most loaded subscriber gives
    up its last one to the least loaded until the two ranges differ by one or less."""
    moved = 0
    if balancer.initialize(subs) <= 1:
        return moved
    parts = sorted(range(len(owners)), key=lambda p: (owners[p], p))
    start: dict[int, int] = {}
    end: dict[int, int] = {}
    for k, p in enumerate(parts):
        start.setdefault(owners[p], k)
        end[owners[p]] = k + 1
    while not balancer.balanced():
        most = -1
        while True:
            most = balancer.next_most_loaded()
            if most == -1:
                break
            if most not in end or end[most] - start[most] <= 0:
                balancer.exclude_most_loaded()
                continue
            break
        if most == -1:
            break
        p = parts[end[most] - 1]
        end[most] -= 1
        least = balancer.next_least_loaded()
        if balancer.balanced():
            break
        assign_partition(t, p, least)
        moved += 1
    return moved


__all__ = ["NAME", "assign"]
