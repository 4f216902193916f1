"""The KIP-1071 broker-side task assignors (model/assignors/streams_group_tasks.py) and the
claims every assignment must satisfy (model/assignors/streams_group_invariants.py).

Task ``t`` is bit ``t``; Kafka's "test-subtopology" partition p is task p (a second
subtopology's partitions follow the first's). Ported cases name the StickyTaskAssignorTest
method (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/streams/assignor/).
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groupcheck.model.assignors.streams_group_invariants import CLAIMS, check
from groupcheck.model.assignors.streams_group_tasks import (Configs, GroupSpec, MemberAssignment, MemberSpec, TaskSpec,
                                                 assign, highly_available, sticky)
from groupcheck.model.partitions import bits, count


def mask(*tasks: int) -> int:
    return sum(1 << t for t in tasks)


def member(mid: str, pid: str | None = None, *, active=(), standby=(), warmup=(), epoch: int = 0) -> MemberSpec:
    return MemberSpec(member_id=mid, process_id=pid or mid, topology_epoch=epoch, active=mask(*active),
                      standby=mask(*standby), warmup=mask(*warmup))


def spec(members, n: int, *, stateful: bool = False, standbys: int = 0, warmups: int = 2, lags=None,
         epoch: int = 0) -> GroupSpec:
    """``lags``: {task: {process id: level}}."""
    lags = lags or {}
    tasks = tuple(TaskSpec(stateful, tuple(sorted(lags.get(t, {}).items()))) for t in range(n))
    return GroupSpec(epoch, tuple(members), tasks, Configs(standbys, warmups, 0))


def run(assignor, s: GroupSpec):
    """Assign, insist on every claim, and index the result by member id."""
    a = assignor(s)
    assert check(s, a) == []
    assert assignor(s) == a                      # deterministic
    return {ms.member_id: x for ms, x in zip(s.members, a)}


def actives(result, *ids) -> int:
    out = 0
    for i in ids:
        out |= result[i].active
    return out


# ---------------------------------------------------------------- StickyTaskAssignorTest, ported

def test_shouldAssignOneActiveTaskToEachProcessWhenTaskCountSameAsProcessCount():
    r = run(sticky, spec([member("m1", "p1"), member("m2", "p2"), member("m3", "p3")], 3))
    assert [count(r[m].active) for m in ("m1", "m2", "m3")] == [1, 1, 1]
    assert actives(r, "m1", "m2", "m3") == mask(0, 1, 2)


@pytest.mark.parametrize("standbys", [0, 1])   # ...EvenlyAcrossClientsWithNoStandByTasks / WithStandByTasks
def test_shouldAssignTopicGroupIdEvenlyAcrossClients(standbys):
    ms = [member(f"m{p}_{i}", f"p{p}") for p in (1, 2, 3) for i in (1, 2)]
    r = run(sticky, spec(ms, 6, stateful=bool(standbys), standbys=standbys))
    assert all(count(r[m.member_id].active) == 1 for m in ms)
    assert actives(r, *r) == mask(*range(6))


def test_shouldNotMigrateActiveTaskToOtherProcess():
    r = run(sticky, spec([member("m1", "p1", active=[0]), member("m2", "p2", active=[1])], 3))
    assert r["m1"].active >> 0 & 1 and r["m2"].active >> 1 & 1
    assert count(r["m1"].active) + count(r["m2"].active) == 3
    # flip the previous active tasks assignment around
    r = run(sticky, spec([member("m2", "p2", active=[1]), member("m3", "p1", active=[2])], 3))
    assert r["m2"].active >> 1 & 1 and r["m3"].active >> 2 & 1


def test_shouldMigrateActiveTasksToNewProcessWithoutChangingAllAssignments():
    r = run(sticky, spec([member("m1", "p1", active=[0, 2]), member("m2", "p2", active=[1]), member("m3", "p3")], 3))
    assert r["m2"].active == mask(1)
    assert {r["m1"].active, r["m3"].active} == {mask(0), mask(2)}


def test_shouldAssignBasedOnCapacity():
    r = run(sticky, spec([member("m1", "p1"), member("m2_1", "p2"), member("m2_2", "p2")], 3))
    assert [count(x.active) for x in r.values()] == [1, 1, 1]


def test_shouldKeepActiveTaskStickinessWhenMoreClientThanActiveTasks():
    ms = [member("m1", active=[0]), member("m2", active=[2]), member("m3", active=[1]), member("m4"), member("m5")]
    r = run(sticky, spec(ms, 3))
    assert [r[m].active for m in ("m1", "m2", "m3", "m4", "m5")] == [mask(0), mask(2), mask(1), 0, 0]
    ms = [member("m1"), member("m2", active=[0]), member("m3"), member("m4", active=[2]), member("m5", active=[1])]
    r = run(sticky, spec(ms, 3))
    assert [r[m].active for m in ("m1", "m2", "m3", "m4", "m5")] == [0, mask(0), 0, mask(2), mask(1)]


def test_shouldAssignTasksToClientWithPreviousStandbyTasks():
    ms = [member("m1", standby=[2]), member("m2", standby=[1]), member("m3", standby=[0])]
    r = run(sticky, spec(ms, 3))
    assert [r[m].active for m in ("m1", "m2", "m3")] == [mask(2), mask(1), mask(0)]


def test_shouldNotAssignStandbyTasksToClientWithPreviousStandbyTasksAndCurrentActiveTasks():
    r = run(sticky, spec([member("m1", standby=[0]), member("m2", standby=[1])], 2, stateful=True, standbys=1))
    assert r["m1"] == MemberAssignment(mask(0), mask(1), 0)
    assert r["m2"] == MemberAssignment(mask(1), mask(0), 0)


def test_shouldAssignBasedOnCapacityWhenMultipleClientHaveStandbyTasks():
    ms = [member("m1", "p1", active=[0], standby=[1]), member("m2_1", "p2", active=[2], standby=[1]),
          member("m2_2", "p2")]
    r = run(sticky, spec(ms, 3))
    assert [r[m].active for m in ("m1", "m2_1", "m2_2")] == [mask(0), mask(2), mask(1)]


def test_shouldAssignStandbyTasksToDifferentClientThanCorrespondingActiveTaskIsAssignedTo():
    r = run(sticky, spec([member(f"m{i}", active=[i]) for i in range(4)], 4, stateful=True, standbys=1))
    for i in range(4):
        assert not r[f"m{i}"].standby >> i & 1 and count(r[f"m{i}"].standby) <= 2
    assert sum(1 for x in r.values() if x.standby) >= 3
    assert mask(*range(4)) == r["m0"].standby | r["m1"].standby | r["m2"].standby | r["m3"].standby


def test_shouldAssignMultipleReplicasOfStandbyTask():
    r = run(sticky, spec([member(f"m{i}", active=[i]) for i in range(3)], 3, stateful=True, standbys=2))
    assert [r[f"m{i}"].standby for i in range(3)] == [mask(1, 2), mask(0, 2), mask(0, 1)]


def test_shouldNotAssignStandbyTaskReplicasWhenNoClientAvailableWithoutHavingTheTaskAssigned():
    r = run(sticky, spec([member("m1")], 1, stateful=True, standbys=1))
    assert r["m1"] == MemberAssignment(mask(0), 0, 0)


def test_shouldAssignActiveAndStandbyTasks():
    r = run(sticky, spec([member(f"m{i}") for i in range(3)], 3, stateful=True, standbys=1))
    assert actives(r, *r) == mask(0, 1, 2)
    assert r["m0"].standby | r["m1"].standby | r["m2"].standby == mask(0, 1, 2)


def test_shouldAssignAtLeastOneTaskToEachClientIfPossible():
    ms = [member("m1_1", "p1"), member("m1_2", "p1"), member("m1_3", "p1"), member("m2", "p2"), member("m3", "p3")]
    r = run(sticky, spec(ms, 3))
    assert [count(actives(r, "m1_1", "m1_2", "m1_3")), count(r["m2"].active), count(r["m3"].active)] == [1, 1, 1]


def test_shouldBalanceActiveAndStandbyTasksAcrossAvailableClients():
    r = run(sticky, spec([member(f"m{i}") for i in range(6)], 3, stateful=True, standbys=1))
    assert all(count(x.active) + count(x.standby) == 1 for x in r.values())


def test_shouldAssignMoreTasksToClientWithMoreCapacity():
    r = run(sticky, spec([member("m1", "p1"), member("m2_1", "p2"), member("m2_2", "p2")], 12))
    assert count(actives(r, "m2_1", "m2_2")) == 8 and count(r["m1"].active) == 4


@pytest.mark.parametrize("ms", [
    [member("m1"), member("m2"), member("m3"), member("m4")],                                   # ...AnyTwoHosts
    [member("m1", active=[1, 2]), member("m2", active=[3]), member("m3", active=[0]), member("m4")],
    [member("m1", active=[1, 2], standby=[3, 0]), member("m2", active=[3, 0], standby=[1, 2]),
     member("m3"), member("m4")],                                 # ...WhenThereArePreviousActive/StandbyTasks
])
def test_shouldNotHaveSameAssignmentOnAnyTwoHosts(ms):
    r = run(sticky, spec(ms, 4, stateful=True, standbys=1))
    held = [x.active | x.standby for x in r.values()]
    assert len(set(held)) == len(held)


@pytest.mark.parametrize("n_members, expected", [(4, [1, 1, 1, 1]), (3, [1, 1, 2])])
def test_shouldReBalanceTasksAcrossClients(n_members, expected):
    """...WhenCapacityAndTaskCountTheSame / ...WhenCapacityLessThanTaskCount: m3 held all."""
    ms = [member(f"m{i}", active=range(4) if i == 3 else ()) for i in range(1, n_members + 1)]
    r = run(sticky, spec(ms, 4))
    assert [count(r[m.member_id].active) for m in ms] == expected


def test_shouldRebalanceTasksToClientsBasedOnCapacity():
    r = run(sticky, spec([member("m2", "p2", active=[0, 3, 2]), member("m3_1", "p3"), member("m3_2", "p3")], 3))
    assert count(r["m2"].active) == 1 and count(actives(r, "m3_1", "m3_2")) == 2


def test_shouldMoveMinimalNumberOfTasksWhenPreviouslyAboveCapacityAndNewClientAdded():
    r = run(sticky, spec([member("m1", active=[0, 2]), member("m2", active=[1, 3]), member("m3")], 4))
    assert count(r["m3"].active) == 1
    assert r["m1"].active == mask(0, 2) or r["m2"].active == mask(1, 3)


def test_shouldNotMoveAnyTasksWhenNewTasksAdded():
    r = run(sticky, spec([member("m1", active=[0, 1]), member("m2", active=[2, 3])], 6))
    assert r["m1"].active & mask(0, 1) == mask(0, 1) and r["m2"].active & mask(2, 3) == mask(2, 3)


def test_shouldAssignNewTasksToNewClientWhenPreviousTasksAssignedToOldClients():
    r = run(sticky, spec([member("m1", active=[2, 1]), member("m2", active=[0, 3]), member("m3")], 6))
    assert (r["m1"].active, r["m2"].active, r["m3"].active) == (mask(1, 2), mask(0, 3), mask(4, 5))



def test_standby_goes_first_to_the_previous_active_owner():
    """StickyTaskAssignor#assignStandby "prev active task": A ran T1, which moved to B; A,
    last in member order (so never the tie-break winner), gets T1's standby."""
    r = run(sticky, spec([member("B"), member("C"), member("A", active=[0, 1])], 2, stateful=True, standbys=1))
    assert r["A"] == MemberAssignment(mask(0), mask(1), 0)


