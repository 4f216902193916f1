"""Each rule of Kafka Streams' StreamsPartitionAssignor#assign / #onAssignment (and what
StreamThread does with the result) as the model has it, one test per rule, each citing
the Kafka unit test it mirrors or the source it follows (file#method, tag). The audit
table in model/streams_classic/README.md lists the same rules.

Rounds are built by hand: instance i (one thread unless said) runs ``plan[i]`` and has
joined with ``subs[i]``; slot 0 is the most senior. Tasks are bitmasks: T1 is bit 0.
Kafka's own tests name consumers; here a member is its slot."""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.model.streams_classic import MODEL
from groupcheck.model.streams_classic import releases as rel
from groupcheck.model.streams_classic.leader import RoundError, assign
from groupcheck.model.streams_classic.member import on_assignment, subscribe
from groupcheck.model.streams_classic.scope import Behaviour, Config, StreamsScope, with_profile
from groupcheck.model.streams_classic.state import (
    ASSIGNMENT_ERROR, FAILED, NO_LEADER, PREPARING, STABLE, SYNCING, UP, Action, Assignment, Group, Instance,
    Member, State, Subscription,
)

T1, T2, T3, T4 = 1, 2, 4, 8
EAGER, COOP = rel.EAGER, rel.COOPERATIVE
GEN = 7
KAFKA_8649_OFF = Behaviour(advertise_group_min=False)


def sub(used: int, latest: int | None = None, protocol: str = EAGER, *, owned: int = 0, prev: int = 0,
        standby: int = 0) -> Subscription:
    return Subscription(used=used, latest=used if latest is None else latest, protocol=protocol, owned=owned,
                        prev=prev, standby=standby, learning=0, ready=0, leaving=False)


def round_of(plan: tuple[Config, ...], subs: tuple[Subscription, ...], *, threads: int = 1, tasks: int = 3,
             profile: str = "release", behaviour: Behaviour | None = None) -> tuple[StreamsScope, State]:
    """Member slot s belongs to instance s // threads, which runs plan[s // threads]."""
    scope = StreamsScope(instances=len(plan), threads=threads, tasks=tasks, plan=plan)
    scope = with_profile(scope, profile) if behaviour is None else replace(scope, profile="custom",
                                                                           behaviour=behaviour)
    members = tuple(Member(status=SYNCING, used=x.used, generation=GEN - 1, active=x.owned, prev=x.prev,
                           standby=x.standby, learning=0, ready=0, learned=0, sub=x, inbox=None, history=-1)
                    for x in subs)
    slots = tuple(range(len(subs)))
    group = Group(status=PREPARING, generation=GEN - 1, leader=NO_LEADER, joined=slots, order=slots, version=0)
    return scope, State(group=group, instances=tuple(Instance(UP, i) for i in range(len(plan))), members=members,
                        budget=0, calm=0, since_start=0, last_start=-1)


def run(scope: StreamsScope, state: State, leader: int = 0):
    out = assign(scope, state, leader, GEN)
    return out, dict(out.assignments)


def versions(got: dict) -> dict:
    return {s: (a.version, a.supported, a.error) for s, a in got.items()}


def placed_once(got: dict, tasks: int) -> bool:
    seen = 0
    for a in got.values():
        if seen & a.active:
            return False
        seen |= a.active
    return seen == (1 << tasks) - 1


def member(used: int, active: int = 0, prev: int | None = None) -> Member:
    return Member(status=SYNCING, used=used, generation=GEN - 1, active=active, prev=active if prev is None else prev,
                  standby=0, learning=0, ready=0, learned=0, sub=None, inbox=None, history=-1)


def give(version: int, supported: int, active: int = 0, error: str = "", followup: bool = False) -> Assignment:
    return Assignment(version=version, supported=supported, error=error, active=active, standby=0, learning=0,
                      learned=0, followup=followup, generation=GEN)


NEW = StreamsScope()


# ============================================================================ leader, pre-probing (0.10.0-1.1)

