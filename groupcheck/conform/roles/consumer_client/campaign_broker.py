"""A consumer-client campaign with real client processes on a real broker.

``run(target, options, progress)`` is what the CLI calls. ``target`` is
``CLIENT:ASSIGNOR`` (``kafka-python:cooperative-sticky``, ``aiokafka:range``,
``confluent-kafka:range``, ``kafkajs:roundrobin`` (a Node process,
``adapters/node/consumer-worker.js``) ...), ``+static`` for static membership (every member's
group.instance.id is its name), ``+POLICY`` for members that process the harness's
records and commit by that policy (``+auto``, ``+sync-on-revoke``, ``+after-processing``,
``+none``; the record scenarios, then walks with a record produced after each operation;
judged by ``claims_records.py`` too), and a broken application's prefix for
the judge's self-test (``skips-revoke:kafka-python:range``,
``commits-before-processing:kafka-python:range+after-processing``). The broker is Tansu, started and
stopped here, unless ``options.bootstrap`` names one. Scenarios: the named ones
(``scenarios.py``) first, then projected consumer-model walks, up to
``options.scenarios``. Every distinct divergence (claim and signature, ``dedupe.py``) is
shrunk (``librdkafka/campaign.shrink``) and written as an ITF trace and a regression
file; a limit or an interrupt stops the run and keeps what was found.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from groupcheck.conform.dedupe import Ledger, signature
from groupcheck.conform.roles.consumer_client.campaign import OptionError, shrink
from groupcheck.conform.roles.consumer_client.report import Report, write_divergence
from groupcheck.conform.roles.consumer_client.scenarios import from_model, validate

from ...targets.clients.group import JAVA_CLIENTS, NODE_CLIENTS, Settings, worker_command
from . import repro, repro_records
from ...judgements import judged
from .runner_broker import open_broker, run_scenario, settle_budget
from .claims import PROPERTIES
from .claims_848 import PROPERTIES as PROPERTIES_848
from .claims_records import POLICIES, PROPERTIES as RECORD_PROPERTIES
from .scenarios_broker import named, records_named, with_records
from ...targets.clients.worker import ASSIGNORS as PYTHON_ASSIGNORS, BROKEN

ASSIGNORS = {**PYTHON_ASSIGNORS, **NODE_CLIENTS, **JAVA_CLIENTS}

DEFAULT_TARGETS = ("kafka-python:range", "kafka-python:cooperative-sticky", "confluent-kafka:range",
                   "confluent-kafka:cooperative-sticky", "aiokafka:range", "kafka-python:range+static")
TITLE = "consumer-client conformance, real clients on a broker"


def is_client_target(name: str) -> bool:
    """Whether ``name`` names this kind of target (a real client process), good or not."""
    head = name.split(":")
    return any(h in ASSIGNORS for h in head[:2]) or is_mock_records_target(name)


def judgement_key(target: str, broker) -> str:
    """The key judgements.json matches for this role: the client target and the broker
    (``kafka-python:range+static@tansu``), since a divergence may be either's."""
    return f"{target}@{broker.name}"


def known_targets() -> list[str]:
    return [f"{c}:{a}" for c, names in ASSIGNORS.items() for a in names]


# A commit policy a client cannot express: not applicable, with the reason (a usage error).
NOT_APPLICABLE_POLICIES = {("kafkajs", "sync-on-revoke"): "not applicable: kafkajs 2.2.4 has no rebalance listener "
                                                          "(consumer.run takes none) for the application to commit in"}


# librdkafka's mock cluster as the broker of confluent-kafka processes (records only: without a
# policy these names are the in-process targets of campaign.py).
MOCK_CLASSIC = "librdkafka"
MOCK_CONSUMER = "librdkafka-consumer-protocol"
MOCK_TIMING = {"session_timeout_ms": 3000, "heartbeat_interval_ms": 500, "max_poll_interval_ms": 6000}


def is_mock_records_target(name: str) -> bool:
    """``[broken:]librdkafka:ASSIGNOR+POLICY`` or ``[broken:]librdkafka-consumer-protocol+POLICY``."""
    head = name.split("+")[0].split(":")
    return any(name.endswith("+" + p) for p in POLICIES) and (MOCK_CONSUMER in head[:2] or MOCK_CLASSIC in head[:2])


