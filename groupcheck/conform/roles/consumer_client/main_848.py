"""``python -m groupcheck.conform.roles.consumer_client.main_848``: real librdkafka consumers with
``group.protocol=consumer`` (KIP-848) on the mock cluster, judged by the consumer-group
model's properties; ``--coordinator`` compares the mock's ConsumerGroupHeartbeat answers
with the model coordinator's instead. Exit 0: every property held or was not exercised
(coordinator: no difference the protocol fixes); 1: a property was violated (a fixed
difference); 2: bad input; 3: a limit stopped it; 130: interrupted (what was found is kept)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .campaign import OptionError
from .campaign_848 import CLIENTS, Options, exit_code, run, save


# the campaign's numeric options, each a --flag with the Options default
NUMBERS = ("scenarios", "max_seconds", "seed", "members", "partitions", "max_ops", "session_timeout_ms",
           "heartbeat_interval_ms", "max_poll_interval_ms", "shrink_seconds")


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"error: {message}\n")


def _scenario(arg: str) -> list:
    """``--scenario``: JSON text, or ``@file`` holding it."""
    source = Path(arg[1:]).read_text() if arg[:1] == "@" else arg
    try:
        return json.loads(source)
    except json.JSONDecodeError as e:
        raise OptionError(f"--scenario is not JSON: {e}") from None


def main(argv=None) -> int:
    p = _Parser(prog="python -m groupcheck.conform.roles.consumer_client.main_848", description=__doc__)
    p.add_argument("--client", default="librdkafka", help=" | ".join(CLIENTS) + " (broken ones: judge self-test)")
    p.add_argument("--coordinator", action="store_true", help="compare the mock coordinator with the model's")
    p.add_argument("--profile", default="kafka-4.1", help="the model coordinator's profile for --coordinator")
    defaults = Options()
    for name in NUMBERS:
        value = getattr(defaults, name)
        p.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    p.add_argument("--scenario", help="run one scenario: a JSON list of operations, or @file.json")
    p.add_argument("--out", default=defaults.out)
    a = p.parse_args(argv)
    out = Path(a.out)
    try:
        if a.coordinator:
            from ..group_coordinator.compare_848 import main as compare_main
            return compare_main(a.profile, out, print)
        scenario = None if a.scenario is None else _scenario(a.scenario)
        opts = Options(**{n: getattr(a, n) for n in NUMBERS}, out=a.out, scenario=scenario)
        report = run(a.client, opts, progress=lambda s: print(s, flush=True))
    except (OptionError, OSError, ValueError, KeyboardInterrupt) as e:
        stopped = isinstance(e, KeyboardInterrupt)
        print("interrupted before any scenario ran" if stopped else f"error: {e}", file=sys.stderr)
        return 130 if stopped else 2
    save(report, out)
    print(report.text(), end="")
    print(f"verdict written to {out / 'verdict.txt'} and {out / 'verdict.json'}")
    return exit_code(report)


if __name__ == "__main__":
    sys.exit(main())