@pytest.mark.parametrize("leader, newer", [("0.10.0", 2), ("1.1", 3), ("1.1", 11)])
def test_pre_probing_leader_dies_on_a_subscription_it_cannot_decode(leader, newer):
    # SubscriptionInfo#decode, 0.10.0.1 (version != 1) and 1.1.1 (version not 1 or 2): throws
    # TaskAssignmentException "unable to decode subscription data"; assign() propagates it
    latest = rel.release(leader).latest
    scope, state = round_of((Config(leader), Config("3.9")), (sub(latest), sub(newer)))
    out = assign(scope, state, 0, GEN)
    assert out.failure == (f"TaskAssignmentException: Kafka Streams {leader} cannot decode a v{newer} "
                           f"subscription (knows up to v{latest})")
    assert out.assignments == ()


def test_pre_probing_leader_encodes_the_lowest_version():
    # mirrors StreamPartitionAssignorTest.shouldReturnLowestAssignmentVersionForDifferentSubscriptionVersions
    # (1.1.1): AssignmentInfo(minUserMetadataVersion, ...) for every consumer
    scope, state = round_of((Config("1.1"), Config("1.1", "0.10.0")), (sub(2, prev=T1), sub(1)))
    out, got = run(scope, state)
    assert out.failure == ""
    assert versions(got) == {0: (1, 0, ""), 1: (1, 0, "")}
    assert placed_once(got, 3)


# ============================================================================ leader, every family from 2.0

@pytest.mark.parametrize("leader", ["2.0", "2.3", "2.5", "2.6.1", "3.9"])
@pytest.mark.parametrize("low, other", [(1, 2), (1, 3), (2, 3)])
def test_lowest_used_version_is_the_assignment_version(leader, low, other):
    # mirrors StreamsPartitionAssignorTest.shouldReturnLowestAssignmentVersionForDifferentSubscriptionVersionsV1V2,
    # ...V1V3 and ...V2V3 (2.0.1, 2.3.1, 2.5.1, 2.6.3, 3.9)
    uf = {1: "0.10.0", 2: "1.1", 3: None}
    latest = rel.release(leader).latest
    scope, state = round_of((Config(leader, uf[low]), Config(leader, uf[other] if other < 3 else None)),
                            (sub(low), sub(other if other < 3 else latest)))
    _, got = run(scope, state)
    assert {a.version for a in got.values()} == {low}
    assert {a.supported for a in got.values()} == {0}        # no supported version below v3


@pytest.mark.parametrize("leader", ["2.0", "2.3", "2.4", "2.5", "2.6.0", "2.6.1"])
@pytest.mark.parametrize("old", [1, 2])
def test_future_next_to_v1_or_v2_kills_the_leader_up_to_2_6(leader, old):
    # mirrors StreamsPartitionAssignorTest.shouldThrowIfV1SubscriptionAndFutureSubscriptionIsMixed /
    # ...V2... (2.0.1, 2.3.1, 2.4.1, 2.5.1, 2.6.3): IllegalStateException "Received a future (version
    # probing) subscription [...] and an incompatible pre Kafka 2.0 subscription"
    latest = rel.release(leader).latest
    scope, state = round_of((Config(leader, "0.10.0" if old == 1 else "1.1"), Config("next")),
                            (sub(old), sub(latest + 1)))
    out = assign(scope, state, 0, GEN)
    assert out.failure == f"IllegalStateException: a future (v{latest + 1}) and a pre-2.0 (v{old}) " \
                          f"subscription at the same time"
    assert out.assignments == ()


@pytest.mark.parametrize("leader", ["2.7", "3.9", "next"])
@pytest.mark.parametrize("old", [1, 2])
def test_future_next_to_v1_or_v2_gives_every_member_assignment_error_from_2_7(leader, old):
    # mirrors StreamsPartitionAssignorTest.shouldEncodeAssignmentErrorIfV1SubscriptionAndFutureSubscriptionIsMixed /
    # ...V2... (2.7.2, 3.9): the TaskAssignmentException is caught and errorAssignment hands every
    # consumer, the FUTURE_ID client's too, AssignmentInfo(LATEST_SUPPORTED_VERSION, ..., ASSIGNMENT_ERROR)
    latest = rel.release(leader).latest
    scope, state = round_of((Config(leader, "0.10.0" if old == 1 else "1.1"), Config(leader), Config("next")),
                            (sub(old, prev=T1), sub(latest, prev=T2), sub(latest + 1, latest + 1)))
    out, got = run(scope, state)
    assert out.failure == ""
    assert versions(got) == {s: (latest, latest, ASSIGNMENT_ERROR) for s in (0, 1, 2)}
    assert not any(a.active for a in got.values())


