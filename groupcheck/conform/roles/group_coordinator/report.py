"""The verdict of a group-coordinator run (text + JSON), each divergence written as an
ITF trace of the model path (``groupcheck.traces``, the target's answers in ``#meta``)
and a runnable pytest regression file."""
from __future__ import annotations

import json
import pprint
import re
from dataclasses import dataclass, field
from pathlib import Path

from groupcheck import traces
from groupcheck.model.consumer import MODEL

from ....outputs import atomic_write_text
from ... import campaign
from . import repro
from .claims import CLAIMS
from .scenarios import SCOPES

HELD, VIOLATED, NOT_EXERCISED = "held", "violated", "not exercised"


@dataclass
class Verdict:
    target: str
    note: str = ""
    scenarios: int = 0
    requests: int = 0
    seconds: float = 0.0
    judged: dict = field(default_factory=lambda: {c: 0 for c in CLAIMS})
    violated: dict = field(default_factory=lambda: {c: 0 for c in CLAIMS})
    stopped_by_choice: int = 0
    stopped_by_departure: int = 0   # ended where the model departs from Kafka and the target answered otherwise
    info: list = field(default_factory=list)
    info_traces: list = field(default_factory=list)     # the scenario of each info answer, up to it
    divergences: list = field(default_factory=list)     # dicts
    first_divergence_s: float | None = None
    cut: str = ""            # a limit or Ctrl-C stopped the run
    bridged: str = ""
    not_run: list = field(default_factory=list)   # group protocols the target was not judged on, one line each
    named: list = field(default_factory=list)     # named scenarios (static members): {"scenario", "steps", "violation"}
    kip848: list = field(default_factory=list)    # KIP-848 comparisons over TCP (compare_848.compare)
    kip1071: list = field(default_factory=list)   # KIP-1071 comparisons over TCP (compare_1071.compare)

    def add(self, r) -> None:
        self.scenarios += 1
        self.requests += r.steps
        for k, v in r.judged.items():
            self.judged[k] += v
        for claim in {c for c, _ in r.violations}:       # every claim violated at the divergent step
            self.violated[claim] += 1
        if getattr(r, "departed", False):
            self.stopped_by_departure += 1
        elif r.stopped.startswith("step"):
            self.stopped_by_choice += 1
        if r.info:
            self.info.append(r.info)
            self.info_traces.append({"scope": r.scope, "path": r.path, "message": r.info,
                                     "transcript": [[i, f, v, a] for i, f, v, a in r.transcript]})

    @property
    def broken(self) -> bool:
        """Every scenario ended in info and no answer was judged: the target never answered."""
        return bool(self.info) and not any(self.judged.values())

    def status(self, claim: str) -> str:
        return VIOLATED if self.violated[claim] else HELD if self.judged[claim] else NOT_EXERCISED

    def to_json(self) -> dict:
        return {"target": self.target, "note": self.note, "scenarios": self.scenarios, "requests": self.requests,
                "seconds": round(self.seconds, 2), "cut": self.cut, "bridged": self.bridged,
                "scenarios_per_s": round(self.scenarios / self.seconds, 2) if self.seconds else None,
                "requests_per_s": round(self.requests / self.seconds, 1) if self.seconds else None,
                "first_divergence_s": self.first_divergence_s, "stopped_by_leader_choice": self.stopped_by_choice,
                "stopped_where_model_departs_from_kafka": self.stopped_by_departure,
                "claims": {c: {"status": self.status(c), "judged_steps": self.judged[c],
                               "violated_scenarios": self.violated[c], "doc": " ".join(CLAIMS[c].__doc__.split())}
                           for c in CLAIMS},
                "distinct_divergences": len(self.divergences), "divergences": self.divergences, "info": self.info[:20], "info_traces": self.info_traces[:20],
                "info_scenarios": len(self.info), "broken": self.broken, "not_run": self.not_run,
                "named_scenarios": self.named, "kip848": self.kip848,
                "kip1071": self.kip1071}

    def text(self) -> str:
        j = self.to_json()
        lines = [f"target {self.target} ({self.note}): {self.scenarios} scenarios, {self.requests} calls, "
                 f"{j['seconds']} s" + (f"; stopped: {self.cut}" if self.cut else "")]
        if self.bridged:
            lines.append(f"  bridged: {self.bridged}")
        lines += [f"  NOT RUN: {line}" for line in self.not_run]
        if self.stopped_by_choice:
            lines.append(f"  {self.stopped_by_choice} scenarios stopped where the target chose another new leader")
        if self.stopped_by_departure:
            lines.append(f"  {self.stopped_by_departure} scenarios stopped unjudged where the model departs from "
                         "Kafka (a pending member, a session timeout of a member awaiting a response)")
        lines.append(f"  {'claim':32} {'status':14} counts")
        for c, row in j["claims"].items():
            lines.append(f"  {c:32} {row['status']:14} judged at {row['judged_steps']} steps; "
                         f"violated in {row['violated_scenarios']} scenarios")
        for r in self.kip848:
            d = r["differences"]
            lines.append(f"  KIP-848 {r['scenario']}: " + ("agree" if not d else (
                "DIVERGES" if r["divergence"] else "differs (freedom)") + f" at step {d[0]['step']}: {r['judgement']}"))
        if self.kip1071:
            from .compare_1071 import table
            lines += table(self.kip1071)
        for n in self.named:
            bad = n["violation"]
            lines.append(f"  named scenario {n['scenario']}: " + (f"held ({n['steps']} steps)" if not bad else
                         f"DIVERGENCE static_membership at step {bad['step']}: {bad['message']}"))
            if n.get("repro"):
                lines.append(f"    written: {n['repro']}")
        if self.divergences:
            lines.append(f"  {len(self.divergences)} distinct divergences (by claim and signature), "
                         f"met {sum(d.get('count', 1) for d in self.divergences)} times in all")
        for d in self.divergences:
            how = f"shrunk from {d['raw_steps']}" if d.get("shrunk", True) else "not shrunk: max divergences came first"
            lines.append(f"  DIVERGENCE {d['claim']} ({d['scope']}, {d['steps']} steps, {how}): {d['message']}")
            lines.append(f"    met {d.get('count', 1)} times; signature: {d.get('signature', '')}")
            if d.get("judgement"):
                lines.append(f"    judgement: {d['judgement']}" + (f" ({d['decided_by']})" if d["decided_by"] else ""))
            lines.append(f"    minimal scenario: {d['story']}")
            if d.get("trace"):
                lines.append(f"    written: {d['trace']}  {d['regression']}" + (f"  {d['repro']}" if d.get("repro") else ""))
        for i in self.info[:5]:
            lines.append(f"  info (not judged): {i}")
        if self.broken:
            lines.append("  BROKEN TARGET: every scenario ended in info (it hung, exited or answered garbage): "
                         "nothing judged")
        return "\n".join(lines) + "\n"


