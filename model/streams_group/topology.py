"""KIP-1071 topologies at the coordinator: the topology-epoch decision at join, the
STALE_TOPOLOGY status, and "topology configuration" against the cluster's topics.

    join_rows(profile)                      the decision table, rows ``guard -> outcome``
    decide_join(profile, er, eg, same)      the one row's outcome (eg None: no group topology yet)
    stale_status(member_epoch, group_epoch) STALE_TOPOLOGY for a member behind the group, or None
    configure(topology, topics, profile)    statuses, tasks per subtopology, internal partitions

Guards are written against ``validation.Ops`` so ``properties/smt/streams_topology_epoch_table.py``
proves the same rows complete and exclusive with z3.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Mapping, NamedTuple

from .profiles import FENCE, INVALID_TOPOLOGY_EPOCH, Profile, profile as _profile
from .state import (INCORRECTLY_PARTITIONED_TOPICS, MISSING_INTERNAL_TOPICS, MISSING_SOURCE_TOPICS,
                    STALE_TOPOLOGY, Status, Topology)
from .validation import INVALID_REQUEST, INVALID_TOPOLOGY, PY, Error, Ops

# ---- (a) the topology-epoch decision at join ----

INITIALIZE = "initialize"   # no group topology yet: the member's becomes the group's
ACCEPT = "accept"           # the member joins with the group's topology
UPDATE = "update"           # the member's topology replaces the group's (KIP: ER = EG+1)
KEEP_GROUP = "keep-group"   # the group keeps its topology; the member gets STALE_TOPOLOGY (Kafka)
REJECT = "reject"           # an error response, nothing written

UPDATES_NOT_SUPPORTED = Error(INVALID_REQUEST, "Topology updates are not supported yet.")


class Outcome(NamedTuple):
    kind: str
    error: Error | None = None


class Row(NamedTuple):
    name: str
    guard: Callable[[Any, Any, Any, Any, Ops], Any]   # (er, eg, same, has_topology, ops)
    outcome: Outcome


def _none(er, eg, same, has, o):
    return o.Not(has)


def _equal_same(er, eg, same, has, o):
    return o.And(has, er == eg, same)


def _equal_different(er, eg, same, has, o):
    return o.And(has, er == eg, o.Not(same))


def _lower(er, eg, same, has, o):
    return o.And(has, er < eg)


def _next(er, eg, same, has, o):
    return o.And(has, er == eg + 1)


def _beyond_next(er, eg, same, has, o):
    return o.And(has, er > eg + 1)


def _higher(er, eg, same, has, o):
    return o.And(has, er > eg)


def join_rows(p: Profile | str) -> tuple[Row, ...]:
    """The profile's rows. KIP-1071 "Request Handling" 2.iii:
    "If ER=EG, check if topology metadata in the request is equal to the topology metadata of
    the group, otherwise fail with STREAMS_INVALID_TOPOLOGY_EPOCH; If ER<EG, fail with
    STREAMS_TOPOLOGY_FENCED; If ER>EG+1, fail with STREAMS_INVALID_TOPOLOGY_EPOCH; If ER=EG+1,
    update the topology". Kafka (GroupMetadataManager#maybeUpdateTopology): a group topology
    with a higher epoch is kept (the member is stale); otherwise anything but the group's own
    topology (a record equal in epoch and subtopologies) is "Topology updates are not
    supported yet."; KAFKA-21370 (4.5) answers STREAMS_INVALID_TOPOLOGY_EPOCH at the same epoch."""
    p = _profile(p)
    mismatch = (Outcome(REJECT, Error(INVALID_TOPOLOGY_EPOCH, None)) if p.same_epoch_mismatch == INVALID_TOPOLOGY_EPOCH
                else Outcome(REJECT, UPDATES_NOT_SUPPORTED))
    rows = [Row("no group topology", _none, Outcome(INITIALIZE)),
            Row("ER=EG, same metadata", _equal_same, Outcome(ACCEPT)),
            Row("ER=EG, different metadata", _equal_different, mismatch)]
    if p.stale_join == FENCE:
        rows.append(Row("ER<EG", _lower, Outcome(REJECT, Error("STREAMS_TOPOLOGY_FENCED", None))))
    else:
        rows.append(Row("ER<EG", _lower, Outcome(KEEP_GROUP)))
    if p.topology_updates:
        rows += [Row("ER=EG+1", _next, Outcome(UPDATE)),
                 Row("ER>EG+1", _beyond_next, Outcome(REJECT, Error(INVALID_TOPOLOGY_EPOCH, None)))]
    else:
        rows.append(Row("ER>EG", _higher, Outcome(REJECT, UPDATES_NOT_SUPPORTED)))
    return tuple(rows)


