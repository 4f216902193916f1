"""The streams group coordinator's StreamsGroupHeartbeat handler (KIP-1071 "Request Handling"):
each step's errors per profile, the group-epoch bump list, the lost-response case, NOT_READY,
SHUTDOWN_APPLICATION, timeouts, and replay(log) == group after every heartbeat (the driver
in streams_group_clients asserts it)."""
from dataclasses import replace

import pytest

from groupcheck.model.streams_group.coordinator import (Cluster, Config, NotModelled, OtherGroup, failover, heartbeat,
                                             rebalance_timeout, session_timeout)
from groupcheck.model.streams_group.group import group_state
from groupcheck.model.streams_group.state import (ERRORS, MISSING_SOURCE_TOPICS, NOT_READY, SHUTDOWN_APPLICATION, STABLE,
                                       Endpoint, KeyValue, TaskIds, TaskOffset)
from groupcheck.model.streams_group.target import AssignmentConfigs
from tests.helpers.streams_group_clients import Client, World, fresh, stateless

CLUSTER = Cluster((("in", 9),))


def world(profile="kip-1071", n=2, **kw):
    w = World(fresh(), CLUSTER, profile, **kw)
    clients = [Client(m, "p" + m, stateless(0)) for m in "ABC"[:n]]
    w.converge(clients)
    return w, clients


def reasons(out):
    return dict(out.events).get("group_epoch_bumped")


def code(out):
    return out.response.error_code


# ---- step 1: validation comes first ----

@pytest.mark.parametrize("profile", ["kip-1071", "kafka-4.1"])
def test_validation_precedes_group_lookup(profile):
    w = World(fresh(), CLUSTER, profile)
    out = w.send(w.request(Client("A", "pA", stateless(0)), member_epoch=5, topology=stateless(0)))
    assert code(out) == ERRORS["INVALID_REQUEST"]          # not GROUP_ID_NOT_FOUND
    assert out.response.error_message == "Topology can only be provided when (re-)joining."
    assert out.records == ()


def test_kafka_rejects_an_empty_member_id_at_join_the_kip_does_not():
    for profile, expected in (("kafka-4.1", ERRORS["INVALID_REQUEST"]), ("kip-1071", 0)):
        w = World(fresh(), CLUSTER, profile)
        assert code(w.beat(Client("", "p", stateless(0)))) == expected


# ---- step 2: join ----

def test_join_creates_the_group_and_bumps():
    w = World(fresh(), CLUSTER)
    out = w.beat(Client("A", "pA", stateless(0)))
    assert out.group.group_epoch == 1 and "member joined" in reasons(out)
    assert out.response.member_epoch == 1 and out.response.active_tasks == (TaskIds("0", tuple(range(9))),)


@pytest.mark.parametrize("profile", ["kip-1071", "kafka-4.1"])
def test_join_a_group_of_another_type(profile):
    w = World(fresh(), CLUSTER, profile)
    out = heartbeat(OtherGroup("app", "consumer"), w.request(Client("A", "pA", stateless(0))), CLUSTER, profile)
    assert code(out) == ERRORS["GROUP_ID_NOT_FOUND"] and out.records == ()
    with pytest.raises(NotModelled):
        heartbeat(OtherGroup("app", "classic"), w.request(Client("A", "pA", stateless(0))), CLUSTER, profile)


@pytest.mark.parametrize("profile,known_rejected", [("kip-1071", False), ("kafka-4.1", True)])
def test_full_group(profile, known_rejected):
    w, (a, b) = world(profile, config=Config(max_size=2))
    assert code(w.beat(Client("C", "pC", stateless(0)))) == ERRORS["GROUP_MAX_SIZE_REACHED"]
    a.epoch = 0   # a known member rejoins
    expected = ERRORS["GROUP_MAX_SIZE_REACHED"] if known_rejected else 0
    assert code(w.beat(a)) == expected


@pytest.mark.parametrize("profile,expected", [("kip-1071", "STREAMS_TOPOLOGY_FENCED"),
                                              ("kafka-4.1", "NONE")])
def test_join_with_a_lower_topology_epoch(profile, expected):
    w = World(fresh(), CLUSTER, profile)
    w.beat(Client("A", "pA", stateless(1 if profile == "kip-1071" else 0)))
    if profile == "kafka-4.1":
        return  # 4.1 cannot raise the group's topology epoch (see the A/B/C test)
    assert code(w.beat(Client("B", "pB", stateless(0)))) == ERRORS[expected]


@pytest.mark.parametrize("profile,expected", [("kip-1071", "STREAMS_INVALID_TOPOLOGY_EPOCH"),
                                              ("kafka-4.1", "INVALID_REQUEST"), ("kafka-4.5", "STREAMS_INVALID_TOPOLOGY_EPOCH")])
