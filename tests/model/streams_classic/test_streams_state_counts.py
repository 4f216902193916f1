"""Pinned state-space sizes of the Streams-on-classic model, and its symmetry reduction.

As in test_state_counts.py: any change in the model's behaviour changes these numbers, so
it cannot slip by unnoticed. When a change is intended, re-derive the numbers and say why.

``canonical`` sorts instances; it is sound if every step commutes with renaming instances
(then a state and its canonical form have the same futures), so that is checked too, on
states reached by seeded random walks (``groupcheck.checker.walk`` + ``model.core.replay``)."""
from __future__ import annotations

import itertools

import pytest

from groupcheck.checker import bfs, walk
from groupcheck.model.core import replay
from groupcheck.model.streams_classic import MODEL
from groupcheck.model.streams_classic.scope import Behaviour, Config, StreamsScope, with_profile
from groupcheck.model.streams_classic.state import State

C = Config
SINGLE_BOUNCE = StreamsScope(instances=2, tasks=2, plan=(C("2.3"), C("3.9")))
PROBING_NEXT = StreamsScope(instances=2, tasks=2, plan=(C("3.9"), C("next")))
TWO_BOUNCES = StreamsScope(instances=2, tasks=2, plan=(C("1.1"), C("2.0", "1.1"), C("2.0")))
LEARNER = StreamsScope(instances=3, tasks=2, initial=2, plan=(C("3.9"),), task_assignor="learner",
                       operations=("scale_up", "scale_down"), budget=2)
# KIP-268's final rebalance inside the 2.0-2.3 family: Kafka 2.1-2.3's members trigger it
# (release profile: the one sent an older assignment and the one told of a newer common
# version both rejoin without creating tasks, KAFKA-8649's fix), the KIP's leader does
# (kip-268 profile). The scopes above never hand a 2.0-2.3 member a v3+ assignment older
# than its subscription, so only these see who does.
FINAL_REBALANCE = StreamsScope(instances=2, tasks=2, plan=(C("2.0"), C("2.3")))
FINAL_REBALANCE_KIP = with_profile(FINAL_REBALANCE, "kip-268")

PINNED = [
    # scope, symmetry, distinct states, transitions, depth
    pytest.param(SINGLE_BOUNCE, True, 488, 756, 32, id="2.3-3.9-sym"),
    pytest.param(SINGLE_BOUNCE, False, 802, 1199, 32, id="2.3-3.9-full"),
    pytest.param(PROBING_NEXT, True, 520, 801, 32, id="3.9-next-sym"),
    pytest.param(PROBING_NEXT, False, 788, 1175, 32, id="3.9-next-full"),
    pytest.param(TWO_BOUNCES, True, 1597, 2977, 37, id="1.1-2.0uf-2.0-sym"),
    pytest.param(TWO_BOUNCES, False, 3021, 5550, 37, id="1.1-2.0uf-2.0-full"),
    pytest.param(LEARNER, True, 887, 1469, 35, id="learner-scale-sym"),
    pytest.param(LEARNER, False, 924, 1514, 35, id="learner-scale-full"),
    pytest.param(FINAL_REBALANCE, True, 491, 745, 27, id="2.0-2.3-sym"),
    pytest.param(FINAL_REBALANCE, False, 776, 1145, 27, id="2.0-2.3-full"),
    pytest.param(FINAL_REBALANCE_KIP, True, 433, 669, 27, id="2.0-2.3-kip-268-sym"),
    pytest.param(FINAL_REBALANCE_KIP, False, 700, 1043, 27, id="2.0-2.3-kip-268-full"),
]


@pytest.mark.parametrize("scope, symmetry, states, transitions, depth", PINNED)
def test_reachable_state_count_is_pinned(scope, symmetry, states, transitions, depth):
    report = bfs(MODEL, scope, symmetry=symmetry)
    assert report.violation is None
    assert report.complete
    assert (report.states, report.transitions, report.depth) == (states, transitions, depth)


def test_pinned_scopes_witness_what_they_are_for():
    assert bfs(MODEL, SINGLE_BOUNCE).witnessed["some_thread_downgraded"]
    assert bfs(MODEL, PROBING_NEXT).witnessed["upgrade_finished"]
    assert bfs(MODEL, LEARNER).witnessed["some_warmup_caught_up"]
    for scope in (FINAL_REBALANCE, FINAL_REBALANCE_KIP):
        assert bfs(MODEL, scope).witnessed["upgrade_finished"]


def inboxes(scope: StreamsScope) -> list[tuple]:
    """(subscription's used version, assignment) of every thread holding an unprocessed
    assignment in a state the search keeps."""
    out = []

    def look(state: State) -> None:
        out.extend((m.sub.used, m.inbox) for m in state.members if m.inbox is not None)

    bfs(MODEL, scope, on_state=look)
    return out


def test_the_final_rebalance_scopes_see_who_triggers_it():
    """Release profile: the leader never sets the follow-up, and a 2.3 thread gets a v3
    assignment advertising v4 for its v4 subscription (it rejoins); kip-268 profile: the
    leader's own assignment carries the follow-up."""
    release, kip = inboxes(FINAL_REBALANCE), inboxes(FINAL_REBALANCE_KIP)
    assert not any(a.followup for _, a in release)
    assert any(3 <= a.version < used and a.version != a.supported for used, a in release)
    assert any(a.followup for _, a in kip)


