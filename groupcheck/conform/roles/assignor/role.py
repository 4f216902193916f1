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
from dataclasses import replace
from typing import Any

from groupcheck.model import assignors as registry
from groupcheck.model.assignors import Assignor, Member
from groupcheck.model.consumer import MODEL, protocol_of
from groupcheck.model.core import Model
from groupcheck.model.partitions import bits

from . import claims as C
from ... import recording as R
from ...adapter import AdapterError, Outcome
from ...recording import Call, Invocation, Unanswered
from .targets import Target


def _normal(assignment: dict) -> dict:
    return {m: sorted([t, p] for t, p in tps) for m, tps in sorted(assignment.items())}


class Recorder:
    """One target's invocations during a run: the cache by input, and the step's calls."""

    def __init__(self, target: Target):
        self.target = target
        self.adapter = target.make()
        self.hello = self.adapter.open()
        out = self.adapter.setup("assignor", {"assignor": target.assignor})
        if out.type == "fail":           # (info: the program is started and set up again at its first invoke)
            raise AdapterError(f"{target.name}: setup answered {out.type}: {out.error}")
        self.calls: dict[str, Call] = {}
        self.step_calls: list[str] = []
        self.invocations = 0
        self.info = self.info_steps = self.info_in_a_row = 0
        self.given_up = ""               # why the scope stopped asking (recording.GiveUp), or ""
        self.init_calls: dict[Any, tuple[tuple[str, str], ...]] = {}   # initial state -> (input, mode) settling it
        self.frozen = False              # closed: answers come from the cache only
        self.replaced = None
        self.register()

    def register(self) -> None:
        """Make the target the model's assignor of that name (for as long as it runs)."""
        self.replaced = registry.ASSIGNORS.get(self.target.name)
        registry.register(Assignor(name=self.target.name, supported_protocols=self.target.protocols, builtin=False,
                                   claims_from=self.target.claims_from, withholds=False, plan=self.plan))
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
        out = R.invoke(self, "assignor", argument, "an assignment")
        return out, (_normal(out.value["assignment"]) if out.ok else None)

    def plan(self, members: tuple[Member, ...], stride: int) -> dict[int, int]:
        argument, ids, names, stride = self.argument(members, stride)
        key, call = R.lookup(self, argument)
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
        return R.verdicts(self, key, mode, lambda arg, answer: C.judge(arg, answer, mode, self.target.balanced))


PER_INVOCATION = ("assignor_answers", "deterministic", *C.CLAIMS)


def conform_model(recorder: Recorder, muted: frozenset[str] = frozenset()) -> Model:
    """The consumer model driving ``recorder``'s target, with the per-invocation claims."""
    def init_states(scope):
        recorder.step_calls = []
        try:
            states = MODEL.init_states(scope)
        except Unanswered as u:
            raise R.start_error(recorder, u) from None
        if recorder.step_calls:
            mode = scope.plan[0].protocol
            for k in recorder.step_calls:
                recorder.calls[k].modes.add(mode)
            for s in states:
                recorder.init_calls[s] = tuple((k, mode) for k in recorder.step_calls)
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
        return MODEL.view.describe_event(scope, event)

    props = [R.skip_unanswered(p) for p in MODEL.properties]
    props += R.claim_properties(recorder, PER_INVOCATION, C.DOCS, "the per-invocation claims on the assignments "
                                "that formed a stable starting group")
    props = tuple(p for p in props if p.name not in muted)
    return replace(MODEL, name="consumer", init_states=init_states, step=step, properties=props,
                   view=replace(MODEL.view, describe_event=describe_event))


def _role():
    from groupcheck.model.consumer import to_dict

    from .. import Role
    from ..driven import command_for
    from . import repro, targets
    from .scenarios import EXCLUDED, configurable, scopes
    return Role("assignor", Recorder, conform_model, scopes, lambda name, target: EXCLUDED.get(name, frozenset()),
                configurable, MODEL, PER_INVOCATION, targets.resolve, to_dict, "the consumer model",
                command=command_for(targets, scopes), repro=repro.write)


ROLE = _role()
