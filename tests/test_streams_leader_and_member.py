"""Unit tests of the Streams leader (``leader.assign``: version negotiation, then task
placement) and the member (``member.subscribe`` / ``member.on_assignment``) per probing
family, on hand-built rounds and on states reached by stepping the model.

Rules: ../shared/kafka-behavior.md A1 ("Leader rules", "Historic versionProbingAssignment",
"Member (onAssignment)", "Cooperative Streams") and KIP-268's "Detailed upgrade protocol".
Tasks are bitmasks: T1 is bit 0."""
from __future__ import annotations

from dataclasses import replace

import pytest

from model.streams_classic import MODEL
from model.streams_classic import releases as rel
from model.streams_classic.leader import assign
from model.streams_classic.member import on_assignment, subscribe
from model.streams_classic.properties import used_version_supported
from model.streams_classic.scope import Behaviour, Config, StreamsScope, with_profile
from model.streams_classic.state import (
    ASSIGNMENT_ERROR,
    FAILED,
    GROUP_STABLE,
    JOINING,
    NO_LEADER,
    PREPARING,
    STABLE,
    SYNCING,
    UP,
    Assignment,
    Group,
    Instance,
    Member,
    State,
    Subscription,
)

T1, T2, T3, T4 = 1, 2, 4, 8
EAGER, COOP = rel.EAGER, rel.COOPERATIVE
GEN = 5


# ------------------------------------------------------------------------------ building rounds by hand

def sub(used: int, latest: int | None = None, protocol: str = COOP, *, owned: int = 0, prev: int = 0,
        standby: int = 0, learning: int = 0, ready: int = 0) -> Subscription:
    return Subscription(used, used if latest is None else latest, protocol, owned, prev, standby, learning,
                        ready, False)


def joined_round(stages: tuple[int, ...], subs: tuple[Subscription, ...]) -> State:
    """Instance i (one thread each) runs ``plan[stages[i]]`` and has joined with ``subs[i]``;
    the group's member order is the slot order, so slot 0 is the most senior."""
    members = tuple(Member(SYNCING, s.used, GEN - 1, s.owned, s.prev, s.standby, s.learning, s.ready, 0, s, None, -1)
                    for s in subs)
    slots = tuple(range(len(subs)))
    group = Group(PREPARING, GEN - 1, NO_LEADER, slots, slots, 0)
    return State(group, tuple(Instance(UP, st) for st in stages), members, 0, 0, 0, -1)


def scope_of(*plan: Config, tasks: int = 2, **kw) -> StreamsScope:
    return StreamsScope(instances=len(plan), tasks=tasks, plan=plan, **kw)


def outcome_by_slot(scope, state, leader):
    out = assign(scope, state, leader, GEN)
    return out, dict(out.assignments)


def empty(version, supported, error="") -> Assignment:
    return Assignment(version, supported, error, 0, 0, 0, 0, False, GEN)


# ------------------------------------------------------------------------------ leader: pre-probing (< 2.0)

def test_pre_probing_leader_fails_on_a_newer_subscription():
    """KIP-268: "the group leader fails if it receives a subscription with a higher version
    number than it understands" (KAFKA-6054)."""
    scope = scope_of(Config("1.1"), Config("2.0"))
    state = joined_round((0, 1), (sub(2, protocol=EAGER, prev=T1), sub(3, protocol=EAGER, prev=T2)))
    out = assign(scope, state, 0, GEN)
    assert out.failure == "TaskAssignmentException: Kafka Streams 1.1 cannot decode a v3 subscription (knows up to v2)"
    assert out.assignments == ()


def test_pre_probing_leader_serves_a_2_0_instance_configured_with_upgrade_from():
    """KIP-268 step 2a: upgrade.from makes the 2.0 instance send the old version."""
    scope = scope_of(Config("1.1"), Config("2.0", "1.1"))
    state = joined_round((0, 1), (sub(2, protocol=EAGER, prev=T1), sub(2, protocol=EAGER, prev=T2)))
    out, got = outcome_by_slot(scope, state, 0)
    assert out.failure == ""
    assert [(a.version, a.supported, a.error) for a in got.values()] == [(2, 0, "")] * 2
    assert (got[0].active, got[1].active) == (T1, T2)