VERDICT_SCOPES = [
    SINGLE_BOUNCE, PROBING_NEXT, TWO_BOUNCES, LEARNER, FINAL_REBALANCE, FINAL_REBALANCE_KIP,
    # violations: a pre-probing leader dies (KAFKA-6054); the KAFKA-8649 bug
    StreamsScope(instances=2, tasks=2, plan=(C("1.1"), C("2.0"))),
    StreamsScope(instances=2, tasks=2, plan=(C("2.0"), C("2.3")), profile="custom",
                 behaviour=Behaviour(advertise_group_min=False)),
]


@pytest.mark.parametrize("scope", VERDICT_SCOPES,
                         ids=["2.3-3.9", "3.9-next", "two-bounces", "learner", "2.0-2.3", "2.0-2.3-kip-268",
                              "1.1-2.0", "kafka-8649"])
def test_symmetry_reduction_never_changes_the_verdict(scope):
    reduced, full = bfs(MODEL, scope, symmetry=True), bfs(MODEL, scope, symmetry=False)
    assert reduced.states <= full.states
    assert reduced.witnessed == full.witnessed
    assert (reduced.violation is None) == (full.violation is None)
    if full.violation is not None:
        assert reduced.violation.property == full.violation.property
        assert len(reduced.violation.path) == len(full.violation.path)   # both shortest


def test_the_violating_verdict_scopes_do_violate():
    found = [bfs(MODEL, s).violation for s in VERDICT_SCOPES[-2:]]
    assert [v.property for v in found] == ["leader_never_fails", "used_version_supported"]


# ------------------------------------------------------------------------------ canonical

def permute(scope: StreamsScope, state: State, perm: tuple[int, ...]) -> State:
    """Rename instances: new instance i is old instance ``perm[i]``."""
    n, t = scope.instances, scope.threads
    new = {old: i for i, old in enumerate(perm)}

    def slot(s: int) -> int:
        return s if s < 0 else new[s // t] * t + s % t

    def insts(mask: int) -> int:
        return mask if mask < 0 else sum(1 << new[i] for i in range(n) if mask >> i & 1)

    members = tuple(state.members[old * t + k] for old in perm for k in range(t))
    g = state.group
    return state._replace(
        group=g._replace(leader=slot(g.leader), joined=tuple(sorted(slot(s) for s in g.joined)),
                         order=tuple(slot(s) for s in g.order)),
        instances=tuple(state.instances[old] for old in perm),
        members=tuple(m._replace(history=insts(m.history)) for m in members),
        last_start=new.get(state.last_start, -1))


def permute_action(scope: StreamsScope, action, perm: tuple[int, ...]):
    new = {old: i for i, old in enumerate(perm)}
    if action.kind in ("join", "assign", "receive", "caught_up"):      # member slots
        t = scope.threads
        return action._replace(slot=new[action.slot // t] * t + action.slot % t)
    return action._replace(slot=new[action.slot])                       # instance indices


WALK_SCOPES = [
    StreamsScope(instances=3, tasks=3),
    StreamsScope(instances=2, threads=2, tasks=3, standbys=1, faults=("crash",), budget=1),
    LEARNER,
]


def walked_states(scope: StreamsScope, seeds=range(12), length: int = 40) -> list[State]:
    out = []
    for seed in seeds:
        path, violation, _ = walk(MODEL, scope, seed, length)
        assert violation is None, violation
        first, steps = replay(MODEL, scope, path)
        out += [first] + [s.next for s in steps]
    return out


@pytest.mark.parametrize("scope", WALK_SCOPES, ids=["3x3", "2x2threads-crash", "learner"])
def test_canonical_is_idempotent_and_a_renaming(scope):
    perms = list(itertools.permutations(range(scope.instances)))
    for state in walked_states(scope):
        key = MODEL.canonical(scope, state)
        assert MODEL.canonical(scope, key) == key
        assert any(permute(scope, state, p) == key for p in perms)


@pytest.mark.parametrize("scope", WALK_SCOPES, ids=["3x3", "2x2threads-crash", "learner"])
def test_every_step_commutes_with_renaming_instances(scope):
    """What makes the reduction sound: a renamed state has the renamed actions and successors."""
    perms = list(itertools.permutations(range(scope.instances)))[1:]
    for state in walked_states(scope, seeds=range(4)):
        for p in perms:
            twin = permute(scope, state, p)
            actions = MODEL.actions(scope, state)
            assert sorted(permute_action(scope, a, p) for a in actions) == sorted(MODEL.actions(scope, twin))
            for a in actions:
                nxt, _ = MODEL.step(scope, state, a)
                assert MODEL.step(scope, twin, permute_action(scope, a, p))[0] == permute(scope, nxt, p)


def distinguishable(scope: StreamsScope, state: State) -> bool:
    """No two instances agree on their own state and their threads' (history aside)."""
    t = scope.threads
    views = [(state.instances[i], tuple(tuple(state.members[i * t + k])[:-2] for k in range(t)))
             for i in range(scope.instances)]
    return len(set(views)) == len(views)


@pytest.mark.parametrize("scope", WALK_SCOPES, ids=["3x3", "2x2threads-crash", "learner"])
def test_a_state_and_its_renamed_twin_get_the_same_key(scope):
    perms = list(itertools.permutations(range(scope.instances)))
    checked = 0
    for state in walked_states(scope):
        if not distinguishable(scope, state):
            continue
        checked += 1
        key = MODEL.canonical(scope, state)
        for p in perms:
            assert MODEL.canonical(scope, permute(scope, state, p)) == key
    assert checked >= 50


def test_the_stable_start_and_its_twin_share_a_key():
    scope = StreamsScope()
    state = MODEL.init_states(scope)[0]
    twin = permute(scope, state, (2, 0, 1))
    assert twin != state
    assert MODEL.canonical(scope, twin) == MODEL.canonical(scope, state)
