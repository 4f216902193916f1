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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

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
class Options:
    scenarios: int = 10
    max_seconds: float = 600.0
    seed: int = 0
    members: int = 3
    partitions: int = 4
    max_ops: int = 6
    session_timeout_ms: int = 3000
    heartbeat_interval_ms: int = 300
    max_poll_interval_ms: int = 5000
    shrink_seconds: float = 180.0
    out: str = "groupcheck-out/conform-librdkafka-consumer-protocol"
    scenario: list | None = None

    def validate(self) -> None:
        for name, lo, hi in (("scenarios", 1, 10_000), ("members", 1, 8), ("partitions", 1, 64), ("max_ops", 1, 30),
                             ("session_timeout_ms", 1000, 60_000), ("heartbeat_interval_ms", 50, 30_000),
                             ("max_poll_interval_ms", 1000, 300_000)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise OptionError(f"{name.replace('_', '-')} must be an integer {lo}..{hi}, not {v!r}")
        for name in ("max_seconds", "shrink_seconds"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 7 * 24 * 3600:
                raise OptionError(f"{name.replace('_', '-')} must be a number of seconds >= 0, not {v!r}")
        if self.heartbeat_interval_ms >= self.session_timeout_ms:
            raise OptionError("heartbeat-interval-ms must be below session-timeout-ms")
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
    (out / f"{stem}.itf.json").write_text(json.dumps(trace, indent=1) + "\n")
    name = stem.replace("-", "_")
    (out / f"test_{name}.py").write_text(REGRESSION.format(
        prop=prop, client=client, message=message.replace('"""', "'''"), scenario=repr(run.scenario),
        settings=repr(settings), name=name))
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
    found: set[str] = set()

    def runner(scenario, dl):
        return run_scenario(scenario, settings, listener, deadline=dl)

    try:
        for n in range(options.scenarios):
            if time.monotonic() >= deadline:
                report.stopped = "time limit"
                break
            seed = options.seed + n
            scenario = options.scenario if options.scenario is not None else generate(
                seed, options.members, options.partitions, options.max_ops)
            progress(f"[{n + 1}/{options.scenarios}] seed {seed}: {len(scenario)} operations {json.dumps(scenario)}")
            r = runner(scenario, deadline)
            report.add(r)
            bad = r.judgement.violated()
            progress(f"  {r.seconds:.1f} s: " + ("all held" if not bad else "VIOLATED " + ", ".join(bad))
                     + ("" if r.complete else " (cut by the time limit)") + (f"; error {r.error}" if r.error else ""))
            shrunk_runs: dict = {}
            for prop in bad:
                if prop in found:
                    continue
                found.add(prop)
                if report.first_divergence_s is None:
                    report.first_divergence_s = round(time.monotonic() - start, 1)
                message = r.judgement.results[prop].violations[0][2]
                if prop in shrunk_runs:       # the scenario shrunk for an earlier property shows this one too
                    shrunk, srun = shrunk_runs[prop]
                else:
                    shrunk, srun = shrink(scenario, prop, runner,
                                          min(deadline, time.monotonic() + options.shrink_seconds), progress)
                    srun = srun or r
                    for other in srun.judgement.violated():
                        shrunk_runs.setdefault(other, (shrunk, srun))
                files = write_divergence(Path(options.out), srun, settings_d, client, seed, prop,
                                         srun.judgement.results[prop].violations[0][2])
                report.divergences.append({"property": prop, "message": message, "seed": seed, "scenario": scenario,
                                           "shrunk": shrunk, "files": files})
    except KeyboardInterrupt:
        report.stopped = "interrupted"
    report.seconds = time.monotonic() - start
    return report


def exit_code(report) -> int:
    """0 held / 1 violated / 3 a limit stopped it / 130 interrupted (what was found is kept)."""
    if report.stopped == "interrupted":
        return 130
    if report.divergences or any(report.verdict(p) == "violated" for p in PROPERTIES):
        return 1
    return 3 if report.stopped else 0
