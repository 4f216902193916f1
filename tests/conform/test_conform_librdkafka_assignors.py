"""librdkafka's own assignors (targets ``librdkafka:<assignor>``), each run by a real
confluent-kafka consumer elected leader on librdkafka's mock cluster with the model's
crafted members over TCP: the leader is elected, what it computed is judged by the
per-invocation claims, every thread it started is gone afterwards, and a leader that
takes a share of the judged topics for itself is caught."""
import os

import pytest

from groupcheck.console import Limits
from groupcheck.conform import driver, verdict
from groupcheck.conform.roles.assignor import targets
from groupcheck.conform.targets.librdkafka.leader import LEADER_KEY, LeaderAdapter
from groupcheck.conform.roles.assignor.targets import Target

pytest.importorskip("confluent_kafka")

NAMES = ["librdkafka:range", "librdkafka:roundrobin", "librdkafka:cooperative-sticky"]
# a walk or two of KIP-792's zombies: a few distinct inputs, each one real rebalance
SMALL = driver.Settings(walks=4, walk_length=25, bfs=False, progress_every=1e9, only=("kip-792-zombies",))


def run(target, settings=SMALL):
    return driver.run_target(target, settings, Limits(100_000, 240, "4GiB"))


def threads() -> int:
    return len(os.listdir("/proc/self/task"))


def test_the_librdkafka_targets_are_listed_and_resolve():
    assert [n for n in targets.builtin_names() if n.startswith("librdkafka:")] == NAMES
    coop = targets.builtin("librdkafka:cooperative-sticky")
    assert coop.protocols == ("COOPERATIVE",) and coop.claims_from == "owned" and coop.balanced == "complete"
    assert targets.builtin("librdkafka:range").protocols == ("EAGER",)


def test_one_round_elects_the_consumer_and_stops_everything_it_started():
    before = threads()
    value = {"topics": {"t0": 3, "t1": 2}, "members": [
        {"member_id": "consumer-000", "version": 3, "topics": ["t0", "t1"], "owned_partitions": [["t0", 0]],
         "generation": 2, "user_data": None},
        {"member_id": "consumer-001", "version": 0, "topics": ["t0"], "owned_partitions": [], "generation": -1,
         "user_data": None}]}
    out = LeaderAdapter("range").invoke("assignor", "assign", value)
    assert out.ok, out.error
    # librdkafka's range (rdkafka_range_assignor.c), members sorted by id, topic by topic
    assert {m: sorted(map(tuple, tps)) for m, tps in out.value["assignment"].items()} == {
        "consumer-000": [("t0", 0), ("t0", 1), ("t1", 0), ("t1", 1)], "consumer-001": [("t0", 2)]}
    assert threads() == before          # the consumer, the mock cluster and the crafted connections are gone


@pytest.mark.parametrize("name", NAMES)
def test_each_librdkafka_assignor_is_judged_on_a_small_budget(name):
    r = run(targets.builtin(name))
    data = verdict.summary(r)
    assert data["distinct_inputs"] >= 3 and data["info"] == 0
    statuses = {p["property"]: p["status"] for p in data["properties"]}
    # what the leader computed was judged, and held: KIP-792's zombies give equal subscriptions
    assert statuses["assignment_valid"] == statuses["deterministic"] == "held"
    assert r.divergences == [], [(d.property, d.message) for d in r.divergences]


def test_a_leader_that_takes_a_share_of_the_judged_topics_is_caught():
    broken = Target("librdkafka:range+leader-takes-t0", lambda: LeaderAdapter("range", ("t0",)), "range", ("EAGER",),
                    None, None, "broken twist: the leader also subscribes to t0")
    r = run(broken)
    assert r.divergences and r.divergences[0].property == "assignment_valid"
    assert f"assigns to {LEADER_KEY}, not a member of the group" in r.divergences[0].message


def _member(i, owned, generation):
    return {"member_id": f"consumer-00{i}", "version": 3, "topics": ["t0"],
            "owned_partitions": [["t0", p] for p in owned], "generation": generation, "user_data": None}


def test_cooperative_sticky_answers_depend_on_the_order_members_joined():
    # consumer-002 still claims all of t0 at generation 3 (a 2.4-2.8 zombie, KAFKA-12983),
    # consumer-003 owns t0-0 at generation 5. The leader takes a partition's owner to be its
    # LAST claimant in join order, whatever the generations: rdkafka_sticky_assignor.c's
    # prepopulateCurrentAssignments (currentPartitionConsumer) and rdkafka_cgrp.c's
    # rd_kafka_cooperative_protocol_adjust_assignment (rd_kafka_collect_partitions' owned map).
    # Joined 003 then 002, the rightful owner loses t0-0 and nobody gets it this round
    value = {"topics": {"t0": 3}, "members": [_member(2, [0, 1, 2], 3), _member(3, [0], 5)]}
    adapter = LeaderAdapter("cooperative-sticky")
    first, again = (adapter.invoke("assignor", "assign", value) for _ in range(2))   # again: reverse join order
    assert first.ok and again.ok, (first.error, again.error)
    norm = [{m: sorted(map(tuple, tps)) for m, tps in o.value["assignment"].items()} for o in (first, again)]
    assert norm[0] == {"consumer-002": [("t0", 1), ("t0", 2)], "consumer-003": [("t0", 0)]}
    assert norm[1] == {"consumer-002": [("t0", 1), ("t0", 2)], "consumer-003": []}