def test_the_kafka_2_6_profile_gives_assignment_error_from_a_2_6_leader_too():
    # the profile follows the newest rules; Kafka 2.6.3 itself throws (test above)
    scope, state = round_of((Config("2.6.1", "1.1"), Config("next")), (sub(2), sub(12)), profile=rel.KAFKA_26)
    out, got = run(scope, state)
    assert out.failure == "" and {a.error for a in got.values()} == {ASSIGNMENT_ERROR}


# ============================================================================ leader, 2.0-2.3 (kip-268 family)

def test_kafka_2_0_probing_answer_is_empty_at_the_leaders_latest():
    # mirrors StreamsPartitionAssignorTest.shouldReturnUnchangedAssignmentForOldInstancesAndEmptyAssignmentForFutureInstances
    # (2.0.1): the old consumer gets its previous active and standby tasks, the future one
    # `new AssignmentInfo()` (LATEST, LATEST) and no partition
    scope, state = round_of((Config("2.0"), Config("2.3")), (sub(3, prev=T1 | T2, standby=T3), sub(4)))
    out, got = run(scope, state)
    assert got[0] == Assignment(version=3, supported=3, error="", active=T1 | T2, standby=T3, learning=0, learned=0,
                                followup=False, generation=GEN)
    assert got[1] == Assignment(version=3, supported=3, error="", active=0, standby=0, learning=0, learned=0,
                                followup=False, generation=GEN)
    assert out.note.startswith("version probing")


def test_kafka_2_3_probing_answer_is_at_min_received_and_min_supported():
    # StreamsPartitionAssignor#versionProbingAssignment, 2.3.1 (KAFKA-8649's fix): the future
    # consumer gets AssignmentInfo(minUserMetadataVersion, minSupportedMetadataVersion); 2.3.0's
    # code (the fix switched off) and KIP-268's text send the leader's LATEST in both fields
    plan = (Config("2.3"), Config("2.0"), Config("3.9"))
    subs = (sub(4, prev=T1), sub(3, prev=T2), sub(11, 11, COOP))
    _, got = run(*round_of(plan, subs))
    assert (got[2].version, got[2].supported, got[2].active) == (3, 3, 0)
    for profile, behaviour in (("release", KAFKA_8649_OFF), (rel.KIP_268, None)):
        _, got = run(*round_of(plan, subs, profile=profile, behaviour=behaviour))
        assert (got[2].version, got[2].supported, got[2].active) == (4, 4, 0), profile
        assert (got[0].active, got[1].active) == (T1, T2)


def test_kafka_2_0_gives_each_thread_its_whole_instances_previous_tasks():
    # StreamsPartitionAssignor#versionProbingAssignment: 2.0.1 hands every consumer of a client
    # clientMetadata.state.prevActiveTasks() (the client's); 2.3.1 prevActiveTasksForConsumer(consumerId)
    plan = (Config("2.0"), Config("2.3"))
    subs = (sub(3, prev=T1, standby=T3), sub(3, prev=T2), sub(4), sub(4))
    _, got = run(*round_of(plan, subs, threads=2, tasks=3))
    assert (got[0].active, got[1].active) == (T1 | T2, T1 | T2)
    assert (got[0].standby, got[1].standby) == (T3, T3)
    scope, state = round_of((Config("2.3"), Config("3.9")), (sub(4, prev=T1), sub(4, prev=T2), sub(11), sub(11)),
                            threads=2)
    _, got = run(scope, state)
    assert (got[0].active, got[1].active) == (T1, T2)


