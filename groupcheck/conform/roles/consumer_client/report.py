"""The verdict of a consumer-client campaign (text and JSON; classic and KIP-848), and a
divergence written as an ITF trace plus a runnable pytest regression file."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from groupcheck.model import itf

from ....outputs import atomic_write_text
from ... import campaign
from .claims import PROPERTIES


@dataclass
class Report:
    target: str
    settings: dict
    scenarios: int = 0
    seconds: float = 0.0
    stopped: str | None = None          # "interrupted" / "time limit" / None
    per_property: dict | None = None    # property -> held / violated / not exercised / checks counts
    round_seconds: list = field(default_factory=list)    # wall seconds per JoinGroup round, per settle
    divergences: list = field(default_factory=list)      # dicts: property, message, scenario, shrunk, files
    first_divergence_s: float | None = None
    errors: list = field(default_factory=list)
    properties: tuple = PROPERTIES      # the protocol's (claims.py, claims_848.py)
    title: str = "librdkafka consumer-client conformance"
    not_run: list = field(default_factory=list)         # (scenario name, reason) the target could not run
    rounds: bool = True                 # the classic verdict lists the wall time per JoinGroup round
    width: int = 24                     # of the property column in the text
    records: dict | None = None         # members processed records: claims_records tallies, summed
    record_runs: list = field(default_factory=list)     # per scenario: produced, processed, the tally, seconds

    def __post_init__(self) -> None:
        if self.per_property is None:
            self.per_property = {p: {"held": 0, "violated": 0, "not exercised": 0, "checks": 0}
                                 for p in self.properties}

    def add(self, run, label: str | None = None) -> None:
        self.scenarios += 1
        for p, s in run.judgement.summary().items():
            self.per_property[p][s["verdict"]] += 1
            self.per_property[p]["checks"] += s["checks"]
        if getattr(run, "records", None) is not None:
            self._add_records(run.records.summary())
            kinds = [e["kind"] for e in run.events]
            self.record_runs.append({"scenario": label, "produced": kinds.count("produced"),
                                     "processed": kinds.count("processed"), **run.records.tally.counts(),
                                     "violated": run.records.violated(), "seconds": round(run.seconds, 1)})
        self.round_seconds += [round(secs / n, 3) for n, secs in run.rounds]
        if run.error:
            self.errors.append(run.error)

    def _add_records(self, summary: dict) -> None:
        """Count the record claims as the group's, and sum the lost / duplicated records."""
        tally, notes = summary.pop("tally"), summary.pop("notes")
        for p, s in summary.items():
            self.per_property[p][s["verdict"]] += 1
            self.per_property[p]["checks"] += s["checks"]
        self.records = self.records or {"notes": []}
        for k, v in tally.items():
            self.records[k] = self.records.get(k, 0) + v
        self.records["notes"] += [n for n in notes if n not in self.records["notes"]]

    def verdict(self, prop: str) -> str:
        c = self.per_property[prop]
        return "violated" if c["violated"] else ("held" if c["held"] else "not exercised")

    def to_json(self) -> dict:
        rs = sorted(self.round_seconds)
        rounds = {"round_seconds": {"count": len(rs), "median": rs[len(rs) // 2] if rs else None,
                                    "min": rs[0] if rs else None, "max": rs[-1] if rs else None}}
        return {
            "target": self.target, "settings": self.settings, "scenarios": self.scenarios,
            "seconds": round(self.seconds, 1), "stopped": self.stopped,
            "scenarios_per_minute": round(60 * self.scenarios / self.seconds, 2) if self.seconds else None,
            **(rounds if self.rounds else {}),
            "first_divergence_s": self.first_divergence_s,
            "properties": {p: {"verdict": self.verdict(p), **self.per_property[p]} for p in self.properties},
            "divergences": self.divergences, "errors": self.errors,
            "not_run": [{"scenario": n, "reason": r} for n, r in self.not_run],
            **({"records": self.records, "record_runs": self.record_runs} if self.records is not None else {}),
        }

    def text(self) -> str:
        j = self.to_json()
        lines = [f"{self.title}: {self.target}, {self.scenarios} scenarios in "
                 f"{j['seconds']} s ({j['scenarios_per_minute']} per minute)"
                 + (f", stopped: {self.stopped}" if self.stopped else "")]
        r = j.get("round_seconds", {"count": 0})
        if r["count"]:
            lines.append(f"rebalance wall time per JoinGroup round: median {r['median']} s "
                         f"(min {r['min']}, max {r['max']}, {r['count']} settles)")
        for p in self.properties:
            c = j["properties"][p]
            lines.append(f"  {p:{self.width}} {c['verdict']:14} held in {c['held']}, violated in {c['violated']}, "
                         f"not exercised in {c['not exercised']} scenarios; {c['checks']} checks")
        if self.records is not None:
            r = self.records
            lines.append(f"records: {r['lost']} lost, {r['duplicated']} processed twice ({r['duplicated_excused']} "
                         f"after a fault, {r['duplicated_unexcused']} without), {r['unconsumed']} never consumed")
            if r["notes"]:
                lines.append(f"  broker: {len(r['notes'])} notes, e.g. {r['notes'][0]} (all in verdict.json)")
            for x in self.record_runs:
                lines.append(f"  {x['scenario']}: {x['produced']} produced, {x['processed']} processed, {x['lost']} lost, "
                             f"{x['duplicated']} twice ({x['duplicated_excused']} after a fault), {x['seconds']} s")
        for d in self.divergences:
            lines.append(f"divergence: {d['property']}: {d['message']}")
            if "judgement" in d:
                lines.append(f"  judgement: {d['judgement']}" + (f" ({d['decided_by']})" if d["decided_by"] else ""))
            lines.append(f"  shrunk from {len(d['scenario'])} to {len(d['shrunk'])} operations: "
                         + json.dumps(d["shrunk"]))
            for f in d.get("files", ()):
                lines.append(f"  wrote {f}")
        if self.first_divergence_s is not None:
            lines.append(f"time to the first divergence: {self.first_divergence_s:.1f} s")
        for e in self.errors:
            lines.append(f"scenario error: {e}")
        for n, r in self.not_run:
            lines.append(f"not run: {n}: {r}")
        return "\n".join(lines) + "\n"


def itf_trace(run, target: str, settings: dict, seed, prop: str | None) -> dict:
    """The observations as an ITF trace: one state per event (per member: owned,
    member id, generation, live / stalled / fenced; the group's generation), the event
    as ``action_taken``; ``#meta`` holds target, settings, scenario, seed, verdict."""
    states, actions = [], []
    for ev, st in zip(run.events, run.judgement.states):
        members = itf.itf_map((n, {"owned": itf.itf_set(s["owned"]), "member_id": s["member_id"],
                                   "generation": s["generation"], "live": s["live"], "stalled": s["stalled"],
                                   "fenced": s["fenced"], "closed": s["closed"]})
                              for n, s in st["members"].items())
        states.append({"t_ms": int(ev["t"] * 1000), "group_generation": st["group_generation"], "members": members})
        actions.append(_describe(ev))
    meta = {"protocol": "consumer", "target": target, "settings": settings, "scenario": run.scenario,
            "seed": seed, "violated": prop, "verdicts": {p: s["verdict"] for p, s in run.judgement.summary().items()}}
    return itf.trace(meta, states, actions)


def _describe(ev: dict) -> str:
    if ev["kind"] == "op":
        args = ", ".join(f"{k}={v}" for k, v in (ev.get("args") or {}).items())
        return f"{ev['op']}({args})"
    if ev["kind"] in ("assign", "revoke", "lost"):
        return f"{ev['member']}.on_{ev['kind']}({ev['partitions']}) generation {ev['generation']}"
    if ev["kind"] == "sample":
        return f"{ev['member']} now generation {ev['generation']} member id {ev['member_id'] or '-'}"
    if ev["kind"] in ("processed", "held"):
        return f"{ev['member']} {ev['kind']} {ev['partition']}:{ev['offset']}"
    if ev["kind"] == "produced":
        return f"produced {ev['partition']}:{ev['offset']}"
    if ev["kind"] in ("commit_sent", "commit"):
        return f"{ev['member']} {ev['kind']} {ev.get('offsets')} error {ev.get('error')}"
    if ev["kind"] == "offsets":
        return f"end offsets {ev['end']}, committed {ev['committed']}"
    if ev["kind"] == "heartbeat_error":      # KIP-848 target: the client logged its heartbeat failed
        return f"{ev['member']} heartbeat answered {ev['error']}"
    return f"{ev['member']} poll error {ev.get('error')}"


REGRESSION = '''"""Regression: {prop} on librdkafka {target} (written by groupcheck.conform.roles.consumer_client).

Re-runs the shrunk scenario on librdkafka's mock cluster and asserts the same verdict.
Observed: {message}
"""
from groupcheck.conform.targets.broken.clients import BROKEN
from groupcheck.conform.targets.librdkafka.client import Listener, Settings
from groupcheck.conform.roles.consumer_client.runner import run_scenario

SCENARIO = {scenario}
SETTINGS = {settings}


def test_{name}():
    settings = Settings(**SETTINGS)
    run = run_scenario(SCENARIO, settings, BROKEN.get({client!r}, Listener))
    assert run.judgement.summary()[{prop!r}]["verdict"] == "violated", run.judgement.summary()
'''


def write_divergence(out: Path, run, target: str, settings: dict, client: str, seed, prop: str,
                     message: str, template: str = REGRESSION, prefix: str = "librdkafka") -> list[str]:
    """Write ``<prefix>-<target>-<prop>-<digest>.itf.json`` and ``test_<...>.py`` (from
    ``template``, which re-runs the scenario on the same kind of target); return paths."""
    out.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(json.dumps([run.scenario, settings], sort_keys=True).encode()).hexdigest()[:8]
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in f"{prefix}-{target}-{prop}-{digest}")
    trace_path = out / f"{stem}.itf.json"
    atomic_write_text(trace_path, json.dumps(itf_trace(run, target, settings, seed, prop), indent=1) + "\n", force=True)
    name = stem.replace("-", "_")
    test_path = out / f"test_{name}.py"
    text = template.format(prop=prop, target=target, message=message.replace('"""', "'''"), observed=repr(message),
                             scenario=repr(run.scenario), settings=repr(settings), name=name, client=client)
    atomic_write_text(test_path, text, force=True)
    return [str(trace_path), str(test_path)]