def test_join_same_epoch_other_topology(profile, expected):
    w, _ = world(profile, n=1)
    out = w.beat(Client("B", "pB", stateless(0, topic="other")))
    assert code(out) == ERRORS[expected] and out.records == ()


def test_rejoin_from_a_known_member_resets_it_and_gives_its_tasks_back():
    w, (a, b) = world()
    epoch = w.group.group_epoch
    a.epoch = 0
    out = w.beat(a)
    assert code(out) == 0 and out.group.group_epoch == epoch           # no metadata change: no bump
    assert out.response.active_tasks is not None and a.owned == w.group.target_of("A")


# ---- step 3: existing members ----

def test_heartbeat_to_a_missing_group():
    w = World(fresh(), CLUSTER)
    out = w.beat(Client("A", "pA", stateless(0), epoch=3))
    assert code(out) == ERRORS["GROUP_ID_NOT_FOUND"] and out.response.error_message == "Streams group app not found."


def test_unknown_member():
    w, _ = world(n=1)
    assert code(w.beat(Client("Z", "pZ", stateless(0), epoch=1))) == ERRORS["UNKNOWN_MEMBER_ID"]


@pytest.mark.parametrize("profile,removed", [("kip-1071", True), ("kafka-4.1", False)])
def test_fenced_member_epoch(profile, removed):
    w, (a, b) = world(profile)
    epoch = w.group.group_epoch
    a.epoch += 5
    out = w.beat(a)
    assert code(out) == ERRORS["FENCED_MEMBER_EPOCH"]
    assert (w.group.member("A") is None) == removed
    assert w.group.group_epoch == epoch + removed
    assert (reasons(out) == ("member fenced",)) if removed else out.records == ()


def test_lost_response_previous_epoch_with_owned_subset_is_accepted():
    w, (a, b) = world()
    m = w.group.member("A")
    assert m.previous_epoch < m.epoch
    a.epoch = m.previous_epoch              # the response with the bump was lost
    out = w.beat(a)
    assert code(out) == 0 and out.response.member_epoch == m.epoch


def test_lost_response_with_unowned_task_is_fenced():
    w, (a, b) = world()
    m = w.group.member("A")
    a.epoch, a.owned = m.previous_epoch, (m.assigned[0] | w.group.member("B").assigned[0], 0, 0)
    assert code(w.beat(a)) == ERRORS["FENCED_MEMBER_EPOCH"]


def test_leave_removes_and_bumps():
    w, (a, b) = world()
    epoch = w.group.group_epoch
    out = w.leave(a)
    assert out.response.member_epoch == -1 and w.group.member("A") is None
    assert w.group.group_epoch == epoch + 1 and reasons(out) == ("member left",)
    w.converge([b])
    assert w.group.member("B").assigned[0] == (1 << 9) - 1


# ---- step 4: the bump list, one reason each, and what does not bump ----

@pytest.mark.parametrize("field,value,reason", [
    ("rack_id", "r1", "member metadata changed"),
    ("client_tags", (KeyValue("zone", "z"),), "member metadata changed"),
    ("process_id", "elsewhere", "member metadata changed"),
])
def test_member_metadata_on_the_kip_list_bumps(field, value, reason):
    w, (a, b) = world()
    epoch = w.group.group_epoch
    out = w.beat(a, **{field: value})
    assert w.group.group_epoch == epoch + 1 and reasons(out) == (reason,)


@pytest.mark.parametrize("field,value", [("rebalance_timeout_ms", 777), ("user_endpoint", Endpoint("h", 1))])
def test_other_member_metadata_bumps_only_in_kafka(field, value):
    for profile, bump in (("kip-1071", 0), ("kafka-4.1", 1)):
        w, (a, b) = world(profile)
        epoch = w.group.group_epoch
        out = w.beat(a, **{field: value})
        assert code(out) == 0 and w.group.group_epoch == epoch + bump
        assert any(type(r).__name__ == "StreamsGroupMemberMetadata" for r in out.records)   # written either way


def test_plain_heartbeats_do_not_bump():
    w, (a, b) = world()
    epoch = w.group.group_epoch
    for c in (a, b, a, b):
        out = w.beat(c)
        assert reasons(out) is None and out.records == ()
    assert w.group.group_epoch == epoch and group_state(w.group) == STABLE


def test_partition_metadata_change_bumps():
    w, (a, b) = world()
    epoch = w.group.group_epoch
    w.cluster = Cluster((("in", 9), ("unrelated", 3)))
    assert reasons(w.beat(a)) is None                      # a topic the topology does not read
    w.cluster = Cluster((("in", 8),))
    out = w.beat(a)
    assert reasons(out) == ("partition metadata changed",) and w.group.group_epoch == epoch + 1


def test_assignment_configuration_change_bumps():
    w, (a, b) = world()
    epoch = w.group.group_epoch
    w.config = Config(assignment=AssignmentConfigs(num_standby_replicas=1))
    out = w.beat(a)
    assert reasons(out) == ("assignment configuration changed",) and w.group.group_epoch == epoch + 1


