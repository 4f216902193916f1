"""StreamsGroupHeartbeat request validation, one test per rule per profile.

Sources: GroupCoordinatorService (throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures,
throwIfStreamsGroupHeartbeatRequestIsInvalid, throwIfInvalidTopology) and GroupMetadataManager
(throwIfRequestContainsInvalidTasks). Kafka asserts these messages in GroupCoordinatorServiceTest
and GroupMetadataManagerTest; the individual test methods were not located (the files are past
the search index's reach), so none is cited by name.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from groupcheck.model.streams_group.profiles import PROFILES
from groupcheck.model.streams_group.state import (ERRORS, CopartitionGroup, StreamsGroupHeartbeat, Subtopology, TaskIds,
                                       TaskOffset, TopicInfo, Topology)
from groupcheck.model.streams_group.validation import Error, rules, validate, validate_tasks

KIP, K41, K45 = "kip-1071", "kafka-4.1", "kafka-4.5"
ALL = (KIP, K41, K45)
IR = "INVALID_REQUEST"
TOPO = Topology(0, (Subtopology(subtopology_id="0", source_topics=("in",), repartition_sink_topics=("rep",),
                                state_changelog_topics=(TopicInfo("c0"),)),
                    Subtopology(subtopology_id="1", source_topics=("in2",),
                                repartition_source_topics=(TopicInfo("rep"),))))
JOIN = StreamsGroupHeartbeat(group_id="g", member_id="m", member_epoch=0, rebalance_timeout_ms=1000, topology=TOPO,
                             active_tasks=(), standby_tasks=(), warmup_tasks=())
BEAT = StreamsGroupHeartbeat(group_id="g", member_id="m", member_epoch=5)


def err(msg: str, code: str = IR) -> Error:
    return Error(code, msg)


@pytest.mark.parametrize("p", ALL)
def test_a_proper_join_and_heartbeat_are_valid(p):
    assert validate(JOIN, p) is None and validate(BEAT, p) is None
    assert validate(BEAT._replace(active_tasks=(TaskIds("0", (1,)),), standby_tasks=(), warmup_tasks=()), p) is None


# (request change, profile -> expected error or None)
CASES = {
    "empty member id at join": (dict(member_id=""), {KIP: None, K41: err("MemberId can't be empty."),
                                                      K45: err("MemberId can't be empty.")}),
    "blank member id": (dict(member_id=" \t", member_epoch=3, topology=None, active_tasks=None, standby_tasks=None,
                             warmup_tasks=None),
                        {KIP: None, K41: err("MemberId can't be empty."), K45: err("MemberId can't be empty.")}),
    "empty member id later": (dict(member_id="", member_epoch=3, topology=None),
                              {p: err("MemberId can't be empty.") for p in ALL}),
    "empty group id": (dict(group_id=""), {p: err("GroupId can't be empty.") for p in ALL}),
    "empty instance id": (dict(instance_id=""), {KIP: err("InstanceId can't be empty."),
                                                 K41: err("Static membership is not yet supported."),
                                                 K45: err("InstanceId can't be empty.")}),
    "instance id": (dict(instance_id="i"), {KIP: None, K41: err("Static membership is not yet supported."),
                                            K45: None}),
    "empty rack id": (dict(rack_id=""), {KIP: None, K41: err("RackId can't be empty."),
                                         K45: err("RackId can't be empty.")}),
    "no rebalance timeout at join": (dict(rebalance_timeout_ms=-1),
                                     {p: err("RebalanceTimeoutMs must be provided in first request.") for p in ALL}),
    "zero rebalance timeout at join": (dict(rebalance_timeout_ms=0),
                                       {KIP: err("RebalanceTimeoutMs must be provided in first request."),
                                        K41: None, K45: None}),
    "null active tasks at join": (dict(active_tasks=None),
                                  {p: err("ActiveTasks must be empty when (re-)joining.") for p in ALL}),
    "active tasks at join": (dict(active_tasks=(TaskIds("0", (0,)),)),
                             {p: err("ActiveTasks must be empty when (re-)joining.") for p in ALL}),
    "standby tasks at join": (dict(standby_tasks=(TaskIds("0", (0,)),)),
                              {p: err("StandbyTasks must be empty when (re-)joining.") for p in ALL}),
    "null warm-up tasks at join": (dict(warmup_tasks=None),
                                   {p: err("WarmupTasks must be empty when (re-)joining.") for p in ALL}),
    "warm-up tasks at join": (dict(warmup_tasks=(TaskIds("0", (0,)),)),
                              {KIP: err("WarmupTasks must be empty when (re-)joining."),
                               K41: err("WarmupTasks are not supported yet."),
                               K45: err("WarmupTasks must be empty when (re-)joining.")}),
    "no topology at join": (dict(topology=None), {p: err("Topology must be non-null when (re-)joining.") for p in ALL}),
    "epoch -3": (dict(member_epoch=-3, topology=None),
                 {p: err("MemberEpoch is -3, but must be greater than or equal to -2.") for p in ALL}),
    "static leave without instance id": (dict(member_epoch=-2, topology=None),
                                         {KIP: None, K41: err("InstanceId can't be null."),
                                          K45: err("InstanceId can't be null.")}),
    "static leave": (dict(member_epoch=-2, topology=None, instance_id="i"),
                     {KIP: None, K41: err("Static membership is not yet supported."), K45: None}),
    "topology after join": (dict(member_epoch=4, active_tasks=None, standby_tasks=None, warmup_tasks=None),
                            {p: err("Topology can only be provided when (re-)joining.") for p in ALL}),
    "one task list only": (dict(member_epoch=4, topology=None, standby_tasks=None),
                           {KIP: None, K41: err("If one task-type is non-null, all must be non-null."),
                            K45: err("If one task-type is non-null, all must be non-null.")}),
    "overlapping task lists": (dict(member_epoch=4, topology=None, active_tasks=(TaskIds("0", (1,)),),
                                    standby_tasks=(TaskIds("0", (1, 2)),)),
                               {KIP: err("ActiveTasks, StandbyTasks and WarmupTasks must be disjoint."),
                                K41: None, K45: None}),
    "task offsets": (dict(task_offsets=(TaskOffset("0", 0, 5),)),
                     {KIP: None, K41: err("TaskOffsets are not supported yet."), K45: None}),
    "task end offsets": (dict(task_end_offsets=()),
                         {KIP: None, K41: err("TaskEndOffsets are not supported yet."), K45: None}),
}


@pytest.mark.parametrize("p", ALL)
@pytest.mark.parametrize("case", sorted(CASES))
def test_rule(case, p):
    change, expected = CASES[case]
    assert validate(JOIN._replace(**change), p) == expected[p]


def _with(sub0: Subtopology | None = None, sub1: Subtopology | None = None) -> Topology:
    subs = TOPO.subtopologies
    return Topology(0, (sub0 or subs[0], sub1 or subs[1]))


S0, S1 = TOPO.subtopologies
INV = "STREAMS_INVALID_TOPOLOGY"
TOPOLOGY_CASES = {
    "changelog with partitions": (_with(S0._replace(state_changelog_topics=(TopicInfo("c0", 3),))),
                                  "Changelog topic c0 must have an undefined partition count, but it is set to 3.",
                                  True),
    "repartition source is a source topic": (
        _with(sub1=S1._replace(source_topics=("in2", "rep"))),
        "Repartition source topic rep cannot be a source topic or a state changelog topic.", False),
    "changelog is a source topic": (
        _with(S0._replace(state_changelog_topics=(TopicInfo("in"),))),
        "State changelog topic in cannot be a source topic, a repartition sink topic or a repartition source topic.",
        False),
    "repartition source not sunk": (
        _with(S0._replace(repartition_sink_topics=())),
        "Repartition source topic rep of subtopology 1 is not a repartition sink topic of any other subtopology.", False),
    "repartition source sunk only by its own subtopology": (
        _with(S0._replace(repartition_sink_topics=()), S1._replace(repartition_sink_topics=("rep",))),
        "Repartition source topic rep of subtopology 1 is not a repartition sink topic of any other subtopology.", False),
    "negative copartition index": (
        _with(sub1=S1._replace(copartition_groups=(CopartitionGroup((-1,)),))),
        "Copartition group 0 of subtopology 1 has an index outside its topic list.", False),
    "copartition index out of range": (
        _with(sub1=S1._replace(copartition_groups=(CopartitionGroup((0, 1)),))),
        "Copartition group 0 of subtopology 1 has an index outside its topic list.", False),
}


@pytest.mark.parametrize("p", ALL)
@pytest.mark.parametrize("case", sorted(TOPOLOGY_CASES))
def test_topology_invariant(case, p):
    """KIP: STREAMS_INVALID_TOPOLOGY invariants. Kafka checks only changelog partitions
    (GroupCoordinatorService#throwIfInvalidTopology)."""
    topology, message, shipped = TOPOLOGY_CASES[case]
    got = validate(JOIN._replace(topology=topology), p)
    if p == KIP or shipped:
        assert got == Error(INV, message) and got.error_code == 130
    else:
        assert got is None


@pytest.mark.parametrize("p", (K41, K45))
def test_source_topic_regex_is_unsupported(p):
    topology = _with(S0._replace(source_topic_regex=("in.*",)))
    assert validate(JOIN._replace(topology=topology), p) == err(
        "Regular expressions for source topics are not supported yet.")
    assert validate(JOIN._replace(topology=topology), KIP) is None


def test_unsupported_features_come_before_validation():
    """4.1 runs throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures first."""
    bad = JOIN._replace(group_id="", instance_id="i")
    assert validate(bad, K41) == err("Static membership is not yet supported.")
    assert validate(bad, K45) == err("GroupId can't be empty.")


def test_order_of_checks_is_kafkas():
    bad = JOIN._replace(member_id="", group_id="", rebalance_timeout_ms=-1, topology=None)
    assert validate(bad, K41).message == "MemberId can't be empty."
    assert validate(bad, KIP).message == "GroupId can't be empty."
    assert validate(bad._replace(group_id="g"), KIP).message == "RebalanceTimeoutMs must be provided in first request."
    names = [r.name for r in rules(K41)]
    assert names.index("member_id") < names.index("group_id") < names.index("rebalance_timeout_at_join") \
        < names.index("topology_at_join") < names.index("member_epoch") < names.index("topology_only_at_join")


def test_error_codes_are_kafkas():
    assert err("x").error_code == ERRORS["INVALID_REQUEST"] == 42


# ---- task ids against the group's configured topology

TASKS = {"0": 4, "1": 2}


@pytest.mark.parametrize("tasks, message", [
    ((TaskIds("0", (0, 3)), TaskIds("1", (1,))), None),
    ((TaskIds("9", (0,)),), "Subtopology 9 does not exist in the topology."),
    ((TaskIds("1", (2,)),), "Task 2 for subtopology 1 is invalid. Number of tasks for this subtopology: 2"),
    ((TaskIds("0", (-1,)),), "Task -1 for subtopology 0 is invalid. Number of tasks for this subtopology: 4"),
])
@pytest.mark.parametrize("field", ["active_tasks", "standby_tasks", "warmup_tasks"])
def test_validate_tasks(field, tasks, message):
    """GroupMetadataManager#throwIfRequestContainsInvalidTasks."""
    got = validate_tasks(BEAT._replace(**{field: tasks}), TASKS)
    assert got == (None if message is None else err(message))


def test_validate_tasks_checks_active_first():
    r = BEAT._replace(active_tasks=(TaskIds("8", (0,)),), standby_tasks=(TaskIds("9", (0,)),))
    assert validate_tasks(r, TASKS).message == "Subtopology 8 does not exist in the topology."


# ---- Hypothesis: validate never raises and answers with a known code

names = st.one_of(st.none(), st.sampled_from(["", " ", "a", "0", "1"]))
task_lists = st.one_of(st.none(), st.lists(st.builds(TaskIds, st.sampled_from(["0", "1", "9"]),
                                                     st.lists(st.integers(-1, 4), max_size=3).map(tuple)),
                                           max_size=2).map(tuple))
topics = st.lists(st.sampled_from(["in", "in2", "rep", "c0"]), max_size=2).map(tuple)
topic_infos = st.lists(st.builds(TopicInfo, st.sampled_from(["rep", "c0", "in"]), st.integers(0, 2)),
                       max_size=2).map(tuple)
subtopologies = st.builds(Subtopology, st.sampled_from(["0", "1"]), topics, st.lists(st.just("x.*"), max_size=1).map(tuple),
                          topic_infos, topics, topic_infos,
                          st.lists(st.builds(CopartitionGroup, st.lists(st.integers(-1, 2), max_size=2).map(tuple)),
                                   max_size=1).map(tuple))
topologies = st.one_of(st.none(), st.builds(Topology, st.integers(0, 2), st.lists(subtopologies, max_size=3).map(tuple)))
requests = st.builds(StreamsGroupHeartbeat, st.sampled_from(["", " ", "g"]), st.sampled_from(["", " ", "m"]),
                     st.integers(-4, 3), instance_id=names, rack_id=names, rebalance_timeout_ms=st.integers(-2, 1),
                     topology=topologies, active_tasks=task_lists, standby_tasks=task_lists, warmup_tasks=task_lists,
                     task_offsets=st.one_of(st.none(), st.just(())), task_end_offsets=st.one_of(st.none(), st.just(())))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(requests, st.sampled_from(sorted(PROFILES)))
def test_validate_never_raises_and_answers_a_known_code(request, p):
    got = validate(request, p)
    assert got is None or (got.code in ("INVALID_REQUEST", "STREAMS_INVALID_TOPOLOGY") and got.message)
    tasks = validate_tasks(request, TASKS)
    assert tasks is None or tasks.code == "INVALID_REQUEST"
