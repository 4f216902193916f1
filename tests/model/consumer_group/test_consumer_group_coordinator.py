"""The KIP-848 coordinator's ConsumerGroupHeartbeat handler: group lookup and creation, the
member-epoch check with the lost-response rule, static membership, group-epoch bumps with their
reasons, targets, reconciliation per profile, the response's assignment, timeouts, regexes,
offset-commit fencing. The driver asserts replay(log) == group after every heartbeat."""
from dataclasses import replace

import pytest

from groupcheck.model.consumer_group.coordinator import (Cluster, Config, NotModelled, OtherGroup, heartbeat,
                                                         offset_commit,
                                              rebalance_timeout, resolve_regexes, session_timeout)
from groupcheck.model.consumer_group.group import group_state, mask_of, topics_mask
from groupcheck.model.consumer_group.state import (ASSIGNING, EMPTY, ERRORS, RECONCILING, STABLE,
                                                   ConsumerGroupHeartbeat,
                                        TopicPartitions)
from groupcheck.model.consumer_group.profiles import KIP_848, PROFILES as PROFILES_BY_NAME
from tests.helpers.consumer_group_driver import INDEX, Client, World, fresh


def code(out):
    return out.response.error_code


def reasons(out):
    return dict((e[0], e[1]) for e in out.events if len(e) == 2).get("group_epoch_bumped")


def A(p):
    return mask_of(INDEX, (TopicPartitions("a", tuple(p)),))


def two(profile="kip-848", **kw):
    w = World(profile=profile, **kw)
    a, b = Client("A"), Client("B")
    w.join(a)
    w.join(b)
    w.converge([a, b])
    return w, a, b


# ---- the group ----

def test_first_join_creates_the_group_at_epoch_1_and_assigns_everything():
    w = World()
    out = w.join(Client("A"))
    assert code(out) == 0 and out.response.member_epoch == 1
    assert out.response.assignment == (TopicPartitions("a", (0, 1, 2, 3)),)
    assert reasons(out) == ("member joined", "subscribed topic metadata changed")
    assert group_state(w.group) == STABLE and w.group.subscription_metadata == (("a", 4),)


def test_heartbeat_for_a_missing_group_is_group_id_not_found():
    out = heartbeat(fresh(), ConsumerGroupHeartbeat(group_id="g", member_id="A", member_epoch=3, topic_partitions=()),
                    Cluster((("a", 4), ("b", 2))))
    assert code(out) == ERRORS["GROUP_ID_NOT_FOUND"] and out.response.error_message == "Consumer group g not found."
    assert out.records == ()


def test_a_group_of_another_type_is_not_a_consumer_group_and_classic_is_migrations():
    req = ConsumerGroupHeartbeat(group_id="g", member_id="A", member_epoch=0, rebalance_timeout_ms=1,
                                 subscribed_topic_names=("a",), topic_partitions=())
    out = heartbeat(OtherGroup("g", "share"), req)
    assert code(out) == ERRORS["GROUP_ID_NOT_FOUND"] and out.response.error_message == "Group g is not a consumer group."
    with pytest.raises(NotModelled):
        heartbeat(OtherGroup("g", "classic"), req)


def test_a_cluster_topic_outside_the_partition_index_is_a_clear_error():
    with pytest.raises(ValueError, match="partition_index"):
        World(cluster=Cluster((("zz", 1),))).join(Client("A"))


def test_group_max_size_rejects_new_members_but_not_known_ones():
    w = World(config=Config(max_size=1))
    a = Client("A")
    w.join(a)
    out = w.join(Client("B"))
    assert code(out) == ERRORS["GROUP_MAX_SIZE_REACHED"]
    assert out.response.error_message == "The consumer group has reached its maximum capacity of 1 members."
    assert code(w.beat(a)) == 0


# ---- reconciliation: revoke before reassign ----

