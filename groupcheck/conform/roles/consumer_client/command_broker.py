"""``groupcheck conform --role consumer-client --target CLIENT:ASSIGNOR[+static] [--bootstrap HOST:PORT]``.

Every target is checked before anything starts (a bad one: one line, exit 2); each runs
its campaign (``campaign.py``, at most 14 minutes each, less if ``--max-seconds`` says so)
on its own Tansu (or the given broker); the verdict goes
to ``OUT/conform/<target>/verdict.{json,txt}`` with Tansu's log, the ITF traces and the
regression files beside it. SIGINT / SIGTERM end the current scenario: every worker
process and Tansu are stopped, what was found is written, exit 130 / 143.
"""
from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

from groupcheck.console import (FAILED, INTERRUPTED, NOT_PROVED, PASSED, STOP_SIGNALS, err, fail, out,
                                signal_code)
from groupcheck.conform.targets.broker.broker import BrokerError, parse_address
from groupcheck.conform.roles.consumer_client.report import save
from groupcheck.outputs import folder_for_command

from . import campaign_broker as campaign


def _say(text: str) -> None:
    out.print(text, markup=False, highlight=False, end="" if text.endswith("\n") else "\n")


def run_targets(names: list[str], scenarios: int | None, seed: int, max_seconds: float, out_dir: Path,
                force: bool, bootstrap: str | None) -> int:
    try:
        for name in names:
            campaign.parse_target(name)
        if bootstrap is not None:
            parse_address(bootstrap)
    except (ValueError, BrokerError) as e:     # OptionError is a ValueError
        raise fail(str(e)) from None
    out_dir = folder_for_command(out_dir, force=force)
    stopped: list[int] = []

    def stop(signum, frame) -> None:
        stopped.append(signum)
        raise KeyboardInterrupt

    previous = ({s: signal.signal(s, stop) for s in STOP_SIGNALS}
                if threading.current_thread() is threading.main_thread() else {})
    try:
        code = _run(names, scenarios, seed, max_seconds or 3600.0, out_dir, bootstrap)
    except KeyboardInterrupt:       # between scenarios' own handling (starting a broker, writing)
        code = INTERRUPTED
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    if code == INTERRUPTED:
        code = signal_code(stopped[0]) if stopped else INTERRUPTED
        _say(f"INTERRUPTED: what was found is written (exit {code})")
    return code


def _run(names, scenarios, seed, max_seconds, out_dir: Path, bootstrap) -> int:
    deadline = time.monotonic() + max_seconds
    codes = []
    for name in names:
        where = out_dir / "conform" / name.replace(":", "-").replace("+", "-")
        opts = campaign.Options(scenarios=scenarios or campaign.Options.scenarios, seed=seed,
                                max_seconds=max(0.0, min(campaign.Options.max_seconds, deadline - time.monotonic())),
                                out=str(where),
                                bootstrap=bootstrap)
        try:
            report = campaign.run(name, opts, progress=lambda line: err.print(line, markup=False, highlight=False, soft_wrap=True))
        except (ValueError, BrokerError) as e:     # OptionError is a ValueError
            raise fail(f"{name}: {e}") from None
        save(report, where)
        _say(f"target {name}")
        _say(report.text())
        _say(f"  verdict: {where / 'verdict.json'}")
        if report.stopped == "interrupted":
            return INTERRUPTED
        violated = report.divergences or any(report.verdict(p) == "violated" for p in report.per_property)
        codes.append(FAILED if violated else NOT_PROVED if report.stopped or report.errors else PASSED)
    code = FAILED if FAILED in codes else NOT_PROVED if NOT_PROVED in codes else PASSED
    _say({PASSED: "PASSED: every property held or was not exercised (exit 0)",
          FAILED: "FAILED: divergences found (see above) (exit 1)",
          NOT_PROVED: "NOT PROVED: a limit stopped a campaign early or a scenario errored (exit 3)"}[code])
    return code