def test_kafka_2_0_leader_advertises_its_own_latest_2_1_the_group_minimum():
    # 2.0.1: AssignmentInfo(version, activeTasks, ...) sets latestSupportedVersion = LATEST_SUPPORTED_VERSION;
    # 2.3.1 (KAFKA-8649): minSupportedMetadataVersion over the readable subscriptions. An odd
    # input (a v3 subscription claiming latest 2) shows the difference.
    odd = (sub(3, 2), sub(3, 3))
    _, got = run(*round_of((Config("2.0"), Config("2.0")), odd))
    assert {a.supported for a in got.values()} == {3}
    _, got = run(*round_of((Config("2.3", ), Config("2.0")), (sub(3, 4), sub(3, 2))))
    assert {a.supported for a in got.values()} == {2}


@pytest.mark.parametrize("leader", ["2.0", "2.3"])
def test_no_readable_subscription_gets_everyone_the_empty_answer(leader):
    # StreamsPartitionAssignor#assign (2.0.1, 2.3.1): minReceivedMetadataVersion and
    # minSupportedMetadataVersion start at LATEST_SUPPORTED_VERSION; with every subscription
    # future (the leader's own too, an input Kafka's leader never sees) minReceived stays there,
    # which is probeable: versionProbingAssignment, every consumer future
    latest = rel.release(leader).latest
    scope, state = round_of((Config(leader), Config("3.9")), (sub(latest + 1, 11), sub(11, 11)))
    out, got = run(scope, state)
    assert out.failure == ""
    assert got == {0: Assignment(version=latest, supported=latest, error="", active=0, standby=0, learning=0,
                                 learned=0, followup=False, generation=GEN),
                   1: Assignment(version=latest, supported=latest, error="", active=0, standby=0, learning=0,
                                 learned=0, followup=False, generation=GEN)}


# ============================================================================ leader, 2.4+ (kafka-2.6+ family)

@pytest.mark.parametrize("leader", ["2.4", "2.5", "2.6.1", "3.9"])
def test_future_members_are_placed_like_any_other_from_2_4(leader):
    # mirrors StreamsPartitionAssignorTest.shouldReturnNormalAssignmentForOldAndFutureInstancesDuringVersionProbing
    # (2.4.1, 2.5.1): consumer1 owns t0/t1, the future consumer t2; each keeps what it owns, at
    # (minReceived, minSupported) = the leader's LATEST
    latest = rel.release(leader).latest
    scope, state = round_of((Config(leader), Config("next")),
                            (sub(latest, protocol=COOP, owned=T1 | T2, prev=T1 | T2), sub(12, 12, COOP, owned=T3)))
    out, got = run(scope, state)
    assert (got[0].active, got[1].active) == (T1 | T2, T3)
    assert versions(got) == {0: (latest, latest, ""), 1: (latest, latest, "")}
    assert "future v12" in out.note


@pytest.mark.parametrize("leader", ["2.4", "3.9"])
def test_only_future_members_get_a_normal_assignment_at_the_leaders_latest(leader):
    # mirrors StreamsPartitionAssignorTest.shouldReturnInterleavedAssignmentForOnlyFutureInstancesDuringVersionProbing
    # (2.4.1-3.9): every task is placed, each AssignmentInfo at LATEST_SUPPORTED_VERSION. (Kafka puts
    # all future consumers in one FUTURE_ID client; the model keeps each in its instance.)
    latest = rel.release(leader).latest
    scope, state = round_of((Config(leader), Config("next")), (sub(latest + 1, 12, COOP), sub(12, 12, COOP)))
    out, got = run(scope, state)
    assert out.failure == "" and placed_once(got, 3)
    assert versions(got) == {0: (latest, latest, ""), 1: (latest, latest, "")}


def test_the_leader_reads_only_the_owned_partitions_of_a_future_subscription():
    # SubscriptionInfo#decode of a future version reads usedVersion and latestSupportedVersion only
    # (2.4.1: prevTasks null, so assign skips addPreviousTasks; 2.6+: empty taskOffsetSums); the
    # ownedPartitions are the consumer protocol's and are read (2.4.1 addConsumer(consumerId,
    # subscription.ownedPartitions()))
    plan = (Config("3.9"), Config("next"))
    _, got = run(*round_of(plan, (sub(11, protocol=COOP), sub(12, 12, COOP, prev=T1 | T2))))
    assert (got[0].active, got[1].active) == (T1 | T3, T2)          # as if it claimed nothing
    _, got = run(*round_of(plan, (sub(11, protocol=COOP), sub(12, 12, COOP, prev=T1 | T2)), profile=rel.KIP_268))
    assert got[1].active == 0                                         # (kip-268 profile: the empty answer)
    _, got = run(*round_of(plan, (sub(11, protocol=COOP), sub(12, 12, COOP, owned=T1 | T2))))
    assert (got[0].active, got[1].active) == (T3, T1 | T2)          # what it owns, it keeps


