"""The assignor role: a real implementation as the assignor the model's leader runs.

``Recorder(target)`` registers the target with the model's assignor registry (as
Kafka runs any non-built-in assignor: no adjustAssignment of its own, and
validateCooperativeAssignment when the group is COOPERATIVE) under the target's name,
so BFS, walks and Hypothesis drive it with the model's own ``actions()``. Each time a
leader assigns, the model's subscriptions become the ``assign`` argument of
``schema/assignor.schema.json`` and the implementation's answer becomes the model's
assignment: one rule drives both (Hypothesis's DatabaseComparison pattern).

Answers are cached by input; an input met again is asked a second time, once, and a
different answer is itself a finding (``deterministic``). An ``info`` outcome leaves
the step undone (the scenario is not extended, nor judged); a ``fail`` on a valid
input is the divergence ``assignor_answers``.

``conform_model(recorder, muted)`` is the model the checker explores: the consumer
model with the per-invocation claims (``claims.py``) added as transition properties,
and without the properties in ``muted`` (a property already found violated is muted so
the search goes on to find the others).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from model import assignors as registry
from model.assignors import Assignor, Member
from model.consumer import MODEL
from model.consumer.client import protocol_of
from model.core import Model, Property
from model.partitions import bits

from . import claims as C
from .adapter import AdapterError, Outcome, problems
from .targets import Target


class Invocation(NamedTuple):
    """An event: the leader asked the target (input ``key``) in a round of ``mode``."""

    kind: str          # "assign" (answered), "failed" (fail: judged, step not taken) or
                       # "unanswered" (info: step not taken, not judged)
    key: str
    mode: str
    slot: int = -1


class Unanswered(Exception):
    """The implementation gave no assignment (``fail`` or ``info``): the step is not taken."""

    def __init__(self, key: str, outcome: str):
        self.key, self.outcome = key, outcome


@dataclass
class Call:
    argument: dict
    outcome: Outcome
    answer: dict | None              # member -> sorted [[topic, partition]], when ok
    asked: int = 1                   # times the implementation was asked
    seen: int = 1                    # times the model needed this input
    differs: str | None = None       # a second answer that differed
    verdicts: dict = field(default_factory=dict)   # mode -> {claim: None | message | n/a}
    modes: set = field(default_factory=set)        # the rounds (EAGER, COOPERATIVE) it was asked in


def _normal(assignment: dict) -> dict:
    return {m: sorted([t, p] for t, p in tps) for m, tps in sorted(assignment.items())}


class Recorder:
    """One target's invocations during a run: the cache by input, and the step's calls."""

    def __init__(self, target: Target):
        self.target = target
        self.adapter = target.make()
        self.hello = self.adapter.open()
        out = self.adapter.setup("assignor", {"assignor": target.assignor})
        if not out.ok:
            raise AdapterError(f"{target.name}: setup answered {out.type}: {out.error}")
        self.calls: dict[str, Call] = {}
        self.step_calls: list[str] = []
        self.invocations = 0
        self.info = 0
        self.init_calls: dict[Any, tuple[str, ...]] = {}   # initial state -> inputs settling it
        self.frozen = False              # closed: answers come from the cache only
        self.replaced = None
        self.register()

    def register(self) -> None:
        """Make the target the model's assignor of that name (for as long as it runs)."""
        self.replaced = registry.ASSIGNORS.get(self.target.name)
        registry.register(Assignor(self.target.name, self.target.protocols, False, self.target.claims_from, False,
                                   self.plan))
        registry.rebalance_protocol.cache_clear()

    def unregister(self) -> None:
        """Take the target out of the model's registry again (restoring what it replaced)."""
        if self.replaced is None:
            registry.ASSIGNORS.pop(self.target.name, None)
        else:
            registry.ASSIGNORS[self.target.name] = self.replaced
        registry.rebalance_protocol.cache_clear()

    def close(self) -> None:
        """Close the adapter and unregister; what was answered stays cached (``frozen``), so
        the paths found can still be replayed into traces."""
        self.unregister()
        self.frozen = True
        try:
            self.adapter.teardown()
            self.adapter.close()
        except Exception:
            pass

    # ---- the model's view -> the assign argument ----
    def argument(self, members: tuple[Member, ...], stride: int) -> tuple[dict, list[str], list[str], int]:
        every = seen = topics = 0
        for m in members:
            sub = m.subscription
            every, topics = every | m.eligible, topics | sub.topics
            seen |= sub.owned | sub.user_data
        count = max(topics.bit_length(), ((every | seen).bit_length() + stride - 1) // stride)
        names = [f"t{t}" for t in range(count)]
        cluster: dict[str, int] = {}
        for b in bits(every):
            cluster[names[b // stride]] = max(cluster.get(names[b // stride], 0), b % stride + 1)

        def tps(mask: int) -> list:
            return [[names[b // stride], b % stride] for b in bits(mask)]

        ids = [f"consumer-{m.member_id:03d}" for m in members]
        out = []
        for mid, m in zip(ids, members):
            sub = m.subscription
            user_data = None
            if self.target.claims_from == "user_data" and (sub.user_data or sub.user_generation >= 0):
                user_data = {"previous_assignment": tps(sub.user_data), "generation": sub.user_generation}
            out.append({"member_id": mid, "version": sub.version, "topics": [names[t] for t in bits(sub.topics)],
                        "owned_partitions": tps(sub.owned), "generation": sub.generation, "user_data": user_data})
        return {"topics": cluster, "members": out}, ids, names, stride

    def ask(self, argument: dict) -> tuple[Outcome, dict | None]:
        self.invocations += 1
        out = self.adapter.invoke("assignor", "assign", argument)
        if out.ok and not hasattr(self.adapter, "transcript"):
            # in process, an answer that is not an assignment is the implementation's own
            # failure (an external program's is a broken adapter: AdapterError, exit 2)
            wrong = problems("assignor.assign.result", out.value)
            if wrong:
                out = Outcome("fail", None, f"assign() returned something that is not an assignment: {wrong[0]}")
        if out.type == "info":
            self.info += 1
        answer = _normal(out.value["assignment"]) if out.ok else None
        return out, answer

    def plan(self, members: tuple[Member, ...], stride: int) -> dict[int, int]:
        argument, ids, names, stride = self.argument(members, stride)
        key = json.dumps(argument, sort_keys=True, separators=(",", ":"))
        call = self.calls.get(key)
        if call is None and self.frozen:
            raise AdapterError(f"{self.target.name}: closed; input not answered before: {key[:200]}")
        if call is None:
            out, answer = self.ask(argument)
            call = self.calls[key] = Call(argument, out, answer)
        else:
            call.seen += 1
            if call.asked == 1 and call.outcome.ok and not self.frozen:   # ask once more: the same answer?
                out, answer = self.ask(argument)
                call.asked += 1
                if out.ok and answer != call.answer:
                    call.differs = f"first {call.answer}, then {answer}"
                elif not out.ok:
                    call.differs = f"first ok {call.answer}, then {out.type}: {out.error}"
        self.step_calls.append(key)
        if call.answer is None:
            raise Unanswered(key, call.outcome.type)
        number = {mid: m.member_id for mid, m in zip(ids, members)}
        result = {m.member_id: 0 for m in members}
        for mid, tps in call.answer.items():
            if mid not in number:
                continue                            # judged by assignment_valid
            for topic, p in tps:
                if topic in names and 0 <= p < argument["topics"].get(topic, 0):
                    result[number[mid]] |= 1 << (names.index(topic) * stride + p)
        return result

    # ---- judging one call ----
    def verdicts(self, key: str, mode: str) -> dict[str, str | None]:
        """Every per-invocation claim on the call ``key`` in a round of ``mode``."""
        call = self.calls[key]
        if mode not in call.verdicts:
            out: dict[str, str | None] = {}
            if call.outcome.type == "fail":
                out["assignor_answers"] = f"{self.target.name} failed on a valid input: {call.outcome.error}"
            elif call.outcome.ok:
                out["assignor_answers"] = None
                out.update(C.judge(call.argument, call.answer, mode, self.target.balanced))
            call.verdicts[mode] = out
        found = dict(call.verdicts[mode])
        if call.asked > 1:
            found["deterministic"] = None if call.differs is None else f"same input answered differently: {call.differs}"
        return found


PER_INVOCATION = ("assignor_answers", "deterministic", *C.CLAIMS)


def _claim(recorder: Recorder, name: str):
    def check(scope, prev, action, nxt, events) -> str | None:
        for e in events:
            if isinstance(e, Invocation) and e.kind in ("assign", "failed"):
                msg = recorder.verdicts(e.key, e.mode).get(name)
                if msg is not None and msg != C.NOT_APPLICABLE:
                    return msg
        return None
    check.__doc__ = C.DOCS[name]
    return check


def _initial_claim(recorder: Recorder, names: tuple[str, ...]):
    """The inputs that settled a ``start: stable`` group inside init_states, judged on
    the initial state (no transition carries them)."""
    def check(scope, state) -> str | None:
        if not recorder.init_calls:
            return None
        for key in recorder.init_calls.get(state, ()):
            mode = scope.plan[0].protocol
            for name, msg in recorder.verdicts(key, mode).items():
                if name in names and msg is not None and msg != C.NOT_APPLICABLE:
                    return f"{name} (while the group formed): {msg}"
        return None
    check.__doc__ = "the per-invocation claims on the assignments that formed a stable starting group"
    return check


def _skip_unanswered(prop: Property) -> Property:
    if prop.on != "step":
        return prop
    inner = prop.check

    def check(scope, prev, action, nxt, events):
        if any(isinstance(e, Invocation) and e.kind != "assign" for e in events):
            return None
        return inner(scope, prev, action, nxt, events)
    check.__doc__ = inner.__doc__
    return replace(prop, check=check)


def conform_model(recorder: Recorder, muted: frozenset[str] = frozenset()) -> Model:
    """The consumer model driving ``recorder``'s target, with the per-invocation claims."""
    def init_states(scope):
        recorder.step_calls = []
        states = MODEL.init_states(scope)
        if recorder.step_calls:
            for k in recorder.step_calls:
                recorder.calls[k].modes.add(scope.plan[0].protocol)
            for s in states:
                recorder.init_calls[s] = tuple(recorder.step_calls)
        return states

    def step(scope, state, action):
        recorder.step_calls = []
        try:
            nxt, events = MODEL.step(scope, state, action)
        except Unanswered as u:
            kind = "failed" if u.outcome == "fail" else "unanswered"
            recorder.calls[u.key].modes.add(protocol_of(scope, state.consumers[action.slot]))
            return state, (Invocation(kind, u.key, protocol_of(scope, state.consumers[action.slot]), action.slot),)
        if not recorder.step_calls:
            return nxt, events
        slot = action.slot if 0 <= action.slot < len(state.consumers) else 0
        mode = protocol_of(scope, state.consumers[slot])
        for k in recorder.step_calls:
            recorder.calls[k].modes.add(mode)
        return nxt, events + tuple(Invocation("assign", k, mode, slot) for k in recorder.step_calls)

    def describe_event(scope, event):
        if isinstance(event, Invocation):
            call = recorder.calls[event.key]
            if event.kind != "assign":
                return f"{recorder.target.name}: {call.outcome.type}: {call.outcome.error} (step not taken, not judged)"
            return f"{recorder.target.name} assign ({event.mode}): {json.dumps(call.argument)} -> {json.dumps(call.answer)}"
        return MODEL.describe_event(scope, event)

    props = [_skip_unanswered(p) for p in MODEL.properties]
    props += [Property(name, "always", _claim(recorder, name), on="step") for name in PER_INVOCATION]
    props += [Property("formed_group_claims", "always", _initial_claim(recorder, PER_INVOCATION))]
    props = tuple(p for p in props if p.name not in muted)
    return replace(MODEL, name="consumer", init_states=init_states, step=step, properties=props,
                   describe_event=describe_event)
