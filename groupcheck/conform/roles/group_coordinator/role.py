"""The group-coordinator role as the CLI runs it: paths of the consumer model replayed as
requests against a coordinator, its responses compared with the model's
(``campaign.main``); ``--coordinator pkg.module:Class`` names an in-process coordinator
class. ``librdkafka-mock-consumer-protocol``: the mock's ConsumerGroupHeartbeat answers
against the KIP-848 model coordinator's (``compare_848``, its own verdict)."""
from __future__ import annotations

from groupcheck.console import err, fail, out
from groupcheck.outputs import folder_for_command

from .. import Request, ScenarioRole
from .targets import CONSUMER_PROTOCOL_COORDINATORS

SCENARIOS = 100         # paths replayed per target, by default (about 3.5 s each on librdkafka's mock)


def command(req: Request) -> int:
    if req.assignor:
        raise fail("--role group-coordinator: give your coordinator class with --coordinator pkg.module:Class")
    out_dir = folder_for_command(req.out_dir, force=req.force)
    say = lambda text: out.print(text, markup=False, highlight=False)  # noqa: E731
    if req.targets and all(t in CONSUMER_PROTOCOL_COORDINATORS for t in req.targets):
        from .compare_848 import main as compare_main
        return compare_main("kafka-4.1", out_dir / "conform" / req.targets[0], say=say, max_seconds=req.max_seconds)
    from .campaign import Options, main

    opts = Options(scenarios=req.scenarios or SCENARIOS, seed=req.seed, max_seconds=req.max_seconds or 600.0,
                   out=out_dir)
    chosen = [*req.targets, *([f"kafka:{req.bootstrap}"] if req.bootstrap else [])]   # --bootstrap HOST:PORT
    return main(chosen, req.adapter, req.coordinator, opts, req.timeout,
                progress=lambda line: err.print(line, markup=False, highlight=False), say=say)


ROLE = ScenarioRole("group-coordinator", command)
