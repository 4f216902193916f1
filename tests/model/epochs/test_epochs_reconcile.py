"""groupcheck.model.epochs.reconcile against Kafka's CurrentAssignmentBuilderTest, and properties.

Streams rows port group-coordinator/src/test/java/org/apache/kafka/coordinator/group/
streams/CurrentAssignmentBuilderTest.java (trunk, with ``revocationEpoch``), one row per
test method, each run for every task role as Kafka's ``@EnumSource(TaskRole.class)``
does. Tasks: subtopology 1 partition p is bit p, subtopology 2 partition p is bit 8+p.
Kafka's ``withCurrent...TaskProcessId`` lambdas become ``Holding``s of other members
and go through ``streams_unreleased``. Consumer rows port modern/consumer/
CurrentAssignmentBuilderTest.java on one role.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from groupcheck.model.epochs import (
    ACTIVE, CONSUMER_4_1, CONSUMER_TRUNK, NO_REVOCATION_EPOCH, STABLE, STANDBY, STREAMS_4_1, STREAMS_TRUNK,
    UNKNOWN, UNRELEASED, UNREVOKED, WARMUP, Fenced, Holding, MemberAssignment, consumer_unreleased,
    difference, reconcile, streams_unreleased,
)

ROLES = (ACTIVE, STANDBY, WARMUP)
ALL = (1 << 16) - 1
S2_ALL = 0xFF << 8
P = "process_id"


def t(s1=(), s2=()) -> int:
    return sum(1 << p for p in s1) | sum(1 << (8 + p) for p in s2)


def in_role(role: int, mask: int) -> tuple[int, int, int]:
    return tuple(mask if r == role else 0 for r in ROLES)


def held(active=None, standby=None, warmup=None, mask=ALL) -> tuple[Holding, ...]:
    """Kafka's process-id lambdas: ``active`` the process of the active owner of every
    task in ``mask``; ``standby`` / ``warmup`` the process holding them in that role."""
    out = []
    for role, process in ((ACTIVE, active), (STANDBY, standby), (WARMUP, warmup)):
        if process is not None:
            out.append(Holding(f"other-{role}", process, in_role(role, mask), (0, 0, 0)))
    return tuple(out)


NOBODY = ()


def m(role, state, epoch, prev, assigned, pending=0, rev=9, pending_role=None):
    pr = role if pending_role is None else pending_role
    return MemberAssignment(state=state, epoch=epoch, previous_epoch=prev, assigned=in_role(role, assigned),
                            pending_revocation=in_role(pr, pending), revocation_epoch=rev)


# (Kafka test method, member process, member(role), target epoch, target, holdings, owned, expected(role))
# ``owned``: None (not reported) or a task mask in the row's role; "same" repeats the member.
STREAMS_CASES = [
    ("testStableToStable", P,
     lambda r: m(r, STABLE, 10, 10, t((1, 2), (3, 4))), 11, t((1, 2), (3, 4)), held(active=P), None,
     lambda r: m(r, STABLE, 11, 10, t((1, 2), (3, 4)))),
    ("testStableToStableAtTargetEpoch", P,
     lambda r: m(r, STABLE, 10, 10, t((1, 2), (3, 4))), 10, t((1, 2), (3, 4)), held(active=P), None, "same"),
    ("testStableToStableWithNewTasks", P,
     lambda r: m(r, STABLE, 10, 10, t((1, 2), (3, 4))), 11, t((1, 2, 4), (3, 4, 7)), NOBODY, None,
     lambda r: m(r, STABLE, 11, 10, t((1, 2, 4), (3, 4, 7)))),
    ("testStableToUnrevokedTasks", P,
     lambda r: m(r, STABLE, 10, 10, t((1, 2), (3, 4))), 11, t((2, 3), (4, 5)), NOBODY, None,
     lambda r: m(r, UNREVOKED, 10, 10, t((2,), (4,)), t((1,), (3,)))),
    ("testStableToUnrevokedWithEmptyAssignment", P,
     lambda r: m(r, STABLE, 10, 10, t((1, 2), (3, 4))), 11, 0, held(active=P), None,
     lambda r: m(r, UNREVOKED, 10, 10, 0, t((1, 2), (3, 4)))),
    ("testStableToUnreleasedTasks", P,
     lambda r: m(r, STABLE, 10, 10, t((1, 2), (3, 4))), 11, t((1, 2, 4), (3, 4, 7)), held(active=P), None,
     lambda r: m(r, UNRELEASED, 11, 10, t((1, 2), (3, 4)))),
    ("testStableToUnreleasedTasksWithOwnedTasksNotHavingRevokedTasks", P,
     lambda r: m(r, STABLE, 10, 10, t((1, 2), (3, 4))), 11, t((1, 2), (3, 5)), held(active=P, mask=S2_ALL), 0,
     lambda r: m(r, UNRELEASED, 11, 10, t((1, 2), (3,)))),
    ("testUnrevokedTasksToStable", P,
     lambda r: m(r, UNREVOKED, 10, 10, t((2, 3), (5, 6)), t((1,), (4,))), 11, t((2, 3), (5, 6)), NOBODY,
     t((2, 3), (5, 6)),
     lambda r: m(r, STABLE, 11, 10, t((2, 3), (5, 6)), rev=10)),
    ("testRemainsInUnrevokedTasks[owned=null]", P,
     lambda r: m(r, UNREVOKED, 10, 10, t((2, 3), (5, 6)), t((1,), (4,))), 12, t((3,), (6,)), NOBODY, None, "same"),
    ("testRemainsInUnrevokedTasks[owned has 1]", P,
     lambda r: m(r, UNREVOKED, 10, 10, t((2, 3), (5, 6)), t((1,), (4,))), 12, t((3,), (6,)), NOBODY,
     t((1, 2, 3), (5, 6)), "same"),
    ("testRemainsInUnrevokedTasks[owned has 4]", P,
     lambda r: m(r, UNREVOKED, 10, 10, t((2, 3), (5, 6)), t((1,), (4,))), 12, t((3,), (6,)), NOBODY,
     t((2, 3), (4, 5, 6)), "same"),
    ("testUnrevokedTasksToUnrevokedTasks", P,
     lambda r: m(r, UNREVOKED, 10, 10, t((2, 3), (5, 6)), t((1,), (4,))), 12, t((3,), (6,)), NOBODY,
     t((2, 3), (5, 6)),
     lambda r: m(r, UNREVOKED, 11, 10, t((3,), (6,)), t((2,), (5,)), rev=10)),
    ("testUnrevokedTasksToUnreleasedTasks", P,
     lambda r: m(r, UNREVOKED, 11, 10, t((2, 3), (5, 6)), t((1,), (4,))), 11, t((2, 3, 4), (5, 6, 7)),
     held(active=P), t((2, 3), (5, 6)),
     lambda r: m(r, UNRELEASED, 11, 11, t((2, 3), (5, 6)), rev=11)),
    ("testUnreleasedTasksToStable", "process1",
     lambda r: m(r, UNRELEASED, 11, 11, t((2, 3), (5, 6))), 12, t((2, 3), (5, 6)),
     held(active=P, standby=P, warmup=P), None,
     lambda r: m(r, STABLE, 12, 11, t((2, 3), (5, 6)))),
    ("testUnreleasedTasksToStableWithNewTasks", "process1",
     lambda r: m(r, UNRELEASED, 11, 11, t((2, 3), (5, 6))), 11, t((2, 3, 4), (5, 6, 7)), NOBODY, None,
     lambda r: m(r, STABLE, 11, 11, t((2, 3, 4), (5, 6, 7)))),
    ("testUnreleasedTasksToUnreleasedTasks", P,
     lambda r: m(r, UNRELEASED, 11, 11, t((2, 3), (5, 6))), 11, t((2, 3, 4), (5, 6, 7)),
     held(active=P, standby=P, warmup=P), None, "same"),
    ("testUnreleasedTasksToUnrevokedTasks", "process1",
     lambda r: m(r, UNRELEASED, 11, 11, t((2, 3), (5, 6)), t((4,), (7,)), pending_role=ACTIVE), 12,
     t((3,), (6,)), held(active=P), None,
     lambda r: m(r, UNREVOKED, 11, 11, t((3,), (6,)), t((2,), (5,)))),
]


def _as_4_1(x: MemberAssignment) -> MemberAssignment:
    return x._replace(revocation_epoch=NO_REVOCATION_EPOCH)


@pytest.mark.parametrize("profile", [STREAMS_TRUNK, STREAMS_4_1], ids=lambda p: p.name)
@pytest.mark.parametrize("role", ROLES, ids=["active", "standby", "warmup"])
@pytest.mark.parametrize("case", STREAMS_CASES, ids=[c[0] for c in STREAMS_CASES])
def test_streams_current_assignment_builder(case, role, profile):
    _, process, member, target_epoch, target, holdings, owned, expected = case
    before = member(role)
    after = before if expected == "same" else expected(role)
    if profile is STREAMS_4_1:
        before, after = _as_4_1(before), _as_4_1(after)
    got = reconcile(before, target_epoch, in_role(role, target),
                    None if owned is None else in_role(role, owned),
                    streams_unreleased(holdings, process), profile=profile)
    assert got == after


def test_unreleased_tasks_to_unreleased_tasks_other_unreleased_task_role():
    """testUnreleasedTasksToUnreleasedTasksOtherUnreleasedTaskRole: the wanted task is
    held on the member's own process in another role (standby, or warm-up for a
    standby row), so it stays unreleased."""
    for role in ROLES:
        holdings = held(warmup=P) if role == STANDBY else held(standby=P)
        member = m(role, UNRELEASED, 11, 11, t((2, 3), (5, 6)))
        got = reconcile(member, 11, in_role(role, t((2, 3, 4), (5, 6, 7))), None, streams_unreleased(holdings, P))
        assert got == member


def test_unreleased_tasks_to_unreleased_tasks_any_active_owner():
    """testUnreleasedTasksToUnreleasedTasksAnyActiveOwner: an active task owned by a
    member of *any* process stays unreleased; the free one is assigned."""
    member = m(ACTIVE, UNRELEASED, 11, 11, t((2, 3), (5, 6)))
    holdings = held(active="anyOtherProcess", mask=t((4,)))
    got = reconcile(member, 11, in_role(ACTIVE, t((2, 3, 4), (5, 6, 7))), None, streams_unreleased(holdings, P))
    assert got == m(ACTIVE, UNRELEASED, 11, 11, t((2, 3), (5, 6, 7)))


@pytest.mark.parametrize("role", ROLES)
def test_unknown_state_fences_unless_owned_is_empty(role):
    """testUnknownState: fenced while owned is unreported or non-empty; from scratch
    at the target epoch once the member reports owning nothing."""
    member = m(role, UNKNOWN, 11, 11, t((3,), (6,)), t((2,), (5,)))
    rule = streams_unreleased(held(active=P), P)
    target = in_role(role, t((3,), (6,)))
    with pytest.raises(Fenced) as err:
        reconcile(member, 12, target, None, rule)
    assert err.value.code == 110
    with pytest.raises(Fenced):
        reconcile(member, 12, target, in_role(role, t((3,))), rule)
    got = reconcile(member, 12, target, (0, 0, 0), rule)
    assert got == m(role, STABLE, 12, 11, t((3,), (6,)))


def test_active_blocked_by_any_process_standby_only_by_own_process():
    """The two Streams rules side by side: another process's active owner blocks an
    active task but not a standby; another process's standby blocks neither."""
    rule = streams_unreleased(held(active="other", standby="other"), P)
    assert rule(ACTIVE, 1) and not rule(STANDBY, 1) and not rule(WARMUP, 1)
    rule = streams_unreleased(held(active=P), P)
    assert rule(ACTIVE, 1) and rule(STANDBY, 1) and rule(WARMUP, 1)


