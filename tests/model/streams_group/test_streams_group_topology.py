"""Topologies at the coordinator: the topology-epoch decision table per profile, the
STALE_TOPOLOGY status, topology configuration.

Sources: GroupMetadataManager (maybeUpdateTopology, maybeSetTopologyStaleStatus),
streams/topics/{InternalTopicManager, CopartitionedTopicsEnforcer, RepartitionTopics,
ChangelogTopics}. Kafka's matching tests (GroupMetadataManagerTest, InternalTopicManagerTest,
CopartitionedTopicsEnforcerTest) were not read method by method, so none is cited by name.
"""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from groupcheck.model.streams_group.state import (INCORRECTLY_PARTITIONED_TOPICS, MISSING_INTERNAL_TOPICS,
                                       MISSING_SOURCE_TOPICS, STALE_TOPOLOGY, CopartitionGroup, Status, Subtopology,
                                       TopicInfo, Topology)
from groupcheck.model.streams_group.topology import (ACCEPT, INITIALIZE, KEEP_GROUP, REJECT, UPDATE, configure, decide_join,
                                          join_rows, select, stale_status, summarize)
from groupcheck.model.streams_group.validation import Error

KIP, K41, K45 = "kip-1071", "kafka-4.1", "kafka-4.5"
NOT_SUPPORTED = Error("INVALID_REQUEST", "Topology updates are not supported yet.")
EPOCH = Error("STREAMS_INVALID_TOPOLOGY_EPOCH", None)
FENCED = Error("STREAMS_TOPOLOGY_FENCED", None)

# (ER, EG, same metadata) -> outcome per profile
ROWS = [
    ((0, None, True), {KIP: (INITIALIZE, None), K41: (INITIALIZE, None), K45: (INITIALIZE, None)}),
    ((3, 3, True), {KIP: (ACCEPT, None), K41: (ACCEPT, None), K45: (ACCEPT, None)}),
    ((3, 3, False), {KIP: (REJECT, EPOCH), K41: (REJECT, NOT_SUPPORTED), K45: (REJECT, EPOCH)}),
    ((2, 3, True), {KIP: (REJECT, FENCED), K41: (KEEP_GROUP, None), K45: (KEEP_GROUP, None)}),
    ((2, 3, False), {KIP: (REJECT, FENCED), K41: (KEEP_GROUP, None), K45: (KEEP_GROUP, None)}),
    ((4, 3, False), {KIP: (UPDATE, None), K41: (REJECT, NOT_SUPPORTED), K45: (REJECT, NOT_SUPPORTED)}),
    ((4, 3, True), {KIP: (UPDATE, None), K41: (REJECT, NOT_SUPPORTED), K45: (REJECT, NOT_SUPPORTED)}),
    ((5, 3, True), {KIP: (REJECT, EPOCH), K41: (REJECT, NOT_SUPPORTED), K45: (REJECT, NOT_SUPPORTED)}),
]


@pytest.mark.parametrize("p", (KIP, K41, K45))
@pytest.mark.parametrize("inputs, expected", ROWS)
def test_decision_table_row(inputs, expected, p):
    er, eg, same = inputs
    got = decide_join(p, er, eg, same)
    assert (got.kind, got.error) == expected[p]


@given(st.integers(-3, 6), st.one_of(st.none(), st.integers(0, 5)), st.booleans(), st.sampled_from((KIP, K41, K45)))
def test_exactly_one_row_holds(er, eg, same, p):
    assert len(select(p, er, eg, same)) == 1


def test_error_codes():
    assert EPOCH.error_code == 131 and FENCED.error_code == 132
    assert [r.name for r in join_rows(K41)] == ["no group topology", "ER=EG, same metadata",
                                                "ER=EG, different metadata", "ER<EG", "ER>EG"]


def test_stale_status():
    """GroupMetadataManager#maybeSetTopologyStaleStatus."""
    assert stale_status(1, 2) == Status(STALE_TOPOLOGY, "The member's topology epoch 1 is behind the group's "
                                                        "topology epoch 2.")
    assert stale_status(2, 2) is None and stale_status(3, 2) is None and stale_status(0, None) is None


# ---- topology configuration

T = Topology(1, (
    Subtopology(subtopology_id="0", source_topics=("in",), repartition_sink_topics=("rep",),
                state_changelog_topics=(TopicInfo("c0"),)),
    Subtopology(subtopology_id="1", source_topics=("other",), repartition_source_topics=(TopicInfo("rep"),),
                state_changelog_topics=(TopicInfo("c1"),), copartition_groups=(CopartitionGroup((0,), (), (0,)),)),
))
READY = {"in": 4, "other": 4, "rep": 4, "c0": 4, "c1": 4}


