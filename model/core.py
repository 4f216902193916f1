"""The one model API every groupcheck tool uses.

A protocol is a pure, deterministic state machine (after Stateright's ``Model`` and
TLA+'s Init/Next):

    init_states(scope)          -> ordered initial states
    actions(scope, state)       -> enabled actions, in a deterministic order
    step(scope, state, action)  -> (next state, events it emits)
    properties                  -> named claims (always / within-K / sometimes)
    canonical(scope, state)     -> a symmetry-reduced key
    view                        -> how tools show it and read its scope (``View``)

``Action``, ``Event`` and ``Scope`` are ``typing.Protocol``s: the attributes any tool may
read of every protocol's values (tests/api/test_model_protocols.py checks them).
States, actions and events are immutable and hashable. Nothing here reads a clock,
``random`` or the outside world, so a *path* ``[init index, action index, ...]``
replays to the same states everywhere.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Hashable, Literal, Protocol, runtime_checkable

State = Any      # protocol-specific immutable value (NamedTuples)


@runtime_checkable
class Action(Protocol):
    """What tools read of any protocol's action (a NamedTuple in each package): its kind
    (one of ``Model.action_kinds``) and the client slot it acts for (-1: none, e.g. a
    coordinator failover). Everything else is the protocol's own."""

    kind: str
    slot: int


@runtime_checkable
class Event(Protocol):
    """What tools read of any protocol's event (what ``step`` emits): its kind and the
    client slot it concerns (-1: none). A protocol's events carry more (``note``,
    ``partitions``, ``data``), read only through its ``View`` or its own package."""

    kind: str
    slot: int


@runtime_checkable
class Scope(Protocol):
    """What tools read of any protocol's scope (a frozen dataclass bounding exploration):
    the profile it runs and its rules (``behaviour``), the fault and operation kinds it
    may inject and how many of them one run may spend (``budget``)."""

    profile: str
    behaviour: Any
    faults: tuple[str, ...]
    operations: tuple[str, ...]
    budget: int


Kind = Literal["always", "within", "sometimes"]
On = Literal["state", "step"]


@dataclass(frozen=True)
class Property:
    """A named claim about a protocol.

    ``kind``
        ``always``: a safety claim checked at every reachable state (``on="state"``)
        or every transition (``on="step"``). ``within``: bounded liveness, phrased as
        an always-claim over a monitor the state carries (e.g. "at most K rebalances
        since the last disturbance"). ``sometimes``: a reachability witness; the
        checker reports whether some reachable state satisfies it.
    ``check``
        for ``on="state"``: ``check(scope, state)``; for ``on="step"``:
        ``check(scope, prev, action, next, events)``. It returns ``None`` when the
        claim holds there, or a short message naming the broken clause. For
        ``sometimes`` claims it returns a message when the witness is found.
    ``doc``
        the KIP sentence the claim enforces (the docstring of ``check``).
    """

    name: str
    kind: Kind
    check: Callable[..., str | None]
    on: On = "state"

    @property
    def doc(self) -> str:
        return (self.check.__doc__ or "").strip()


def _no_state_text(scope: Scope, state: State) -> str:
    return ""


def _action_text(scope: Scope, state: State, action: Action) -> str:
    return str(action)


def _no_event_text(scope: Scope, event: Event) -> str | None:
    return None


@dataclass(frozen=True)
class View:
    """How tools show a protocol and read and write its scope; nothing here changes what
    is explored. The scope I/O and ``state_to_itf`` have no sensible default; a story
    without the protocol's texts shows each action as ``str(action)``, no events and no
    closing state, and no ``owners``: the explorer shows no ownership timeline."""

    default_scope: Callable[[], Scope]                 # the scope a reader's partial one fills
    scope_from_dict: Callable[[dict], Scope]            # --scope, a trace's #meta (ScopeError)
    scope_to_dict: Callable[[Scope], dict]
    state_to_itf: Callable[[Scope, State], dict]        # a state as ITF (model/itf.py)
    describe_action: Callable[[Scope, State, Action], str] = _action_text
    describe_event: Callable[[Scope, Event], str | None] = _no_event_text   # None: not worth showing a reader
    # the whole state in a few lines for a reader (a story ends with it); "" for none
    describe_state: Callable[[Scope, State], str] = _no_state_text
    # who owns what at a state, for the explorer's ownership timeline: {partition or task
    # name: owner labels}, e.g. {"t0-0": ("C1",), "t0-1": ()}; every item of the scope appears.
    # Labels are the model's texts' names; "P1 (standby)" / "P1 (warm-up)" mark a replica, not an owner
    owners: Callable[[Scope, State], dict[str, tuple[str, ...]]] | None = None
    # the record layer's offsets (issue 30, model/delivery), for the explorer's second track:
    # {partition: {"end", "committed", "base", "done", "excused", "positions": {label: [processed, position]}}}
    # (done/excused: lists of offsets); {} without records
    offsets: Callable[[Scope, State], dict[str, dict]] | None = None


