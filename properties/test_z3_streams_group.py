"""The KIP-1071 streams-group z3 queries: (g) the topology-epoch decision table is complete
and exclusive per profile; (i) request validation under ``kip-1071`` accepts exactly the KIP's
valid requests. Every weakening gives SAT, and its counterexample is replayed on the model's
rules in plain Python."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from groupcheck.model.streams_group.profiles import PROFILES
from groupcheck.model.streams_group.state import StreamsGroupHeartbeat, Subtopology, TaskIds, TopicInfo, Topology
from groupcheck.model.streams_group.topology import select
from groupcheck.model.streams_group.validation import PY, rules, validate, view
from groupcheck.properties.smt import COUNTEREXAMPLE, PROVED, all_queries
from groupcheck.properties.smt import streams_request_validation as qi
from groupcheck.properties.smt import streams_topology_epoch_table as qg


def test_both_streams_group_queries_are_registered():
    names = [n for n, _ in all_queries()]
    assert qg.NAME in names and qi.NAME in names


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_epoch_table_proved_per_profile(profile):
    result = qg.prove(profile)
    assert result.status == PROVED and result.weakened is None, str(result)


@pytest.mark.parametrize("weakening, violated", [("drop-lower-row", "complete"),
                                                 ("overlap-mismatch-row", "exclusive")])
def test_epoch_table_weakened(weakening, violated):
    result = qg.prove(weakened=weakening)
    assert result.status == COUNTEREXAMPLE and result.weakened == weakening, str(result)
    cex = result.counterexample
    assert any(v.startswith(violated) for v in cex["violated"])
    # replayed on the model's real table: exactly one row for the same inputs
    eg = cex["EG"] if cex["has_topology"] else None
    assert len(select(cex["profile"], cex["ER"], eg, cex["same"])) == 1
    assert len([r for r in qg.rows(cex["profile"], weakening)
                if r.guard(cex["ER"], cex["EG"], cex["same"], cex["has_topology"], PY)]) != 1


def test_validation_matches_kip():
    result = qi.prove("kip-1071")
    assert result.status == PROVED and result.counterexample is None, str(result)


@pytest.mark.parametrize("profile", ["kafka-4.1", "kafka-4.5"])
def test_shipped_validation_differs_from_kip(profile):
    """Kafka's validation is not the KIP's: z3 names a request they judge differently."""
    result = qi.prove(profile)
    assert result.status == COUNTEREXAMPLE, str(result)
    v = qi.view_from(result.counterexample)
    assert qi.accepts(v, PY, profile) != qi.kip_valid(v, PY)


@pytest.mark.parametrize("weakening", qi.WEAKENINGS)
def test_validation_weakened(weakening):
    """Dropping any one KIP rule lets through a request the KIP refuses; on the counterexample
    the dropped rule is the one that fires."""
    result = qi.prove(weakened=weakening)
    assert result.status == COUNTEREXAMPLE and result.weakened == weakening, str(result)
    v = qi.view_from(result.counterexample)
    dropped = weakening[len("drop:"):]
    assert not qi.kip_valid(v, PY) and qi.accepts(v, PY, "kip-1071", dropped)
    assert [r.name for r in rules("kip-1071") if r.fires(v, PY)] == [dropped]


def test_every_kip_rule_has_a_weakening():
    assert qi.WEAKENINGS == tuple(f"drop:{r.name}" for r in rules("kip-1071"))


# The encoding's link to the model: on concrete requests, the KIP formula (evaluated in
# Python on the model's view) agrees with ``validate``.
lists = st.one_of(st.none(), st.lists(st.builds(TaskIds, st.sampled_from(["0", "1"]),
                                                st.lists(st.integers(0, 2), max_size=2).map(tuple)),
                                      max_size=2).map(tuple))
subs = st.builds(Subtopology, st.sampled_from(["0", "1"]), st.lists(st.sampled_from(["in", "r"]), max_size=2).map(tuple),
                 state_changelog_topics=st.lists(st.builds(TopicInfo, st.sampled_from(["c", "in"]), st.integers(0, 1)),
                                                 max_size=1).map(tuple),
                 repartition_sink_topics=st.lists(st.just("r"), max_size=1).map(tuple),
                 repartition_source_topics=st.lists(st.builds(TopicInfo, st.just("r")), max_size=1).map(tuple))
requests = st.builds(StreamsGroupHeartbeat, st.sampled_from(["", "g"]), st.sampled_from(["", " ", "m"]),
                     st.integers(-3, 2), instance_id=st.sampled_from([None, "", "i"]),
                     rack_id=st.sampled_from([None, "", "r"]), rebalance_timeout_ms=st.integers(-1, 1),
                     topology=st.one_of(st.none(), st.builds(Topology, st.just(0),
                                                             st.lists(subs, max_size=2).map(tuple))),
                     active_tasks=lists, standby_tasks=lists, warmup_tasks=lists)


@settings(max_examples=400, deadline=None)
@given(requests)
def test_kip_formula_agrees_with_validate(request):
    assert qi.kip_valid(view(request, PROFILES["kip-1071"]), PY) == (validate(request, "kip-1071") is None)
