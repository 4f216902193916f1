"""Streams-on-classic rounds built by hand and a driver of the model, shared by the
leader and member unit tests (``test_streams_leader.py``, ``test_streams_member.py``).
Tasks are bitmasks: T1 is bit 0."""
from __future__ import annotations

from groupcheck.model.streams_classic import MODEL
from groupcheck.model.streams_classic import releases as rel
from groupcheck.model.streams_classic.leader import assign
from groupcheck.model.streams_classic.scope import Config, StreamsScope
from groupcheck.model.streams_classic.state import (
    GROUP_STABLE, NO_LEADER, PREPARING, SYNCING, UP, Assignment, Group, Instance, Member, State, Subscription,
)

T1, T2, T3, T4 = 1, 2, 4, 8
EAGER, COOP = rel.EAGER, rel.COOPERATIVE
GEN = 5

# ------------------------------------------------------------------------------ building rounds by hand

def sub(used: int, latest: int | None = None, protocol: str = COOP, *, owned: int = 0, prev: int = 0,
        standby: int = 0, learning: int = 0, ready: int = 0) -> Subscription:
    return Subscription(used=used, latest=used if latest is None else latest, protocol=protocol, owned=owned,
                        prev=prev, standby=standby, learning=learning, ready=ready, leaving=False)


def joined_round(stages: tuple[int, ...], subs: tuple[Subscription, ...]) -> State:
    """Instance i (one thread each) runs ``plan[stages[i]]`` and has joined with ``subs[i]``;
    the group's member order is the slot order, so slot 0 is the most senior."""
    members = tuple(Member(status=SYNCING, used=s.used, generation=GEN - 1, active=s.owned, prev=s.prev,
                           standby=s.standby, learning=s.learning, ready=s.ready, learned=0, sub=s, inbox=None,
                           history=-1)
                    for s in subs)
    slots = tuple(range(len(subs)))
    group = Group(status=PREPARING, generation=GEN - 1, leader=NO_LEADER, joined=slots, order=slots, version=0)
    return State(group=group, instances=tuple(Instance(UP, st) for st in stages), members=members, budget=0, calm=0,
                 since_start=0, last_start=-1)


def scope_of(*plan: Config, tasks: int = 2, **kw) -> StreamsScope:
    return StreamsScope(instances=len(plan), tasks=tasks, plan=plan, **kw)


def outcome_by_slot(scope, state, leader):
    out = assign(scope, state, leader, GEN)
    return out, dict(out.assignments)


def empty(version, supported, error="") -> Assignment:
    return Assignment(version=version, supported=supported, error=error, active=0, standby=0, learning=0, learned=0,
                      followup=False, generation=GEN)



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