def test_standby_skips_a_previous_holder_whose_process_is_not_load_balanced():
    """isLoadBalanced: B held T0's standby but runs two actives, more than anyone; C gets it."""
    ms = [member("A", active=[0]), member("B", active=[1, 2], standby=[0]), member("C", active=[3])]
    r = run(sticky, spec(ms, 4, stateful=True, standbys=1))
    assert r["B"].active == mask(1, 2) and r["C"].standby >> 0 & 1 and not r["B"].standby >> 0 & 1

# ---------------------------------------------------------------- the KIP's topology example

def test_kip_topology_example_step_by_step():
    """KIP-1071, "Topology updates", Example: stateless T1..T9 (tasks 0..8), sticky, one thread
    per process. A member behind the group's topology epoch keeps tasks, gets no new ones."""
    def step(epoch, *ms):
        s = spec(ms, 9, epoch=epoch)
        a = sticky(s)
        assert check(s, a) == [] and sticky(s) == a
        return {m.member_id: tuple(t + 1 for t in bits(x.active)) for m, x in zip(ms, a)}

    def held(result, mid):
        return [t - 1 for t in result[mid]]

    r = step(0, member("A", active=[0, 1, 2]), member("B", active=[3, 4, 5]), member("C", active=[6, 7, 8]))
    assert r == {"A": (1, 2, 3), "B": (4, 5, 6), "C": (7, 8, 9)}
    # C shuts down to update its topology: A and B take its tasks (4 and 5 of them)
    r = step(0, member("A", active=held(r, "A")), member("B", active=held(r, "B")))
    assert r == {"A": (1, 2, 3, 7, 9), "B": (4, 5, 6, 8)}
    # C rejoins with topology epoch #1, bumping the group's: A and B keep some tasks, only C gains
    r = step(1, member("A", active=held(r, "A")), member("B", active=held(r, "B")), member("C", epoch=1))
    assert r == {"A": (1, 2, 3), "B": (4, 5, 6), "C": (7, 8, 9)}
    # B shuts down: A cannot take its tasks, C takes them all
    r = step(1, member("A", active=held(r, "A")), member("C", active=held(r, "C"), epoch=1))
    assert r == {"A": (1, 2, 3), "C": (4, 5, 6, 7, 8, 9)}
    # B comes back with topology epoch #1 and gets new tasks; A still none
    r = step(1, member("A", active=held(r, "A")), member("B", epoch=1), member("C", active=held(r, "C"), epoch=1))
    assert r == {"A": (1, 2, 3), "B": (7, 8, 9), "C": (4, 5, 6)}


