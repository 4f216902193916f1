"""Static membership in a streams group (instance ids, member epoch -2), handler level.

KIP-1071 takes static membership over from KIP-848 ("All non-assignment metadata as defined
in the ConsumerGroupHeartbeatRequest such as ... instance ID"; MemberEpoch "-2 to indicate
that the static member will rejoin"); Kafka's streams path ships it since KAFKA-20169
(apache/kafka#22245, 4.4: the ``kafka-4.5`` profile); ``kafka-4.1`` refuses instance ids.
The World driver checks replay(log) == live group after every heartbeat."""
import pytest

from groupcheck.model.streams_group.coordinator import Cluster, session_timeout
from groupcheck.model.streams_group.records import replay
from groupcheck.model.streams_group.state import ERRORS
from tests.helpers.streams_group_clients import Client, World, fresh, stateless

CLUSTER = Cluster((("in", 9),))
STATIC = ["kip-1071", "kafka-4.5"]


def static_world(profile):
    """A (instance iA) and B (instance iB), converged."""
    w = World(fresh(), CLUSTER, profile)
    a, b = Client("A", "pA", stateless(0)), Client("B", "pB", stateless(0))
    for _ in range(8):
        before = w.group
        w.beat(a, instance_id="iA")
        w.beat(b, instance_id="iB")
        if w.group == before:
            return w, a, b
    raise AssertionError("did not converge")


def code(out):
    return out.response.error_code


def leave_static(w, c, instance_id):
    return w.send(w.request(c, member_epoch=-2, instance_id=instance_id))


@pytest.mark.parametrize("profile", STATIC)
def test_a_new_static_member_joins_like_any_member(profile):
    w, a, b = static_world(profile)
    assert w.group.member("A").instance_id == "iA" and w.group.static_member("iB").member_id == "B"
    assert a.owned[0] and b.owned[0] and w.group.group_epoch == 2


def test_kafka_41_refuses_an_instance_id():
    w = World(fresh(), CLUSTER, "kafka-4.1")
    out = w.beat(Client("A", "pA", stateless(0)), instance_id="iA")
    assert code(out) == ERRORS["INVALID_REQUEST"]
    assert out.response.error_message == "Static membership is not yet supported." and out.records == ()


@pytest.mark.parametrize("profile", STATIC)
def test_static_leave_keeps_the_member_and_its_tasks_without_a_bump(profile):
    w, a, b = static_world(profile)
    epoch, assigned = w.group.group_epoch, w.group.member("A").assigned
    out = leave_static(w, a, "iA")
    assert code(out) == 0 and out.response.member_id == "A" and out.response.member_epoch == -2
    m = w.group.member("A")
    assert m.epoch == -2 and m.assigned == assigned and w.group.target_of("A") == assigned
    assert w.group.group_epoch == epoch and "group_epoch_bumped" not in dict(out.events)
    assert len(out.records) == 1      # only the current assignment (epoch -2)


@pytest.mark.parametrize("profile", STATIC)
def test_a_static_member_away_holds_its_active_tasks(profile):
    """While A is away at -2, B's heartbeats do not take A's tasks."""
    w, a, b = static_world(profile)
    leave_static(w, a, "iA")
    for _ in range(3):
        w.beat(b, instance_id="iB")
    assert b.owned[0] & w.group.member("A").assigned[0] == 0


@pytest.mark.parametrize("profile", STATIC)
def test_the_new_member_id_takes_over_the_assignment_without_a_bump(profile):
    w, a, b = static_world(profile)
    epoch, assigned = w.group.group_epoch, w.group.member("A").assigned
    leave_static(w, a, "iA")
    a2 = Client("A2", "pA", stateless(0))
    out = w.beat(a2, instance_id="iA")
    assert code(out) == 0 and w.group.member("A") is None
    m = w.group.member("A2")
    assert m.instance_id == "iA" and m.assigned == assigned and w.group.target_of("A2") == assigned
    assert "A" not in dict(w.group.target_assignment)
    assert w.group.group_epoch == epoch and "group_epoch_bumped" not in dict(out.events)
    assert out.response.member_epoch == epoch and a2.owned == assigned      # tasks handed back at once
    assert ("static_member_replaced", "A") in out.events


@pytest.mark.parametrize("profile", STATIC)
def test_a_replacement_with_a_changed_process_id_bumps(profile):
    """KIP: bumped "When a member updates its ... process ID ... this only happens when a
    member with static membership rejoins with an updated configuration"."""
    w, a, b = static_world(profile)
    epoch = w.group.group_epoch
    leave_static(w, a, "iA")
    out = w.beat(Client("A2", "elsewhere", stateless(0)), instance_id="iA")
    assert dict(out.events)["group_epoch_bumped"] == ("member metadata changed",)
    assert w.group.group_epoch == epoch + 1