# ---------------------------------------------------------------- KIP-848 consumer, one role

def c(state, epoch, prev, assigned, pending=0):
    return MemberAssignment(state=state, epoch=epoch, previous_epoch=prev, assigned=(assigned,),
                            pending_revocation=(pending,))


def owners(other=0, own_pending=0):
    """``other`` held by another member; ``own_pending`` this member's pending revocation."""
    return (Holding("other", "", (other,), (0,)), Holding("me", "", (0,), (own_pending,)))


@pytest.mark.parametrize("profile, epoch", [(CONSUMER_4_1, 11), (CONSUMER_TRUNK, 10)], ids=lambda x: getattr(x, "name", x))
def test_consumer_unrevoked_partitions_to_unrevoked_partitions(profile, epoch):
    """modern/consumer testUnrevokedPartitionsToUnrevokedPartitions: revocation done,
    a new one needed. 4.1 moves the member to epoch + 1; since KAFKA-19974 it stays."""
    member = c(UNREVOKED, 10, 10, t((2, 3), (5, 6)), t((1,), (4,)))
    got = reconcile(member, 12, (t((3,), (6,)),), (t((2, 3), (5, 6)),),
                    consumer_unreleased(owners(), "me"), profile=profile)
    assert got == c(UNREVOKED, epoch, 10, t((3,), (6,)), t((2,), (5,)))