def _mock_settings(body: str, policy: str | None, static: bool) -> Settings:
    """Settings of a record target on librdkafka's mock: confluent-kafka members (classic with
    ``ASSIGNOR``, or ``group.protocol=consumer``), the harness through confluent-kafka."""
    parts = body.split(":")
    broken = parts.pop(0) if parts[0] not in (MOCK_CLASSIC, MOCK_CONSUMER) else None
    consumer = parts[0] == MOCK_CONSUMER
    classic = ASSIGNORS["confluent-kafka"]
    if (broken is not None and broken not in BROKEN) or (consumer and len(parts) != 1) \
            or (not consumer and (len(parts) != 2 or parts[1] not in classic)):
        raise OptionError(f"target {body!r}: give [broken:]{MOCK_CLASSIC}:ASSIGNOR+POLICY (assignors: "
                          f"{', '.join(classic)}) or [broken:]{MOCK_CONSUMER}+POLICY (broken: {'|'.join(BROKEN)})")
    if policy is None or static:
        raise OptionError(f"target {body!r}: on librdkafka's mock, real client processes run with a commit policy "
                          f"(+{'|+'.join(POLICIES)}) and no +static; without one, {body} is the in-process target")
    if broken == "commits-before-processing" and policy != "after-processing":
        raise OptionError(f"target {body!r}: commits-before-processing needs +after-processing")
    return Settings(client="confluent-kafka", assignor="consumer" if consumer else parts[1], broken=broken,
                    commit_policy=policy, group_protocol="consumer" if consumer else "classic",
                    harness="confluent-kafka", mock=True, **MOCK_TIMING)


def parse_target(target: str) -> Settings:
    """Settings for ``[broken:]CLIENT:ASSIGNOR[+static][+POLICY]`` (and, records on librdkafka's
    mock, ``[broken:]librdkafka:ASSIGNOR+POLICY`` / ``[broken:]librdkafka-consumer-protocol+POLICY``);
    OptionError names what is wrong."""
    policy = next((p for p in POLICIES if target.endswith("+" + p)), None)
    target = target[:-len(policy) - 1] if policy else target
    if is_mock_records_target(f"{target}+{policy}"):
        return _mock_settings(target, policy, False)
    body, static = (target[:-len("+static")], True) if target.endswith("+static") else (target, False)
    parts = body.split(":")
    broken = parts.pop(0) if len(parts) == 3 else None
    if len(parts) != 2 or (broken is not None and broken not in BROKEN):
        raise OptionError(f"target {target!r}: give CLIENT:ASSIGNOR[+static] (broken: "
                          f"{'|'.join(BROKEN)}:CLIENT:ASSIGNOR); known: {', '.join(known_targets())}")
    client, assignor = parts
    if client not in ASSIGNORS:
        raise OptionError(f"unknown client {client!r}; known: {', '.join(ASSIGNORS)}")
    if assignor not in ASSIGNORS[client]:
        raise OptionError(f"{client} has no assignor {assignor!r}; known: {', '.join(ASSIGNORS[client])}")
    if (client, policy) in NOT_APPLICABLE_POLICIES:
        raise OptionError(f"target {target}+{policy}: {NOT_APPLICABLE_POLICIES[client, policy]}")
    if broken == "commits-before-processing" and policy != "after-processing":
        raise OptionError(f"target {target!r}: commits-before-processing needs +after-processing")
    if client in NODE_CLIENTS and (static or broken):
        raise OptionError(f"target {target!r}: kafkajs 2.2.4 has no group.instance.id (static membership)"
                          if static else f"target {target!r}: no broken kafkajs application is built")
    try:
        worker_command(client)
    except ValueError as e:
        raise OptionError(str(e)) from None
    return fit_timing(Settings(client=client, assignor=assignor, static=static, broken=broken, commit_policy=policy))