def test_a_pre_probing_leader_dies_in_the_model_run():
    """Stepping the model: a 1.1 group bounced straight onto 2.0 loses its leader."""
    scope = StreamsScope(instances=2, tasks=2, plan=(Config("1.1"), Config("2.0")))
    run = Run(scope)
    run.do("stop", 1)
    run.do("start", 1)
    run.joins()
    events = run.do("assign")
    assert [e.kind for e in events] == ["leader_failed"]
    assert run.state.members[0].status == FAILED
    assert "cannot decode a v3 subscription" in run.state.members[0].failure


# ------------------------------------------------------------------------------ leader: KIP-268 (2.0-2.3)

def test_kip_268_probing_answer():
    """KIP-268: the old leader "sends empty Assignment back to the corresponding instance that
    sent the newer Subscription [...]. For all other instances the leader sends a regular
    Assignment in version X back" - kafka-behavior.md: "old members get back exactly their
    previous active/standby tasks (at minReceived)". Kafka 2.3.1 (KAFKA-8649's fix,
    versionProbingAssignment) encodes the empty answer at AssignmentInfo(minReceived,
    minSupported); the KIP's text (kip-268 profile) at the leader's LATEST, both fields."""
    scope = scope_of(Config("2.0"), Config("2.3"), Config("3.9"), tasks=3)
    state = joined_round((0, 1, 2), (sub(3, protocol=EAGER, prev=T1, standby=T2),
                                     sub(4, protocol=EAGER, prev=T2),
                                     sub(11, prev=T3)))
    out, got = outcome_by_slot(scope, state, leader=1)
    assert out.failure == ""
    assert got[2] == empty(3, 3)                      # minReceived, minSupported
    assert got[0] == Assignment(3, 3, "", T1, T2, 0, 0, False, GEN)   # minReceived, group min
    assert got[1] == Assignment(3, 3, "", T2, 0, 0, 0, False, GEN)
    assert "version probing" in out.note
    _, got = outcome_by_slot(with_profile(scope, rel.KIP_268), state, leader=1)
    assert got[2] == empty(4, 4)                      # the 2.3 leader's latest, both fields


def test_kip_268_leader_fails_on_a_future_and_a_v2_subscription():
    """kafka-behavior.md: future and minReceived < 3 is a TaskAssignmentException; the 2.0-2.5
    leader throws IllegalStateException (it cannot answer both)."""
    scope = scope_of(Config("2.0", "1.1"), Config("2.3"))
    state = joined_round((0, 1), (sub(2, protocol=EAGER, prev=T1), sub(4, protocol=EAGER)))
    out = assign(scope, state, 0, GEN)
    assert out.failure.startswith("IllegalStateException")
    assert "v4" in out.failure and "v2" in out.failure
    assert out.assignments == ()


def test_kip_268_leader_with_only_known_subscriptions_assigns_normally():
    scope = scope_of(Config("2.0"), Config("2.3"))
    state = joined_round((0, 1), (sub(3, protocol=EAGER, prev=T1 | T2), sub(4, protocol=EAGER)))
    out, got = outcome_by_slot(scope, state, leader=1)
    assert {(a.version, a.supported) for a in got.values()} == {(3, 3)}
    assert got[0].active | got[1].active == T1 | T2 and not got[0].active & got[1].active
    assert not any(a.followup for a in got.values())


def test_kafka_8649_switch_advertises_the_leaders_own_version():
    """KAFKA-8649: a 2.0 leader advertised its own LATEST; the fix (2.4, backported to 2.1)
    advertises the group's lowest latestSupportedVersion."""
    plan = (Config("2.0"), Config("2.3"))
    subs = (sub(3, protocol=EAGER, prev=T1), sub(4, protocol=EAGER, prev=T2))
    state = joined_round((0, 1), subs)
    fixed = scope_of(*plan)
    buggy = scope_of(*plan, profile="custom", behaviour=Behaviour(advertise_group_min=False))
    assert {a.supported for _, a in assign(fixed, state, 1, GEN).assignments} == {3}
    assert {a.supported for _, a in assign(buggy, state, 1, GEN).assignments} == {4}
    # the 2.0 member then believes it may use v4, which it cannot (the property sees it)
    a = dict(assign(buggy, state, 1, GEN).assignments)[0]
    done = on_assignment(buggy, plan[0], state.members[0], a)
    assert done.member.used == 4 > rel.release("2.0").latest
    after = state._replace(members=(done.member._replace(status=STABLE), state.members[1]._replace(status=STABLE)))
    assert used_version_supported(buggy, after) == "S1 uses v4 but supports only v3"
    ok = on_assignment(fixed, plan[0], state.members[0], dict(assign(fixed, state, 1, GEN).assignments)[0])
    assert ok.member.used == 3


