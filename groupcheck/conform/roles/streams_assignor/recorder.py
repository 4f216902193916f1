"""The streams-assignor role's recorder: a real task assignor as the model's placement.

``Recorder(target)`` registers the target as a task assignor of the model
(``model.assignors.streams_tasks.register``) under ``task_assignor_name(target)``, which
the role's scopes name. Each time a Streams leader places tasks, the model's ``Request``
(the leader's view of the clients) becomes the ``assign`` argument of
``schema/streams-assignor.schema.json``, an ApplicationState, and the answer, a
TaskAssignment, becomes the model's placement; threads, version negotiation and
cooperative withholding stay Kafka's (the model's). An answer Kafka 3.9's
``TaskAssignmentUtils#validateTaskAssignment`` rejects makes the leader's assign() throw
StreamsException, as ``StreamsPartitionAssignor#processStreamsPartitionAssignment`` does.

Answers are cached by input; an input met again is asked a second time, once
(``deterministic``). ``info`` leaves the step undone (not judged); ``fail`` on a valid
input is the divergence ``assignor_answers``. ``conform_model`` is the streams-classic
model driving the recorder, with the per-invocation claims as transition properties.
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from groupcheck.model.assignors import streams_tasks as st
from groupcheck.model.core import Model, Property
from groupcheck.model.partitions import bits
from groupcheck.model.streams_classic import LEADER_FAILURE, MODEL

from ...adapter import AdapterError, Outcome
from ... import recording as R
from ...recording import Call, Invocation, Unanswered
from . import claims as C
from .targets import ROLE

EAGER, COOPERATIVE = "EAGER", "COOPERATIVE"
# Kafka 3.9's configs the model does not vary (StreamsConfig defaults), sent for completeness
DEFAULT_CONFIGS = {"acceptable_recovery_lag": 10000, "max_warmup_replicas": 2, "probing_rebalance_interval_ms": 600000}
TARGET_FAILURE = LEADER_FAILURE + "StreamsException: Task assignment with "


def task_assignor_name(target: Any) -> str:
    """The name a scope gives ``task_assignor`` to run ``target``."""
    return f"conform:{target.name}"


def task_ids(n: int) -> list[str]:
    """The role's topology for ``n`` tasks: subtopology 0 (stateful) has one task per
    partition; with two tasks or more the last is subtopology 1's only task, stateless
    (a filter with no store), so INVALID_STANDBY_TASK is reachable."""
    if n == 1:
        return ["0_0"]
    return [f"0_{t}" for t in range(n - 1)] + ["1_0"]


def _normal(answer: dict) -> dict:
    """A TaskAssignment with each client's tasks sorted (order carries no meaning)."""
    out = []
    for a in answer["assignment"]:
        tasks = sorted(a["tasks"], key=lambda t: (t["id"], t["type"]))
        out.append({"process_id": a["process_id"], "tasks": tasks, "followup_rebalance": bool(a.get("followup_rebalance"))})
    return {"assignment": sorted(out, key=lambda a: a["process_id"])}