def fit_timing(s: Settings) -> Settings:
    """kafkajs has no max.poll.interval.ms: its runner heartbeats between batches, so a
    stalled application stops heartbeating and expires after the session timeout; the
    judge is told so (max.poll.interval.ms = session.timeout.ms)."""
    if s.client in NODE_CLIENTS:
        s.max_poll_interval_ms = s.session_timeout_ms
    return s


@dataclass
class Options:
    scenarios: int = 8
    max_seconds: float = 840.0
    seed: int = 0
    members: int = 3
    partitions: int = 4
    max_ops: int = 5
    session_timeout_ms: int | None = None      # None: the target's (Tansu 6000, librdkafka's mock 3000)
    max_poll_interval_ms: int | None = None    # None: the target's (Tansu 9000, librdkafka's mock 6000)
    shrink_seconds: float = 240.0
    named: bool = True                  # the named scenarios first
    out: str = "groupcheck-out/conform-clients"
    scenario: list | None = None        # run this one scenario (JSON ops) instead
    bootstrap: str | None = None        # a user's broker; None: start Tansu

    def validate(self) -> None:
        for name, lo, hi in (("scenarios", 1, 10_000), ("members", 1, 8), ("partitions", 1, 64),
                             ("max_ops", 1, 30), ("session_timeout_ms", 1000, 300_000),
                             ("max_poll_interval_ms", 1000, 300_000)):
            v = getattr(self, name)
            if v is None and name.endswith("_ms"):
                continue                    # the target's own
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise OptionError(f"{name.replace('_', '-')} must be an integer {lo}..{hi}, not {v!r}")
        if None not in (self.session_timeout_ms, self.max_poll_interval_ms) \
                and self.max_poll_interval_ms < self.session_timeout_ms:
            raise OptionError("max-poll-interval-ms must be >= session-timeout-ms")
        if self.scenario is not None:
            try:
                validate(self.scenario, self.members)
            except ValueError as e:
                raise OptionError(f"scenario: {e}") from None


def _scenarios(options: Options, settings: Settings, report: Report):
    """(label, seed, scenario) in order: the given one; else named ones, then model walks."""
    if options.scenario is not None:
        yield "given", None, options.scenario
        return
    count = 0
    if options.named:
        for name, sc, why in (records_named() if settings.commit_policy else named(settings)):
            if sc is None:
                report.not_run.append((name, why))
                continue
            if count >= options.scenarios:
                return
            count += 1
            yield name, None, sc
    seed = options.seed
    while count < options.scenarios:
        count += 1
        walk = from_model(seed, options.members, options.partitions, settings.assignor, options.max_ops,
                          processes=True)
        yield f"seed {seed}", seed, with_records(walk) if settings.commit_policy else walk
        seed += 1


REGRESSION = '''"""Regression: {prop} on {target}, real client processes on Tansu or librdkafka's mock
(SETTINGS["mock"]) (written by groupcheck.conform.targets.clients). Re-runs the shrunk scenario
and asserts the same verdict."""
from groupcheck.conform.targets.clients.group import Settings
from groupcheck.conform.roles.consumer_client.runner_broker import open_broker, run_scenario

SCENARIO = {scenario}
SETTINGS = {settings}
OBSERVED = {observed}


def test_{name}():
    broker = open_broker(Settings(**SETTINGS))
    try:
        run = run_scenario(SCENARIO, Settings(**SETTINGS), broker)
    finally:
        broker.close()
    summary = {{**run.judgement.summary(), **(run.records.summary() if run.records else {{}})}}
    assert summary[{prop!r}]["verdict"] == "violated", summary
'''


def _results(run, prop: str):
    """The Result of ``prop`` in a run: the group judge's or the record judge's."""
    return run.records.results[prop] if prop in RECORD_PROPERTIES else run.judgement.results[prop]


