"""Driving the consumer-group model through its API, for scenario tests.

``Run`` takes actions by kind and slot from ``MODEL.actions`` and keeps a log of every
step; partition sets are bitmasks: with stride S, topic t partition p is bit t*S+p.
"""
from __future__ import annotations

from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.scope import Config, ConsumerScope
from groupcheck.model.consumer.state import ASSIGNED, DOWN, STABLE, State

PROGRESS = ("receive", "join", "deliver")
RANGE = Config(("range",))
COOP = Config(("cooperative-sticky",))
BOTH = Config(("cooperative-sticky", "range"))


# ------------------------------------------------------------------------------ driving helpers

class Run:
    """A scope, the current state, and every step taken (prev, action, next, events)."""

    def __init__(self, scope: ConsumerScope):
        self.scope = scope
        self.state: State = MODEL.init_states(scope)[0]
        self.log: list = []

    def do(self, kind: str, slot: int = -1, arg: int | None = None) -> tuple:
        """Take the first enabled action of ``kind`` (for ``slot``); fail if none is enabled."""
        for action in MODEL.actions(self.scope, self.state):
            if action.kind == kind and (slot == -1 or action.slot == slot) and (arg is None or action.arg == arg):
                prev = self.state
                self.state, events = MODEL.step(self.scope, prev, action)
                self.log.append((prev, action, self.state, events))
                return events
        raise AssertionError(f"{kind}@{slot} not enabled; enabled: {MODEL.actions(self.scope, self.state)}")

    def progress(self, slots=None, kinds=PROGRESS) -> None:
        """Take receive/join/deliver actions (of ``slots``) until none is enabled."""
        while True:
            enabled = [a for a in MODEL.actions(self.scope, self.state)
                       if a.kind in kinds and (slots is None or a.slot in slots)]
            if not enabled:
                return
            self.do(enabled[0].kind, enabled[0].slot)

    def settle(self, slots=None, limit: int = 500) -> None:
        """Run the consumers in ``slots`` (default all) until the group is settled with exactly them."""
        slots = set(range(len(self.state.consumers))) if slots is None else set(slots)
        turn = 0
        for _ in range(limit):
            self.progress(slots)
            if self._settled(slots):
                return
            beating = [a.slot for a in MODEL.actions(self.scope, self.state)
                       if a.kind == "heartbeat" and a.slot in slots]
            assert beating, f"stuck: {self.state}"
            self.do("heartbeat", beating[turn % len(beating)])
            turn += 1
        raise AssertionError(f"did not settle: {self.state}")

    def _settled(self, slots) -> bool:
        g = self.state.group
        live = [s for s in slots if self.state.consumers[s].status != DOWN]
        if g.status != STABLE or sorted(m.slot for m in g.members) != sorted(live):
            return False
        return all(c.status == ASSIGNED and g.member(c.member_id) is not None and c.generation == g.generation
                   and not c.awaiting and not c.outbox and not c.inbox
                   for c in (self.state.consumers[s] for s in live))

    def c(self, slot: int):
        return self.state.consumers[slot]

    def events(self, slot: int, kind: str, since: int = 0) -> list[int]:
        """The partitions of every ``kind`` callback consumer ``slot`` made since log index ``since``."""
        return [e.partitions for _, _, _, evs in self.log[since:] for e in evs if e.kind == kind and e.slot == slot]

    def sync_completions(self):
        """Each receive that completed a SyncGroup: (slot, owned before, assignment, that consumer's events)."""
        for prev, action, _, events in self.log:
            if action.kind != "receive":
                continue
            c = prev.consumers[action.slot]
            resp = c.inbox[0]
            if (resp.kind == "SyncGroupResponse" and resp.error == "NONE" and c.awaiting == "SyncGroup"
                    and resp.to == c.member_id):
                yield action.slot, c.owned, resp.assignment, [e for e in events if e.slot == action.slot]


def scope_for(members: int = 2, partitions=(2,), plan=(COOP,), faults=(), operations=(), budget=0):
    return ConsumerScope(members=members, partitions=partitions, faults=faults, operations=operations,
                         budget=budget, plan=plan)