def select(p: Profile | str, er: int, eg: int | None, same: bool) -> list[Row]:
    """The rows whose guard holds (exactly one, proved by the z3 query)."""
    has = eg is not None
    return [r for r in join_rows(p) if r.guard(er, eg if has else 0, same, has, PY)]


def decide_join(p: Profile | str, er: int, eg: int | None, same: bool) -> Outcome:
    """The outcome of a join with topology epoch ``er`` against group topology epoch ``eg``
    (None: the group has no topology yet); ``same``: the request's subtopologies equal the group's."""
    (row,) = select(p, er, eg, same)
    return row.outcome


# ---- (b) STALE_TOPOLOGY for a member behind the group ----

def stale_status(member_topology_epoch: int, group_topology_epoch: int | None) -> Status | None:
    """KIP: "If the topology epoch in the request is less than the topology epoch of the
    group, set state STALE_TOPOLOGY in the response." Kafka compares the member's stored
    topology epoch (GroupMetadataManager#maybeSetTopologyStaleStatus)."""
    if group_topology_epoch is None or member_topology_epoch >= group_topology_epoch:
        return None
    return Status(STALE_TOPOLOGY, f"The member's topology epoch {member_topology_epoch} is behind the group's "
                                  f"topology epoch {group_topology_epoch}.")


# ---- (c) topology configuration ----

class ConfiguredTopology(NamedTuple):
    """The result of "topology configuration". ``number_of_tasks`` is None when configuration
    stopped before the subtopologies were sized (missing source topics, incorrect partitioning,
    an invalid topology)."""

    epoch: int
    number_of_tasks: dict[str, int] | None
    internal_partitions: dict[str, int]
    internal_topics_to_create: tuple[str, ...]
    status: Status | None
    error: Error | None = None

    @property
    def ready(self) -> bool:
        """KIP: "Only after the topology metadata is initialized and all source topics and
        internal topics exist, the group coordinator starts assigning tasks"; otherwise NOT_READY."""
        return self.status is None and self.error is None


def summarize(topics, limit: int | None = 3) -> str:
    """InternalTopicManager#summarizeTopics: up to three names, then "and N additional topics"
    (``limit`` None: all of them, as the KIP's "we specify all missing source topics")."""
    topics = list(topics)
    if not topics:
        return "<none>"
    shown = topics if limit is None else topics[:limit]
    rest = len(topics) - len(shown)
    return ", ".join(shown) + (f" and {rest} additional topics" if rest else "")


class _Failed(Exception):
    def __init__(self, status: Status | None = None, error: Error | None = None):
        self.status, self.error = status, error


def _java_map(counts: Mapping[str, int]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())) + "}"


def _sources(topology: Topology, topics: Mapping[str, int], p: Profile) -> dict[str, tuple[str, ...]]:
    """Each subtopology's external source topics, regexes resolved (KIP only). Raises
    MISSING_SOURCE_TOPICS (InternalTopicManager#throwOnMissingSourceTopics)."""
    missing: set[str] = set()
    out = {}
    for s in topology.subtopologies:
        names = list(s.source_topics)
        for pattern in s.source_topic_regex if p.source_topic_regex else ():
            matched = sorted(t for t in topics if re.fullmatch(pattern, t))
            names += matched
            if not matched:
                missing.add(pattern)
        missing |= {t for t in s.source_topics if t not in topics}
        out[s.subtopology_id] = tuple(names)
    if missing:
        limit = None if p.source_topic_regex else 3
        raise _Failed(Status(MISSING_SOURCE_TOPICS, f"Source topics {summarize(sorted(missing), limit)} are missing."))
    return out


def _repartition_counts(topology: Topology, sources, topics: Mapping[str, int]) -> dict[str, int]:
    """RepartitionTopics#setup: a repartition topic without a fixed count gets the maximal
    partition count of the source topics of the subtopologies writing to it, until a fixpoint."""
    counts = {r.name: r.partitions for s in topology.subtopologies for r in s.repartition_source_topics if r.partitions}
    pending = sorted({r.name for s in topology.subtopologies for r in s.repartition_source_topics} - set(counts))
    while pending:
        progress = False
        for name in pending:
            inputs = [n for s in topology.subtopologies if name in s.repartition_sink_topics
                      for n in (*sources[s.subtopology_id], *(r.name for r in s.repartition_source_topics))]
            known = [topics[n] if n in topics and n not in counts else counts.get(n) for n in inputs]
            known = [k for k in known if k]
            if known:
                counts[name], progress = max(known), True
        pending = [n for n in pending if n not in counts]
        if pending and not progress:
            raise _Failed(error=Error(INVALID_TOPOLOGY, "Failed to compute number of partitions for all repartition "
                                      "topics, make sure all user input topics are created and all Pattern "
                                      "subscriptions match at least one topic in the cluster"))
    return counts