def test_kafka_8649_switch_does_not_touch_kafka_2_6_leaders():
    scope = scope_of(Config("2.8"), Config("3.9"), profile="custom", behaviour=Behaviour(advertise_group_min=False))
    state = joined_round((0, 1), (sub(9), sub(11)))
    assert {(a.version, a.supported) for _, a in assign(scope, state, 1, GEN).assignments} == {(9, 9)}


def test_kip_268_leader_triggers_the_final_rebalance():
    """KIP-268 (the kip-268 profile): "the leader should be responsible to trigger this final
    rebalance": every member now supports v4 but still uses v3."""
    plan = (Config("2.3"),)
    state = joined_round((0, 0), (sub(3, 4, EAGER, prev=T1), sub(3, 4, EAGER, prev=T2)))
    scope = with_profile(StreamsScope(instances=2, tasks=2, plan=plan), rel.KIP_268)
    out, got = outcome_by_slot(scope, state, leader=1)
    assert (got[0].version, got[0].supported) == (3, 4)
    assert got[1].followup and not got[0].followup
    assert "final rebalance" in out.note
    off = replace(scope, profile="custom", behaviour=Behaviour(probing=rel.KIP_268, leader_final_rebalance=False))
    assert not any(a.followup for _, a in assign(off, state, 1, GEN).assignments)
    # the shipped 2.1-2.5 leader (release profile) leaves it to the members
    shipped = StreamsScope(instances=2, tasks=2, plan=plan)
    out, got = outcome_by_slot(shipped, state, leader=1)
    assert {(a.version, a.supported, a.followup) for a in got.values()} == {(3, 4, False)}
    assert "final rebalance" not in out.note


def final_round() -> State:
    """A 2.3 group just after the last bounce from 2.0: S1 (the leader) was probed down to
    v3 and still sends it; S2 restarted and sends v4. Both support v4."""
    return joined_round((0, 0), (sub(3, 4, EAGER, prev=T1), sub(4, 4, EAGER, prev=T2)))


def test_kip_268_release_profile_the_member_triggers_the_final_rebalance():
    """Kafka 2.1-2.3 (2.3.1, maybeUpdateSubscriptionVersion): the leader sets no follow-up;
    the member that sent v4 and got a v3 assignment advertising v4 logs "Downgrade
    subscription metadata to commonly supported version 4 and trigger new rebalance", the
    one that sent v3 "Upgrading subscription metadata version to 4 for next rebalance";
    both return VERSION_PROBING before creating tasks, and StreamThread rejoins."""
    scope = StreamsScope(instances=2, tasks=2, plan=(Config("2.3"),))
    state = final_round()
    out, got = outcome_by_slot(scope, state, leader=0)
    assert {(a.version, a.supported, a.followup) for a in got.values()} == {(3, 4, False)}
    assert "final rebalance" not in out.note
    leader = on_assignment(scope, scope.plan[0], state.members[0], got[0])
    other = on_assignment(scope, scope.plan[0], state.members[1], got[1])
    assert (leader.member.used, leader.rejoin) == (4, True)
    assert (other.member.used, other.rejoin) == (4, True)
    assert other.member.failure == "" and other.note.endswith("and rejoins; creates no task")
    assert leader.member.active == other.member.active == 0