def test_stale_members_alone_keep_what_they_run_and_nothing_else():
    """Group at #1, its only #1 member gone: the #0 members keep their tasks (even above
    their share), and an orphaned task stays unassigned (nobody may take it)."""
    s = spec([member("A", active=[0, 1, 2]), member("B", standby=[3])], 5, epoch=1, stateful=True, standbys=1)
    for assignor in (sticky, highly_available):
        a = assignor(s)
        assert check(s, a) == []
        assert a == (MemberAssignment(mask(0, 1, 2), 0, 0), MemberAssignment(0, mask(3), 0))


# ---------------------------------------------------------------- highly_available: warm-ups

def ha(ms, n, **kw):
    return run(highly_available, spec(ms, n, stateful=True, **kw))


def test_ha_a_move_waits_on_its_processing_owner_while_the_target_warms_up():
    """A runs T0..T3; new B's share is T2, T3: A keeps them until B has a caught-up copy,
    and B warms them up (AssignmentRefinerImpl: staged, then a warm-up on the target owner)."""
    r = ha([member("A", active=range(4)), member("B")], 4)
    assert r["A"] == MemberAssignment(mask(0, 1, 2, 3), 0, 0)
    assert r["B"] == MemberAssignment(0, 0, mask(2, 3))
    assert sticky(spec([member("A", active=range(4)), member("B")], 4, stateful=True))[1].active == mask(2, 3)