def test_topology_update_bumps():
    w, (a, b) = world()
    c = Client("C", "pC", stateless(1))
    out = w.beat(c)
    assert set(reasons(out)) == {"member joined", "topology changed"}


def test_warmup_reaching_acceptable_recovery_lag_bumps():
    w, (a, b) = world()
    g = w.group
    m = replace(g.member("A"), assigned=(g.member("A").assigned[0] & ~1, 0, 1))
    w.group = g.with_member(m).with_target("A", m.assigned)
    w.log = list(__import__("groupcheck.model.streams_group.records", fromlist=["diff"]).diff(fresh(), w.group))
    a.owned = m.assigned
    far = w.beat(a, task_offsets=(TaskOffset("0", 0, 5),), task_end_offsets=(TaskOffset("0", 0, 10),))
    assert reasons(far) is None                            # lag 5 > acceptable.recovery.lag 0
    near = w.beat(a, task_offsets=(TaskOffset("0", 0, 10),), task_end_offsets=(TaskOffset("0", 0, 10),))
    assert reasons(near) == ("warm-up caught up",)


def test_session_and_rebalance_timeouts():
    w, (a, b) = world()
    epoch = w.group.group_epoch
    out = session_timeout(w.group, "A")
    assert out.group.member("A") is None and out.group.group_epoch == epoch + 1
    assert session_timeout(out.group, "A").records == ()
    assert rebalance_timeout(w.group, "B", w.group.member("B").epoch).records == ()   # B is STABLE


def test_rebalance_timeout_removes_an_unrevoked_member():
    w, (a, b) = world()
    c = Client("C", "pC", stateless(0))
    w.beat(c)
    w.beat(a)
    m = next(x for x in w.group.members if x.state == "UNREVOKED")
    out = rebalance_timeout(w.group, m.member_id, m.epoch)
    assert out.group.member(m.member_id) is None and reasons(out) == ("member removed (rebalance timeout)",)
    assert failover(w.log + list(out.records), w.group.task_index) == out.group


# ---- step 5: NOT_READY ----

def test_missing_source_topic_is_not_ready_and_assigns_nothing():
    w = World(fresh(), Cluster(()))
    a, b = Client("A", "pA", stateless(0)), Client("B", "pB", stateless(0))
    w.converge([a, b])
    assert group_state(w.group) == NOT_READY
    assert all(t == (0, 0, 0) for _, t in w.group.target_assignment) and a.owned == b.owned == (0, 0, 0)
    assert w.responses[-1].status[0].status_code == MISSING_SOURCE_TOPICS
    w.cluster = CLUSTER
    w.converge([a, b])
    assert group_state(w.group) == STABLE and a.owned[0] | b.owned[0] == (1 << 9) - 1


def test_topic_deleted_makes_every_assignment_empty():
    w, (a, b) = world()
    w.cluster = Cluster(())
    w.converge([a, b])
    assert group_state(w.group) == NOT_READY and a.owned == b.owned == (0, 0, 0)


# ---- step 8: the response ----

def test_shutdown_application_reaches_every_member_until_empty():
    w, (a, b) = world()
    w.beat(a, shutdown_application=True)
    for c in (a, b):
        st = w.beat(c).response.status
        assert st and st[-1].status_code == SHUTDOWN_APPLICATION and "member A" in st[-1].status_detail
    w.leave(a)
    assert w.shutdown == "A"
    w.leave(b)
    assert w.shutdown is None


def test_task_lists_only_when_changed():
    w, (a, b) = world()
    r = w.beat(a).response
    assert r.active_tasks is None and r.standby_tasks is None and r.warmup_tasks is None


# ---- switched rules (coordinator_update.SWITCHES; properties/known_bugs/streams_group.py) ----

def test_switch_kafka_21370_gives_4_5_the_old_same_epoch_answer():
    from groupcheck.model.streams_group.coordinator_update import switched
    w, _ = world(switched("kafka-4.5", ("kafka-21370",)), n=1)
    out = w.beat(Client("B", "pB", stateless(0, topic="other")))
    assert code(out) == ERRORS["INVALID_REQUEST"] and out.response.error_message == (
        "Topology updates are not supported yet.")


def test_switch_kafka_19233_fences_an_epoch_0_rejoin_from_a_known_member():
    from groupcheck.model.streams_group.coordinator_update import switched
    w, (a, b) = world(switched("kafka-4.1", ("kafka-19233",)))
    assert w.group.member("A").previous_epoch != 0
    a.epoch = 0
    out = w.beat(a)
    assert code(out) == ERRORS["FENCED_MEMBER_EPOCH"] and out.records == ()
    fixed, (a, _) = world("kafka-4.1")
    a.epoch = 0
    assert code(fixed.beat(a)) == 0