def test_kip_268_profile_the_leader_triggers_the_final_rebalance_not_the_member():
    """The same round under the KIP's text: the leader's own assignment carries the
    follow-up, and the v4 member takes v4 from the next rebalance without rejoining."""
    scope = with_profile(StreamsScope(instances=2, tasks=2, plan=(Config("2.3"),)), rel.KIP_268)
    state = final_round()
    out, got = outcome_by_slot(scope, state, leader=0)
    assert got[0].followup and not got[1].followup
    assert "final rebalance" in out.note
    leader = on_assignment(scope, scope.plan[0], state.members[0], got[0])
    other = on_assignment(scope, scope.plan[0], state.members[1], got[1])
    assert (leader.member.used, leader.rejoin) == (4, True)
    assert (other.member.used, other.rejoin) == (4, False)


# ------------------------------------------------------------------------------ leader: Kafka 2.6+

def test_kafka_2_6_normal_assignment_at_min_received_advertising_min_supported():
    """kafka-behavior.md: "a normal assignment is computed and every AssignmentInfo is encoded
    with version = minReceived, commonlySupportedVersion = minSupported" - the future member
    (usedVersion above the leader's LATEST) gets tasks too."""
    scope = scope_of(Config("2.6.0"), Config("3.9"), Config("next"), tasks=3)
    state = joined_round((0, 1, 2), (sub(7, prev=T1), sub(11, prev=T2), sub(12)))
    out, got = outcome_by_slot(scope, state, leader=1)
    assert out.failure == ""
    assert {(a.version, a.supported, a.error) for a in got.values()} == {(7, 7, "")}
    assert (got[0].active, got[1].active, got[2].active) == (T1, T2, T3)


def test_kafka_2_6_leader_bounced_last():
    """kafka-behavior.md: "new leader sees all v11 subscriptions advertising latestSupported 12
    -> assignment version 11, commonlySupported 12 -> every member hits rule (a) and rejoins
    once at v12"."""
    scope = StreamsScope(instances=2, tasks=2, plan=(Config("next"),))
    state = joined_round((0, 0), (sub(11, 12, prev=T1), sub(11, 12, prev=T2)))
    _, got = outcome_by_slot(scope, state, leader=0)
    assert {(a.version, a.supported) for a in got.values()} == {(11, 12)}
    for slot, a in got.items():
        done = on_assignment(scope, Config("next"), state.members[slot], a)
        assert (done.member.used, done.rejoin) == (12, True)


def test_kafka_2_6_assignment_error_to_everyone():
    """kafka-behavior.md: "future and minReceived < 3 -> TaskAssignmentException -> *every*
    member gets errCode ASSIGNMENT_ERROR(3)"; the leader itself does not die."""
    scope = scope_of(Config("3.9", "1.1"), Config("3.9"), Config("next"), tasks=3)
    state = joined_round((0, 1, 2), (sub(2, protocol=EAGER, prev=T1), sub(11, prev=T2), sub(12, prev=T3)))
    out, got = outcome_by_slot(scope, state, leader=1)
    assert out.failure == ""
    assert sorted(got) == [0, 1, 2]
    # StreamsPartitionAssignor#errorAssignment: encoded at the leader's LATEST_SUPPORTED_VERSION
    # (errCode exists only from AssignmentInfo v4), not at minReceived (v2)
    assert set(got.values()) == {empty(11, 11, ASSIGNMENT_ERROR)}
    for slot, a in got.items():
        done = on_assignment(scope, scope.plan[slot], state.members[slot], a)
        assert done.member.failure == f"{ASSIGNMENT_ERROR}: TaskAssignmentException, the thread dies"
        assert not done.rejoin


def test_kafka_2_6_assignment_error_a_member_cannot_decode():
    """The error answer is at the leader's latest version: a member on an older release
    first fails to decode it (version above its own latest), before any error code."""
    scope = scope_of(Config("3.9", "1.1"), Config("3.9"), Config("next"), Config("2.8"), tasks=3)
    state = joined_round((0, 1, 2, 3), (sub(2, protocol=EAGER, prev=T1), sub(11, prev=T2), sub(12, prev=T3),
                                        sub(9)))
    out, got = outcome_by_slot(scope, state, leader=1)
    assert out.failure == "" and set(got.values()) == {empty(11, 11, ASSIGNMENT_ERROR)}
    done = on_assignment(scope, scope.plan[3], state.members[3], got[3])
    assert done.member.failure == "TaskAssignmentException: cannot decode a v11 assignment (knows up to v9)"
    assert not done.rejoin
    # a 2.6+ leader at an older latest encodes at its own latest: readable by a newer member
    scope = scope_of(Config("3.9", "1.1"), Config("2.8"), Config("next"), tasks=3)
    state = joined_round((0, 1, 2), (sub(2, protocol=EAGER, prev=T1), sub(9, prev=T2), sub(12, prev=T3)))
    _, got = outcome_by_slot(scope, state, leader=1)
    assert set(got.values()) == {empty(9, 9, ASSIGNMENT_ERROR)}
    for slot in (0, 2):
        done = on_assignment(scope, scope.plan[slot], state.members[slot], got[slot])
        assert done.member.failure == f"{ASSIGNMENT_ERROR}: TaskAssignmentException, the thread dies"


