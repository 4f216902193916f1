"""Hypothesis state machines over any ``model.core.Model``.

The machine never re-implements a guard: each step draws an index into
``actions(scope, state)``, so everything the model enables can be drawn and nothing
else. Swarm testing: the first draw picks which action kinds this test case may use
(Hypothesis shrinks that choice too), so rare kinds get whole runs to themselves;
the second draws a priority order of the actors (PCT-style scheduling), the third
how many steps pass before the first fault may fire (a nemesis schedule).
After every step every always/within property is checked; a failure raises
``PropertyViolated`` naming the property and carrying the replayable path.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, seed as hseed, settings, strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, rule,
                                 run_state_machine_as_test)

from model.core import Model, Step, check_state, check_step


class PropertyViolated(AssertionError):
    def __init__(self, prop: str, message: str, path: list[int], story: list[str]):
        self.property, self.message, self.path = prop, message, path
        lines = "\n".join(f"  {i + 1}. {s}" for i, s in enumerate(story))
        super().__init__(f"{prop}: {message}\npath {path}\n{lines}")


def machine(model: Model, scope, swarm: bool = True) -> type[RuleBasedStateMachine]:
    """A RuleBasedStateMachine class exploring ``model`` within ``scope``."""
    inits = model.init_states(scope)
    kinds = sorted(set(model.action_kinds))
    faults = frozenset(model.fault_kinds)

    class ModelMachine(RuleBasedStateMachine):
        state = None

        @initialize(index=st.integers(0, len(inits) - 1), data=st.data())
        def start(self, index, data):
            self.state = inits[index]
            self.path = [index]
            self.quiet = 0
            self.story: list[str] = []
            self.allowed = None
            self.priority = {}
            if swarm:
                # one small integer per kind, the kind left out when it is 3: about a
                # quarter of the kinds per case, and shrinking (towards 0) enables them
                # all. (A set strategy would reject duplicate draws: discarded cases.)
                out = data.draw(st.lists(st.integers(0, 3), min_size=len(kinds), max_size=len(kinds)),
                                label="swarm: action kinds left out")
                self.allowed = frozenset(k for k, x in zip(kinds, out) if x != 3)
                slots = sorted({a.slot for a in model.actions(scope, self.state)})
                order = data.draw(st.permutations(slots), label="scheduling priority of actors")
                self.priority = {slot: rank for rank, slot in enumerate(order)}
                self.quiet = data.draw(st.integers(0, 60), label="steps before the first fault")
            self._check(None, self.state)

        def _check(self, step: Step | None, state) -> None:
            found = check_state(model, scope, state)
            if step is not None:
                found += check_step(model, scope, step)
            if found:
                name, message = found[0]
                raise PropertyViolated(name, message, list(self.path), list(self.story))

        @rule(data=st.data())
        def step(self, data):
            state = self.state
            if not model.within_bounds(scope, state):
                return
            enabled = model.actions(scope, state)
            if not enabled and not model.is_terminal_ok(scope, state):
                raise PropertyViolated("no_deadlock", "no action is enabled", self.path, self.story)
            calm = len(self.path) - 1 < self.quiet
            choices = [i for i, a in enumerate(enabled) if (self.allowed is None or a.kind in self.allowed)
                       and not (calm and a.kind in faults)]
            if not choices:
                return
            # PCT-style: Hypothesis favours small draws, so list the actions of the
            # highest-priority actor first; runs follow one actor and deviate by choice
            choices.sort(key=lambda i: self.priority.get(enabled[i].slot, -1))
            index = data.draw(st.sampled_from(choices), label="action index")
            action = enabled[index]
            nxt, events = model.step(scope, state, action)
            self.path.append(index)
            self.story.append(model.describe_action(scope, state, action))
            self._check(Step(state, action, index, nxt, events), nxt)
            self.state = nxt

    ModelMachine.__name__ = f"{model.name.title()}Machine"
    return ModelMachine


@dataclass
class Hunt:
    """What one seeded Hypothesis run found."""

    property: str | None      # the violated property, None when nothing was found
    message: str
    path: list[int]           # the shrunk counterexample's path
    first_seconds: float      # time to the first failing test case (before shrinking)
    seconds: float            # total, shrinking included
    cases: int                # test cases run


def hunt(model: Model, scope, *, seed: int = 0, max_examples: int = 300, steps: int = 120,
         swarm: bool = True, shrink: bool = True) -> Hunt:
    """Run the state machine once, seeded, with no example database; report the result.
    ``shrink=False`` stops at the first failing case (detection only)."""
    base = machine(model, scope, swarm)
    clock = {"cases": 0, "first": None}
    started = time.perf_counter()

    class Counted(base):
        def __init__(self):
            super().__init__()
            clock["cases"] += 1

        def _check(self, step, state):
            try:
                super()._check(step, state)
            except PropertyViolated:
                if clock["first"] is None:
                    clock["first"] = time.perf_counter() - started
                raise

    hseed(seed)(Counted)
    config = settings(max_examples=max_examples, stateful_step_count=steps, database=None, deadline=None,
                      derandomize=False, print_blob=False, report_multiple_bugs=False,
                      suppress_health_check=list(HealthCheck),
                      phases=list(Phase) if shrink else [Phase.explicit, Phase.reuse, Phase.generate])
    try:
        run_state_machine_as_test(Counted, settings=config)
    except PropertyViolated as e:
        return Hunt(e.property, e.message, e.path, clock["first"] or 0.0, time.perf_counter() - started,
                    clock["cases"])
    return Hunt(None, "", [], 0.0, time.perf_counter() - started, clock["cases"])
