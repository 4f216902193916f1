"""``python -m groupcheck.conform.roles.consumer_client``: a conformance campaign of real
librdkafka consumers on librdkafka's mock cluster, judged by the model's properties.

    --protocol classic    (default) the classic group protocol; ``--assignor`` range |
                          roundrobin | cooperative-sticky, or CLIENT:ASSIGNOR with a broken
                          client (skips-revoke, ignores-lost) for the judge's self-test
    --protocol consumer   ``group.protocol=consumer`` (KIP-848), judged by the consumer-group
                          model's properties; ``--client`` librdkafka or a broken one;
                          ``--coordinator`` compares the mock's ConsumerGroupHeartbeat answers
                          with the model coordinator's (``--profile``) instead

Exit 0: every property held or was not exercised (coordinator: no difference the protocol
fixes); 1: a property was violated (a fixed difference); 2: bad input; 3: a limit stopped
it before the last scenario; 130: interrupted (what was found is kept)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .campaign import CLIENTS, OptionError, Options, Options848, exit_code, run, run_848, save

# the campaign's numeric options, each a --flag (default: the protocol's Options default)
NUMBERS = ("scenarios", "max_seconds", "seed", "members", "partitions", "max_ops", "session_timeout_ms",
           "heartbeat_interval_ms", "max_poll_interval_ms", "shrink_seconds")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # exit 2 with one line, as groupcheck does
        self.exit(2, f"error: {message}\n")


def _scenario(arg: str) -> list:
    """``--scenario``: JSON text, or ``@file`` holding it."""
    source = Path(arg[1:]).read_text() if arg[:1] == "@" else arg
    try:
        return json.loads(source)
    except json.JSONDecodeError as e:
        raise OptionError(f"--scenario is not JSON: {e}") from None


def _parser() -> _Parser:
    p = _Parser(prog="python -m groupcheck.conform.roles.consumer_client", description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--protocol", choices=("classic", "consumer"), default="classic")
    p.add_argument("--assignor", default="cooperative-sticky", help="classic: range | roundrobin | "
                   "cooperative-sticky, or CLIENT:ASSIGNOR with a broken client (judge self-test)")
    p.add_argument("--client", default="librdkafka", help="consumer: " + " | ".join(CLIENTS))
    p.add_argument("--coordinator", action="store_true", help="consumer: compare the mock coordinator with the "
                   "model's")
    p.add_argument("--profile", default="kafka-4.1", help="the model coordinator's profile for --coordinator")
    for name in NUMBERS:
        kind = type(getattr(Options848(), name))
        p.add_argument("--" + name.replace("_", "-"), type=kind, default=None,
                       help=f"default {getattr(Options(), name, None)} (consumer: {getattr(Options848(), name)})")
    p.add_argument("--scenario", help="run one scenario: a JSON list of operations, or @file.json")
    p.add_argument("--out", default=None, help=f"default {Options().out} (consumer: {Options848().out})")
    return p


def main(argv=None) -> int:
    a = _parser().parse_args(argv)
    consumer = a.protocol == "consumer"
    options = Options848 if consumer else Options
    given = {n: getattr(a, n) for n in NUMBERS if getattr(a, n) is not None}
    out = Path(a.out or options().out)
    try:
        if not consumer and "heartbeat_interval_ms" in given:
            raise OptionError("--heartbeat-interval-ms is the consumer protocol's (--protocol consumer)")
        if a.coordinator:
            if not consumer:
                raise OptionError("--coordinator compares the KIP-848 coordinator: give --protocol consumer")
            from ..group_coordinator.compare_848 import main as compare_main
            return compare_main(a.profile, out, print)
        scenario = None if a.scenario is None else _scenario(a.scenario)
        opts = options(**given, out=str(out), scenario=scenario)
        report = (run_848(a.client, opts, progress=lambda s: print(s, flush=True)) if consumer
                  else run(a.assignor, opts, progress=lambda s: print(s, flush=True)))
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