def test_ready_topology_sizes_tasks_and_internal_topics():
    got = configure(T, READY)
    assert got.ready and got.status is None
    assert got.number_of_tasks == {"0": 4, "1": 4}
    assert got.internal_partitions == {"rep": 4, "c0": 4, "c1": 4}


def test_missing_source_topics_first():
    """KIP precedence: missing sources win over missing internal topics."""
    got = configure(T, {"in": 4})
    assert got.status == Status(MISSING_SOURCE_TOPICS, "Source topics other are missing.") and not got.ready


def test_missing_source_topics_summarized_as_kafka_does():
    many = Topology(0, (Subtopology(subtopology_id="0", source_topics=("a", "b", "c", "d", "e")),))
    assert configure(many, {}, K41).status.status_detail == "Source topics a, b, c and 2 additional topics are missing."
    assert configure(many, {}, KIP).status.status_detail == "Source topics a, b, c, d, e are missing."


def test_regex_resolution_kip_only():
    rx = Topology(0, (Subtopology(subtopology_id="0", source_topic_regex=("in-.*",)),))
    assert configure(rx, {"in-1": 2, "in-2": 3}).number_of_tasks == {"0": 3}
    assert configure(rx, {"x": 1}).status == Status(MISSING_SOURCE_TOPICS, "Source topics in-.* are missing.")


def test_copartitioned_external_topics_differ():
    got = configure(T._replace(subtopologies=(T.subtopologies[0], T.subtopologies[1]._replace(
        source_topics=("other", "third"), copartition_groups=(CopartitionGroup((0, 1)),)))),
        {"in": 4, "other": 4, "third": 2})
    assert got.status == Status(INCORRECTLY_PARTITIONED_TOPICS, "Following topics do not have the same number of "
                                                                "partitions: [{other=4, third=2}]")


def test_fixed_repartition_topic_disagrees_with_copartitioned_source():
    t = T._replace(subtopologies=(T.subtopologies[0], T.subtopologies[1]._replace(
        repartition_source_topics=(TopicInfo("rep", 3),))))
    got = configure(t, {"in": 4, "other": 4})
    assert got.status == Status(INCORRECTLY_PARTITIONED_TOPICS, "Number of partitions [3] of repartition topic [rep] "
                                                                "doesn't match number of partitions [4] of the source "
                                                                "topic.")


def test_flexible_repartition_topic_follows_copartitioned_source():
    got = configure(T, {"in": 4, "other": 3})
    assert got.internal_partitions["rep"] == 3 and got.number_of_tasks == {"0": 4, "1": 3}


def test_existing_internal_topic_wrongly_partitioned():
    got = configure(T, {**READY, "c1": 3})
    assert got.status == Status(INCORRECTLY_PARTITIONED_TOPICS, "Existing topic c1 has different number of "
                                                                "partitions: expected 4, found 3")


def test_missing_internal_topics_last():
    got = configure(T, {"in": 4, "other": 4, "c0": 4})
    assert got.status == Status(MISSING_INTERNAL_TOPICS, "Internal topics are missing: c1, rep")
    assert got.internal_topics_to_create == ("c1", "rep") and got.number_of_tasks == {"0": 4, "1": 4}
    assert not got.ready


def test_changelog_that_is_a_source_topic_is_not_internal():
    t = Topology(0, (Subtopology(subtopology_id="0", source_topics=("table",),
                                 state_changelog_topics=(TopicInfo("table"),)),))
    got = configure(t, {"table": 2})
    assert got.ready and got.internal_partitions == {}


def test_unsizable_repartition_topic_is_an_invalid_topology():
    t = Topology(0, (Subtopology(subtopology_id="0", repartition_sink_topics=("a",),
                                 repartition_source_topics=(TopicInfo("b"),)),
                     Subtopology(subtopology_id="1", repartition_sink_topics=("b",),
                                 repartition_source_topics=(TopicInfo("a"),))))
    got = configure(t, {})
    assert got.error.code == "STREAMS_INVALID_TOPOLOGY" and got.error.message.startswith(
        "Failed to compute number of partitions for all repartition topics")


def test_summarize():
    assert summarize([]) == "<none>" and summarize(["a", "b"]) == "a, b"
    assert summarize("abcd") == "a, b, c and 1 additional topics"
