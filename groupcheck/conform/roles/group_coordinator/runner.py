"""Run scenarios against a target, compare each step with the model, shrink divergences.

One scenario = one fresh group on the target (``setup`` with a new group id). Each
model step with a coordinator call becomes one ``invoke``; the target's answers are
judged by ``claims``. The first step at which a claim is violated ends the scenario:
after it the two groups no longer agree (members, generation, state), so later answers
would be judged against a group the target does not have. Re-basing the model on the
target's answer is not sound here: the model's group state cannot be rebuilt from the
wire answers alone (pending members, parked requests, timers are not on the wire).
Every claim violated at that step is kept (``ScenarioResult.violations``), and the run
goes on with the next scenario (``campaign``), so every distinct divergence is met.
A differing choice of a new leader also ends the scenario (a choice, not judged further).
A violation at a step where the model knowingly departs from Kafka
(``scenarios.departure``) ends the scenario unjudged instead: a Kafka-faithful target
answers such a step otherwise.

A target whose hello says ``"probes": false`` is sent no probes (OffsetCommit, OffsetFetch,
DescribeGroups: ``scenarios.probes``), one that gives a list of those kinds only those (a
broker that does not speak DescribeGroups). A target whose hello says ``"kip394": false``
predates KIP-394: the driver probes once
whether it answers MEMBER_ID_REQUIRED (claim ``member_id_required``), and then bridges
the handshake itself: it answers a JoinGroup without member id with MEMBER_ID_REQUIRED
and the id ``gc-<n>``, which the member then joins with.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from ... import campaign
from ...adapter import AdapterError, Outcome, problems, validate
from ...dedupe import signature
from . import claims as C
from groupcheck.model.wire import group_coordinator_json as wire
from .scenarios import PROBE_KINDS, SCOPES, ModelStep, model_steps

ROLE = "group-coordinator"


@dataclass
class ScenarioResult:
    scope: str
    path: list
    steps: int = 0                       # coordinator calls made
    judged: dict = field(default_factory=dict)     # claim -> steps judged
    violation: tuple | None = None       # (claim, message, path index, model step): the first claim violated
    violations: list = field(default_factory=list)  # (claim, message) of every claim violated in the scenario
    found: list = field(default_factory=list)       # (claim, message, path index, model step) of each of them
    stopped: str = ""                    # why judging ended early without a violation
    info: str = ""                       # an answer was info (not judged)
    departed: bool = False               # stopped where the model departs from Kafka (ModelStep.departs)
    probes: object = True                # the probes sent: True, False or the kinds (the hello's "probes")
    transcript: list = field(default_factory=list)


def _invoke(target, f, value, who):
    """One call; an answer that breaks the result schema (an in-process class's: an external
    program's is caught by ``ProcessAdapter``) is ``info``: not sure what happened."""
    kind = f"group-coordinator.{f}"
    validate(kind, value, "groupcheck (driver)")
    out = target.invoke(ROLE, f, value)
    wrong = problems(f"{kind}.result", out.value) if out.type == "ok" else []
    if wrong:
        return Outcome("info", None, f"{who}: invalid {kind}.result message: {wrong[0]}")
    return out


def steps_of(scope_name: str, path: list[int], probes=True) -> list[ModelStep]:
    """The model's steps along ``path`` with the probes the target takes: all (True), none
    (False) or those of the listed request kinds (a made-up member's Heartbeat always)."""
    steps = model_steps(SCOPES[scope_name], path, with_probes=probes is not False)
    if probes is True or probes is False:
        return steps
    return [s for s in steps if not s.probe or s.call.request.kind in (*probes, "Heartbeat")]


def _bridge_join(ctx, step: ModelStep) -> dict:
    """Answer a JoinGroup without id on a pre-KIP-394 target's behalf."""
    (slot, resp), = step.expected
    wid = f"gc-{resp.member_id}"
    ctx.learn(resp.member_id, wid)
    return {"member": slot, "response": {"kind": "JoinGroupResponse", "to": "", "error": "MEMBER_ID_REQUIRED",
                                         "generation": -1, "member_id": wid, "leader": "", "protocol": "",
                                         "members": []}}


def value_of(ctx, step: ModelStep) -> tuple[str, dict]:
    call = step.call
    ids = lambda mid: "" if mid == 0 else ctx.to_wire.get(mid, f"unknown-{mid}")  # noqa: E731
    if call.f == "request":
        req = wire.request_json(call.request, ids)
        if "generation" in req and req["generation"] >= 0 and ctx.offset:   # the target's numbering
            req["generation"] += ctx.offset
        return "request", {"member": call.slot, "request": req}
    if call.f == "advance":
        return "advance", {"reason": call.reason, "members": [ids(m) for m in call.members]}
    return "disconnect", {"member": call.slot, "member_id": ids(call.member_id)}


def _learn(ctx, expected, answers) -> None:
    for m, t in C.pairs(expected, answers):
        if m.kind == "JoinGroupResponse":
            ctx.learn(m.member_id, t["member_id"])
            if m.error == "NONE" and t["error"] == "NONE":
                ctx.learn(m.leader, t["leader"])


def run_scenario(target, hello, scope_name: str, path: list[int], group: str, config: dict,
                 deadline: float | None = None) -> ScenarioResult:
    res = ScenarioResult(scope_name, list(path), probes=hello.extra.get("probes", True))
    steps = steps_of(scope_name, path, res.probes)
    out = target.setup(ROLE, {**config, "group": group})
    if not out.ok:
        res.info = f"setup answered {out.type}: {out.error}"
        return res
    ctx = C.Context()
    bridge = hello.extra.get("kip394") is False
    try:
        for step in steps:
            if deadline is not None and time.monotonic() > deadline:
                res.stopped = "time limit"
                break
            if bridge and step.call.f == "request" and step.call.request.kind == "JoinGroup" \
                    and step.call.request.member_id == 0:
                answers = [_bridge_join(ctx, step)]
                res.transcript.append((step.index, "bridged", None, answers))
                continue
            f, value = value_of(ctx, step)
            if hasattr(target, "expect"):       # a target over TCP waits for these answers, up to a deadline
                target.expect(tuple((slot, r.kind) for slot, r in step.expected))
            out = _invoke(target, f, value, f"adapter {hello.name} (reply to {f})")
            res.steps += 1
            if out.type != "ok":
                res.info = f"step {step.index}: {f} answered {out.type}: {out.error}"
                res.transcript.append((step.index, f, value, None))    # the call left unanswered, kept
                break
            answers = out.value["responses"]
            res.transcript.append((step.index, f, value, answers))
            verdicts = C.judge(ctx, step.expected, answers)
            for name, v in verdicts.items():
                if v is not C.NA:
                    res.judged[name] = res.judged.get(name, 0) + 1
            bad = [(n, v) for n, v in verdicts.items() if v not in (None, C.NA)]
            if bad and step.departs:       # Kafka may answer this step otherwise: not the target's fault
                res.stopped = f"step {step.index}: {step.departs} ({bad[0][0]}: {bad[0][1]}); not judged further"
                res.departed = True
                break
            _remember_commit(ctx, step, answers)
            if bad:
                res.found += [(n, v, step.index, step) for n, v in bad]
                res.violation = res.violation or res.found[0]
                res.violations += bad
                if not keeps_judging(step, bad):
                    break
                continue
            _learn(ctx, step.expected, answers)
            new_leader = next((r.leader for _, r in step.expected if r.kind == "JoinGroupResponse"
                               and r.error == "NONE"), None)
            if new_leader is not None:
                t_leader = next((a["response"]["leader"] for a in answers if a["response"]["kind"] ==
                                 "JoinGroupResponse" and a["response"]["error"] == "NONE"), None)
                if t_leader is not None and ctx.model_of(t_leader) != new_leader:
                    res.stopped = f"step {step.index}: the target chose another new leader (a choice; not judged further)"
                    break
                ctx.leader = new_leader
    finally:
        try:
            target.teardown()
        except Exception:  # noqa: BLE001 - teardown problems do not change the verdict
            pass
    return res


def keeps_judging(step: ModelStep, bad: list) -> bool:
    """A divergence at an OffsetCommit, OffsetFetch or DescribeGroups probe leaves the
    model's group where it was (probes move nothing), so the scenario goes on; any other
    divergence ends it: the two groups no longer agree."""
    return bool(step.probe) and step.call.request.kind in PROBE_KINDS and \
        all(claim != "same_held" for claim, _ in bad)


def _remember_commit(ctx, step: ModelStep, answers) -> None:
    """The target's own committed offset: an OffsetCommit it accepted (``fetch_returns_committed``)."""
    if step.probe and step.call.request.kind == "OffsetCommit" and any(
            a["response"]["kind"] == "OffsetCommitResponse" and a["response"]["error"] == "NONE" for a in answers):
        ctx.stored = step.call.request.offset


def kind_of(step: ModelStep) -> str:
    """The request kind of a step (``JoinGroup``, ...), or its call (``advance``, ``disconnect``)."""
    return step.call.request.kind if step.call.f == "request" else step.call.f


def keys(r: ScenarioResult) -> list[tuple[str, str, str]]:
    """(claim, signature, message) of every claim violated in the scenario (at a probe the
    scenario went on from, or at the step that ended it)."""
    return [(claim, signature(message, kind_of(step)), message) for claim, message, _, step in r.found]


def at(r: ScenarioResult, key: tuple[str, str]) -> tuple | None:
    """The (claim, message, path index, model step) of the violation ``key`` = (claim, signature)."""
    return next((f for f, k in zip(r.found, keys(r)) if k[:2] == key), None)


def focus(r: ScenarioResult, key: tuple[str, str]) -> ScenarioResult:
    """``r`` told as the divergence ``key``: its ``violation``, and its transcript up to that
    step (one row per step; a scenario that went on after a probe's divergence has more)."""
    found = at(r, key)
    steps = steps_of(r.scope, r.path, r.probes)
    end = steps.index(found[3]) + 1 if found[3] in steps else len(r.transcript)
    return replace(r, violation=found, transcript=r.transcript[:end])


def violates(target, hello, scope_name, path, key, group, config) -> ScenarioResult | None:
    """The scenario along ``path`` if it violates ``key`` = (claim, signature) at its
    divergent step (``violation`` set to that claim), else None."""
    try:
        r = run_scenario(target, hello, scope_name, path, group, config)
    except (IndexError, ValueError) as e:     # the shortened path is not a path of the model
        if isinstance(e, AdapterError):
            raise
        return None
    return focus(r, key) if at(r, key) is not None else None


def shrink(target, hello, found: ScenarioResult, config: dict, groups, max_tries: int = 60,
           key: tuple[str, str] | None = None, deadline: float | None = None) -> ScenarioResult:
    """Remove chunks of the path (halves, then smaller) while the same divergence, ``key``
    = (claim, signature) (default: the first violated claim's), still shows on replay
    against the target; also cut everything after the divergent step. Stops trying at
    ``deadline`` (``time.monotonic()``) with the smallest found so far."""
    claim, sig, message = next(k for k in keys(found) if key is None or k[:2] == key)
    key = (claim, sig)
    best = focus(found, key)
    path = best.path[:best.violation[2] + 1]
    r = violates(target, hello, found.scope, path, key, next(groups), config)
    if r:
        best = r

    def attempt(candidate: list[int]):
        r = violates(target, hello, found.scope, candidate, key, next(groups), config)
        if r is None:
            return None
        r.path = r.path[:r.violation[2] + 1]
        return r.path, r

    _, smaller = campaign.shrink(best.path, attempt, keep_head=1, deadline=deadline, max_tries=max_tries)
    best = smaller or best
    best.raw_length = len(found.path) - 1
    return best