def test_ha_warm_ups_are_budgeted_by_num_warmup_replicas():
    r = ha([member("A", active=range(4)), member("B")], 4, warmups=1)
    assert r["A"].active == mask(0, 1, 2, 3) and r["B"] == MemberAssignment(0, 0, mask(2))
    r = ha([member("A", active=range(4)), member("B")], 4, warmups=0)
    assert r["A"].active == mask(0, 1, 2, 3) and r["B"] == MemberAssignment()


def test_ha_a_caught_up_warm_up_becomes_active():
    r = ha([member("A", active=range(4)), member("B", warmup=[2, 3])], 4, lags={2: {"B": 0}, 3: {"B": 0}})
    assert r["A"] == MemberAssignment(mask(0, 1), 0, 0)
    assert r["B"] == MemberAssignment(mask(2, 3), 0, 0)


def test_ha_a_warm_up_still_behind_keeps_warming():
    r = ha([member("A", active=range(4)), member("B", warmup=[2, 3])], 4, lags={2: {"B": 1}, 3: {"B": 0}})
    assert r["A"] == MemberAssignment(mask(0, 1, 2), 0, 0)
    assert r["B"] == MemberAssignment(mask(3), 0, mask(2))


def test_ha_an_owner_still_restoring_gives_the_task_up_at_once():
    """"staging would protect nothing" when the holder reports the task still restoring."""
    r = ha([member("A", active=range(4)), member("B")], 4, lags={2: {"A": 1}, 3: {"A": 1}})
    assert r["A"] == MemberAssignment(mask(0, 1), 0, 0) and r["B"] == MemberAssignment(mask(2, 3), 0, 0)