def test_profile_makes_a_2_3_leader_follow_kafka_2_6_rules():
    scope = with_profile(scope_of(Config("2.3"), Config("3.9")), rel.KAFKA_26)
    state = joined_round((0, 1), (sub(4, protocol=EAGER, prev=T1), sub(11, prev=T2)))
    _, got = outcome_by_slot(scope, state, leader=0)
    assert got[1] != empty(4, 4)                       # no probing answer: a normal assignment
    assert {(a.version, a.supported) for a in got.values()} == {(4, 4)}
    assert got[0].active | got[1].active == T1 | T2


# ------------------------------------------------------------------------------ member: Kafka 2.6+

def member(used: int, active: int = 0) -> Member:
    return Member(SYNCING, used, GEN - 1, active, active, 0, 0, 0, 0, None, None, -1)


def give(version, supported, active=0, followup=False) -> Assignment:
    return Assignment(version, supported, "", active, 0, 0, 0, followup, GEN)


NEW = StreamsScope()


def test_kafka_2_6_rule_a_upgrade_and_rejoin():
    done = on_assignment(NEW, Config("next"), member(11, T1), give(11, 12, T1 | T2))
    assert (done.member.used, done.rejoin) == (12, True)
    assert done.member.active == done.member.prev == T1 | T2      # "the assignment is applied anyway"
    assert done.member.generation == GEN and done.member.inbox is None


def test_kafka_2_6_rule_b_downgrade_and_rejoin():
    done = on_assignment(NEW, Config("3.9"), member(11), give(7, 7, T2))
    assert (done.member.used, done.rejoin, done.member.active) == (7, True, T2)
    # used = commonlySupported, not the received version (StreamsPartitionAssignor 2.6+)
    done = on_assignment(NEW, Config("next"), member(12), give(11, 12))
    assert (done.member.used, done.rejoin) == (12, True)


def test_kafka_2_6_downgrade_switched_off_still_rejoins():
    scope = replace(NEW, profile="custom", behaviour=Behaviour(follower_downgrades=False))
    done = on_assignment(scope, Config("3.9"), member(11), give(7, 7))
    assert (done.member.used, done.rejoin) == (11, True)


@pytest.mark.parametrize("followup", [False, True])
def test_kafka_2_6_same_version_keeps_it_and_rejoins_only_on_followup(followup):
    done = on_assignment(NEW, Config("3.9"), member(11), give(11, 11, T1, followup))
    assert (done.member.used, done.rejoin, done.note) == (11, followup, "")


@pytest.mark.parametrize("cfg, used, a", [
    (Config("3.9"), 7, give(9, 9)),        # received > used
    (Config("3.9"), 11, give(11, 12)),     # commonlySupported > own LATEST
])
def test_kafka_2_6_task_assignment_exception(cfg, used, a):
    done = on_assignment(NEW, cfg, member(used), a)
    assert done.member.failure.startswith("TaskAssignmentException")
    assert not done.rejoin


def test_kafka_2_6_below_probeable_version_keeps_the_used_version():
    """kafka-behavior.md: the version rules apply "If received >= 3" only."""
    done = on_assignment(NEW, Config("3.9", "1.1"), member(2), give(2, 0, T1))
    assert (done.member.used, done.rejoin, done.member.active) == (2, False, T1)


def test_any_release_dies_on_an_assignment_newer_than_it_can_read():
    done = on_assignment(NEW, Config("2.3"), member(4), give(11, 11))
    assert done.member.failure == "TaskAssignmentException: cannot decode a v11 assignment (knows up to v4)"


