"""Seed 002's worked examples of warm-up (learner) tasks, replayed through the model.

Each example (KIP-429, "Normal Scenarios" and "Edge Scenarios") is driven with the
events it names (a member joins, a learner is ready, a member is told it is leaving, the
leader crashes) and every rebalance is compared with the example's table: the metadata
each member joins with (assigned, revoked, learning) and the assignment the leader hands
out (assigned, learning).

The examples pick the donor's task inconsistently: in "Scale-up" a donor [T1, T2] gives
up T1, in "Online Host Swapping" a donor [T1, T2] gives up T2. The model has one rule
(a donor gives up its lowest-numbered tasks first), so two examples replay exactly up
to a renaming of tasks that leaves their starting state unchanged (``RENAME``).
The scale-down example lists S2 as revoking only T4 when the second rebalance begins,
though T3 is being learned too; the model follows the text's rule ("the task owners
will revoke the being learned tasks") and revokes both, and the leader hands T3 back, so
the assignment is the example's.
"""
from __future__ import annotations

import pytest

from groupcheck.model.streams_classic.scope import Config, StreamsScope
from groupcheck.model.streams_classic.state import (
    ABSENT,
    GROUP_STABLE,
    OFF,
    STABLE,
    UP,
    Action,
    Group,
    Instance,
    Member,
    State,
)
from groupcheck.model.streams_classic.step import actions, init_states, step


def scope(instances: int, tasks: int, initial: int) -> StreamsScope:
    return StreamsScope(instances=instances, tasks=tasks, initial=initial, plan=(Config("3.9"),),
                        task_assignor="learner", start="empty", faults=("crash",),
                        operations=("scale_up", "scale_down"), budget=4)


def mask(*names: str) -> int:
    return sum(1 << (int(n[1:]) - 1) for n in names)


def stable_group(sc: StreamsScope, owned: dict[str, tuple[str, ...]]) -> State:
    """A settled group: S1 leads, members joined in order S1, S2, ..., owning ``owned``."""
    slots = [int(name[1:]) - 1 for name in owned]
    everyone = sum(1 << s for s in slots)
    members, instances = [], []
    for s in range(sc.instances):
        if s in slots:
            tasks = mask(*owned[f"S{s + 1}"])
            members.append(Member(status=STABLE, used=11, generation=1, active=tasks, prev=tasks, standby=0,
                                  learning=0, ready=0, learned=0, sub=None, inbox=None,
                                  history=everyone if s == 0 else -1))
            instances.append(Instance(UP, 0))
        else:
            members.append(Member(status=OFF, used=11, generation=-1, active=0, prev=0, standby=0, learning=0, ready=0,
                                  learned=0, sub=None, inbox=None, history=-1))
            instances.append(Instance(ABSENT, 0))
    group = Group(status=GROUP_STABLE, generation=1, leader=0, joined=(), order=tuple(slots), version=11)
    return State(group=group, instances=tuple(instances), members=tuple(members), budget=sc.budget, calm=0,
                 since_start=0, last_start=-1)


def act(sc: StreamsScope, state: State, kind: str, name: str) -> State:
    action = Action(kind, int(name[1:]) - 1)
    assert action in actions(sc, state), f"{kind} {name} is not enabled"
    return step(sc, state, action)[0]


def rebalance(sc: StreamsScope, state: State, *events: tuple[str, str], leader: str | None = None):
    """Apply ``events``, let every thread join (in slot order), let the leader assign
    (``leader`` names the new one when the old has left), and let every thread process
    its assignment. Returns the new state, the leader, what each member joined with, and
    what each got."""
    for kind, name in events:
        state = act(sc, state, kind, name)
    while joins := [a for a in actions(sc, state) if a.kind == "join"]:
        state = step(sc, state, joins[0])[0]
    joined = {f"S{s + 1}": state.members[s].sub for s in state.group.joined}
    assigns = [a for a in actions(sc, state) if a.kind == "assign"]
    if leader is not None:
        assigns = [a for a in assigns if a.slot == int(leader[1:]) - 1]
    [assign] = assigns
    leader = f"S{assign.slot + 1}"
    state = step(sc, state, assign)[0]
    got = {f"S{s + 1}": m.inbox for s, m in enumerate(state.members) if m.inbox is not None}
    while receives := [a for a in actions(sc, state) if a.kind == "receive"]:
        state = step(sc, state, receives[0])[0]
    return state, leader, joined, got


def names(bits: int, rename: dict[str, str]) -> list[str]:
    tasks = [f"T{t + 1}" for t in range(bits.bit_length()) if bits >> t & 1]
    return sorted((rename.get(t, t) for t in tasks), key=lambda t: int(t[1:]))