def test_ha_a_move_inside_one_process_is_not_staged():
    """isReady: "A process must not hold the same task twice, so there is no way to warm the
    target owner up while the current owner still runs it"."""
    r = ha([member("A1", "p1", active=range(4)), member("A2", "p1")], 4)
    assert r["A1"] == MemberAssignment(mask(0, 1), 0, 0) and r["A2"] == MemberAssignment(mask(2, 3), 0, 0)


@pytest.mark.parametrize("standbys, expected", [(1, MemberAssignment(0, mask(0), 0)), (0, MemberAssignment())])
def test_ha_a_caught_up_warm_up_not_made_active_becomes_standby_or_goes(standbys, expected):
    """KIP-1071: "Each warm-up task that has reached acceptable.recovery.lag must be turned
    into an active task or a standby task, or be unassigned from the member."""
    r = ha([member("A", active=[0]), member("B", warmup=[0])], 1, standbys=standbys, lags={0: {"B": 0}})
    assert r["A"] == MemberAssignment(mask(0), 0, 0) and r["B"] == expected


def test_ha_a_caught_up_warm_up_is_preferred_as_the_standby():
    """C comes before B in member order, so only B's caught-up warm-up of T0 makes it the standby."""
    ms = [member("A", active=[0]), member("C", active=[2]), member("B", active=[1], warmup=[0])]
    r = ha(ms, 3, standbys=1, lags={0: {"B": 0}})
    assert r["B"] == MemberAssignment(mask(1), r["B"].standby, 0) and r["B"].standby >> 0 & 1


def test_ha_an_orphaned_task_goes_to_the_most_caught_up_copy():
    ms = [member("B", standby=[0]), member("C", standby=[0])]
    lags = {0: {"B": 1, "C": 0}}
    assert ha(ms, 1, lags=lags)["C"].active == mask(0)
    assert run(sticky, spec(ms, 1, stateful=True, lags=lags))["B"].active == mask(0)   # sticky: least loaded


def test_ha_a_standby_copy_on_the_target_process_needs_no_warm_up():
    r = ha([member("A", active=[0, 1]), member("B", standby=[1])], 2, standbys=1, lags={1: {"B": 1}})
    assert r["A"] == MemberAssignment(mask(0, 1), 0, 0)
    assert r["B"] == MemberAssignment(0, mask(0, 1), 0)


def test_ha_a_stale_member_gets_no_warm_up():
    r = ha([member("A", active=range(4), epoch=1), member("B", epoch=0)], 4, epoch=1)
    assert r["A"].active == mask(0, 1, 2, 3) and r["B"] == MemberAssignment()


