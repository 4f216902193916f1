"""Two custom cooperative assignors, written on Kafka's terms, for ``groupcheck check``.

    groupcheck check consumer --plan 'examples.assignors:BalancedCooperative'        # holds
    groupcheck check consumer --plan 'examples.assignors:RangeClaimingCooperative'   # converges_within_k

Both see what Kafka's ConsumerCoordinator hands a non-built-in assignor: the partition
count of every subscribed topic and, per member, its topics, raw ownedPartitions and
generation. Neither gets Kafka's withholding (adjustAssignment is the built-in
cooperative-sticky's), and the leader runs validateCooperativeAssignment on both.
"""
from __future__ import annotations

from groupcheck.api import COOPERATIVE, EAGER, PartitionAssignor, TopicPartition, resolve_claims


class BalancedCooperative(PartitionAssignor):
    """A correct cooperative assignor. Each member keeps the claims KIP-792's rule lets
    it keep, up to a balanced quota; a partition goes to a new owner only once no
    member claims it any more, so a partition over quota is revoked in one rebalance
    and handed out in the next (KIP-429's two rebalances)."""

    name = "balanced-cooperative"
    supported_protocols = (COOPERATIVE, EAGER)
    reads_owned_partitions = True

    def assign(self, cluster, subscriptions):
        members = sorted(subscriptions)
        kept = resolve_claims(subscriptions).kept
        claimed = {tp for sub in subscriptions.values() for tp in sub.owned_partitions}
        wanted = [TopicPartition(t, p) for t in sorted(cluster) for p in range(cluster[t])]
        low, extra = divmod(len(wanted), len(members))
        out = {}
        for m in members:
            mine = [tp for tp in kept[m] if tp in wanted and tp.topic in subscriptions[m].topics]
            high = extra > 0 and len(mine) > low
            extra -= high
            out[m] = mine[:low + high]
        for tp in wanted:
            if tp in claimed or any(tp in given for given in out.values()):
                continue
            takers = [m for m in members if tp.topic in subscriptions[m].topics]
            if takers:
                out[min(takers, key=lambda m: (len(out[m]), m))].append(tp)
        return out


class RangeClaimingCooperative(PartitionAssignor):
    """Deliberately broken: it declares COOPERATIVE but assigns like RangeAssignor,
    ignoring ownedPartitions, so when a second member joins it moves a partition from
    its owner to the newcomer in one rebalance. validateCooperativeAssignment fails
    every such rebalance, and the group never settles: ``converges_within_k``."""

    name = "range-claiming-cooperative"
    supported_protocols = (COOPERATIVE,)
    reads_owned_partitions = False

    def assign(self, cluster, subscriptions):
        out = {m: [] for m in subscriptions}
        for topic in sorted(cluster):
            members = sorted(m for m, sub in subscriptions.items() if topic in sub.topics)
            for p in range(cluster[topic]):
                out[members[p * len(members) // cluster[topic]]].append(TopicPartition(topic, p))
        return out
