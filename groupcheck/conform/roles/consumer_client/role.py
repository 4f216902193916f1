"""The consumer-client role as the CLI runs it: real librdkafka consumers in one group on
the mock cluster (``librdkafka:``), or real clients, each its own process, on a broker
(``kafka-python:``, ``aiokafka:``, ``confluent-kafka:``, ``kafkajs:``: ``command_broker.py``;
with ``+POLICY`` also confluent-kafka processes on librdkafka's mock,
``librdkafka:ASSIGNOR+POLICY`` / ``librdkafka-consumer-protocol+POLICY``), scenarios from the
consumer model's walks (classic) or generated
(KIP-848), judged by the models' properties over live, non-fenced members; one campaign
and one verdict (verdict.json, verdict.txt) per target."""
from __future__ import annotations

from pathlib import Path

from groupcheck.console import FAILED, INTERRUPTED, NOT_PROVED, PASSED, err, fail, out
from groupcheck.outputs import folder_for_command

from .. import Request, ScenarioRole
from .report import save
from .targets import BUILTIN, CLASSIC_TARGETS, campaign_of

SCENARIOS = 10          # per target, by default: each a few rebalances of real consumers, about 10 s


def command(req: Request) -> int:
    from .campaign_broker import is_client_target
    if req.targets and all(is_client_target(t) for t in req.targets):      # real clients on a broker
        from .command_broker import run_targets
        return run_targets(list(req.targets), req.scenarios, req.seed, req.max_seconds, req.out_dir, req.force,
                           req.bootstrap)
    if req.bootstrap:
        raise fail("--bootstrap HOST:PORT is for real client targets (e.g. --target kafka-python:range) and for "
                   "--role group-coordinator")
    names = list(CLASSIC_TARGETS) if list(req.targets) == ["all"] else list(req.targets)
    unknown = [n for n in names if n not in BUILTIN]
    if not names or unknown:
        raise fail(f"--role consumer-client: give --target {' | '.join(BUILTIN)} or all, or a real client on a "
                   "broker CLIENT:ASSIGNOR[+static][+POLICY] (kafka-python, aiokafka, confluent-kafka, kafkajs), "
                   "or records on librdkafka's mock: librdkafka:ASSIGNOR+POLICY, librdkafka-consumer-protocol+POLICY"
                   + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    out_dir = folder_for_command(req.out_dir, force=req.force)
    codes = []
    for name in names:
        run, options, key = campaign_of(name)
        where = out_dir / "conform" / name.replace(":", "-")
        try:
            report = run(key, options(scenarios=req.scenarios or SCENARIOS, max_seconds=req.max_seconds or 600.0,
                                      seed=req.seed, out=str(where)),
                         progress=lambda line: err.print(line, markup=False, highlight=False))
        except ValueError as e:                 # campaign.OptionError is one
            raise fail(f"{name}: {e}") from None
        _write_report(name, report, where)
        if report.stopped == "interrupted":
            return INTERRUPTED
        violated = report.divergences or any(report.verdict(p) == "violated" for p in report.per_property)
        codes.append(FAILED if violated else NOT_PROVED if report.stopped else PASSED)
    code = FAILED if FAILED in codes else NOT_PROVED if NOT_PROVED in codes else PASSED
    out.print({PASSED: "PASSED: every property held or was not exercised (exit 0)",
               FAILED: "FAILED: divergences found (see above) (exit 1)",
               NOT_PROVED: "NOT PROVED: a limit stopped a campaign early (exit 3)"}[code], markup=False, highlight=False)
    return code


def _write_report(name: str, report, where: Path) -> None:
    """A consumer-client campaign's verdict: verdict.json / verdict.txt under ``where``, and stdout."""
    save(report, where)
    out.print(f"target {name}", markup=False, highlight=False)
    out.print(report.text(), markup=False, highlight=False, end="")
    out.print(f"  verdict: {where / 'verdict.json'}", markup=False, highlight=False)


ROLE = ScenarioRole("consumer-client", command)
