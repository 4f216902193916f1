"""``python -m groupcheck.conform.librdkafka_848``: real librdkafka consumers with
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

from ..librdkafka.campaign import OptionError
from .campaign import CLIENTS, Options, exit_code, run


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"error: {message}\n")


def main(argv=None) -> int:
    p = _Parser(prog="python -m groupcheck.conform.librdkafka_848", description=__doc__)
    p.add_argument("--client", default="librdkafka", help=" | ".join(CLIENTS) + " (broken ones: judge self-test)")
    p.add_argument("--coordinator", action="store_true", help="compare the mock coordinator with the model's")
    p.add_argument("--profile", default="kafka-4.1", help="the model coordinator's profile for --coordinator")
    p.add_argument("--scenarios", type=int, default=10)
    p.add_argument("--max-seconds", type=float, default=600.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--members", type=int, default=3)
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--max-ops", type=int, default=6)
    p.add_argument("--session-timeout-ms", type=int, default=3000)
    p.add_argument("--heartbeat-interval-ms", type=int, default=300)
    p.add_argument("--max-poll-interval-ms", type=int, default=5000)
    p.add_argument("--shrink-seconds", type=float, default=180.0)
    p.add_argument("--scenario", help="run one scenario: a JSON list of operations, or @file.json")
    p.add_argument("--out", default="groupcheck-out/conform-librdkafka-consumer-protocol")
    a = p.parse_args(argv)
    out = Path(a.out)
    try:
        if a.coordinator:
            from .compare import main as compare_main
            return compare_main(a.profile, out, print)
        scenario = None
        if a.scenario is not None:
            text = Path(a.scenario[1:]).read_text() if a.scenario.startswith("@") else a.scenario
            try:
                scenario = json.loads(text)
            except json.JSONDecodeError as e:
                raise OptionError(f"--scenario is not JSON: {e}") from None
        opts = Options(scenarios=a.scenarios, max_seconds=a.max_seconds, seed=a.seed, members=a.members,
                       partitions=a.partitions, max_ops=a.max_ops, session_timeout_ms=a.session_timeout_ms,
                       heartbeat_interval_ms=a.heartbeat_interval_ms, max_poll_interval_ms=a.max_poll_interval_ms,
                       shrink_seconds=a.shrink_seconds, out=a.out, scenario=scenario)
        report = run(a.client, opts, progress=lambda s: print(s, flush=True))
    except (OptionError, OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted before any scenario ran", file=sys.stderr)
        return 130
    out.mkdir(parents=True, exist_ok=True)
    (out / "verdict.json").write_text(json.dumps(report.to_json(), indent=1) + "\n")
    (out / "verdict.txt").write_text(report.text())
    print(report.text(), end="")
    print(f"verdict written to {out / 'verdict.txt'} and {out / 'verdict.json'}")
    return exit_code(report)


if __name__ == "__main__":
    sys.exit(main())
