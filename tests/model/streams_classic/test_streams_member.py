"""Unit tests of the Streams member (``member.subscribe`` / ``member.on_assignment``) per
probing family, and its revocation at JoinGroup, on hand-built rounds and on states reached
by stepping the model.

Rules: ../shared/kafka-behavior.md A1 ("Member (onAssignment)", "Cooperative Streams") and
KIP-268's "Detailed upgrade protocol". Tasks are bitmasks: T1 is bit 0."""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.model.streams_classic import releases as rel
from groupcheck.model.streams_classic.member import on_assignment, subscribe
from groupcheck.model.streams_classic.scope import Behaviour, Config, StreamsScope, with_profile
from groupcheck.model.streams_classic.state import JOINING, STABLE, SYNCING, Assignment, Member
from tests.helpers.streams_rounds import COOP, EAGER, GEN, T1, T2, T3, Run, empty


# ------------------------------------------------------------------------------ member: Kafka 2.6+

def member(used: int, active: int = 0) -> Member:
    return Member(status=SYNCING, used=used, generation=GEN - 1, active=active, prev=active, standby=0, learning=0,
                  ready=0, learned=0, sub=None, inbox=None, history=-1)


def give(version, supported, active=0, followup=False) -> Assignment:
    return Assignment(version=version, supported=supported, error="", active=active, standby=0, learning=0, learned=0,
                      followup=followup, generation=GEN)


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
    assert run.state.members[1].inbox == Assignment(version=4, supported=4, error="", active=0, standby=0, learning=0,
                                                    learned=0, followup=False, generation=run.state.group.generation)
    assert run.state.members[0].inbox.active == T1 | T2           # its previous tasks, kept
    run.do("receive", 1)
    assert run.state.members[1].used == 4 and run.state.members[1].status == JOINING



# ------------------------------------------------------------------------------ revocation at JoinGroup

def running(active: int, learned: int = 0, used: int = 11) -> Member:
    return Member(status=STABLE, used=used, generation=GEN, active=active, prev=active, standby=0, learning=0, ready=0,
                  learned=learned, sub=None, inbox=None, history=-1)


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
