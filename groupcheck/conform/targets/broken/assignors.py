"""Deliberately broken assignors, each a mistake real assignor authors made, and one
that makes a legitimate *choice*; ``groupcheck conform --assignor`` must flag each
broken one with the property it names, and must not flag the choice.

    groupcheck conform --assignor groupcheck.conform.targets.broken.assignors:TrustsStaleUserData     # assignment_valid
    groupcheck conform --assignor groupcheck.conform.targets.broken.assignors:MovesOwnedAtOnce        # validate_cooperative_assignment
    groupcheck conform --assignor groupcheck.conform.targets.broken.assignors:TrustsStaleClaims       # generation_aware_claims
    groupcheck conform --assignor groupcheck.conform.targets.broken.assignors:WithholdsEveryClaim     # no_partition_withheld
    groupcheck conform --assignor groupcheck.conform.targets.broken.assignors:AssumesEqualSubscriptions  # no_partition_withheld
    groupcheck conform --assignor groupcheck.conform.targets.broken.assignors:IgnoresSubscription     # assignment_valid
    groupcheck conform --assignor groupcheck.conform.targets.broken.assignors:ShufflesMembers         # deterministic
    groupcheck conform --assignor groupcheck.conform.targets.broken.assignors:ReverseOrderRoundRobin  # a choice: nothing flagged

The first, fifth, sixth, seventh and the choice are written in kafka-python's style
(``assign(cluster, members)`` with ConsumerProtocolSubscription metadata, answering
ConsumerProtocolAssignment); the three cooperative ones on groupcheck.api's terms. Both
are what ``--assignor`` takes.
"""
from __future__ import annotations

import random
from collections import defaultdict

from kafka.coordinator.assignors.abstract import AbstractPartitionAssignor
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment, ConsumerProtocolSubscription

from groupcheck.api import COOPERATIVE, PartitionAssignor, TopicPartition


def _answer(version: int, plan: dict[str, list[tuple[str, int]]]) -> dict[str, ConsumerProtocolAssignment]:
    out = {}
    for member, tps in plan.items():
        by_topic = defaultdict(list)
        for topic, p in tps:
            by_topic[topic].append(p)
        out[member] = ConsumerProtocolAssignment(version, sorted((t, sorted(ps)) for t, ps in by_topic.items()), b"")
    return out


class _KafkaPythonEager(AbstractPartitionAssignor):
    """kafka-python plumbing: subclasses write ``plan(cluster counts, member topics)``."""

    name = "broken"
    version = 0

    def metadata(self, topics):
        return ConsumerProtocolSubscription(self.version, sorted(topics), b"")

    def on_assignment(self, assignment, generation):
        pass

    def assign(self, cluster, members):
        topics = {m.member_id: list(m.metadata.topics) for m in members}
        counts = {t: len(cluster.partitions_for_topic(t) or ()) for ts in topics.values() for t in ts}
        return _answer(self.version, self.plan({t: n for t, n in counts.items() if n}, topics))

    def plan(self, counts: dict[str, int], topics: dict[str, list[str]]) -> dict[str, list[tuple[str, int]]]:
        raise NotImplementedError


def _roundrobin(counts, topics, order):
    """Kafka's RoundRobinAssignor over ``order``: each partition to the next member in
    the cycle subscribed to its topic."""
    out = {m: [] for m in topics}
    i = 0
    for topic in sorted(counts):
        for p in range(counts[topic]):
            for _ in range(len(order)):
                m = order[i % len(order)]
                i += 1
                if topic in topics[m]:
                    out[m].append((topic, p))
                    break
    return out


class TrustsStaleUserData(StickyPartitionAssignor):
    """KAFKA-7026: a sticky assignor that keeps every member's previous assignment from
    its userData as is. A zombie's stale userData and the current owner's both name a
    partition, and both get it: two owners (``assignment_valid``; the group then breaks
    ``no_double_ownership``)."""

    name = "trusts-stale-userdata"

    def assign(self, cluster, members):
        meta = {m.member_id: self.parse_member_metadata(m.metadata) for m in members}
        out = {m: [(tp.topic, tp.partition) for tp in md.partitions
                   if tp.topic in md.subscription and tp.partition in (cluster.partitions_for_topic(tp.topic) or ())]
               for m, md in meta.items()}
        taken = {tp for tps in out.values() for tp in tps}
        order = sorted(meta)
        i = 0
        for topic in sorted({t for md in meta.values() for t in md.subscription}):
            for p in sorted(cluster.partitions_for_topic(topic) or ()):
                if (topic, p) in taken:
                    continue
                subscribers = [m for m in order if topic in meta[m].subscription]
                out[subscribers[i % len(subscribers)]].append((topic, p))
                i += 1
        return _answer(self.version, out)