@pytest.mark.parametrize("profile", ["kip-848", "kafka-4.1", "kafka-4.2"])
def test_second_member_waits_until_the_first_revokes(profile):
    w = World(profile=profile)
    a, b = Client("A"), Client("B")
    w.join(a)
    out = w.join(b)
    assert out.response.member_epoch == 2 and out.response.assignment == ()   # UNRELEASED: all still A's
    assert w.group.member("B").state == "UNRELEASED"
    out = w.beat(a)                                 # A learns its smaller target: revoke 2, 3
    assert w.group.member("A").state == "UNREVOKED" and w.group.member("A").epoch == 1
    assert ("rebalance_timer", "A", 1) in out.events
    assert out.response.assignment == (TopicPartitions("a", (0, 1)),)
    out = w.beat(a)                                 # reports owning 0, 1 only: revoked
    assert w.group.member("A").epoch == 2 and w.group.member("A").previous_epoch == 1
    out = w.beat(b)
    assert out.response.assignment == (TopicPartitions("a", (2, 3)),) and group_state(w.group) == STABLE


def test_own_pending_revocation_blocks_only_before_kafka_19449():
    """A member whose target moves a partition away and back: with KAFKA-19449's fix its own
    pending revocation does not block it (kafka-4.2); before (kafka-4.1) it does."""
    from groupcheck.model.consumer_group.coordinator_update import reconcile_member
    from groupcheck.model.consumer_group.group import Member
    from groupcheck.model.consumer_group.profiles import profile as prof
    for profile, withheld in (("kafka-4.1", True), ("kafka-4.2", False)):
        m = Member(member_id="A", subscribed_topic_names=("a",), state="UNREVOKED", epoch=1, previous_epoch=0,
                   assigned=A([0]), pending_revocation=A([1]))
        g = replace(fresh(), dead=False, group_epoch=2, target_assignment_epoch=2,
                    target_assignment=(("A", A([0, 1])),)).with_member(m)
        moved = reconcile_member(g, m, A([0]), prof(profile))
        assert (moved.assigned == A([0])) is withheld, profile


# ---- the member-epoch check ----

def test_previous_epoch_with_owned_subset_is_accepted_as_a_lost_response():
    w, a, b = two()
    m = w.group.member("A")
    out = w.beat(a, member_epoch=m.previous_epoch, topic_partitions=(TopicPartitions("a", (0,)),))
    assert code(out) == 0 and out.response.member_epoch == m.epoch


def test_older_epoch_not_previous_or_owning_more_is_fenced_with_kafkas_message():
    w, a, b = two()
    m = w.group.member("A")
    out = w.beat(a, member_epoch=m.previous_epoch, topic_partitions=(TopicPartitions("a", (0, 1, 2, 3)),))
    assert code(out) == ERRORS["FENCED_MEMBER_EPOCH"] and out.records == ()
    out = w.beat(a, member_epoch=m.epoch + 1)
    assert code(out) == ERRORS["FENCED_MEMBER_EPOCH"]
    assert out.response.error_message.startswith(f"The consumer group member has a greater member epoch ({m.epoch + 1})")


def test_unknown_member_id():
    w, a, b = two()
    out = w.beat(Client("Z", epoch=3))
    assert code(out) == ERRORS["UNKNOWN_MEMBER_ID"] and out.response.error_message == "Member Z is not a member of group g."


@pytest.mark.parametrize("profile,switches,ok", [("kip-848", (), True), ("kip-848", ("kafka-19233",), False),
                                                 ("kafka-4.2", (), False)])
def test_epoch0_rejoin_of_a_known_member_kafka_19233(profile, switches, ok):
    w, a, b = two(profile, switches=switches)
    c = Client("C")
    w.join(c)
    w.converge([a, b, c])
    assert w.group.member("A").epoch >= 2
    out = w.join(a)
    assert (code(out) == 0) is ok
    if ok:   # the full response hands back its current assignment at its epoch
        assert out.response.member_epoch == w.group.member("A").epoch and out.response.assignment is not None


# ---- leave, static membership ----