@pytest.mark.parametrize("profile", STATIC)
def test_unreleased_instance_id(profile):
    w, a, b = static_world(profile)
    out = w.beat(Client("A2", "pA", stateless(0)), instance_id="iA")
    assert code(out) == ERRORS["UNRELEASED_INSTANCE_ID"] and out.records == ()
    assert out.response.error_message == ("Static member A2 with instance id iA cannot join the group because "
                                          "the instance id is owned by A member.")


@pytest.mark.parametrize("profile", STATIC)
def test_the_old_member_id_of_a_replaced_instance_is_fenced(profile):
    w, a, b = static_world(profile)
    leave_static(w, a, "iA")
    w.beat(Client("A2", "pA", stateless(0)), instance_id="iA")
    a.epoch = 2
    for epoch in (2, -1, -2):
        out = w.send(w.request(a, member_epoch=epoch, instance_id="iA"))
        assert code(out) == ERRORS["FENCED_INSTANCE_ID"] and out.records == ()
        assert out.response.error_message == "Static member A with instance id iA was fenced by member A2."


@pytest.mark.parametrize("profile", STATIC)
def test_an_unknown_instance_id(profile):
    w, a, b = static_world(profile)
    out = w.send(w.request(a, instance_id="iZ"))
    assert code(out) == ERRORS["UNKNOWN_MEMBER_ID"] and out.response.error_message == "Instance id iZ is unknown."


@pytest.mark.parametrize("profile", STATIC)
def test_a_static_member_leaving_with_minus_one_is_removed(profile):
    w, a, b = static_world(profile)
    epoch = w.group.group_epoch
    out = w.send(w.request(a, member_epoch=-1, instance_id="iA"))
    assert out.response.member_epoch == -1 and w.group.member("A") is None and w.group.group_epoch == epoch + 1


@pytest.mark.parametrize("profile", STATIC)
def test_the_session_timeout_removes_a_member_away_at_minus_two(profile):
    w, a, b = static_world(profile)
    epoch = w.group.group_epoch
    leave_static(w, a, "iA")
    out = session_timeout(w.group, "A")
    assert out.group.member("A") is None and out.group.group_epoch == epoch + 1
    assert replay(out.records, w.group) == out.group
    # then the instance id is free: a new member joins as a new member (a bump)
    w.group, w.log = out.group, w.log + list(out.records)
    out = w.beat(Client("A2", "pA", stateless(0)), instance_id="iA")
    assert code(out) == 0 and dict(out.events)["group_epoch_bumped"] == ("member joined",)


@pytest.mark.parametrize("profile,expected", [("kip-1071", 0), ("kafka-4.5", ERRORS["UNRELEASED_INSTANCE_ID"])])
def test_a_static_member_rejoining_with_its_own_member_id(profile, expected):
    """A lost join response (or FENCED_MEMBER_EPOCH): the client rejoins with epoch 0 and
    the same member id. Kafka: UNRELEASED_INSTANCE_ID, fatal for the client (apache/kafka#23542,
    open); the KIP's profile takes it as a rejoin."""
    w, a, b = static_world(profile)
    a.epoch = 0
    out = w.beat(a, instance_id="iA")
    assert code(out) == expected


@pytest.mark.parametrize("profile", STATIC)
def test_the_records_rebuild_leave_and_replacement(profile):
    w, a, b = static_world(profile)
    leave_static(w, a, "iA")
    w.beat(Client("A2", "pA", stateless(0)), instance_id="iA")
    assert replay(w.log, None, task_index=w.group.task_index) == w.group


def test_a_minus_two_without_an_instance_id():
    """Kafka validates "InstanceId can't be null."; the KIP has no such rule, and a member
    without an instance id is not static: it leaves."""
    w, a, b = static_world("kip-1071")
    out = w.send(w.request(b, member_epoch=-2))
    assert code(out) == 0 and w.group.member("B") is None
    w, a, b = static_world("kafka-4.5")
    out = w.send(w.request(b, member_epoch=-2))
    assert code(out) == ERRORS["INVALID_REQUEST"] and out.response.error_message == "InstanceId can't be null."


def test_a_static_member_bumps_only_on_the_kips_fields_in_kafka():
    """KAFKA-20169: a static member's metadata bumps only for topology epoch, rack id, client
    tags or process id; a dynamic member's for any change (hasStreamsMemberMetadataChanged)."""
    w, a, b = static_world("kafka-4.5")
    out = w.beat(a, instance_id="iA", rebalance_timeout_ms=2000)
    assert code(out) == 0 and "group_epoch_bumped" not in dict(out.events) and out.records
    out = w.beat(a, instance_id="iA", rack_id="r1")
    assert dict(out.events)["group_epoch_bumped"] == ("member metadata changed",)