def story(r) -> str:
    """The calls of a scenario, one phrase each, the divergent step's answers at the end."""
    parts = []
    for index, f, value, answers in r.transcript:
        if f == "request":
            req = value["request"]
            parts.append(f"m{value['member']} {req['kind']}({req['member_id'] or '-'}"
                         + (f", gen {req['generation']}" if "generation" in req else "") + ")")
        elif f == "bridged":
            parts.append(f"m{answers[0]['member']} JoinGroup(-) [KIP-394 bridged]")
        else:
            parts.append(f"{f}({value.get('reason', value.get('member'))})")
    if r.transcript:
        last = r.transcript[-1][3] or []
        parts.append("-> target answered " + (", ".join(f"m{a['member']} {a['response']['kind']} "
                                                        f"{a['response']['error']}" for a in last) or "nothing"))
    return "; ".join(parts)


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_")[:80]


REGRESSION = '''"""Regression test written by `groupcheck conform --role group-coordinator`.

Drives {shown_target} along the shrunk path of the consumer model (scope {scope}) and asserts
that claim {claim} is still violated at path step {step}: {message}
Once the implementation is fixed this test fails: replace it by one asserting the fix.
"""
from groupcheck.conform.roles.group_coordinator.campaign import replay_claim

TARGET = {target!r}
SCOPE = {scope!r}
PATH = {path}


def test_{name}():
    found = replay_claim(TARGET, SCOPE, PATH, {claim!r})
    assert found is not None and found[0] == {claim!r}, found
    assert found[2] == {step}, found
'''


def _in_docstring(text: str) -> str:
    """A target's words (its answers name member ids it chose) inside the regression file's
    docstring: escaped as JSON, then no quotes and no backslash left to start an escape."""
    return json.dumps(text)[1:-1].replace("\\", "/").replace('"', "'")


def write_divergence(where: Path, target_key: str, r, index: int, target=None, judged: dict | None = None) -> dict:
    """The divergence's ITF trace and story, its regression test and, for a broker over
    TCP, its standalone reproduction script (``repro``), headed by ``judged`` (its judgement)."""
    claim, message, step, _ = r.violation
    stem = f"{slug(target_key)}-{r.scope}-{claim}-{index}"
    scope = SCOPES[r.scope]
    meta = {"mode": "conform", "violation": {"property": claim, "message": message, "kind": "always"},
            "conform": {"target": target_key, "role": "group-coordinator", "scope_name": r.scope,
                        "transcript": [[i, f, v, a] for i, f, v, a in r.transcript]}}
    itf, txt = traces.write(where, stem, traces.build(MODEL, scope, r.path, meta),
                            traces.story(MODEL, scope, r.path, f"{claim}: {message}"))
    test = where / f"test_{slug(stem)}.py"
    text = REGRESSION.format(target=target_key, scope=r.scope, claim=claim, step=step,
                             path=pprint.pformat(r.path, compact=True), name=slug(f"{claim}_{index}"),
                             message=_in_docstring(message), shown_target=_in_docstring(target_key))
    atomic_write_text(test, text, force=True)
    out = {"trace": str(itf), "story_file": str(txt), "regression": str(test)}
    script = repro.write(where, slug(stem), target, target_key, r, judged) if target is not None else None
    if script is not None:
        out["repro"] = str(script)
    return out


def write(verdict: Verdict, where: Path) -> Path:
    return campaign.write_verdict(where, verdict.to_json(), verdict.text())