def test_leave_removes_the_member_and_bumps():
    w, a, b = two()
    epoch = w.group.group_epoch
    out = w.beat(a, member_epoch=-1)
    assert out.response.member_epoch == -1 and w.group.member("A") is None
    assert reasons(out) == ("member left",) and w.group.group_epoch == epoch + 1


def test_static_leave_keeps_the_member_at_minus_2_without_a_bump_and_a_new_id_replaces_it():
    w = World()
    a, b = Client("A", instance_id="i1"), Client("B")
    w.join(a)
    w.join(b)
    w.converge([a, b])
    epoch, assigned = w.group.group_epoch, w.group.member("A").assigned
    out = w.beat(a, member_epoch=-2)
    assert out.response.member_epoch == -2 and w.group.member("A").epoch == -2
    assert w.group.group_epoch == epoch and w.group.member("A").assigned == assigned
    assert group_state(w.group) == RECONCILING
    a2 = Client("A2", instance_id="i1")
    out = w.join(a2)
    assert code(out) == 0 and w.group.member("A") is None and w.group.member("A2").assigned == assigned
    assert w.group.group_epoch == epoch                     # same subscription: no bump
    assert mask_of(INDEX, out.response.assignment) == assigned


def test_static_errors():
    w = World()
    a = Client("A", instance_id="i1")
    w.join(a)
    out = w.join(Client("A2", instance_id="i1"))
    assert code(out) == ERRORS["UNRELEASED_INSTANCE_ID"]
    assert out.response.error_message == ("Static member A2 with instance id i1 cannot join the group because the "
                                          "instance id is owned by A member.")
    out = w.beat(Client("X", instance_id="i9", epoch=1))
    assert code(out) == ERRORS["UNKNOWN_MEMBER_ID"] and out.response.error_message == "Instance id i9 is unknown."
    out = w.beat(Client("X", instance_id="i1", epoch=1))
    assert code(out) == ERRORS["FENCED_INSTANCE_ID"]


def test_static_member_leaving_with_minus_1_leaves_for_good():
    w = World()
    a = Client("A", instance_id="i1")
    w.join(a)
    out = w.beat(a, member_epoch=-1)
    assert out.response.member_epoch == -1 and w.group.members == () and group_state(w.group) == EMPTY


# ---- bumps, targets, the response ----

def test_subscription_change_bumps_and_reassigns():
    w, a, b = two()
    out = w.beat(a, subscribed_topic_names=("a", "b"))
    assert reasons(out) == ("subscription changed", "subscribed topic metadata changed")
    assert w.group.subscription_metadata == (("a", 4), ("b", 2))


def test_assignor_change_is_written_but_does_not_bump_it_applies_at_the_next_bump():
    """consumerGroupHeartbeat bumps only on names, regexes, metadata; the preferred assignor is
    read by updateTargetAssignment at the next bump."""
    w, a, b = two()
    out = w.beat(a, server_assignor="range")
    assert reasons(out) is None and w.group.member("A").server_assignor == "range" and len(out.records) == 1
    out = w.beat(b, server_assignor="range")
    out = w.join(Client("C"))
    assert ("new_target", w.group.group_epoch) in out.events


def test_a_member_joining_without_a_subscription_bumps_only_under_the_kip():
    for profile, bump in (("kip-848", True), ("kafka-4.0", False)):
        w = World(profile=profile)
        a = Client("A")
        w.join(a)
        epoch = w.group.group_epoch
        out = w.join(Client("E", topics=()))
        assert (w.group.group_epoch == epoch + 1) is bump, profile
        assert code(out) == 0 and out.response.assignment == ()


def test_regex_only_full_request_is_full_only_under_the_kip():
    for profile, sent in (("kip-848", True), ("kafka-4.0", False)):
        w = World(profile=profile)
        a = Client("A", regex="a")
        w.join(a)
        if profile == "kafka-4.0":
            w.apply(resolve_regexes(w.group, w.cluster))
        w.converge([a])
        out = w.beat(a, rebalance_timeout_ms=1000, subscribed_topic_regex="a")
        assert (out.response.assignment is not None) is sent, profile


