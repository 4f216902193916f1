"""A bounded campaign of the consumer-protocol target: generated scenarios, run on the
mock, judged, the first violation of each property shrunk (the classic target's
delta-debugging ``shrink``) and written as an ITF trace plus a regression test.

``run(client, options)``: ``client`` is ``librdkafka`` or a broken listener's name
(``skips-revoke``, ``ignores-lost``) for the judge's self-test.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ...outputs import atomic_write_text
from ..judgements import judged
from ..librdkafka import campaign as classic
from ..librdkafka.campaign import OptionError, shrink
from ..librdkafka.client import Listener
from ..librdkafka.report import Report, itf_trace
from .broken import BROKEN
from .client import Settings848
from .judge import PROPERTIES
from .runner import run_scenario
from .scenarios import generate, validate

CLIENTS = ("librdkafka",) + tuple(BROKEN)


@dataclass
class Options(classic.Options):
    """The classic campaign's options with the consumer protocol's timing (broker-side
    session and heartbeat interval) and scenarios."""
    max_ops: int = 6
    session_timeout_ms: int = 3000
    heartbeat_interval_ms: int = 300
    out: str = "groupcheck-out/conform-librdkafka-consumer-protocol"

    def validate(self) -> None:
        given, self.scenario = self.scenario, None
        try:
            super().validate()          # the numbers (a consumer-protocol scenario is checked below)
        finally:
            self.scenario = given
        v = self.heartbeat_interval_ms
        if isinstance(v, bool) or not isinstance(v, int) or not 50 <= v < self.session_timeout_ms:
            raise OptionError(f"heartbeat-interval-ms must be an integer 50..session-timeout-ms, not {v!r}")
        if self.scenario is not None:
            try:
                validate(self.scenario, self.members, self.partitions)
            except ValueError as e:
                raise OptionError(f"scenario: {e}") from None


@dataclass
class Report848(Report):
    per_property: dict = field(default_factory=lambda: {p: {"held": 0, "violated": 0, "not exercised": 0,
                                                            "checks": 0} for p in PROPERTIES})

    def to_json(self) -> dict:
        return {"target": self.target, "settings": self.settings, "scenarios": self.scenarios,
                "seconds": round(self.seconds, 1), "stopped": self.stopped,
                "scenarios_per_minute": round(60 * self.scenarios / self.seconds, 2) if self.seconds else None,
                "first_divergence_s": self.first_divergence_s,
                "properties": {p: {"verdict": self.verdict(p), **self.per_property[p]} for p in PROPERTIES},
                "divergences": self.divergences, "errors": self.errors}

    def text(self) -> str:
        j = self.to_json()
        lines = [f"librdkafka consumer-protocol (KIP-848) conformance: {self.target}, {self.scenarios} scenarios in "
                 f"{j['seconds']} s ({j['scenarios_per_minute']} per minute)"
                 + (f", stopped: {self.stopped}" if self.stopped else "")]
        lines += [f"  {p:30} {c['verdict']:14} held in {c['held']}, violated in {c['violated']}, not exercised in "
                  f"{c['not exercised']} scenarios; {c['checks']} checks" for p, c in j["properties"].items()]
        for d in self.divergences:
            lines.append(f"divergence: {d['property']}: {d['message']}")
            if "judgement" in d:
                lines.append(f"  judgement: {d['judgement']}" + (f" ({d['decided_by']})" if d["decided_by"] else ""))
            lines.append(f"  shrunk from {len(d['scenario'])} to {len(d['shrunk'])} operations: {json.dumps(d['shrunk'])}")
            lines += [f"  wrote {f}" for f in d.get("files", ())]
        if self.first_divergence_s is not None:
            lines.append(f"time to the first divergence: {self.first_divergence_s:.1f} s")
        lines += [f"scenario error: {e}" for e in self.errors]
        return "\n".join(lines) + "\n"


REGRESSION = '''"""Regression: {prop} on librdkafka's consumer protocol, client {client} (written by
groupcheck.conform.librdkafka_848). Observed: {message}
"""
from groupcheck.conform.librdkafka.broken import BROKEN
from groupcheck.conform.librdkafka.client import Listener
from groupcheck.conform.librdkafka_848.client import Settings848
from groupcheck.conform.librdkafka_848.runner import run_scenario

SCENARIO = {scenario}
SETTINGS = {settings}


def test_{name}():
    run = run_scenario(SCENARIO, Settings848(**SETTINGS), BROKEN.get({client!r}, Listener))
    assert run.judgement.summary()[{prop!r}]["verdict"] == "violated", run.judgement.summary()
'''


def write_divergence(out: Path, run, settings: dict, client: str, seed, prop: str, message: str) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(json.dumps([run.scenario, settings], sort_keys=True).encode()).hexdigest()[:8]
    stem = f"librdkafka-consumer-protocol-{client}-{prop}-{digest}"
    trace = itf_trace(run, f"librdkafka-consumer-protocol:{client}", settings, seed, prop)
    trace["#meta"]["protocol"] = "consumer-group"
    atomic_write_text(out / f"{stem}.itf.json", json.dumps(trace, indent=1) + "\n", force=True)
    name = stem.replace("-", "_")
    atomic_write_text(out / f"test_{name}.py", REGRESSION.format(
        prop=prop, client=client, message=message.replace('"""', "'''"), scenario=repr(run.scenario),
        settings=repr(settings), name=name), force=True)
    return [str(out / f"{stem}.itf.json"), str(out / f"test_{name}.py")]


