"""StreamsGroupHeartbeat request validation (KIP-1071 "Request Validation"), per profile.

    validate(request, profile)         -> Error | None   the service-level checks, in Kafka's order
    validate_tasks(request, num_tasks) -> Error | None   owned task ids against the group's topology

Kafka: ``GroupCoordinatorService#streamsGroupHeartbeat`` runs
``throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures`` and then
``throwIfStreamsGroupHeartbeatRequestIsInvalid`` (with ``throwIfInvalidTopology``) before the
request reaches the coordinator; ``GroupMetadataManager#throwIfRequestContainsInvalidTasks``
checks task ids once the group's topology is configured. Messages are Kafka's strings; a
rule only the KIP has gets a sentence of ours (marked ``# KIP only``).

Each rule is a ``Rule``: a name, the error, and a condition written against an ``Ops``
(``PY`` here, z3's in ``properties/smt/streams_group_request_validation.py``) over a
``View``: the facts of the request the rules read. So the same rule list is run here and
proved there; acceptance (no rule fires) does not depend on the order, the error returned
does (the first rule that fires).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Mapping, NamedTuple

from ..epochs.rules import PY, Ops   # the rule language (the z3 queries import it from here)
from .profiles import (INSTANCE_ID, SOURCE_TOPIC_REGEX, TASK_END_OFFSETS, TASK_OFFSETS, WARMUP_TASKS,
                       Profile, profile as _profile)
from .state import ERRORS, JOIN_EPOCH, LEAVE_STATIC_EPOCH, StreamsGroupHeartbeat, Topology

INVALID_REQUEST, INVALID_TOPOLOGY = "INVALID_REQUEST", "STREAMS_INVALID_TOPOLOGY"


class Error(NamedTuple):
    """An error response: the code's name (a key of ``state.ERRORS``) and Kafka's message
    (None where no shipped message is known)."""

    code: str
    message: str | None

    @property
    def error_code(self) -> int:
        return ERRORS[self.code]


class View(NamedTuple):
    """What the rules read of a request (under a profile's notion of an empty string)."""

    epoch: Any
    member_blank: Any
    group_blank: Any
    instance_null: Any
    instance_blank: Any
    rack_null: Any
    rack_blank: Any
    rebalance_timeout_ms: Any
    active_null: Any
    active_empty: Any
    standby_null: Any
    standby_empty: Any
    warmup_null: Any
    warmup_empty: Any
    overlap: Any                  # two non-null task lists share a task
    topology_null: Any
    task_offsets_null: Any
    task_end_offsets_null: Any
    regex_used: Any               # a subtopology of the topology has a source-topic regex
    changelog_partitions_set: Any  # the five STREAMS_INVALID_TOPOLOGY invariants, broken
    repartition_source_clash: Any
    changelog_clash: Any
    repartition_source_unsunk: Any
    copartition_index_invalid: Any


INVARIANTS = ("changelog_partitions_set", "repartition_source_clash", "changelog_clash",
              "repartition_source_unsunk", "copartition_index_invalid")

_JAVA_WHITESPACE = "".join(chr(c) for c in range(33))   # what Java's String#trim removes


def _blank(s: str | None, p: Profile) -> bool:
    if s is None:
        return False
    return (s.strip(_JAVA_WHITESPACE) if p.blank_is_empty else s) == ""


def _overlap(r: StreamsGroupHeartbeat) -> bool:
    lists = [x for x in (r.active_tasks, r.standby_tasks, r.warmup_tasks) if x is not None]
    seen: set[tuple[str, int]] = set()
    for tasks in lists:
        mine = {(t.subtopology_id, p) for t in tasks for p in t.partitions}
        if mine & seen:
            return True
        seen |= mine
    return False


def topology_violations(t: Topology | None) -> dict[str, str | None]:
    """Per STREAMS_INVALID_TOPOLOGY invariant, the message for its first offender or None."""
    out: dict[str, str | None] = dict.fromkeys(INVARIANTS)
    if t is None:
        return out
    subs = t.subtopologies
    sources = {x for s in subs for x in s.source_topics}
    changelogs = {c.name for s in subs for c in s.state_changelog_topics}
    sinks = {x for s in subs for x in s.repartition_sink_topics}
    rsources = {r.name for s in subs for r in s.repartition_source_topics}
    for s in subs:
        for c in s.state_changelog_topics:
            if c.partitions != 0 and out["changelog_partitions_set"] is None:
                # GroupCoordinatorService#throwIfInvalidTopology
                out["changelog_partitions_set"] = (f"Changelog topic {c.name} must have an undefined partition "
                                                   f"count, but it is set to {c.partitions}.")
            if c.name in sources | sinks | rsources and out["changelog_clash"] is None:   # KIP only
                out["changelog_clash"] = (f"State changelog topic {c.name} cannot be a source topic, a repartition "
                                          f"sink topic or a repartition source topic.")
        for r in s.repartition_source_topics:
            if r.name in sources | changelogs and out["repartition_source_clash"] is None:   # KIP only
                out["repartition_source_clash"] = (f"Repartition source topic {r.name} cannot be a source topic "
                                                   f"or a state changelog topic.")
            sunk = any(r.name in o.repartition_sink_topics for o in subs if o is not s)
            if not sunk and out["repartition_source_unsunk"] is None:   # KIP only
                out["repartition_source_unsunk"] = (f"Repartition source topic {r.name} of subtopology "
                                                    f"{s.subtopology_id} is not a repartition sink topic of any "
                                                    f"other subtopology.")
        for i, g in enumerate(s.copartition_groups):
            bad = any(not 0 <= k < n for ks, n in ((g.source_topics, len(s.source_topics)),
                                                  (g.source_topic_regex, len(s.source_topic_regex)),
                                                  (g.repartition_source_topics, len(s.repartition_source_topics)))
                      for k in ks)
            if bad and out["copartition_index_invalid"] is None:   # KIP only
                out["copartition_index_invalid"] = (f"Copartition group {i} of subtopology {s.subtopology_id} "
                                                    f"has an index outside its topic list.")
    return out


def view(r: StreamsGroupHeartbeat, p: Profile) -> View:
    broken = topology_violations(r.topology)
    return View(
        epoch=r.member_epoch, member_blank=_blank(r.member_id, p), group_blank=_blank(r.group_id, p),
        instance_null=r.instance_id is None, instance_blank=_blank(r.instance_id, p),
        rack_null=r.rack_id is None, rack_blank=_blank(r.rack_id, p), rebalance_timeout_ms=r.rebalance_timeout_ms,
        active_null=r.active_tasks is None, active_empty=not r.active_tasks,
        standby_null=r.standby_tasks is None, standby_empty=not r.standby_tasks,
        warmup_null=r.warmup_tasks is None, warmup_empty=not r.warmup_tasks,
        overlap=_overlap(r), topology_null=r.topology is None,
        task_offsets_null=r.task_offsets is None, task_end_offsets_null=r.task_end_offsets is None,
        regex_used=r.topology is not None and any(s.source_topic_regex for s in r.topology.subtopologies),
        **{k: m is not None for k, m in broken.items()})


class Rule(NamedTuple):
    name: str
    code: str
    fires: Callable[[View, Ops], Any]
    message: Callable[[StreamsGroupHeartbeat], str | None]


def _const(text: str) -> Callable[[StreamsGroupHeartbeat], str]:
    return lambda r: text


def _invariant(name: str) -> Rule:
    return Rule(name, INVALID_TOPOLOGY, lambda v, o: o.And(v.epoch == JOIN_EPOCH, getattr(v, name)),
                lambda r: topology_violations(r.topology)[name])


# GroupCoordinatorService#throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures (4.1)
_UNSUPPORTED = {
    INSTANCE_ID: Rule(INSTANCE_ID, INVALID_REQUEST, lambda v, o: o.Not(v.instance_null),
                      _const("Static membership is not yet supported.")),
    TASK_OFFSETS: Rule(TASK_OFFSETS, INVALID_REQUEST, lambda v, o: o.Not(v.task_offsets_null),
                       _const("TaskOffsets are not supported yet.")),
    TASK_END_OFFSETS: Rule(TASK_END_OFFSETS, INVALID_REQUEST, lambda v, o: o.Not(v.task_end_offsets_null),
                           _const("TaskEndOffsets are not supported yet.")),
    WARMUP_TASKS: Rule(WARMUP_TASKS, INVALID_REQUEST, lambda v, o: o.And(o.Not(v.warmup_null), o.Not(v.warmup_empty)),
                       _const("WarmupTasks are not supported yet.")),
    SOURCE_TOPIC_REGEX: Rule(SOURCE_TOPIC_REGEX, INVALID_REQUEST, lambda v, o: v.regex_used,
                             _const("Regular expressions for source topics are not supported yet.")),
}


def _joining_list(name: str, wire: str) -> Rule:
    return Rule(f"{name}_empty_at_join", INVALID_REQUEST,
                lambda v, o: o.And(v.epoch == JOIN_EPOCH, o.Or(getattr(v, f"{name}_null"),
                                                               o.Not(getattr(v, f"{name}_empty")))),
                _const(f"{wire} must be empty when (re-)joining."))


@lru_cache(maxsize=None)   # a few profiles; the checker validates every heartbeat
def rules(p: Profile | str) -> tuple[Rule, ...]:
    """The profile's rules in Kafka's order of checks (throwIfStreamsGroupHeartbeatRequestIsInvalid)."""
    p = _profile(p)
    out = [_UNSUPPORTED[u] for u in p.unsupported]
    if p.member_id_required_at_join:
        out.append(Rule("member_id", INVALID_REQUEST, lambda v, o: v.member_blank, _const("MemberId can't be empty.")))
    else:   # KIP: "Either MemberId is non-empty or MemberEpoch is 0."
        out.append(Rule("member_id", INVALID_REQUEST, lambda v, o: o.And(v.member_blank, v.epoch != JOIN_EPOCH),
                        _const("MemberId can't be empty.")))
    out.append(Rule("group_id", INVALID_REQUEST, lambda v, o: v.group_blank, _const("GroupId can't be empty.")))
    out.append(Rule("instance_id_empty", INVALID_REQUEST, lambda v, o: o.And(o.Not(v.instance_null), v.instance_blank),
                    _const("InstanceId can't be empty.")))
    if p.rack_id_checked:
        out.append(Rule("rack_id_empty", INVALID_REQUEST, lambda v, o: o.And(o.Not(v.rack_null), v.rack_blank),
                        _const("RackId can't be empty.")))
    if p.rebalance_timeout_positive:   # KIP: "must be larger than zero in the first heartbeat request"
        timeout_bad = lambda v: v.rebalance_timeout_ms <= 0   # noqa: E731
    else:                              # Kafka: rebalanceTimeoutMs() == -1
        timeout_bad = lambda v: v.rebalance_timeout_ms == -1   # noqa: E731
    out.append(Rule("rebalance_timeout_at_join", INVALID_REQUEST,
                    lambda v, o: o.And(v.epoch == JOIN_EPOCH, timeout_bad(v)),
                    _const("RebalanceTimeoutMs must be provided in first request.")))
    out += [_joining_list("active", "ActiveTasks"), _joining_list("standby", "StandbyTasks"),
            _joining_list("warmup", "WarmupTasks")]
    out.append(Rule("topology_at_join", INVALID_REQUEST, lambda v, o: o.And(v.epoch == JOIN_EPOCH, v.topology_null),
                    _const("Topology must be non-null when (re-)joining.")))
    out += [_invariant(n) for n in (INVARIANTS if p.all_topology_invariants else INVARIANTS[:1])]
    if p.static_leave_needs_instance_id:
        out.append(Rule("instance_id_at_static_leave", INVALID_REQUEST,
                        lambda v, o: o.And(v.epoch == LEAVE_STATIC_EPOCH, v.instance_null),
                        _const("InstanceId can't be null.")))
    out.append(Rule("member_epoch", INVALID_REQUEST, lambda v, o: v.epoch < LEAVE_STATIC_EPOCH,
                    lambda r: f"MemberEpoch is {r.member_epoch}, but must be greater than or equal to -2."))
    if p.task_lists_all_or_none:
        out.append(Rule("task_lists_all_or_none", INVALID_REQUEST,
                        lambda v, o: o.And(o.Or(o.Not(v.active_null), o.Not(v.standby_null), o.Not(v.warmup_null)),
                                           o.Or(v.active_null, v.standby_null, v.warmup_null)),
                        _const("If one task-type is non-null, all must be non-null.")))
    if p.task_lists_disjoint:   # KIP only
        out.append(Rule("task_lists_disjoint", INVALID_REQUEST, lambda v, o: v.overlap,
                        _const("ActiveTasks, StandbyTasks and WarmupTasks must be disjoint.")))
    out.append(Rule("topology_only_at_join", INVALID_REQUEST,
                    lambda v, o: o.And(v.epoch != JOIN_EPOCH, o.Not(v.topology_null)),
                    _const("Topology can only be provided when (re-)joining.")))
    return tuple(out)


@lru_cache(maxsize=1 << 14)   # pure; a search validates the same few requests again and again
def validate(request: StreamsGroupHeartbeat, profile: Profile | str = "kip-1071") -> Error | None:
    """The error Kafka (or the KIP) answers ``request`` with before looking at the group,
    or None when the request is valid. The first rule of ``rules(profile)`` that fires wins."""
    p = _profile(profile)
    v = view(request, p)
    for rule in rules(p):
        if rule.fires(v, PY):
            return Error(rule.code, rule.message(request))
    return None


def validate_tasks(request: StreamsGroupHeartbeat, number_of_tasks: Mapping[str, int]) -> Error | None:
    """KIP: "Each element of ActiveTasks, StandbyTasks and WarmupTasks has to be a valid task
    ID in the topology initialized for the group ID." ``number_of_tasks`` is the group's
    configured topology (subtopology id -> tasks); Kafka checks only once it is ready
    (GroupMetadataManager#throwIfRequestContainsInvalidTasks: active, standby, warm-up)."""
    for tasks in (request.active_tasks, request.standby_tasks, request.warmup_tasks):
        for t in tasks or ():
            if t.subtopology_id not in number_of_tasks:
                return Error(INVALID_REQUEST, f"Subtopology {t.subtopology_id} does not exist in the topology.")
            n = number_of_tasks[t.subtopology_id]
            for part in t.partitions:
                if part < 0 or part >= n:
                    return Error(INVALID_REQUEST, f"Task {part} for subtopology {t.subtopology_id} is invalid. "
                                                  f"Number of tasks for this subtopology: {n}")
    return None


__all__ = ["Error", "Ops", "PY", "Rule", "View", "INVARIANTS", "rules", "topology_violations", "validate",
           "validate_tasks", "view"]