def test_3_7_sends_the_assignment_whenever_owned_partitions_are_reported():
    w, a, b = two("kafka-3.7")
    assert w.beat(a).response.assignment is not None
    assert w.beat(a, topic_partitions=None).response.assignment is None


def test_no_change_no_bump_and_no_assignment_unless_full():
    w, a, b = two()
    out = w.beat(a)
    assert reasons(out) is None and out.response.assignment is None and out.records == ()
    out = w.beat(a, full=True)
    assert out.response.assignment is not None


def test_full_request_answered_and_kafka_16367_switch():
    w, a, b = two("kafka-4.0")
    assert w.beat(a, full=True).response.assignment is not None
    assert w.beat(a, full=True, topic_partitions=None).response.assignment is None
    w2, a2, _ = two("kafka-4.0", switches=("kafka-16367",))
    assert w2.beat(a2).response.assignment is not None          # owned reported: sent


# ---- timers ----

def test_session_timeout_removes_and_rebalance_timeout_only_while_unrevoked():
    w = World()
    a, b = Client("A"), Client("B")
    w.join(a)
    w.join(b)
    w.beat(a)
    assert w.group.member("A").state == "UNREVOKED"
    stale = rebalance_timeout(w.group, "A", 0)
    assert stale.group is w.group and stale.records == ()
    out = rebalance_timeout(w.group, "A", 1)
    w.apply(out)
    assert w.group.member("A") is None and reasons(out) == ("member removed (rebalance timeout)",)
    out = session_timeout(w.group, "B")
    w.apply(out)
    assert w.group.members == () and group_state(w.group) == EMPTY
    assert session_timeout(w.group, "B").records == ()


# ---- regular expressions ----

def test_regex_resolved_in_the_heartbeat_under_the_kip():
    w = World()
    out = w.join(Client("A", regex="a|b"))
    assert w.group.resolved_regexes == (("a|b", ("a", "b")),)
    assert mask_of(INDEX, out.response.assignment) == topics_mask(INDEX, ("a", "b"))


def test_regex_resolved_asynchronously_in_4_0_then_bumps():
    w = World(profile="kafka-4.0")
    out = w.join(Client("A", regex="a|b"))
    assert ("regex_to_resolve", "a|b") in out.events and out.response.assignment == ()
    out = resolve_regexes(w.group, w.cluster)
    w.apply(out)
    assert reasons(out) == ("regex resolved",) and group_state(w.group) == ASSIGNING
    a = Client("A", regex="a|b", epoch=1)
    out = w.beat(a)
    assert mask_of(INDEX, out.response.assignment) == topics_mask(INDEX, ("a", "b"))
    assert resolve_regexes(w.group, w.cluster).records == ()


def test_invalid_regex_and_3_7_regex():
    w = World()
    out = w.join(Client("A", regex="("))
    assert code(out) == ERRORS["INVALID_REGULAR_EXPRESSION"]
    w = World(profile="kafka-4.0")                 # in the coordinator: an unknown member is that first
    assert code(w.beat(Client("A", regex="(", epoch=3), subscribed_topic_regex="(")) == ERRORS["GROUP_ID_NOT_FOUND"]
    out = w.join(Client("A", regex="("))
    assert code(out) == ERRORS["INVALID_REGULAR_EXPRESSION"] and out.records == ()
    assert out.response.error_message == "SubscribedTopicRegex `(` is not a valid regular expression."
    w = World(profile="kafka-3.7")
    out = w.join(Client("A", regex="a"), subscribed_topic_names=("a",))
    assert code(out) == ERRORS["INVALID_REQUEST"] and out.response.error_message == "SubscribedTopicRegex is not supported yet."


# ---- offset commits ----