REGRESSION_848 = '''"""Regression: {prop} on librdkafka's consumer protocol, client {client} (written by
groupcheck.conform.roles.consumer_client --protocol consumer). Observed: {message}
"""
from groupcheck.conform.targets.broken.clients import BROKEN
from groupcheck.conform.targets.librdkafka.client import Listener
from groupcheck.conform.targets.librdkafka.client_848 import Settings848
from groupcheck.conform.roles.consumer_client.runner import run_scenario_848

SCENARIO = {scenario}
SETTINGS = {settings}


def test_{name}():
    run = run_scenario_848(SCENARIO, Settings848(**SETTINGS), BROKEN.get({client!r}, Listener))
    assert run.judgement.summary()[{prop!r}]["verdict"] == "violated", run.judgement.summary()
'''


def write_divergence_848(out: Path, run, settings: dict, client: str, seed, prop: str, message: str) -> list[str]:
    """Write ``librdkafka-consumer-protocol-<client>-<prop>-<digest>.itf.json`` and its test; return paths."""
    out.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(json.dumps([run.scenario, settings], sort_keys=True).encode()).hexdigest()[:8]
    stem = f"librdkafka-consumer-protocol-{client}-{prop}-{digest}"
    trace = itf_trace(run, f"librdkafka-consumer-protocol:{client}", settings, seed, prop)
    trace["#meta"]["protocol"] = "consumer-group"
    atomic_write_text(out / f"{stem}.itf.json", json.dumps(trace, indent=1) + "\n", force=True)
    name = stem.replace("-", "_")
    atomic_write_text(out / f"test_{name}.py", REGRESSION_848.format(
        prop=prop, client=client, message=message.replace('"""', "'''"), scenario=repr(run.scenario),
        settings=repr(settings), name=name), force=True)
    return [str(out / f"{stem}.itf.json"), str(out / f"test_{name}.py")]


def save(report: Report, where: Path) -> None:
    """verdict.json and verdict.txt of a campaign under ``where``."""
    campaign.write_verdict(where, report.to_json(), report.text())