def joined_as(joined, rename=None) -> dict[str, tuple[list, list, list]]:
    """Per member: (assigned, revoked, learning) as the example writes join metadata."""
    r = rename or {}
    return {n: (names(sub.owned, r), names(sub.prev & ~sub.owned, r), names(sub.learning, r))
            for n, sub in joined.items()}


def assigned_as(got, rename=None) -> dict[str, tuple[list, list]]:
    r = rename or {}
    return {n: (names(a.active, r), names(a.learning, r)) for n, a in got.items()}


def L(*tasks: str) -> list[str]:
    return list(tasks)


SWAP_PAIRS = {"T1": "T2", "T2": "T1", "T3": "T4", "T4": "T3"}


def test_scale_up_running_application():
    sc = scope(5, 5, 3)
    state = stable_group(sc, {"S1": ("T1", "T2"), "S2": ("T3", "T4"), "S3": ("T5",)})
    # First Rebalance: new member S4 joins the group
    state, leader, _, got = rebalance(sc, state, ("scale_up", "S4"))
    assert leader == "S1"
    assert assigned_as(got) == {"S1": (L("T1", "T2"), L()), "S2": (L("T3", "T4"), L()),
                                "S3": (L("T5"), L()), "S4": (L(), L("T1"))}
    # Second Rebalance: new member S5 joins; S4 is not ready yet
    state, _, joined, got = rebalance(sc, state, ("scale_up", "S5"))
    assert joined_as(joined)["S1"] == (L("T2"), L("T1"), L())     # T1 revoked: "being learned"
    assert joined_as(joined)["S4"] == (L(), L(), L("T1"))
    assert assigned_as(got) == {"S1": (L("T1", "T2"), L()), "S2": (L("T3", "T4"), L()),
                                "S3": (L("T5"), L()), "S4": (L(), L("T1")), "S5": (L(), L("T3"))}
    # Third Rebalance: S4 finishes its replay and becomes ready
    state, _, joined, got = rebalance(sc, state, ("caught_up", "S4"))
    assert joined_as(joined)["S1"] == (L("T2"), L("T1"), L())
    assert joined_as(joined)["S2"] == (L("T4"), L("T3"), L())     # T3 revoked: "being learned"
    assert assigned_as(got) == {"S1": (L("T2"), L()), "S2": (L("T3", "T4"), L()),
                                "S3": (L("T5"), L()), "S4": (L("T1"), L()), "S5": (L(), L("T3"))}
    # Fourth Rebalance: S5 is ready; the group reaches balance, one task each
    state, _, joined, got = rebalance(sc, state, ("caught_up", "S5"))
    assert joined_as(joined)["S2"] == (L("T4"), L("T3"), L())
    assert assigned_as(got) == {"S1": (L("T2"), L()), "S2": (L("T4"), L()), "S3": (L("T5"), L()),
                                "S4": (L("T1"), L()), "S5": (L("T3"), L())}


def test_scale_up_from_scratch():
    # the model's donor gives T1-T3 where the example's gives T3-T5: any renaming of
    # tasks leaves an empty group unchanged
    rename = {"T1": "T3", "T2": "T4", "T3": "T5", "T4": "T1", "T5": "T2"}
    sc = scope(3, 5, 1)
    # First Rebalance: S1 joins an empty group and gets every task at once
    state, _, _, got = rebalance(sc, init_states(sc)[0])
    assert assigned_as(got, rename) == {"S1": (L("T1", "T2", "T3", "T4", "T5"), L())}
    # Second Rebalance: S2 and S3 join
    state, _, _, got = rebalance(sc, state, ("scale_up", "S2"), ("scale_up", "S3"))
    assert assigned_as(got, rename) == {"S1": (L("T1", "T2", "T3", "T4", "T5"), L()),
                                        "S2": (L(), L("T3", "T4")), "S3": (L(), L("T5"))}
    # Third Rebalance: S2 and S3 are ready immediately after the assignment
    state, _, joined, got = rebalance(sc, state, ("caught_up", "S2"), ("caught_up", "S3"))
    assert joined_as(joined, rename)["S1"] == (L("T1", "T2"), L("T3", "T4", "T5"), L())
    assert assigned_as(got, rename) == {"S1": (L("T1", "T2"), L()), "S2": (L("T3", "T4"), L()),
                                        "S3": (L("T5"), L())}