def test_offset_commit_fencing():
    w, a, b = two()
    m = w.group.member("A")
    assert offset_commit(w.group, "A", m.epoch) == ""
    assert offset_commit(w.group, "A", m.previous_epoch) == "STALE_MEMBER_EPOCH"
    assert offset_commit(w.group, "Z", m.epoch) == "UNKNOWN_MEMBER_ID"
    assert offset_commit(fresh(), "A", -1) == "" and offset_commit(fresh(), "A", 3) == "GROUP_ID_NOT_FOUND"
    assert KIP_848.assignment_epochs is False


def test_offset_commit_with_kip_1251_assignment_epochs():
    """kafka-4.3: "assignmentEpoch <= clientEpoch <= brokerEpoch" per committed partition (groups
    start at epoch 1 there, KAFKA-20268, so A's first epoch is 2)."""
    w = World(profile="kafka-4.3")
    a, b = Client("A"), Client("B")
    w.join(a)                                     # A gets a-0..3 at epoch 2
    assert w.group.member("A").assignment_epochs == ((0, 2), (1, 2), (2, 2), (3, 2))
    w.join(b)
    w.converge([a, b])
    m = w.group.member("A")
    assert m.epoch == 3 and m.assignment_epochs == ((0, 2), (1, 2))
    assert offset_commit(w.group, "A", 2, (TopicPartitions("a", (0, 1)),), "kafka-4.3") == ""
    assert offset_commit(w.group, "A", 2, (TopicPartitions("a", (0, 1)),), "kafka-4.2") == "STALE_MEMBER_EPOCH"
    assert offset_commit(w.group, "A", 2, (TopicPartitions("a", (2,)),), "kafka-4.3") == "STALE_MEMBER_EPOCH"
    assert offset_commit(w.group, "A", 4, (TopicPartitions("a", (0,)),), "kafka-4.3") == "STALE_MEMBER_EPOCH"
    assert w.group.member("B").assignment_epochs == ((2, 3), (3, 3))
    assert offset_commit(w.group, "B", 2, (TopicPartitions("a", (2,)),), "kafka-4.3") == "STALE_MEMBER_EPOCH"


def test_a_cancelled_rebalance_timer_does_not_remove_a_member_that_left_unrevoked():
    """maybeReconcile cancels the timer once the member is no longer UNREVOKED_PARTITIONS: a
    member STABLE at the timer's epoch is kept."""
    w = World()
    a = Client("A")
    w.join(a)
    assert w.group.member("A").state == "STABLE" and w.group.member("A").epoch == 1
    out = rebalance_timeout(w.group, "A", 1)
    assert out.group is w.group and out.records == ()


# ---- known-bug switches (coordinator_update.SWITCHES): the buggy and the fixed rule ----

@pytest.mark.parametrize("profile,switches,lost", [("kafka-4.0", (), False), ("kafka-4.0", ("kafka-16249",), True),
                                                   ("kafka-3.7", (), True)])
def test_kafka_16249_an_acknowledgement_meeting_a_new_target_is_lost(profile, switches, lost):
    """MIGR's note, KAFKA-16249: A revokes a-2, a-3 for B; C joins (a new target); A's next
    heartbeat reports owning a-0, a-1 only (the acknowledgement). 3.7.0 recomputes from
    assigned ∪ pending and ignores it: A stays UNREVOKED with a-2, a-3 pending again."""
    w = World(profile=profile, switches=switches)
    a, b, c = Client("A"), Client("B"), Client("C")
    w.join(a)
    w.join(b)
    w.beat(a)
    assert w.group.member("A").state == "UNREVOKED" and a.owned == A([0, 1])
    w.join(c)
    w.beat(a)
    m = w.group.member("A")
    assert (m.state == "UNREVOKED" and m.pending_revocation == A([2, 3])) is lost
    w.beat(a)                                   # reported again (the model's client always reports)
    assert w.group.member("A").state != "UNREVOKED"


