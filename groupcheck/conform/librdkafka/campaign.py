"""A bounded campaign: scenarios from the model, run on the mock, judged, shrunk.

``run(target, options)`` is what a CLI calls: ``target`` is an assignor name
(``range``, ``roundrobin``, ``cooperative-sticky``), optionally prefixed by a broken
client for the judge's self-test (``skips-revoke:cooperative-sticky``). Every run is
bounded by ``scenarios`` and ``max_seconds``; an interrupt or a limit stops it and
keeps what was found (the report says which stopped it).
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from .broken import BROKEN
from .client import ASSIGNORS, Listener, Settings
from ..judgements import judged
from .report import Report, write_divergence
from .runner import run_scenario
from .scenarios import from_model, normalise, finish, validate, wall_time_bound


class OptionError(ValueError):
    """A bad option or target; the message names it."""


@dataclass
class Options:
    scenarios: int = 10
    max_seconds: float = 600.0
    seed: int = 0
    members: int = 3
    partitions: int = 4
    max_ops: int = 5
    session_timeout_ms: int = 4000
    max_poll_interval_ms: int = 5000
    shrink_seconds: float = 180.0
    out: str = "groupcheck-out/conform-librdkafka"
    scenario: list | None = None        # run this one scenario (JSON ops) instead of model walks

    def validate(self) -> None:
        for name, lo, hi in (("scenarios", 1, 10_000), ("members", 1, 8), ("partitions", 1, 64),
                             ("max_ops", 1, 30), ("session_timeout_ms", 1000, 60_000),
                             ("max_poll_interval_ms", 1000, 300_000)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise OptionError(f"{name.replace('_', '-')} must be an integer {lo}..{hi}, not {v!r}")
        for name in ("max_seconds", "shrink_seconds"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 7 * 24 * 3600 or v != v:
                raise OptionError(f"{name.replace('_', '-')} must be a number of seconds >= 0, not {v!r}")
        if self.max_poll_interval_ms < self.session_timeout_ms:
            raise OptionError("max-poll-interval-ms must be >= session-timeout-ms (librdkafka's rule)")
        if self.scenario is not None:
            try:
                validate(self.scenario, self.members)
            except ValueError as e:
                raise OptionError(f"scenario: {e}") from None


def parse_target(target: str) -> tuple[str, str]:
    """(client, assignor): client is "librdkafka" or a broken listener's name."""
    client, _, assignor = target.rpartition(":")
    client = client or "librdkafka"
    if assignor not in ASSIGNORS:
        raise OptionError(f"unknown assignor {assignor!r}; known: {', '.join(ASSIGNORS)}")
    if client != "librdkafka" and client not in BROKEN:
        raise OptionError(f"unknown client {client!r}; known: librdkafka, {', '.join(BROKEN)}")
    return client, assignor


def shrink(scenario: list[dict], prop: str, runner: Callable, deadline: float, progress) -> tuple[list[dict], object]:
    """Delete operations one at a time (keeping the final settle) while the same property
    stays violated; stop at ``deadline``. Returns the smallest scenario and its run."""
    best, best_run = scenario, None
    i = 0
    while i < len(best) - 1 and time.monotonic() < deadline:
        candidate = finish(normalise([op for j, op in enumerate(best[:-1]) if j != i]))
        if candidate == best or len(candidate) >= len(best):
            i += 1
            continue
        run = runner(candidate, deadline)
        if run.complete and prop in run.judgement.violated():
            progress(f"  shrink: {len(best)} -> {len(candidate)} operations, {prop} still violated")
            best, best_run = candidate, run
        else:
            i += 1
    return best, best_run


def run(target: str, options: Options, progress: Callable[[str], None] = print) -> Report:
    options.validate()
    client, assignor = parse_target(target)
    settings = Settings(assignor=assignor, partitions=options.partitions,
                        session_timeout_ms=options.session_timeout_ms,
                        max_poll_interval_ms=options.max_poll_interval_ms)
    settings.validate()
    listener = BROKEN.get(client, Listener)
    settings_d = {k: v for k, v in asdict(settings).items()}
    report = Report(target=target, settings=settings_d)
    start = time.monotonic()
    deadline = start + options.max_seconds
    out = Path(options.out)
    found: set[str] = set()

    def runner(scenario, dl):
        return run_scenario(scenario, settings, listener, deadline=dl)

    try:
        for n in range(options.scenarios):
            if time.monotonic() >= deadline:
                report.stopped = "time limit"
                break
            seed = options.seed + n
            scenario = (options.scenario if options.scenario is not None
                        else from_model(seed, options.members, options.partitions, assignor, options.max_ops))
            progress(f"[{n + 1}/{options.scenarios}] seed {seed}: {len(scenario)} operations "
                     f"(at most {wall_time_bound(scenario, settings):.0f} s) {json.dumps(scenario)}")
            r = runner(scenario, deadline)
            report.add(r)
            bad = r.judgement.violated()
            progress(f"  {r.seconds:.1f} s, rounds {r.rounds}: "
                     + ("all held" if not bad else "VIOLATED " + ", ".join(bad))
                     + ("" if r.complete else " (cut by the time limit)") + (f"; error {r.error}" if r.error else ""))
            shrunk_runs: dict = {}
            for prop in bad:
                if prop in found:
                    continue
                found.add(prop)
                if report.first_divergence_s is None:
                    report.first_divergence_s = round(time.monotonic() - start, 1)
                message = r.judgement.results[prop].violations[0][2]
                if prop in shrunk_runs:     # the scenario shrunk for an earlier property shows this one too
                    shrunk, srun = shrunk_runs[prop]
                else:
                    shrunk, srun = shrink(scenario, prop, runner,
                                          min(deadline, time.monotonic() + options.shrink_seconds), progress)
                    srun = srun or r
                    for other in srun.judgement.violated():
                        shrunk_runs.setdefault(other, (shrunk, srun))
                files = write_divergence(out, srun, assignor, settings_d, client, seed, prop,
                                         srun.judgement.results[prop].violations[0][2])
                report.divergences.append({"property": prop, "message": message, "seed": seed,
                                           "scenario": scenario, "shrunk": shrunk, "files": files,
                                           **judged(target, prop, message)})
    except KeyboardInterrupt:
        report.stopped = "interrupted"
    report.seconds = time.monotonic() - start
    return report