class MovesOwnedAtOnce(PartitionAssignor):
    """A cooperative assignor that computes a balanced range assignment and hands it out
    at once, moving an owned partition from its owner to a newcomer in one round
    instead of revoking it first (``validate_cooperative_assignment``)."""

    name = "moves-owned-at-once"
    supported_protocols = (COOPERATIVE,)
    reads_owned_partitions = True

    def assign(self, cluster, subscriptions):
        out = {m: [] for m in subscriptions}
        for topic in sorted(cluster):
            members = sorted(m for m, s in subscriptions.items() if topic in s.topics)
            for p in range(cluster[topic]):
                out[members[p * len(members) // cluster[topic]]].append(TopicPartition(topic, p))
        return out


class TrustsStaleClaims(PartitionAssignor):
    """KAFKA-12984: a cooperative sticky assignor that reads ownedPartitions but not their
    generation. When a zombie (a lower generation) and the current owner both claim a
    partition, the claim of the higher member id wins: sometimes the stale one
    (``generation_aware_claims``). Otherwise careful: partitions change owner only once
    unclaimed."""

    name = "trusts-stale-claims"
    supported_protocols = (COOPERATIVE,)
    reads_owned_partitions = True

    def assign(self, cluster, subscriptions):
        members = sorted(subscriptions)
        owner = {}
        for m in members:                      # a later claim overwrites an earlier one
            for tp in subscriptions[m].owned_partitions:
                if tp.topic in subscriptions[m].topics and tp.partition < cluster.get(tp.topic, 0):
                    owner[tp] = m
        claimed = {tp for m in members for tp in subscriptions[m].owned_partitions}
        out = {m: [tp for tp, o in owner.items() if o == m] for m in members}
        for topic in sorted(cluster):
            for p in range(cluster[topic]):
                tp = TopicPartition(topic, p)
                if tp in claimed:
                    continue
                takers = [m for m in members if topic in subscriptions[m].topics]
                if takers:
                    out[min(takers, key=lambda m: (len(out[m]), m))].append(tp)
        return out


class WithholdsEveryClaim(PartitionAssignor):
    """A cooperative assignor that reads KIP-429's "exclude them from the
    assigned-partitions list" as "exclude every claimed partition": it withholds each
    partition some member claims, even from that member when it keeps it, and hands out
    only unclaimed ones (round robin). Nothing moves in one round, so
    ``validate_cooperative_assignment`` holds; but a sole owner, the only member
    subscribed, is told to revoke what nobody else could take (``no_partition_withheld``)."""

    name = "withholds-every-claim"
    supported_protocols = (COOPERATIVE,)
    reads_owned_partitions = True

    def assign(self, cluster, subscriptions):
        members = sorted(subscriptions)
        out = {m: [] for m in members}
        claimed = {tp for m in members for tp in subscriptions[m].owned_partitions}
        i = 0
        for topic in sorted(cluster):
            takers = [m for m in members if topic in subscriptions[m].topics]
            for p in range(cluster[topic]):
                tp = TopicPartition(topic, p)
                if takers and tp not in claimed:
                    out[takers[i % len(takers)]].append(tp)
                    i += 1
        return out


class AssumesEqualSubscriptions(_KafkaPythonEager):
    """Takes the group's topics from the first member's subscription, as if every member
    subscribed to the same topics: a topic only other members subscribe to is never
    assigned (``no_partition_withheld``: subscribed, and assigned to nobody)."""

    name = "assumes-equal-subscriptions"

    def plan(self, counts, topics):
        first = sorted(topics)[0]
        return _roundrobin({t: n for t, n in counts.items() if t in topics[first]}, topics, sorted(topics))


class IgnoresSubscription(_KafkaPythonEager):
    """A range assignor that splits every topic of the cluster over all members, whether
    or not they subscribed to it (``assignment_valid``: a partition goes to a member not
    subscribed to its topic)."""

    name = "ignores-subscription"

    def plan(self, counts, topics):
        members = sorted(topics)
        out = {m: [] for m in members}
        for topic in sorted(counts):
            for p in range(counts[topic]):
                out[members[p * len(members) // counts[topic]]].append((topic, p))
        return out


class ShufflesMembers(_KafkaPythonEager):
    """Round robin over the members in a random order, to "spread the load": the same
    subscriptions get a different assignment each time (``deterministic``)."""

    name = "shuffles-members"

    def plan(self, counts, topics):
        order = sorted(topics)
        random.shuffle(order)
        return _roundrobin(counts, topics, order)


class ReverseOrderRoundRobin(_KafkaPythonEager):
    """Not a bug: round robin over the members in *descending* member-id order (Kafka's
    sorts ascending). Which of two balanced members gets a partition is the assignor's
    choice; the protocol does not fix it, and conform must not flag it."""

    name = "reverse-order-roundrobin"

    def plan(self, counts, topics):
        return _roundrobin(counts, topics, sorted(topics, reverse=True))