# ------------------------------------------------------------------------------ member: KIP-268 (2.0-2.5)

def test_kip_268_probing_downgrade_and_rejoin():
    """KIP-268: "If an upgrade follower sends new version number Y Subscription and receives
    version X Assignment with supported-version = X, it can downgrade to X [...] and resends
    a new Subscription with old version X"."""
    done = on_assignment(NEW, Config("2.3"), member(4, T1), empty(3, 3))
    assert (done.member.used, done.rejoin) == (3, True)
    assert done.member.active == 0 and done.member.prev == T1     # no task created, prevTasks kept
    assert done.note == "downgrades to v3 and rejoins; creates no task"
    done = on_assignment(with_profile(NEW, rel.KIP_268), Config("2.3"), member(4, T1), empty(3, 3))
    assert (done.member.used, done.rejoin, done.note) == (3, True, "probed: uses v3 and rejoins")


def test_kip_268_probing_downgrade_switched_off():
    scope = replace(NEW, profile="custom", behaviour=Behaviour(follower_downgrades=False))
    done = on_assignment(scope, Config("2.3"), member(4), empty(3, 3))
    assert (done.member.used, done.rejoin) == (4, True)


@pytest.mark.parametrize("followup", [False, True])
def test_kip_268_bump_without_rejoin(followup):
    """KIP-268 (kip-268 profile): "checks the leaders supported-version and update its
    downgraded used-version if possible"; kafka-behavior.md: in 2.0 "an upgrade only took
    effect at the next rebalance"."""
    done = on_assignment(with_profile(NEW, rel.KIP_268), Config("2.3"), member(3, T1), give(3, 4, T1, followup))
    assert done.member.used == 4
    assert done.rejoin is followup
    assert done.member.active == T1


def test_kafka_2_1_bump_rejoins_without_creating_tasks():
    """Kafka 2.3.1 (KAFKA-8649's fix): maybeUpdateSubscriptionVersion returns true on an
    upgrade too, onAssignment sets VERSION_PROBING and returns before the tasks are created,
    and StreamThread enforces the rebalance. With the fix switched off (2.3.0's code, as 2.0)
    the version is raised for the next rebalance and the tasks are created."""
    done = on_assignment(NEW, Config("2.3"), member(3, T1), give(3, 4, T1))
    assert (done.member.used, done.rejoin, done.member.active) == (4, True, 0)
    off = replace(NEW, profile="custom", behaviour=Behaviour(advertise_group_min=False))
    done = on_assignment(off, Config("2.3"), member(3, T1), give(3, 4, T1))
    assert (done.member.used, done.rejoin, done.member.active) == (4, False, T1)


def test_kip_268_member_getting_an_older_assignment_than_it_sent_rejoins():
    """Kafka 2.1+ onAssignment treats every received < used (>= 3) as version probing:
    "Sent a version 4 subscription and got version 3 assignment back (successful version
    probing). Downgrade subscription metadata to commonly supported version 4 and trigger
    new rebalance" (maybeUpdateSubscriptionVersion, 2.3.1 and 2.5.1). Reachable in a
    2.0 -> 2.3 rolling upgrade."""
    done = on_assignment(NEW, Config("2.3"), member(4), give(3, 4, T1))
    assert done.member.used == 4
    assert done.rejoin
    # an older assignment advertising less than used: the leader's supported version
    done = on_assignment(NEW, Config("2.5"), member(6), give(3, 4, T1))
    assert (done.member.used, done.rejoin) == (4, True)


def test_kip_268_profile_member_getting_an_older_assignment_takes_it_from_the_next_rebalance():
    """KIP-268's text: the follower rejoins only on the probing answer (version == supported);
    otherwise it takes the leader's supported version from the next rebalance."""
    scope = with_profile(NEW, rel.KIP_268)
    done = on_assignment(scope, Config("2.3"), member(4), give(3, 4, T1))
    assert (done.member.used, done.rejoin) == (4, False)
    assert done.note.endswith("from the next rebalance")
    done = on_assignment(scope, Config("2.3"), member(4), empty(3, 3))       # the probing answer
    assert (done.member.used, done.rejoin) == (3, True)