def test_scale_down_running_application():
    sc = scope(3, 5, 3)
    state = stable_group(sc, {"S1": ("T1", "T2"), "S2": ("T3", "T4"), "S3": ("T5",)})
    # First Rebalance: S2 joins the group and claims that it is leaving
    state, _, joined, got = rebalance(sc, state, ("scale_down", "S2"))
    assert joined["S2"].leaving
    assert assigned_as(got) == {"S1": (L("T1", "T2"), L("T3")), "S2": (L("T3", "T4"), L()),
                                "S3": (L("T5"), L("T4"))}
    # Second Rebalance: S3 finishes replay first (S1 is not ready yet)
    state, _, joined, got = rebalance(sc, state, ("caught_up", "S3"))
    assert joined_as(joined)["S2"] == (L(), L("T3", "T4"), L())   # the example lists only T4
    assert assigned_as(got) == {"S1": (L("T1", "T2"), L("T3")), "S2": (L("T3"), L()),
                                "S3": (L("T4", "T5"), L())}
    # Third Rebalance: S1 finishes replay; S2 is left with no task and shuts down
    state, _, joined, got = rebalance(sc, state, ("caught_up", "S1"))
    assert joined_as(joined)["S2"] == (L(), L("T3"), L())
    assert assigned_as(got) == {"S1": (L("T1", "T2", "T3"), L()), "S2": (L(), L()),
                                "S3": (L("T4", "T5"), L())}
    assert state.instances[1].status == "gone"


def test_online_host_swapping():
    sc = scope(4, 4, 2)
    state = stable_group(sc, {"S1": ("T1", "T2"), "S2": ("T3", "T4")})
    # First Rebalance: S3 and S4 join
    state, _, _, got = rebalance(sc, state, ("scale_up", "S3"), ("scale_up", "S4"))
    assert assigned_as(got, SWAP_PAIRS) == {"S1": (L("T1", "T2"), L()), "S2": (L("T3", "T4"), L()),
                                            "S3": (L(), L("T2")), "S4": (L(), L("T4"))}
    # Second Rebalance: S1 and S2 are told they are leaving
    state, _, joined, got = rebalance(sc, state, ("scale_down", "S1"), ("scale_down", "S2"))
    assert joined_as(joined, SWAP_PAIRS)["S1"] == (L("T1"), L("T2"), L())
    assert joined_as(joined, SWAP_PAIRS)["S2"] == (L("T3"), L("T4"), L())
    assert assigned_as(got, SWAP_PAIRS) == {"S1": (L("T1", "T2"), L()), "S2": (L("T3", "T4"), L()),
                                            "S3": (L(), L("T1", "T2")), "S4": (L(), L("T3", "T4"))}
    # Third Rebalance: S3 and S4 finish replaying T1-T4; S1 and S2 shut down
    state, _, joined, got = rebalance(sc, state, ("caught_up", "S3"), ("caught_up", "S4"))
    assert joined_as(joined, SWAP_PAIRS)["S1"] == (L(), L("T1", "T2"), L())
    assert assigned_as(got, SWAP_PAIRS) == {"S1": (L(), L()), "S2": (L(), L()),
                                            "S3": (L("T1", "T2"), L()), "S4": (L("T3", "T4"), L())}
    assert [i.status for i in state.instances] == ["gone", "gone", "up", "up"]


def test_leader_transfer_during_scaling():
    sc = scope(4, 5, 3)
    state = stable_group(sc, {"S1": ("T1", "T2"), "S2": ("T3", "T4"), "S3": ("T5",)})
    state, _, _, got = rebalance(sc, state, ("scale_up", "S4"))
    assert assigned_as(got)["S4"] == (L(), L("T1"))
    # Second Rebalance: S1 crashes before S4 is ready; S2 takes over the leader. "S4 is
    # learning T1 which has no current active task. We could rebalance T1, T2 immediately."
    state, leader, joined, got = rebalance(sc, state, ("crash", "S1"), leader="S2")
    assert joined_as(joined) == {"S2": (L("T3", "T4"), L(), L()), "S3": (L("T5"), L(), L()),
                                 "S4": (L(), L(), L("T1"))}
    assert assigned_as(got) == {"S2": (L("T3", "T4"), L()), "S3": (L("T2", "T5"), L()),
                                "S4": (L("T1"), L())}


def test_leader_transfer_before_scaling():
    sc = scope(4, 5, 2)
    state = stable_group(sc, {"S1": ("T1",), "S2": ("T2", "T3", "T4", "T5")})
    # New members S3 and S4 join as S1 crashes: S2 leads with no history, so it cannot
    # tell the new instances apart and assigns no learner; orphaned T1 goes to S3
    state, leader, joined, got = rebalance(sc, state, ("crash", "S1"), ("scale_up", "S3"), ("scale_up", "S4"),
                                           leader="S2")
    assert assigned_as(got) == {"S2": (L("T2", "T3", "T4", "T5"), L()), "S3": (L("T1"), L()),
                                "S4": (L(), L())}


@pytest.mark.parametrize("pairs", [SWAP_PAIRS])
def test_the_renaming_leaves_the_starting_state_unchanged(pairs):
    owned = {"S1": ("T1", "T2"), "S2": ("T3", "T4")}
    renamed = {s: tuple(sorted(pairs.get(t, t) for t in ts)) for s, ts in owned.items()}
    assert renamed == owned
