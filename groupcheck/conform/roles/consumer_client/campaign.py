"""A bounded consumer-client campaign: scenarios run on the mock, judged, the first
violation of each property shrunk and written as an ITF trace plus a regression test,
through the one campaign loop and shrinker of ``groupcheck/conform/campaign.py``.

``run(target, options)``, classic consumers: ``target`` is an assignor name (``range``,
``roundrobin``, ``cooperative-sticky``), optionally prefixed by a broken client for the
judge's self-test (``skips-revoke:cooperative-sticky``); scenarios from the consumer
model's walks. ``run_848(client, options848)``, ``group.protocol=consumer`` (KIP-848):
``client`` is ``librdkafka`` or a broken listener's name; scenarios generated
(``scenarios_848``). Every run is bounded by ``scenarios`` and ``max_seconds``; an
interrupt or a limit stops it and keeps what was found (the report says which stopped it).
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from ... import campaign
from ...targets.broken.clients import BROKEN
from ...targets.librdkafka.client import ASSIGNORS, Listener, Settings
from ...targets.librdkafka.client_848 import Settings848
from . import scenarios_848
from .claims_848 import PROPERTIES as PROPERTIES_848
from ...judgements import judged
from .report import Report, save, write_divergence, write_divergence_848  # noqa: F401 - save: the CLI's
from .runner import run_scenario, run_scenario_848
from .scenarios import from_model, normalise, finish, validate, wall_time_bound

CLIENTS = ("librdkafka",) + tuple(BROKEN)      # the consumer protocol's: the real one, or a broken listener


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


@dataclass
class Options848(Options):
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
                scenarios_848.validate(self.scenario, self.members, self.partitions)
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
    """Delete operations (``campaign.shrink``: chunks, then one at a time; the final settle
    kept, stalled members resumed) while the same property stays violated; stop at
    ``deadline``. Returns the smallest scenario and its run (None: none smaller did)."""
    def attempt(candidate: list[dict]):
        run = runner(candidate, deadline)
        records = getattr(run, "records", None)          # the record judge's, members with a commit policy
        violated = run.judgement.violated() + (records.violated() if records is not None else [])
        if not (run.complete and prop in violated):
            return None
        progress(f"  shrink: {len(candidate)} operations, {prop} still violated")
        return candidate, run

    return campaign.shrink(scenario, attempt, keep_tail=1, canonical=lambda c: finish(normalise(c[:-1])),
                           deadline=deadline)


def _campaign(report: Report, options: Options, generate: Callable, runner: Callable, write: Callable,
              bound: Callable, progress: Callable[[str], None]) -> Report:
    """The loop both protocols share: ``generate(seed)`` a scenario, ``runner(scenario,
    deadline)`` its run, ``write(run, seed, prop, message)`` a divergence's files,
    ``bound(scenario)`` the words on its wall-time bound."""
    start = time.monotonic()
    deadline = start + options.max_seconds
    shrunk_for: dict = {}       # per scenario: property -> (shrunk scenario, its run)

    def announce(n: int, item) -> None:
        seed, scenario = item
        shrunk_for.clear()
        progress(f"[{n + 1}/{options.scenarios}] seed {seed}: {len(scenario)} operations{bound(scenario)} "
                 f"{json.dumps(scenario)}")

    def record(r) -> None:
        report.add(r)
        bad = r.judgement.violated()
        progress(f"  {r.seconds:.1f} s, rounds {r.rounds}: " + ("all held" if not bad else "VIOLATED " + ", ".join(bad))
                 + ("" if r.complete else " (cut by the time limit)") + (f"; error {r.error}" if r.error else ""))

    def diverged(key, r, item) -> dict:
        (prop, _), (seed, scenario) = key, item
        if report.first_divergence_s is None:
            report.first_divergence_s = round(time.monotonic() - start, 1)
        if prop not in shrunk_for:      # the scenario shrunk for an earlier property may show this one too
            small, srun = shrink(scenario, prop, runner, min(deadline, time.monotonic() + options.shrink_seconds),
                                 progress)
            for other in (srun or r).judgement.violated():
                shrunk_for.setdefault(other, (small, srun or r))
        small, srun = shrunk_for[prop]
        message = r.judgement.results[prop].violations[0][2]
        d = {"property": prop, "message": message, "seed": seed, **judged(report.target, prop, message),
             "scenario": scenario, "shrunk": small,
             "files": write(srun, seed, prop, srun.judgement.results[prop].violations[0][2])}
        report.divergences.append(d)
        return d

    items = ((options.seed + n, options.scenario if options.scenario is not None else generate(options.seed + n))
             for n in range(options.scenarios))
    hooks = campaign.Hooks(run=lambda item, dl: runner(item[1], dl), divergences=lambda r: [
        (p, "") for p in r.judgement.violated()], diverged=diverged, announce=announce, record=record)
    report.stopped = campaign.run(items, hooks, deadline)
    report.seconds = time.monotonic() - start
    return report


def run(target: str, options: Options, progress: Callable[[str], None] = print) -> Report:
    """A classic campaign of ``target`` (``[client:]assignor``)."""
    options.validate()
    client, assignor = parse_target(target)
    settings = Settings(assignor=assignor, partitions=options.partitions,
                        session_timeout_ms=options.session_timeout_ms,
                        max_poll_interval_ms=options.max_poll_interval_ms)
    settings.validate()
    listener = BROKEN.get(client, Listener)
    settings_d = {k: v for k, v in asdict(settings).items()}
    return _campaign(
        Report(target=target, settings=settings_d), options,
        generate=lambda seed: from_model(seed, options.members, options.partitions, assignor, options.max_ops),
        runner=lambda scenario, dl: run_scenario(scenario, settings, listener, deadline=dl),
        write=lambda srun, seed, prop, message: write_divergence(Path(options.out), srun, assignor, settings_d,
                                                                 client, seed, prop, message),
        bound=lambda scenario: f" (at most {wall_time_bound(scenario, settings):.0f} s)", progress=progress)


def run_848(client: str, options: Options848, progress: Callable[[str], None] = print) -> Report:
    """A consumer-protocol (KIP-848) campaign of ``client`` (``librdkafka`` or a broken listener)."""
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
    report = Report(target=f"librdkafka-consumer-protocol:{client}", settings=settings_d, properties=PROPERTIES_848,
                    title="librdkafka consumer-protocol (KIP-848) conformance", rounds=False, width=30)
    return _campaign(
        report, options,
        generate=lambda seed: scenarios_848.generate(seed, options.members, options.partitions, options.max_ops),
        runner=lambda scenario, dl: run_scenario_848(scenario, settings, listener, deadline=dl),
        write=lambda srun, seed, prop, message: write_divergence_848(Path(options.out), srun, settings_d, client,
                                                                     seed, prop, message),
        bound=lambda scenario: "", progress=progress)


def exit_code(report: Report) -> int:
    """0 held / 1 violated / 3 a limit stopped it / 130 interrupted (what was found is kept)."""
    if report.stopped == "interrupted":
        return 130
    if report.divergences or any(report.verdict(p) == "violated" for p in report.per_property):
        return 1
    return 3 if report.stopped else 0