@pytest.mark.parametrize("profile,switches,equal", [("kafka-4.2", (), False), ("kafka-4.3", (), True),
                                                    ("kafka-4.3", ("kafka-20442",), False), ("kip-848", (), True)])
def test_kafka_20442_an_emptied_group_has_equal_epochs(profile, switches, equal):
    w = World(profile=profile, switches=switches)
    a = Client("A")
    w.join(a)
    out = w.beat(a, member_epoch=-1, topic_partitions=None)
    g = w.group
    assert g.members == () and (g.group_epoch == g.target_assignment_epoch) is equal
    assert group_state(g) == EMPTY and out.response.member_epoch == -1


@pytest.mark.parametrize("profile,ok", [("kip-848", True), ("kafka-4.0", False), ("kafka-4.3", False)])
def test_static_member_own_id_rejoin_apache_kafka_23542(profile, ok):
    """A static member rejoining at epoch 0 with its own member id while it holds its instance
    id: Kafka answers UNRELEASED_INSTANCE_ID (#23542, open); the KIP profile takes it as a rejoin."""
    w = World(profile=profile)
    a = Client("A", instance_id="i1")
    w.join(a)
    w.converge([a])
    out = w.join(a)
    assert (code(out) == 0) is ok
    if not ok:
        assert code(out) == ERRORS["UNRELEASED_INSTANCE_ID"]


def _kafka_16147_walk(profile):
    """Found by the random walks: A (topic a) switches to b, then to a while revoking b, then
    back to b: 3.7 recomputes from assigned ∪ pending (KAFKA-16249's rule), b-0, b-1 move from
    pending revocation back to assigned, and 3.7's partition-epoch map drops them (KAFKA-16147);
    C joins on b and is given b-1 while A still owns it."""
    w = World(profile=profile)
    a, c = Client("A", topics=("a",)), Client("C", topics=("b",))
    w.join(a)
    for topics in (("b",), None, ("a",), ("b",)):
        if topics is None:
            w.beat(a)
        else:
            a.topics = topics
            w.beat(a, subscribed_topic_names=topics)
    w.join(c)
    return w


def test_kafka_16147_the_partition_epoch_map_forgets_an_owner_and_two_members_hold_a_partition():
    from groupcheck.model.consumer_group.group import mask_of as m_of
    b = lambda *ps: m_of(INDEX, (TopicPartitions("b", ps),))   # noqa: E731
    w = _kafka_16147_walk("kafka-3.7")
    assert w.group.member("A").assigned == b(0, 1) and w.group.member("C").assigned == b(1)
    fixed = _kafka_16147_walk(KIP_848.__class__(**{**PROFILES_BY_NAME["kafka-3.7"]._asdict(),
                                                   "partition_epoch_map_bug": False}))
    assert fixed.group.member("C").assigned == 0 and fixed.group.epoch_map_lost == 0
    from groupcheck.model.consumer_group.failover import failover
    healed, _ = failover(w.group)          # the compacted log rebuilds the map
    assert healed.epoch_map_lost == 0 and w.group.epoch_map_lost == b(0)   # b-1 re-added as C's


@pytest.mark.parametrize("profile,first_epoch", [("kafka-4.2", 1), ("kafka-4.3", 2)])
def test_kafka_20268_new_groups_start_at_epoch_1_in_4_3(profile, first_epoch):
    w = World(profile=profile)
    out = w.join(Client("A"))
    assert out.response.member_epoch == first_epoch == w.group.group_epoch == w.group.target_assignment_epoch
    w2 = World(profile=profile)
    out = w2.join(Client("E", topics=()))      # no subscription: no bump in Kafka
    assert w2.group.group_epoch == 1 and out.response.member_epoch == 1   # 4.2: "moves away from epoch 0"


def test_a_group_of_another_id_is_a_clear_error():
    with pytest.raises(ValueError, match="the request is for group 'h'"):
        heartbeat(fresh(), ConsumerGroupHeartbeat(group_id="h", member_id="A", member_epoch=1))