@pytest.mark.parametrize("name", ["range", "roundrobin"])
def test_range_and_roundrobin_do_not_depend_on_join_order(name):
    value = {"topics": {"t0": 3}, "members": [_member(2, [0, 1, 2], 3), _member(3, [0], 5)]}
    adapter = LeaderAdapter(name)
    first, again = (adapter.invoke("assignor", "assign", value) for _ in range(2))
    assert first.ok and again.ok and first.value == again.value


def test_cooperative_sticky_gives_a_partition_to_a_stale_claimant():
    # two v1 claims on t0-0 (no generation: -1) and consumer-004's at generation 5:
    # prepopulateCurrentAssignments drops t0-0 from every claimant when ANY two claims share
    # a generation (rd_list_find_duplicate on the whole sorted list, not only the highest),
    # so the generation-5 owner loses it; joined 004, 003, 002, it goes to the stale consumer-002
    from groupcheck.conform.roles.assignor import claims
    from groupcheck.conform.targets.librdkafka.leader import elect_and_assign
    v1 = [dict(_member(i, [0], -1), version=1) for i in (2, 3)]
    value = {"topics": {"t0": 2}, "members": [*v1, _member(4, [0, 1], 5)]}
    answer = elect_and_assign("cooperative-sticky", value, order=[2, 1, 0])
    assert claims.generation_aware_claims(value, answer, "COOPERATIVE", "complete") == (
        "t0-0 given to consumer-002, whose claim is of generation -1, while consumer-004 claims it at generation 5")


def test_cooperative_sticky_gives_back_an_owned_partition_of_a_deleted_topic():
    # t0 was deleted; consumer-001 still claims t0-0. rdkafka_cgrp.c's
    # rd_kafka_cooperative_protocol_adjust_assignment gives "unknown-but-owned" partitions
    # back to their claimant (a deliberate choice, from Kafka 2.4's adjustAssignment)
    from groupcheck.conform.roles.assignor import claims
    from groupcheck.conform.targets.librdkafka.leader import elect_and_assign
    value = {"topics": {"t1": 1}, "members": [
        {"member_id": "consumer-001", "version": 3, "topics": ["t1"], "owned_partitions": [["t0", 0]],
         "generation": 2, "user_data": None},
        {"member_id": "consumer-002", "version": 3, "topics": ["t1"], "owned_partitions": [], "generation": 2,
         "user_data": None}]}
    answer = elect_and_assign("cooperative-sticky", value)
    assert claims.assignment_valid(value, answer, "COOPERATIVE", "complete") == (
        "assigns t0-0, which does not exist (cluster {'t1': 1})")


def test_target_all_leaves_librdkafka_to_be_named():
    """``--target all`` runs every built-in assignor but librdkafka's (a real rebalance per
    call: 4-10 minutes each at the default scopes); each is still a built-in target."""
    from groupcheck.conform.roles.driven import _targets
    from groupcheck.conform.roles.assignor import targets
    every = [t.name for t in _targets(targets, ["all"], None, None, 10.0)]
    assert "kafka-python:cooperative-sticky" in every and not any(n.startswith("librdkafka:") for n in every)
    assert [t.name for t in _targets(targets, ["librdkafka:range"], None, None, 10.0)] == ["librdkafka:range"]


def test_the_two_bounce_upgrade_is_not_run_with_librdkafkas_own_reason():
    """librdkafka's cooperative-sticky is COOPERATIVE only and librdkafka refuses a consumer
    that lists it next to range: the verdict says so in the scope's "not run" reason, in
    librdkafka's own words (checked against a real confluent-kafka consumer)."""
    import confluent_kafka
    r = run(targets.builtin("librdkafka:cooperative-sticky"),
            driver.Settings(walks=0, progress_every=1e9, only=("two-bounce-upgrade",)))
    why = next(s.not_run for s in r.scopes if s.name == "two-bounce-upgrade")
    assert why.startswith("not configurable:") and "must have the same protocol type" in why
    with pytest.raises(confluent_kafka.KafkaException, match="must have the same protocol type"):
        confluent_kafka.Consumer({"bootstrap.servers": "127.0.0.1:1", "group.id": "g",
                                  "partition.assignment.strategy": "cooperative-sticky,range"})


def test_a_round_that_did_not_form_in_the_short_window_is_tried_once_more(monkeypatch):
    """The mock's join window is short (a round in about 0.3 s); a round that did not
    form as one generation is tried again with the long window before it is info."""
    from groupcheck.conform.targets.librdkafka import leader
    from groupcheck.conform.targets.librdkafka.leader import RoundError
    tried = []

    def late_once(assignor, value, leader_topics, order, window):
        tried.append(window)
        if window == leader.JOIN_WINDOWS_MS[0]:
            raise RoundError("consumer-002 joined after the window")
        return {"consumer-002": [["t0", 0]]}
    monkeypatch.setattr(leader, "elect_and_assign", late_once)
    value = {"topics": {"t0": 1}, "members": [_member(2, [], -1)]}
    out = LeaderAdapter("range").invoke("assignor", "assign", value)
    assert out.ok and out.value == {"assignment": {"consumer-002": [["t0", 0]]}}
    assert tried == list(leader.JOIN_WINDOWS_MS)
    monkeypatch.setattr(leader, "elect_and_assign", lambda *a: (_ for _ in ()).throw(RoundError("never formed")))
    out = LeaderAdapter("range").invoke("assignor", "assign", value)
    assert out.type == "info" and "never formed" in out.error