def test_consumer_unrevoked_to_stable_with_returned_partition_pending_revocation():
    """testUnrevokedPartitionsToStableWithReturnedPartitionsPendingRevocation
    (KAFKA-19449): the member's own pending revocation does not block it."""
    member = c(UNREVOKED, 10, 10, t((2, 3), (5, 6)), t((4,)))
    target = (t((2, 3, 4), (5, 6, 7)),)
    owned = (t((2, 3), (5, 6)),)
    trunk = consumer_unreleased(owners(other=0, own_pending=t((4,))), "me")
    got = reconcile(member, 12, target, owned, trunk, profile=CONSUMER_TRUNK)
    assert got == c(STABLE, 12, 10, t((2, 3, 4), (5, 6, 7)))
    older = consumer_unreleased(owners(other=0, own_pending=t((4,))), "me", own_pending_blocks=True)
    got = reconcile(member, 12, target, owned, older, profile=CONSUMER_4_1)
    assert got == c(UNRELEASED, 12, 10, t((2, 3), (5, 6, 7)))


@pytest.mark.parametrize("profile", [CONSUMER_4_1, CONSUMER_TRUNK], ids=lambda p: p.name)
def test_consumer_unreleased_rows(profile):
    """testUnreleasedPartitionsToStable / ...ToUnreleasedPartitions / ...ToUnrevokedPartitions."""
    member = c(UNRELEASED, 11, 11, t((2, 3), (5, 6)))
    all_owned = consumer_unreleased(owners(other=ALL), "me")
    assert reconcile(member, 12, (t((2, 3), (5, 6)),), None, all_owned, profile=profile) == \
        c(STABLE, 12, 11, t((2, 3), (5, 6)))
    assert reconcile(member, 11, (t((2, 3, 4), (5, 6, 7)),), None, all_owned, profile=profile) == member
    assert reconcile(member, 12, (t((3,), (6,)),), None, all_owned, profile=profile) == \
        c(UNREVOKED, 11, 11, t((3,), (6,)), t((2,), (5,)))