def run(client: str, options: Options, progress: Callable[[str], None] = print) -> Report848:
    options.validate()
    if client not in CLIENTS:
        raise OptionError(f"unknown client {client!r}; known: {', '.join(CLIENTS)}")
    settings = Settings848(partitions=options.partitions, session_timeout_ms=options.session_timeout_ms,
                           heartbeat_interval_ms=options.heartbeat_interval_ms,
                           max_poll_interval_ms=options.max_poll_interval_ms)
    settings.validate()
    listener = BROKEN.get(client, Listener)
    settings_d = {k: getattr(settings, k) for k in ("partitions", "session_timeout_ms", "heartbeat_interval_ms",
                                                     "max_poll_interval_ms")}
    report = Report848(target=f"librdkafka-consumer-protocol:{client}", settings=settings_d)
    start = time.monotonic()
    deadline = start + options.max_seconds

    def runner(scenario, dl):
        return run_scenario(scenario, settings, listener, deadline=dl)

    shrunk_for: dict = {}       # per scenario: property -> (shrunk scenario, its run)

    def diverged(prop: str, r, scenario: list, seed: int) -> None:
        report.first_divergence_s = report.first_divergence_s or round(time.monotonic() - start, 1)
        if prop not in shrunk_for:
            small, srun = shrink(scenario, prop, runner, min(deadline, time.monotonic() + options.shrink_seconds),
                                 progress)
            for other in (srun or r).judgement.violated():      # the shrunk run may show others too
                shrunk_for.setdefault(other, (small, srun or r))
        small, srun = shrunk_for[prop]
        message = r.judgement.results[prop].violations[0][2]
        report.divergences.append({
            "property": prop, "message": message, "seed": seed, **judged(report.target, prop, message),
            "scenario": scenario, "shrunk": small,
            "files": write_divergence(Path(options.out), srun, settings_d, client, seed, prop,
                                      srun.judgement.results[prop].violations[0][2])})

    seeds = range(options.seed, options.seed + options.scenarios)
    try:
        for seed in seeds:
            report.stopped = "time limit" if time.monotonic() >= deadline else None
            if report.stopped:
                break
            scenario = options.scenario or generate(seed, options.members, options.partitions, options.max_ops)
            progress(f"[{seed - options.seed + 1}/{len(seeds)}] seed {seed}: {len(scenario)} operations "
                     f"{json.dumps(scenario)}")
            r = runner(scenario, deadline)
            report.add(r)
            new = [p for p in r.judgement.violated() if p not in {d["property"] for d in report.divergences}]
            progress(f"  {r.seconds:.1f} s: {', '.join(r.judgement.violated()) or 'all held'}"
                     + ("" if r.complete else " (cut by the time limit)") + (f"; error {r.error}" if r.error else ""))
            shrunk_for.clear()
            for prop in new:
                diverged(prop, r, scenario, seed)
    except KeyboardInterrupt:
        report.stopped = "interrupted"
    report.seconds = time.monotonic() - start
    return report


def save(report, where: Path) -> None:
    """verdict.json and verdict.txt of a campaign (this one's or the classic target's) under ``where``."""
    where.mkdir(parents=True, exist_ok=True)
    atomic_write_text(where / "verdict.json", json.dumps(report.to_json(), indent=1) + "\n", force=True)
    atomic_write_text(where / "verdict.txt", report.text(), force=True)


def exit_code(report) -> int:
    """0 held / 1 violated / 3 a limit stopped it / 130 interrupted (what was found is kept)."""
    if report.stopped == "interrupted":
        return 130
    if report.divergences or any(report.verdict(p) == "violated" for p in PROPERTIES):
        return 1
    return 3 if report.stopped else 0