def test_min_supported_counts_every_subscription_from_2_4_only_readable_ones_before():
    # updateMinSupportedVersion is applied to every subscription in 2.4.1+, to the readable ones in
    # 2.3.1; odd inputs (a future subscription claiming a lower latest) show it
    _, got = run(*round_of((Config("3.9"), Config("next")), (sub(11, protocol=COOP), sub(12, 5, COOP))))
    assert {a.supported for a in got.values()} == {5}
    _, got = run(*round_of((Config("2.3"), Config("3.9")), (sub(4), sub(11, 3, COOP))))
    assert {(a.version, a.supported) for a in got.values()} == {(4, 4)}


def test_a_cooperative_leader_withholds_an_owned_task_and_sets_the_followup():
    # mirrors StreamsPartitionAssignorTest.shouldTriggerImmediateRebalanceOnTasksRevoked (2.6.3, 3.9):
    # a task still owned elsewhere is removed from the new owner's assignment, which gets
    # nextRebalanceMs 0 (addClientAssignments). (2.4-2.5 leave the rejoin to the revoking consumer,
    # ConsumerCoordinator#onJoinComplete; either way one follow-up round.)
    scope, state = round_of((Config("3.9"), Config("3.9")),
                            (sub(11, protocol=COOP), sub(11, protocol=COOP, owned=T1 | T2 | T3, prev=T1 | T2 | T3)))
    _, got = run(scope, state)
    assert got[0].active == 0 and got[0].followup
    assert got[1].active == T1 | T2 and not got[1].followup


# ============================================================================ leader, degenerate rounds

@pytest.mark.parametrize("release", ["0.10.0", "1.1", "2.0", "2.3", "2.4", "2.6.0", "3.9", "next"])
def test_a_single_member_takes_every_task(release):
    # computeNewAssignment with one client (every release): all tasks to its only consumer
    latest = rel.release(release).latest
    _, got = run(*round_of((Config(release),), (sub(latest),)))
    assert got[0].active == T1 | T2 | T3 and got[0].version == latest


def test_more_members_than_tasks_and_no_tasks():
    plan = (Config("3.9"),) * 4
    _, got = run(*round_of(plan, tuple(sub(11, protocol=COOP) for _ in plan), tasks=2))
    assert placed_once(got, 2) and sum(1 for a in got.values() if not a.active) == 2
    _, got = run(*round_of(plan, tuple(sub(11, protocol=COOP) for _ in plan), tasks=0))
    assert set(got) == {0, 1, 2, 3} and not any(a.active or a.standby for a in got.values())


def test_a_state_that_is_no_round_is_a_round_error_naming_the_fix():
    scope, state = round_of((Config("3.9"), Config("3.9")), (sub(11), sub(11)))
    with pytest.raises(RoundError, match=r"leader.assign\(leader=5\): no member slot 5.*as step's assign does"):
        assign(scope, state, 5, GEN)
    left = state._replace(group=state.group._replace(joined=(1,)))
    with pytest.raises(RoundError, match="the leader has not joined"):
        assign(scope, left, 0, GEN)
    unsent = state._replace(members=(state.members[0], state.members[1]._replace(sub=None)))
    with pytest.raises(RoundError, match="joined slot 1 has no subscription"):
        assign(scope, unsent, 0, GEN)
    one_instance = state._replace(instances=state.instances[:1])
    with pytest.raises(RoundError, match="slot 1's instance runs no configuration of the plan"):
        assign(scope, one_instance, 0, GEN)


# ============================================================================ member, pre-probing (< 2.0)