def test_set_algebra_per_role():
    d = difference((0b0110, 0b1), (0b1100, 0b0), lambda role, i: (role, i) == (0, 3))
    assert d.kept == (0b0100, 0) and d.pending_revocation == (0b0010, 0b1)
    assert d.pending_assignment == (0, 0) and d.has_unreleased


def test_roles_must_match():
    with pytest.raises(ValueError, match="one bitmask per role"):
        reconcile(m(ACTIVE, STABLE, 1, 0, 0), 2, (0,), None, lambda r, i: False)


# ---------------------------------------------------------------- properties

W = 5   # tasks per role
masks = st.integers(0, (1 << W) - 1)
roles3 = st.tuples(masks, masks, masks)


@st.composite
def steps(draw):
    profile = draw(st.sampled_from([STREAMS_4_1, STREAMS_TRUNK, CONSUMER_4_1, CONSUMER_TRUNK]))
    n = 3 if profile.name.startswith("streams") else 1
    state = draw(st.sampled_from([STABLE, UNREVOKED, UNRELEASED, UNKNOWN]))
    epoch = draw(st.integers(0, 6))
    assigned = draw(roles3)[:n]
    pending = tuple(p & ~a for p, a in zip(draw(roles3), assigned)) if state != STABLE else (0,) * n
    rev = draw(st.integers(0, epoch)) if profile.tracks_revocation_epoch else NO_REVOCATION_EPOCH
    member = MemberAssignment(state=state, epoch=epoch, previous_epoch=draw(st.integers(-1, epoch)), assigned=assigned,
                              pending_revocation=pending, revocation_epoch=rev)
    target_epoch = epoch + draw(st.integers(0, 3))
    target = draw(roles3)[:n]
    owned = draw(st.none() | roles3.map(lambda x: x[:n]))
    blocked = draw(roles3)[:n]
    return profile, member, target_epoch, target, owned, blocked


def _subset(a, b):
    return all(x & ~y == 0 for x, y in zip(a, b))


@settings(max_examples=400, deadline=None)
@given(steps())
def test_reconcile_properties(case):
    profile, member, target_epoch, target, owned, blocked = case
    rule = lambda role, i: bool(blocked[role] >> i & 1)  # noqa: E731
    try:
        got = reconcile(member, target_epoch, target, owned, rule, profile=profile)
    except Fenced:
        assert member.state == UNKNOWN and (owned is None or any(owned))
        return
    # never assigns what the blocking rule withholds
    added = tuple(g & ~a for g, a in zip(got.assigned, member.assigned))
    assert all(x & b == 0 for x, b in zip(added, blocked)), "assigned an unreleased resource"
    # the member epoch never decreases, and moves at most to the target (or +1 after revoking)
    assert got.epoch >= member.epoch
    assert got.epoch <= max(target_epoch, member.epoch + profile.epoch_after_revocation)
    # a STABLE member at the target epoch is unchanged
    if member.state == STABLE and member.epoch == target_epoch:
        assert got is member
    if got != member:
        assert got.previous_epoch == member.epoch
        assert _subset(got.assigned, target), "assigned outside the target"
        assert all(p & t == 0 for p, t in zip(got.pending_revocation, target))
        assert (got.state == UNREVOKED) == any(got.pending_revocation)
        assert got.state == UNREVOKED or got.epoch == target_epoch
    # nothing appears from nowhere
    assert _subset(got.assigned, tuple(a | t for a, t in zip(member.assigned, target)))
    # the revocation epoch: only trunk Streams keeps one, it never decreases
    if profile.tracks_revocation_epoch:
        assert member.revocation_epoch <= got.revocation_epoch <= max(member.revocation_epoch, member.epoch)
    else:
        assert got.revocation_epoch == NO_REVOCATION_EPOCH