@dataclass(frozen=True)
class Model:
    """The bundle a protocol package exports as ``MODEL``: its rules, and its ``view``
    (how tools show it and read its scope). Built by keyword."""

    name: str
    init_states: Callable[[Scope], tuple[State, ...]]
    actions: Callable[[Scope, State], tuple[Action, ...]]
    step: Callable[[Scope, State, Action], tuple[State, tuple[Event, ...]]]
    properties: tuple[Property, ...]
    canonical: Callable[[Scope, State], Hashable]
    within_bounds: Callable[[Scope, State], bool]
    is_terminal_ok: Callable[[Scope, State], bool]
    view: View
    action_kinds: tuple[str, ...] = field(default=())
    fault_kinds: tuple[str, ...] = field(default=())   # kinds that spend the fault budget
    # the protocol's own progress steps: swarm testing never leaves them out
    progress_kinds: tuple[str, ...] = field(default=())
    # the group has settled: nothing left to do (the checker's can_settle asks whether
    # such a state stays reachable from every state without further faults)
    settled: Callable[[Scope, State], bool] | None = None
    # the group has converged, whatever heartbeats are in flight: the goal of the checker's
    # settles_under_fairness (None: ``settled``). Heartbeats go on forever in a fair run, so a
    # group can stay converged without ever being quiet on the wire
    converged: Callable[[Scope, State], bool] | None = None

    @cached_property
    def state_claims(self) -> tuple[Property, ...]:
        """The always/within claims checked at each state, in ``properties`` order."""
        return tuple(p for p in self.properties if p.kind != "sometimes" and p.on == "state")

    @cached_property
    def step_claims(self) -> tuple[Property, ...]:
        """The always/within claims checked on each transition, in ``properties`` order."""
        return tuple(p for p in self.properties if p.kind != "sometimes" and p.on == "step")

    def property(self, name: str) -> Property:
        for prop in self.properties:
            if prop.name == name:
                return prop
        known = ", ".join(p.name for p in self.properties)
        raise KeyError(f"model {self.name!r} has no property {name!r}; known: {known}")


class NotSettled(ValueError):
    """A scope that starts from a settled group (``start: "stable"``) whose group never
    settles on the model's fixed, fault-free schedule from an empty group: a liveness
    failure of the rules (or of a user's assignor), not bad input. The checker reports it
    as ``can_settle`` violated."""


class PathError(ValueError):
    """A path does not replay: an index is out of range for the state it meets."""


@dataclass(frozen=True)
class Step:
    """One replayed transition: the action taken at ``prev`` and what it led to."""

    prev: State
    action: Action
    index: int
    next: State
    events: tuple[Event, ...]


def replay(model: Model, scope: Scope, path: list[int]) -> tuple[State, list[Step]]:
    """Replay ``[init index, action index, ...]``; return the initial state and steps."""
    if not path:
        raise PathError("a path needs at least the initial-state index")
    inits = model.init_states(scope)
    if not 0 <= path[0] < len(inits):
        raise PathError(f"initial-state index {path[0]} out of range 0..{len(inits) - 1}")
    state = inits[path[0]]
    first = state
    steps: list[Step] = []
    for depth, index in enumerate(path[1:], start=1):
        enabled = model.actions(scope, state)
        if not 0 <= index < len(enabled):
            raise PathError(
                f"step {depth}: action index {index} out of range; "
                f"{len(enabled)} action(s) enabled there"
            )
        action = enabled[index]
        nxt, events = model.step(scope, state, action)
        steps.append(Step(state, action, index, nxt, events))
        state = nxt
    return first, steps


def check_state(model: Model, scope: Scope, state: State) -> list[tuple[str, str]]:
    """Every always/within state-claim that fails at ``state`` as (name, message)."""
    out = []
    for prop in model.state_claims:
        msg = prop.check(scope, state)
        if msg is not None:
            out.append((prop.name, msg))
    return out


def check_step(model: Model, scope: Scope, step: Step) -> list[tuple[str, str]]:
    """Every always/within transition-claim that fails on ``step`` as (name, message)."""
    out = []
    prev, action, nxt, events = step.prev, step.action, step.next, step.events
    for prop in model.step_claims:
        msg = prop.check(scope, prev, action, nxt, events)
        if msg is not None:
            out.append((prop.name, msg))
    return out


def first_violation(model: Model, scope: Scope, first: State, steps: list[Step]) -> tuple[str, str, int] | None:
    """The first claim broken along a replayed path, as (property, message, step): state
    and transition claims as the checker has them, then ``no_deadlock`` at the end."""
    broken = check_state(model, scope, first)
    if broken:
        return broken[0][0], broken[0][1], 0
    for i, s in enumerate(steps, start=1):
        broken = check_state(model, scope, s.next) + check_step(model, scope, s)
        if broken:
            return broken[0][0], broken[0][1], i
    last = steps[-1].next if steps else first
    if model.within_bounds(scope, last) and not model.actions(scope, last) and not model.is_terminal_ok(scope, last):
        return "no_deadlock", "no action is enabled", len(steps)
    return None
