"""Kafka Streams' leader and member on arbitrary inputs: no Python error escapes.

``leader.assign`` is driven with arbitrary rounds (any releases and ``upgrade.from`` per
instance, any profile and switch, 1-6 members of which any may have joined, subscriptions
with any used and latestSupported version 1..13 - latest below used included - and any
task masks, 0-5 tasks, members missing from the group's order), ``member.on_assignment``
with arbitrary assignments (version -1..14, any supported version, the error code, any
masks) and ``member.subscribe`` with any used version. Whatever Kafka would throw comes
back as the outcome (the leader's ``failure``, the member's), naming the exception; a
Python exception (a ValueError from min() of nothing, a KeyError, an IndexError) fails.
"""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from groupcheck.model.streams_classic import releases as rel
from groupcheck.model.streams_classic.leader import assign
from groupcheck.model.streams_classic.member import on_assignment, subscribe
from groupcheck.model.streams_classic.scope import PROFILES, Behaviour, Config, StreamsScope, TASK_ASSIGNORS
from groupcheck.model.streams_classic.state import (
    ASSIGNMENT_ERROR, JOINING, NO_LEADER, PREPARING, SYNCING, UP, Assignment, Group, Instance, Member, State,
    Subscription,
)

EXCEPTIONS = ("TaskAssignmentException", "IllegalStateException", "IllegalArgumentException")
VERSIONS = st.integers(1, 13)
MASKS = st.integers(0, 255)


@st.composite
def configs(draw) -> Config:
    name = draw(st.sampled_from(sorted(rel.RELEASES)))
    accepted = [u for u in rel.UPGRADE_FROM if rel.accepts_upgrade_from(name, u)]
    return Config(name, draw(st.sampled_from([None] + accepted)))


behaviours = st.builds(Behaviour, probing=st.sampled_from(["release", rel.KIP_268, rel.KAFKA_26]),
                       honour_upgrade_from=st.booleans(), advertise_group_min=st.booleans(),
                       follower_downgrades=st.booleans(), leader_final_rebalance=st.booleans())
subscriptions = st.builds(Subscription, used=VERSIONS, latest=VERSIONS,
                          protocol=st.sampled_from([rel.EAGER, rel.COOPERATIVE]), owned=MASKS, prev=MASKS,
                          standby=MASKS, learning=MASKS, ready=MASKS, leaving=st.booleans())


@st.composite
def rounds(draw) -> tuple[StreamsScope, State, int]:
    instances = draw(st.integers(1, 4))
    threads = draw(st.integers(1, 6 // instances))
    plan = tuple(draw(st.lists(configs(), min_size=1, max_size=3)))
    scope = StreamsScope(instances=instances, threads=threads, tasks=draw(st.integers(0, 5)),
                         standbys=draw(st.integers(0, 2)), plan=plan,
                         task_assignor=draw(st.sampled_from(TASK_ASSIGNORS)),
                         profile=draw(st.sampled_from(sorted(PROFILES) + ["custom"])), behaviour=draw(behaviours))
    n = instances * threads
    joined = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1)))
    members = tuple(
        Member(status=SYNCING if s in joined else JOINING, used=1, generation=0, active=0, prev=0, standby=0,
               learning=0, ready=0, learned=0, sub=draw(subscriptions) if s in joined else None, inbox=None,
               history=draw(st.one_of(st.just(-1), st.integers(0, 15))))
        for s in range(n))
    order = tuple(draw(st.permutations(range(n)))[:draw(st.integers(0, n))])
    group = Group(status=PREPARING, generation=3, leader=draw(st.sampled_from([NO_LEADER] + joined)),
                  joined=tuple(joined), order=order, version=0)
    stages = tuple(Instance(UP, draw(st.integers(0, len(plan) - 1))) for _ in range(instances))
    state = State(group=group, instances=stages, members=members, budget=0, calm=0, since_start=0, last_start=-1)
    return scope, state, draw(st.sampled_from(joined))


@given(rounds())
def test_assign_never_raises_on_any_round(case):
    scope, state, leader = case
    out = assign(scope, state, leader, 4)
    if out.failure:
        assert out.failure.split(":")[0] in EXCEPTIONS and out.assignments == ()
    else:
        assert [s for s, _ in out.assignments] == list(state.group.joined)
        for _, a in out.assignments:
            assert 1 <= a.version <= 13 and a.generation == 4 and a.error in ("", ASSIGNMENT_ERROR)


members_ = st.builds(Member, status=st.just(SYNCING), used=VERSIONS, generation=st.integers(-1, 5), active=MASKS,
                     prev=MASKS, standby=MASKS, learning=MASKS, ready=MASKS, learned=MASKS, sub=st.none(),
                     inbox=st.none(), history=st.just(-1), failure=st.just(""))
assignments = st.builds(Assignment, version=st.integers(-1, 14), supported=st.integers(-1, 14),
                        error=st.sampled_from(["", ASSIGNMENT_ERROR]), active=MASKS, standby=MASKS, learning=MASKS,
                        learned=MASKS, followup=st.booleans(), generation=st.integers(0, 9))


@given(st.sampled_from(sorted(PROFILES)), behaviours, configs(), members_, assignments)
def test_on_assignment_never_raises_on_any_assignment(profile, behaviour, cfg, m, a):
    scope = StreamsScope(plan=(cfg,), profile=profile, behaviour=behaviour)
    done = on_assignment(scope, cfg, m._replace(inbox=a), a)
    if done.member.failure:
        assert done.member.failure.split(":")[0] in EXCEPTIONS + (ASSIGNMENT_ERROR,) and not done.rejoin
    else:
        assert done.member.inbox is None and done.member.generation == a.generation
        assert isinstance(done.rejoin, bool)


@given(configs(), members_, st.integers(-1, 14), st.booleans())
def test_subscribe_never_raises(cfg, m, used, leaving):
    after, revoked = subscribe(StreamsScope(plan=(cfg,)), cfg, m._replace(used=used), leaving)
    latest = rel.release(cfg.release).latest
    if 1 <= used <= latest:
        assert after.sub is not None and after.sub.used == used and after.failure == ""
    else:
        assert after.failure.startswith("IllegalArgumentException") and revoked == 0