def run(target: str, options: Options, progress=print) -> Report:
    """Run the campaign on one target; the report says what stopped it, if anything."""
    options.validate()
    settings = parse_target(target)
    settings.partitions = options.partitions
    if settings.mock and options.bootstrap:
        raise OptionError(f"target {target}: runs on librdkafka's mock cluster, not on --bootstrap {options.bootstrap}")
    if options.session_timeout_ms is not None:
        settings.session_timeout_ms = options.session_timeout_ms
    if options.max_poll_interval_ms is not None:
        settings.max_poll_interval_ms = options.max_poll_interval_ms
    if settings.max_poll_interval_ms < settings.session_timeout_ms:
        raise OptionError("max-poll-interval-ms must be >= session-timeout-ms")
    out = Path(options.out)
    broker = open_broker(settings, options.bootstrap, log_dir=out)
    try:
        if broker.min_session_ms > settings.session_timeout_ms:
            settings.session_timeout_ms = broker.min_session_ms
            settings.max_poll_interval_ms = max(settings.max_poll_interval_ms, broker.min_session_ms)
        fit_timing(settings)
        progress(f"{target}: broker {broker.name} at {broker.bootstrap}"
                 + (f" (log {broker.log_path})" if broker.log_path else "")
                 + f"; session {settings.session_timeout_ms} ms, max.poll.interval {settings.max_poll_interval_ms} ms")
        return _campaign(target, options, settings, broker, out, progress)
    finally:
        broker.close()


def _campaign(target, options: Options, settings: Settings, broker, out: Path, progress) -> Report:
    settings_d = asdict(settings)
    group = PROPERTIES_848 if settings.group_protocol == "consumer" else PROPERTIES
    report = Report(target=target, settings={**settings_d, "broker": broker.name}, title=TITLE,
                    properties=group + (RECORD_PROPERTIES if settings.commit_policy else ()),
                    width=30 if settings.commit_policy else 24)
    start = time.monotonic()
    deadline = start + options.max_seconds
    ledger = Ledger()

    def runner(scenario, dl):
        return run_scenario(scenario, settings, broker, deadline=dl)

    try:
        for n, (label, seed, scenario) in enumerate(_scenarios(options, settings, report)):
            if time.monotonic() >= deadline:
                report.stopped = "time limit"
                break
            bound = sum(settle_budget(settings) if op["op"] == "settle" else op.get("seconds", 1) for op in scenario)
            progress(f"[{n + 1}/{options.scenarios}] {label}: {len(scenario)} operations (at most {bound:.0f} s) "
                     + json.dumps(scenario))
            r = runner(scenario, deadline)
            report.add(r, label)
            bad = r.judgement.violated() + (r.records.violated() if r.records else [])
            progress(f"  {r.seconds:.1f} s, rounds {r.rounds}: " + ("all held" if not bad else "VIOLATED " + ", ".join(bad))
                     + ("" if r.complete else " (cut by the time limit)") + (f"; error {r.error}" if r.error else ""))
            for prop in bad:
                message = _results(r, prop).violations[0][2]
                met = ledger.meet(prop, signature(message), scenario, len(scenario))
                if met is None:
                    continue
                if report.first_divergence_s is None:
                    report.first_divergence_s = round(time.monotonic() - start, 1)
                shrunk, srun = shrink(scenario, prop, runner, min(deadline, time.monotonic() + options.shrink_seconds),
                                      progress)
                srun = srun or r
                smessage = _results(srun, prop).violations[0][2]
                files = write_divergence(out, srun, target, settings_d, settings.broken or "", seed, prop, smessage,
                                         template=REGRESSION, prefix="clients")
                # a group claim's script restates the worker for a user's broker: none for the mock's runs
                script = None if settings.mock and prop not in RECORD_PROPERTIES else \
                    (repro_records if prop in RECORD_PROPERTIES else repro).write(
                        files, judgement_key(target, broker), settings_d, shrunk, prop, smessage,
                        settle_budget(settings))
                report.divergences.append({"property": prop, "message": message, "signature": met.signature,
                                           **judged(judgement_key(target, broker), prop, message),
                                           "scenario_name": label, "seed": seed, "scenario": scenario,
                                           "shrunk": shrunk, "files": files + ([script] if script else [])})
    except KeyboardInterrupt:
        report.stopped = "interrupted"
    report.seconds = time.monotonic() - start
    for d in report.divergences:
        d["met"] = ledger.met[(d["property"], d["signature"])].count
    return report