def test_pre_probing_member_dies_on_a_newer_assignment():
    # AssignmentInfo#decode, 1.1.1: "Unknown assignment data version" (TaskAssignmentException)
    done = on_assignment(NEW, Config("1.1"), member(2), give(3, 3, T1))
    assert done.member.failure == "TaskAssignmentException: cannot decode a v3 assignment (knows up to v2)"
    assert not done.rejoin


def test_pre_probing_member_takes_an_older_assignment_and_keeps_its_version():
    # StreamPartitionAssignor#onAssignment, 1.1.1: no version logic; the tasks are set
    done = on_assignment(NEW, Config("1.1"), member(2), give(1, 0, T1 | T2))
    assert (done.member.used, done.rejoin, done.member.active) == (2, False, T1 | T2)


# ============================================================================ member, Kafka 2.0 (no KAFKA-8649 fix)

def test_kafka_2_0_member_throws_illegal_state_on_a_higher_version():
    # StreamsPartitionAssignor#onAssignment, 2.0.1: "Sent a version X subscription but got an
    # assignment with higher version Y" (IllegalStateException)
    done = on_assignment(NEW, Config("2.0", "1.1"), member(2), give(3, 3))
    assert done.member.failure == "IllegalStateException: sent a v2 subscription, got a v3 assignment"


def test_kafka_2_0_member_probed_down_creates_no_task_and_rejoins():
    # StreamsPartitionAssignor#onAssignment, 2.0.1: received < used (>= 3): used = received when it
    # equals leaderSupportedVersion, else leaderSupportedVersion; versionProbingFlag.set(true);
    # return. StreamThread 2.0.1: onPartitionsAssigned skips createTasks, runLoop enforceRebalance().
    # (Only a 2.3 thread with the fix off is ever above v3 in a 2.0 family round.)
    done = on_assignment(replace(NEW, behaviour=KAFKA_8649_OFF), Config("2.3"), member(4, prev=T3), give(3, 3, T1))
    assert (done.member.used, done.rejoin, done.member.active, done.member.prev) == (3, True, 0, T3)
    done = on_assignment(replace(NEW, behaviour=KAFKA_8649_OFF), Config("2.3"), member(4), give(3, 4, T1))
    assert done.member.used == 4 and done.rejoin


def test_kafka_2_0_member_takes_a_higher_leader_version_unchecked():
    # StreamsPartitionAssignor#onAssignment, 2.0.1, case VERSION_THREE: leaderSupportedVersion >
    # used: "Upgrading subscription metadata version to Y for next rebalance", no check against its
    # own LATEST (KAFKA-8649), no rejoin, tasks created
    done = on_assignment(NEW, Config("2.0"), member(3), give(3, 4, T1))
    assert (done.member.used, done.rejoin, done.member.active, done.member.failure) == (4, False, T1, "")


def test_a_thread_above_its_latest_dies_when_it_joins():
    # SubscriptionInfo(version, ...) 2.0.1: "version must be between 1 and LATEST_SUPPORTED_VERSION"
    # (IllegalArgumentException) from StreamsPartitionAssignor#subscription: KAFKA-8649's crash
    m = member(4)._replace(status=STABLE)
    after, revoked = subscribe(NEW, Config("2.0"), m, False)
    assert after.failure == "IllegalArgumentException: SubscriptionInfo version must be between 1 and 3; was: 4"
    assert after.sub is None and revoked == 0


def test_a_thread_above_its_latest_dies_at_join_in_a_model_run():
    # KAFKA-8649's crash through step: the 2.0 thread that took v4 sends JoinGroup and dies; the
    # group drops it and the other thread rebalances alone
    scope = StreamsScope(instances=2, tasks=2, plan=(Config("2.0"),))
    state = MODEL.init_states(scope)[0]
    members = (state.members[0], state.members[1]._replace(used=4, status="joining"))
    state, events = MODEL.step(scope, state._replace(members=members), Action("join", 1))
    assert [(e.kind, e.slot) for e in events] == [("failed", 1)]
    assert state.members[1].status == FAILED and state.members[1].failure.startswith("IllegalArgumentException")
    assert 1 not in state.group.joined + state.group.order
    assert state.members[0].status == "joining"        # its leaving starts a round


# ============================================================================ member, 2.1-2.3 (with KAFKA-8649's fix)