class Recorder:
    """One streams-assignor target's invocations during a run."""

    def __init__(self, target: Any):
        self.target = target
        self.name = task_assignor_name(target)
        self.adapter = target.make()
        self.hello = self.adapter.open()
        out = self.adapter.setup(ROLE, {"assignor": target.assignor})
        if out.type == "fail":           # (info: the program is started and set up again at its first invoke)
            raise AdapterError(f"{target.name}: setup answered {out.type}: {out.error}")
        self.calls: dict[str, Call] = {}
        self.step_calls: list[tuple[str, str]] = []
        self.invocations = 0
        self.info = self.info_steps = self.info_in_a_row = 0
        self.given_up = ""               # why the scope stopped asking (recording.GiveUp), or ""
        self.init_calls: dict[Any, tuple[tuple[str, str], ...]] = {}
        self.frozen = False
        self.register()

    def register(self) -> None:
        st.register(self.name, self.place)

    def unregister(self) -> None:
        st.unregister(self.name)

    def close(self) -> None:
        """Close the adapter and unregister; the answers stay cached (``frozen``), so the
        paths found can still be replayed into traces (``register`` again)."""
        self.unregister()
        self.frozen = True
        try:
            self.adapter.teardown()
            self.adapter.close()
        except Exception:
            pass

    # ---- the model's view -> the ApplicationState ----
    @staticmethod
    def argument(req: st.Request) -> dict:
        n = bin(req.tasks).count("1")
        ids = task_ids(n)

        def names(mask: int) -> list[str]:
            return [ids[t] for t in bits(mask) if t < n]

        clients = []
        for i, (c, threads) in enumerate(zip(req.clients, req.threads)):
            pid = f"process-{i + 1}"
            clients.append({"process_id": pid, "threads": threads,
                            "consumers": [f"{pid}-StreamThread-{k + 1}-consumer" for k in range(threads)],
                            "previous_active": names(c.prev), "previous_standby": names(c.standby | c.learning),
                            "owned": names(c.owned), "caught_up": names(c.ready), "leaving": c.leaving})
        tasks = [{"id": tid, "stateful": tid.startswith("0_")} for tid in ids]
        return {"tasks": tasks, "clients": clients,
                "configs": {"num_standby_replicas": req.standbys, **DEFAULT_CONFIGS}}

    def ask(self, argument: dict) -> tuple[Outcome, dict | None]:
        out = R.invoke(self, ROLE, argument, "a TaskAssignment")
        return out, (_normal(out.value) if out.ok else None)

    def place(self, req: st.Request) -> st.Placement:
        """The registered task assignor: ask (or look up) the target, check the answer as
        Kafka does, and map it onto the model's clients."""
        argument = self.argument(req)
        mode = COOPERATIVE if req.cooperative else EAGER
        key, call = R.lookup(self, argument)
        self.step_calls.append((key, mode))
        if call.answer is None:
            raise Unanswered(key, call.outcome.type, mode)
        code = C.first_error(argument, call.answer)
        if code is not None:
            # StreamsPartitionAssignor#processStreamsPartitionAssignment (Kafka 3.9)
            raise st.PlacementError(f"StreamsException: Task assignment with {self.target.name} returned "
                                    f"{'a fatal error' if code in C.FATAL else 'an error'}: {code}")
        index = {tid: t for t, tid in enumerate(task_ids(bin(req.tasks).count("1")))}
        k = len(req.clients)
        active, standby, followup = [0] * k, [0] * k, [False] * k
        for a in call.answer["assignment"]:
            c = int(a["process_id"].split("-")[1]) - 1      # known: validated above
            followup[c] = a["followup_rebalance"]
            for t in a["tasks"]:
                if t["type"] == C.ACTIVE:
                    active[c] |= 1 << index[t["id"]]
                else:
                    standby[c] |= 1 << index[t["id"]]
        return st.Placement(tuple(active), tuple(standby), (0,) * k, tuple(followup))

    # ---- judging one call ----
    def verdicts(self, key: str, mode: str) -> dict[str, str | None]:
        """Every per-invocation claim on the call ``key`` (none depends on the round's mode)."""
        return R.verdicts(self, key, "all", lambda arg, answer: C.judge(arg, answer, self.target.contracts))


PER_INVOCATION = ("assignor_answers", "deterministic", *C.CLAIMS)


def _not_the_targets_rejection(prop: Property) -> Property:
    """leader_never_fails, leaving out a leader that died because Kafka rejected the
    target's answer: that failure is reported by the claim naming the AssignmentError."""
    if prop.name != "leader_never_fails":
        return prop
    inner = prop.check

    def check(scope, state):
        members = tuple(m._replace(failure="") if m.failure.startswith(TARGET_FAILURE) else m for m in state.members)
        return inner(scope, state._replace(members=members))
    check.__doc__ = inner.__doc__
    return replace(prop, check=check)


def conform_model(recorder: Recorder, muted: frozenset[str] = frozenset()) -> Model:
    """The streams-classic model driving ``recorder``'s target, with the per-invocation claims."""
    def init_states(scope):
        recorder.step_calls = []
        try:
            states = MODEL.init_states(scope)
        except Unanswered as u:
            raise R.start_error(recorder, u) from None
        for k, mode in recorder.step_calls:
            recorder.calls[k].modes.add(mode)
        if recorder.step_calls:
            for s in states:
                recorder.init_calls[s] = tuple(recorder.step_calls)
        return states

    def step(scope, state, action):
        recorder.step_calls = []
        try:
            nxt, events = MODEL.step(scope, state, action)
        except Unanswered as u:
            recorder.calls[u.key].modes.add(u.mode)
            return state, (Invocation("failed" if u.outcome == "fail" else "unanswered", u.key, u.mode),)
        for k, mode in recorder.step_calls:
            recorder.calls[k].modes.add(mode)
        return nxt, events + tuple(Invocation("assign", k, mode) for k, mode in recorder.step_calls)

    def describe_event(scope, event):
        if isinstance(event, Invocation):
            call = recorder.calls[event.key]
            if event.kind != "assign":
                return f"{recorder.target.name}: {call.outcome.type}: {call.outcome.error} (step not taken, not judged)"
            return f"{recorder.target.name} assign: {json.dumps(call.argument)} -> {json.dumps(call.answer)}"
        return MODEL.view.describe_event(scope, event)

    props = [_not_the_targets_rejection(R.skip_unanswered(p)) for p in MODEL.properties]
    props += R.claim_properties(recorder, PER_INVOCATION, C.DOCS, "the per-invocation claims on the task "
                                "assignments that formed a stable starting group")
    props = tuple(p for p in props if p.name not in muted)
    return replace(MODEL, init_states=init_states, step=step, properties=props,
                   view=replace(MODEL.view, describe_event=describe_event))
