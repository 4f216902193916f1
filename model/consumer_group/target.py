"""The coordinator's inputs to a new target assignment (KIP-848 "Assignment"): the subscribed
topics' metadata it tracks, regex resolution, the assignor it picks, and the target itself over
the group's ``partition_index``.

    subscription_metadata(group, topics)   (topic, partitions) of every subscribed topic that exists
    resolve_regex(regex, topics)           the topic names a regex matches (None: not a valid regex)
    preferred_assignor(group, assignors)   the server assignor the members prefer, else the default
    new_target(group, assignor)            member id -> partitions bitmask

Sources (apache/kafka, group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
``GroupMetadataManager#updateTargetAssignment`` and ``modern/TargetAssignmentBuilder`` (each
member's spec carries its previous *target*, not its owned partitions),
``modern/consumer/ConsumerGroup#computeSubscriptionMetadata`` / ``computePreferredServerAssignor``,
``modern/consumer/TopicRegexResolver`` (a regex must match the whole topic name;
``Pattern.matcher(topic).matches()``; internal topics are skipped).
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Mapping, Optional

from ..assignors import consumer_group_range, consumer_group_uniform
from ..assignors.consumer_group_spec import GroupSpec, MemberSpec
from .group import Group

ASSIGNORS = {consumer_group_uniform.NAME: consumer_group_uniform.assign,
             consumer_group_range.NAME: consumer_group_range.assign}
# 3.7 / 3.8 shipped the sticky range assignor (before KAFKA-16944); ``new_target(sticky_range=True)``
STICKY_RANGE = consumer_group_range.assign_sticky


def subscribed_topic_names(group: Group) -> set[str]:
    """Every topic some member subscribes to, by name or through its resolved regex."""
    return {t for m in group.members for t in group.subscribed_topics(m)}


def subscription_metadata(group: Group, topics: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """KIP-848: "the partition metadata of all the subscribed topics" - subscribed topics that
    exist, with their partition counts (ConsumerGroup#computeSubscriptionMetadata)."""
    return tuple(sorted((t, topics[t]) for t in subscribed_topic_names(group) if t in topics))


def resolve_regex(regex: str, topics) -> Optional[tuple[str, ...]]:
    """The topics ``regex`` matches in full (Kafka: RE2/J ``Pattern.matcher(topic).matches()``;
    the model uses Python's ``re.fullmatch``, which agrees on the patterns scopes use), or None
    when it does not compile. Internal topics (``__`` prefix, Topic.isInternal) never match."""
    try:
        pattern = re.compile(regex)
    except re.error:
        return None
    return tuple(sorted(t for t in topics if not t.startswith("__") and pattern.fullmatch(t)))


def preferred_assignor(group: Group, assignors: tuple[str, ...]) -> str:
    """ConsumerGroup#computePreferredServerAssignor: the server assignor most members name
    (ties: the first in ``assignors`` order; Kafka: whichever its hash map yields first), else
    the default (the first configured, ``uniform``)."""
    counts = Counter(m.server_assignor for m in group.members if m.server_assignor is not None)
    if not counts:
        return assignors[0]
    top = max(counts.values())
    tied = [a for a in counts if counts[a] == top]
    return min(tied, key=lambda a: (assignors.index(a) if a in assignors else len(assignors), a))


def homogeneous(group: Group) -> bool:
    """ConsumerGroup#subscriptionType (4.0+): without regexes, HOMOGENEOUS when every subscribed
    name is subscribed by every member ("byNameCount != numberOfMembers" -> HETEROGENEOUS); with
    regexes, only "If all the members are subscribed to a single regular expressions and none of
    them are subscribed to topic names". A member naming the topics another's regex resolves to
    makes the group HETEROGENEOUS."""
    n = len(group.members)
    regexes = Counter(m.subscribed_topic_regex for m in group.members if m.subscribed_topic_regex)
    names = Counter(t for m in group.members for t in m.subscribed_topic_names)
    if not regexes:
        return all(c == n for c in names.values())
    return len(regexes) == 1 and next(iter(regexes.values())) == n and not names


def _spec(group: Group) -> GroupSpec:
    metadata = dict(group.subscription_metadata)
    index = group.partition_index
    members = []
    for m in group.members:
        mask = group.target_of(m.member_id)
        members.append(MemberSpec(m.member_id, tuple(t for t in group.subscribed_topics(m) if t in metadata),
                                  tuple(index[i] for i in range(len(index)) if mask >> i & 1), m.rack_id,
                                  m.instance_id))
    return GroupSpec(tuple(members), group.subscription_metadata, homogeneous(group))


def new_target(group: Group, assignor: str, sticky_range: bool = False) -> dict[str, int]:
    """The new target for every member of ``group`` from the named server assignor
    (``sticky_range``: 3.7/3.8's range assignor)."""
    if assignor not in ASSIGNORS:
        raise ValueError(f"new_target: unknown server assignor {assignor!r}; known: {', '.join(ASSIGNORS)}")
    fn = STICKY_RANGE if sticky_range and assignor == consumer_group_range.NAME else ASSIGNORS[assignor]
    result = fn(_spec(group))
    position = {tp: i for i, tp in enumerate(group.partition_index)}
    out = {}
    for m in group.members:
        tps = result.get(m.member_id, ())
        missing = [tp for tp in tps if tp not in position]
        if missing:
            raise ValueError(f"new_target: partitions {missing[:3]} are not in the group's partition_index; "
                             "build the group with a partition_index covering every topic of the cluster")
        out[m.member_id] = sum(1 << position[tp] for tp in tps)
    return out


__all__ = ["ASSIGNORS", "new_target", "preferred_assignor", "resolve_regex", "subscribed_topic_names",
           "subscription_metadata"]