def test_kafka_2_1_member_throws_task_assignment_exception():
    # StreamsPartitionAssignor#validateMetadataVersions, 2.3.1: received > used, and commonly
    # supported > LATEST ("Can't upgrade to metadata version greater than we support")
    done = on_assignment(NEW, Config("2.3"), member(3), give(4, 4))
    assert done.member.failure == ("TaskAssignmentException: sent a v3 subscription but got an assignment with "
                                   "higher version v4")
    done = on_assignment(NEW, Config("2.3"), member(4), give(4, 5))
    assert done.member.failure == "TaskAssignmentException: commonly supported v5 is above what v4 code supports"


@pytest.mark.parametrize("used, a, after", [(4, give(3, 3, T1), 3), (4, give(3, 4, T1), 4), (3, give(3, 4, T1), 4)])
def test_kafka_2_1_member_changing_version_creates_no_task_and_rejoins(used, a, after):
    # maybeUpdateSubscriptionVersion, 2.3.1: (a) commonlySupported > used or (b) received < used:
    # used = commonlySupported, return true -> onAssignment sets VERSION_PROBING and returns
    # before setAssignmentMetadata; StreamThread 2.3.1 skips createTasks and enforceRebalance()s
    done = on_assignment(NEW, Config("2.3"), member(used, prev=T2), a)
    assert (done.member.used, done.rejoin, done.member.active, done.member.prev) == (after, True, 0, T2)
    assert done.note.endswith("creates no task")


def test_kafka_2_1_member_without_version_change_creates_the_tasks():
    done = on_assignment(NEW, Config("2.3"), member(4), give(4, 4, T1 | T2))
    assert (done.member.used, done.rejoin, done.member.active) == (4, False, T1 | T2)


# ============================================================================ member, 2.4+ (kafka-2.6+ family)

@pytest.mark.parametrize("release", ["2.4", "2.5", "2.6.0", "3.9"])
def test_member_changing_version_from_2_4_creates_the_tasks_anyway_and_rejoins(release):
    # 2.4.1/2.5.1 onAssignment: setAssignmentErrorCode(VERSION_PROBING) and goes on to
    # setAssignmentMetadata (StreamsRebalanceListener creates the tasks, StreamThread
    # enforceRebalance()s); 2.6.3-3.9 maybeScheduleFollowupRebalance: nextScheduledRebalanceMs = 0,
    # taskManager.handleAssignment
    latest = rel.release(release).latest
    down = on_assignment(NEW, Config(release), member(latest), give(latest - 1, latest - 1, T1))
    assert (down.member.used, down.rejoin, down.member.active) == (latest - 1, True, T1)
    up = on_assignment(NEW, Config(release), member(latest - 1), give(latest - 1, latest, T2))
    assert (up.member.used, up.rejoin, up.member.active) == (latest, True, T2)


def test_member_follows_the_encoded_next_rebalance():
    # maybeScheduleFollowupRebalance, 2.6.3: encoded nextRebalanceMs 0 -> nextScheduledRebalanceMs 0
    done = on_assignment(NEW, Config("3.9"), member(11), give(11, 11, T1, followup=True))
    assert (done.member.used, done.rejoin) == (11, True)


@pytest.mark.parametrize("release", ["2.0", "2.3", "2.4", "3.9"])
def test_member_ignores_versions_below_3(release):
    # maybeUpdateSubscriptionVersion (2.1+) "Received an assignment version X that is less than the
    # earliest version that allows version probing"; 2.0.1 switch cases 1/2: no version change. A
    # v1/v2 AssignmentInfo carries no commonlySupportedVersion (decode: UNKNOWN), so a supported
    # value on one is not read - not even by validateMetadataVersions
    done = on_assignment(NEW, Config(release, "1.1"), member(2), give(2, 99, T1))
    assert (done.member.used, done.rejoin, done.member.active, done.member.failure) == (2, False, T1, "")


@pytest.mark.parametrize("version", [0, -1])
def test_a_version_below_1_is_undecodable(version):
    # AssignmentInfo#decode (2.0.1+ switch default; 1.1.1 version < 0): TaskAssignmentException
    done = on_assignment(NEW, Config("3.9"), member(11), give(version, 11))
    assert done.member.failure.startswith("TaskAssignmentException: cannot decode")