@pytest.mark.parametrize("profile, cfg, used, exception", [
    ("release", Config("2.3"), 3, "TaskAssignmentException"),
    (rel.KIP_268, Config("2.3"), 3, "IllegalStateException"),
    ("release", Config("2.0", "1.1"), 2, "IllegalStateException"),
])
def test_kip_268_member_getting_a_newer_assignment_than_it_sent_throws(profile, cfg, used, exception):
    """onAssignment: "Sent a version X subscription but got an assignment with higher version
    Y", even when the member could read Y: an IllegalStateException in 2.0.1, a
    TaskAssignmentException from 2.1 (validateMetadataVersions, 2.3.1)."""
    done = on_assignment(with_profile(NEW, profile), cfg, member(used, T1), give(used + 1, used + 1, T2))
    assert done.member.failure.startswith(f"{exception}: sent a v{used} subscription")
    assert not done.rejoin


def test_kip_268_member_ignores_versions_below_3():
    done = on_assignment(NEW, Config("2.3", "1.1"), member(2), give(2, 0, T2))
    assert (done.member.used, done.rejoin, done.member.active) == (2, False, T2)


def test_kip_268_profile_applies_probing_rules_to_a_3_9_member():
    scope = with_profile(NEW, rel.KIP_268)
    done = on_assignment(scope, Config("3.9"), member(9), give(9, 11))     # bump, no rejoin
    assert (done.member.used, done.rejoin) == (11, False)
    done = on_assignment(NEW, Config("3.9"), member(9), give(9, 11))       # kafka-2.6+ rule (a)
    assert (done.member.used, done.rejoin) == (11, True)


def test_kip_268_probing_in_a_model_run():
    """Stepping the model: a 2.3 group, one instance bounced onto 3.9: the 2.3 leader answers
    its v11 subscription with an empty v4 assignment; it downgrades to v4 and rejoins."""
    scope = StreamsScope(instances=2, tasks=2, plan=(Config("2.3"), Config("3.9")))
    run = Run(scope)
    assert run.state.group.leader == 0
    run.do("stop", 1)
    run.progress()                        # S1 alone takes both tasks
    run.do("start", 1)
    run.joins()
    run.do("assign")
    assert run.state.members[1].inbox == Assignment(4, 4, "", 0, 0, 0, 0, False, run.state.group.generation)
    assert run.state.members[0].inbox.active == T1 | T2           # its previous tasks, kept
    run.do("receive", 1)
    assert run.state.members[1].used == 4 and run.state.members[1].status == JOINING


# ------------------------------------------------------------------------------ cooperative withholding

def withholding_round(leader_release: str) -> tuple[StreamsScope, State]:
    """S1 (the leader) restarted with nothing; S2 (3.9, COOPERATIVE) still runs T1 and T2."""
    scope = scope_of(Config(leader_release), Config("3.9"))
    own = rel.release(leader_release)
    protocol = COOP if own.cooperative else EAGER
    state = joined_round((0, 1), (sub(own.latest, protocol=protocol),
                                  sub(own.latest, 11, owned=T1 | T2, prev=T1 | T2)))
    return scope, state


def test_a_2_4_leader_withholds_a_task_another_member_still_owns():
    """kafka-behavior.md: "an active task whose partition another consumer still owns is
    withheld [...] and that member gets nextRebalanceTime 0"."""
    scope, state = withholding_round("2.4")
    _, got = outcome_by_slot(scope, state, leader=0)
    assert got[1].active == T1                      # S2 keeps its share
    assert got[0].active == 0 and got[0].followup   # T2 withheld; S1 rejoins to collect it
    assert not got[1].followup


def test_an_eager_leader_does_not_withhold():
    scope, state = withholding_round("2.3")
    _, got = outcome_by_slot(scope, state, leader=0)
    assert got[1].active == T1
    assert got[0].active == T2 and not got[0].followup   # handed over while S2 still runs it


