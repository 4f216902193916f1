"""``python -m groupcheck.conform.roles.consumer_client``: a conformance campaign of librdkafka's
consumer on its mock cluster. Exit 0: every property held or was not exercised; 1: a
property was violated; 2: bad input; 3: a limit stopped it before the last scenario;
130: interrupted (what was found is reported)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ....outputs import atomic_write_text
from .campaign import OptionError, Options, run


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # exit 2 with one line, as groupcheck does
        self.exit(2, f"error: {message}\n")


def main(argv=None) -> int:
    p = _Parser(prog="python -m groupcheck.conform.roles.consumer_client", description=__doc__)
    p.add_argument("--assignor", default="cooperative-sticky",
                   help="range | roundrobin | cooperative-sticky, or CLIENT:ASSIGNOR with a broken client "
                        "(skips-revoke, ignores-lost) for the judge's self-test")
    p.add_argument("--scenarios", type=int, default=10)
    p.add_argument("--max-seconds", type=float, default=600.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--members", type=int, default=3)
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--max-ops", type=int, default=5)
    p.add_argument("--session-timeout-ms", type=int, default=4000)
    p.add_argument("--max-poll-interval-ms", type=int, default=5000)
    p.add_argument("--shrink-seconds", type=float, default=180.0)
    p.add_argument("--scenario", help="run one scenario: a JSON list of operations, or @file.json")
    p.add_argument("--out", default="groupcheck-out/conform-librdkafka")
    a = p.parse_args(argv)
    try:
        scenario = None
        if a.scenario is not None:
            text = Path(a.scenario[1:]).read_text() if a.scenario.startswith("@") else a.scenario
            try:
                scenario = json.loads(text)
            except json.JSONDecodeError as e:
                raise OptionError(f"--scenario is not JSON: {e}") from None
        opts = Options(scenarios=a.scenarios, max_seconds=a.max_seconds, seed=a.seed, members=a.members,
                       partitions=a.partitions, max_ops=a.max_ops, session_timeout_ms=a.session_timeout_ms,
                       max_poll_interval_ms=a.max_poll_interval_ms, shrink_seconds=a.shrink_seconds,
                       out=a.out, scenario=scenario)
        report = run(a.assignor, opts, progress=lambda s: print(s, flush=True))
    except (OptionError, OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted before any scenario ran", file=sys.stderr)
        return 130
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "verdict.json", json.dumps(report.to_json(), indent=1) + "\n", force=True)
    atomic_write_text(out / "verdict.txt", report.text(), force=True)
    print(report.text(), end="")
    print(f"verdict written to {out / 'verdict.txt'} and {out / 'verdict.json'}")
    if report.stopped == "interrupted":
        return 130
    if report.divergences or any(report.verdict(p) == "violated" for p in report.per_property):
        return 1
    return 3 if report.stopped else 0


if __name__ == "__main__":
    sys.exit(main())