def test_assign_by_name():
    s = spec([member("A"), member("B")], 2)
    assert assign("sticky", s) == sticky(s) and assign("highly_available", s) == highly_available(s)
    with pytest.raises(ValueError, match="unknown task assignor 'balanced'"):
        assign("balanced", s)


# ---------------------------------------------------------------- check catches hand-broken assignments

BROKEN = {
    "warmup_caught_up_resolved": (
        spec([member("A", active=[0]), member("B", warmup=[0])], 1, stateful=True, lags={0: {"B": 0}}),
        (MemberAssignment(1, 0, 0), MemberAssignment(0, 0, 1))),
    "one_role_per_process": (
        spec([member("A", "p"), member("B", "p")], 1, stateful=True),
        (MemberAssignment(1, 0, 0), MemberAssignment(0, 1, 0))),
    "stale_member_no_new_tasks": (
        spec([member("A", standby=[0]), member("B", epoch=1)], 2, stateful=True, epoch=1),
        (MemberAssignment(1, 0, 0), MemberAssignment(2, 0, 0))),
    "no_task_active_twice": (
        spec([member("A"), member("B")], 1),
        (MemberAssignment(1, 0, 0), MemberAssignment(1, 0, 0))),
    "every_task_active_when_possible": (
        spec([member("A"), member("B")], 2),
        (MemberAssignment(1, 0, 0), MemberAssignment(0, 0, 0))),
    "stateless_task_active_only": (
        spec([member("A"), member("B")], 1),
        (MemberAssignment(1, 0, 0), MemberAssignment(0, 1, 0))),
}


def test_every_claim_has_a_broken_example():
    assert set(BROKEN) == set(CLAIMS)


@pytest.mark.parametrize("claim", CLAIMS)
def test_check_names_exactly_the_broken_claim(claim):
    s, broken = BROKEN[claim]
    found = check(s, broken)
    assert found and {line.split(":")[0] for line in found} == {claim}, found


def test_check_refuses_an_assignment_of_the_wrong_length():
    with pytest.raises(ValueError, match="one MemberAssignment per spec.members entry"):
        check(spec([member("A")], 1), ())


# ---------------------------------------------------------------- properties

@st.composite
def group_specs(draw) -> GroupSpec:
    n = draw(st.integers(1, 6))
    everything = (1 << n) - 1
    group_epoch = draw(st.integers(0, 1))
    k = draw(st.integers(1, 5))
    pids = [f"p{draw(st.integers(0, 2))}" for _ in range(k)]
    ms = tuple(MemberSpec(member_id=f"m{i}", process_id=pids[i],
                          topology_epoch=draw(st.integers(max(0, group_epoch - 1), group_epoch)),
                          active=draw(st.integers(0, everything)), standby=draw(st.integers(0, everything)),
                          warmup=draw(st.integers(0, everything))) for i in range(k))
    levels = st.one_of(st.none(), st.integers(0, 2))
    tasks = tuple(TaskSpec(draw(st.booleans()),
                           tuple((p, lv) for p in sorted(set(pids)) if (lv := draw(levels)) is not None))
                  for _ in range(n))
    configs = Configs(draw(st.integers(0, 2)), draw(st.integers(0, 2)), draw(st.integers(0, 1)))
    return GroupSpec(group_epoch, ms, tasks, configs)


@settings(max_examples=300, deadline=None)
@given(group_specs())
def test_both_assignors_satisfy_every_claim_and_are_deterministic(s):
    for assignor in (sticky, highly_available):
        a = assignor(s)
        assert check(s, a) == [], (assignor.__name__, check(s, a))
        assert assignor(s) == a
        assert all(x.warmup == 0 for x in a) or assignor is highly_available


@settings(max_examples=200, deadline=None)
@given(group_specs())
def test_ha_warm_ups_stay_within_budget_and_only_on_tasks_running_elsewhere(s):
    a = highly_available(s)
    assert sum(count(x.warmup) for x in a) <= s.configs.num_warmup_replicas
    running = 0
    for x in a:
        running |= x.active
    for x in a:
        assert x.warmup & ~running == 0