def _copartition(topology: Topology, topics: Mapping[str, int], counts: dict[str, int]) -> None:
    """CopartitionedTopicsEnforcer#enforce, per copartition group. (Kafka checks the fixed
    repartition topics of the whole topology when a group holds only repartition topics; the
    model checks the group's own.)"""
    fixed = {r.name for s in topology.subtopologies for r in s.repartition_source_topics if r.partitions}
    for s in topology.subtopologies:
        for g in s.copartition_groups:
            group = {s.source_topics[i] for i in g.source_topics} | \
                    {s.repartition_source_topics[i].name for i in g.repartition_source_topics}
            internal = {t: counts[t] for t in group if t in counts}
            external = {t: topics[t] for t in group if t not in counts}
            if external:
                if len(set(external.values())) > 1:
                    raise _Failed(Status(INCORRECTLY_PARTITIONED_TOPICS, "Following topics do not have the same "
                                         f"number of partitions: [{_java_map(external)}]"))
                want = next(iter(external.values()))
            elif fixed & group:
                if len({internal[t] for t in fixed & group}) > 1:
                    raise _Failed(Status(INCORRECTLY_PARTITIONED_TOPICS, "Following topics do not have the same "
                                         f"number of partitions: [{_java_map(internal)}]"))
                want = internal[min(fixed & group)]
            else:
                want = max(internal.values())
            for t in sorted(internal):
                if t in fixed and internal[t] != want:
                    raise _Failed(Status(INCORRECTLY_PARTITIONED_TOPICS, f"Number of partitions [{internal[t]}] of "
                                         f"repartition topic [{t}] doesn't match number of partitions [{want}] "
                                         f"of the source topic."))
                counts[t] = want


def configure(topology: Topology, topics: Mapping[str, int], p: Profile | str = "kip-1071") -> ConfiguredTopology:
    """KIP "Handling topic topology mismatches", in its precedence order: MISSING_SOURCE_TOPICS,
    then INCORRECTLY_PARTITIONED_TOPICS, then MISSING_INTERNAL_TOPICS ("Topic configuration
    mismatches ... will be logged on the broker, but otherwise be ignored": ``topics`` holds
    only partition counts, so nothing else can matter). ``topics``: every existing topic,
    internal ones included, name -> partitions (InternalTopicManager#configureTopics)."""
    p = _profile(p)
    try:
        sources = _sources(topology, topics, p)
        counts = _repartition_counts(topology, sources, topics)
        _copartition(topology, topics, counts)
        tasks = {s.subtopology_id: max([topics[t] for t in sources[s.subtopology_id]]
                                       + [counts[r.name] for r in s.repartition_source_topics] or [0])
                 for s in topology.subtopologies}   # InternalTopicManager#computeNumberOfTasks
        for s in topology.subtopologies:   # ChangelogTopics#setup: a source topic used as changelog is not internal
            for c in s.state_changelog_topics:
                if c.name not in s.source_topics:
                    counts[c.name] = tasks[s.subtopology_id]
        for name in sorted(counts):         # InternalTopicManager#missingInternalTopics
            if name in topics and topics[name] != counts[name]:
                raise _Failed(Status(INCORRECTLY_PARTITIONED_TOPICS, f"Existing topic {name} has different number "
                                     f"of partitions: expected {counts[name]}, found {topics[name]}"))
    except _Failed as failed:
        return ConfiguredTopology(epoch=topology.epoch, number_of_tasks=None, internal_partitions={},
                                  internal_topics_to_create=(), status=failed.status, error=failed.error)
    create = tuple(sorted(n for n in counts if n not in topics))
    status = Status(MISSING_INTERNAL_TOPICS, f"Internal topics are missing: {summarize(create)}") if create else None
    return ConfiguredTopology(epoch=topology.epoch, number_of_tasks=tasks, internal_partitions=counts,
                              internal_topics_to_create=create, status=status)
