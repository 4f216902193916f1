"""Unit tests of the Streams leader (``leader.assign``: version negotiation, then task
placement, and cooperative withholding) per probing family, on hand-built rounds and on
states reached by stepping the model.

Rules: ../shared/kafka-behavior.md A1 ("Leader rules", "Historic versionProbingAssignment",
"Cooperative Streams") and KIP-268's "Detailed upgrade protocol". Tasks are bitmasks: T1 is bit 0."""
from __future__ import annotations

from dataclasses import replace

from groupcheck.model.streams_classic import releases as rel
from groupcheck.model.streams_classic.leader import assign
from groupcheck.model.streams_classic.member import on_assignment, subscribe
from groupcheck.model.streams_classic.properties import used_version_supported
from groupcheck.model.streams_classic.scope import Behaviour, Config, StreamsScope, with_profile
from groupcheck.model.streams_classic.state import ASSIGNMENT_ERROR, FAILED, STABLE, Assignment, State
from tests.helpers.streams_rounds import COOP, EAGER, GEN, T1, T2, T3, Run, empty, joined_round, outcome_by_slot, scope_of, sub


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
    assert got[0] == Assignment(version=3, supported=3, error="", active=T1, standby=T2, learning=0, learned=0,
                                followup=False, generation=GEN)   # minReceived, group min
    assert got[1] == Assignment(version=3, supported=3, error="", active=T2, standby=0, learning=0, learned=0,
                                followup=False, generation=GEN)
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


def test_a_registered_task_assignor_places_and_asks_a_followup_per_client():
    """KIP-924: a custom TaskAssignor's placement replaces the built-in one, and a
    KafkaStreamsAssignment's followupRebalanceDeadline makes that client rejoin."""
    from groupcheck.model.assignors import streams_tasks as tasks

    def everything_to_the_last(req):
        k = len(req.clients)
        return tasks.Placement(tuple(req.tasks if c == k - 1 else 0 for c in range(k)), (0,) * k, (0,) * k,
                               tuple(c == k - 1 for c in range(k)))

    tasks.register("test-last", everything_to_the_last)
    try:
        scope = scope_of(Config("3.9"), Config("3.9"), task_assignor="test-last")
        state = joined_round((0, 0), (sub(11, prev=T1), sub(11, prev=T2)))   # nothing owned: no withholding
        _, by_slot = outcome_by_slot(scope, state, 0)
    finally:
        tasks.unregister("test-last")
    last = max(by_slot)
    assert by_slot[last].followup and not by_slot[min(by_slot)].followup
    assert by_slot[min(by_slot)].active == 0 and by_slot[last].active == T1 | T2