def test_withheld_tasks_are_collected_in_the_follow_up_round():
    scope, state = withholding_round("3.9")
    _, got = outcome_by_slot(scope, state, leader=0)
    s2 = on_assignment(scope, Config("3.9"), state.members[1], got[1]).member      # revokes T2
    s2, _ = subscribe(scope, Config("3.9"), s2, False)
    s1 = on_assignment(scope, Config("3.9"), state.members[0], got[0]).member
    s1, _ = subscribe(scope, Config("3.9"), s1, False)
    again = state._replace(members=(s1, s2))
    _, got = outcome_by_slot(scope, again, leader=0)
    assert (got[0].active, got[1].active) == (T2, T1)
    assert not got[0].followup and not got[1].followup


def test_only_a_cooperative_leader_runs_the_learner_assignor():
    """Seed 002's learner (warm-up) assignment is part of KIP-429: a 2.3 leader places tasks
    with the sticky assignor even when the scope asks for learners."""
    for leader_release, learner in (("2.3", False), ("2.4", True)):
        scope, state = withholding_round(leader_release)
        out = assign(replace(scope, task_assignor="learner"), state, 0, GEN)
        assert out.learner is learner, leader_release


# ------------------------------------------------------------------------------ revocation at JoinGroup

def running(active: int, learned: int = 0, used: int = 11) -> Member:
    return Member(STABLE, used, GEN, active, active, 0, 0, 0, learned, None, None, -1)


@pytest.mark.parametrize("cfg", [Config("2.3"), Config("3.9", "2.3"), Config("2.4", "2.0")])
def test_eager_members_revoke_every_active_task_at_join(cfg):
    m, revoked = subscribe(NEW, cfg, running(T1 | T2, learned=T1, used=rel.release(cfg.release).latest), False)
    assert revoked == T1 | T2
    assert m.active == 0 and m.learned == 0
    assert m.sub.protocol == EAGER and m.sub.owned == 0
    assert m.sub.prev == T1 | T2                   # prevTasks still tells the leader


def test_cooperative_members_revoke_only_the_learned_tasks():
    """Seed 002: "Every time when a rebalance begins, the task owners will revoke the being
    learned tasks"."""
    m, revoked = subscribe(NEW, Config("3.9"), running(T1 | T2 | T3, learned=T2), False)
    assert revoked == T2
    assert m.active == T1 | T3 and m.learned == 0
    assert m.sub.protocol == COOP and m.sub.owned == T1 | T3


def test_subscription_carries_latest_only_from_v3():
    m, _ = subscribe(NEW, Config("3.9", "1.1"), running(0)._replace(used=2), False)
    assert (m.sub.used, m.sub.latest) == (2, 2)
    m, _ = subscribe(NEW, Config("next"), running(0)._replace(used=11), True)
    assert (m.sub.used, m.sub.latest, m.sub.leaving) == (11, 12, True)


def test_join_in_a_model_run_revokes_per_protocol():
    for plan, kept in (((Config("2.3"),), 0), ((Config("3.9"),), T1)):
        run = Run(StreamsScope(instances=2, tasks=2, plan=plan, operations=("scale_down",), budget=1))
        assert run.state.members[0].active == T1
        run.do("scale_down", 1)           # S2 is told it is leaving and rejoins ...
        run.do("join", 1)                 # ... which begins a round: S1 must rejoin too
        run.do("join", 0)
        assert run.state.members[0].active == kept, plan


# ------------------------------------------------------------------------------ driving the model

class Run:
    """A scope and the current state (from ``init_states``); ``do`` steps a chosen action."""

    def __init__(self, scope: StreamsScope):
        self.scope = scope
        self.state = MODEL.init_states(scope)[0]
        assert self.state.group.status == GROUP_STABLE

    def do(self, kind: str, slot: int = -1):
        for action in MODEL.actions(self.scope, self.state):
            if action.kind == kind and slot in (-1, action.slot):
                self.state, events = MODEL.step(self.scope, self.state, action)
                return events
        raise AssertionError(f"{kind}@{slot} not enabled: {MODEL.actions(self.scope, self.state)}")

    def joins(self) -> None:
        while any(a.kind == "join" for a in MODEL.actions(self.scope, self.state)):
            self.do("join")

    def progress(self) -> None:
        """Take join/assign/receive until none is enabled."""
        while True:
            kinds = [a.kind for a in MODEL.actions(self.scope, self.state)]
            kind = next((k for k in ("receive", "join", "assign") if k in kinds), None)
            if kind is None:
                return
            self.do(kind)