# ============================================================================ member, error codes

@pytest.mark.parametrize("release", ["2.7", "3.9"])
def test_assignment_error_kills_the_thread_from_2_7(release):
    # StreamsRebalanceListener#onPartitionsAssigned, 2.7.2/3.9: ASSIGNMENT_ERROR -> throw
    # TaskAssignmentException("Hit an unexpected exception during task assignment phase of rebalance")
    done = on_assignment(NEW, Config(release), member(8, T1), give(8, 8, error=ASSIGNMENT_ERROR))
    assert done.member.failure == f"{ASSIGNMENT_ERROR}: TaskAssignmentException, the thread dies"
    assert not done.rejoin


@pytest.mark.parametrize("release, protocol_cfg, rejoin", [
    ("2.6.1", Config("2.6.1"), True), ("2.6.1", Config("2.6.1", "2.3"), False), ("2.3", Config("2.3"), False),
])
def test_an_error_code_a_release_does_not_know_leaves_the_thread_running_without_tasks(release, protocol_cfg, rejoin):
    # onAssignment records the code and returns before creating tasks (2.3.1, 2.6.3); the listener
    # acts only on INCOMPLETE_SOURCE_TOPIC_METADATA (StreamThread 2.3.1, StreamsRebalanceListener
    # 2.6.3). The assignment has no partition: a COOPERATIVE consumer revokes what it owned and
    # rejoins (ConsumerCoordinator#onJoinComplete), an EAGER one already revoked everything.
    latest = rel.release(release).latest
    owned = T1 if rel.rebalance_protocol(protocol_cfg.release, protocol_cfg.upgrade_from) == COOP else 0
    done = on_assignment(NEW, protocol_cfg, member(latest, owned, prev=T1), give(latest, latest, error=ASSIGNMENT_ERROR))
    assert done.member.failure == "" and done.member.active == 0 and done.member.prev == T1
    assert done.rejoin is rejoin
    assert done.note == f"ignores unknown error code {ASSIGNMENT_ERROR}"


def test_the_assignment_error_answer_in_a_model_run_kills_every_thread():
    # a 3.9 instance on upgrade.from=1.1 (v2) next to a "next" one (v12): the 3.9 leader answers
    # with ASSIGNMENT_ERROR and every thread dies on it
    scope = StreamsScope(instances=2, tasks=2, plan=(Config("3.9", "1.1"), Config("next")))
    state = MODEL.init_states(scope)[0]
    for kind, slot in (("stop", 1), ("start", 1)):
        state, _ = MODEL.step(scope, state, next(a for a in MODEL.actions(scope, state)
                                                 if a.kind == kind and a.slot == slot))
    for _ in range(10):
        acts = [a for a in MODEL.actions(scope, state) if a.kind in ("join", "assign", "receive")]
        if not acts:
            break
        state, _ = MODEL.step(scope, state, acts[0])
    assert [m.status for m in state.members] == [FAILED, FAILED]
    assert all(m.failure.startswith(ASSIGNMENT_ERROR) for m in state.members)


def test_kafka_2_0_probing_round_with_two_threads_runs_a_task_twice():
    # consequence of 2.0.1's versionProbingAssignment (clientMetadata.state.prevActiveTasks() to
    # every consumer of the client; fixed by KAFKA-8649's commit, "dont send entire client's
    # prevTasks to each consumer"): a 2.0 group with two threads per instance, one instance bounced
    # onto 2.3, hands both threads of the other instance the same tasks
    plan = (Config("2.0"), Config("2.3"))
    found = bfs(MODEL, StreamsScope(instances=2, threads=2, tasks=2, plan=plan, max_generation=12)).violation
    assert found is not None and found.property == "no_task_active_twice" and len(found.path) == 8
    # a 2.3 leader probed by a 2.4 instance (EAGER through upgrade.from) answers per thread
    fixed = bfs(MODEL, StreamsScope(instances=2, threads=2, tasks=2, plan=(Config("2.3"), Config("2.4", "2.3")),
                                    max_generation=12))
    assert fixed.violation is None and fixed.complete and fixed.witnessed["some_thread_downgraded"]
