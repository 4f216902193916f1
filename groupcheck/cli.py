"""groupcheck's command line: check, replay, regression, explore, list, upgrade-plan, conform, campaign,
trace-check, spec (one module each).

Exit codes (every command; ``console`` names them; docs/exit-codes.md gives what each
means for each command):

    0    passed: every property held (and every known bug of the main job was caught)
    1    failed: a property was violated (the counterexample is written first), a
         known bug's expected violation was not found, or a divergence was found
    2    bad options or files (the message names what was wrong)
    3    not proved: nothing was violated, but a limit (--max-states, --max-seconds,
         --max-memory) cut a search, or a scope is weak (a witness in its reach not
         reached, or fewer than 100 states)
    130  interrupted by SIGINT (Ctrl-C): the summary of what was explored is printed and
         the counterexamples found are written
    143  interrupted by SIGTERM: the same
"""
from __future__ import annotations

import signal
import sys


def _interrupted_early(signum, frame) -> None:
    """SIGINT or SIGTERM before a command has begun its search (while it starts, reads
    its input or waits on a file): nothing was explored, exit 130 or 143 as documented
    (click alone would print "Aborted!" and exit 1, which means "violation found"). A
    search installs its own handler (``console.interruptible``) that reports what it
    explored."""
    by = " by SIGTERM" if signum == signal.SIGTERM else ""
    print(f"interrupted{by} before any search began: nothing explored", file=sys.stderr, flush=True)
    raise SystemExit(143 if signum == signal.SIGTERM else 130)


signal.signal(signal.SIGINT, _interrupted_early)
signal.signal(signal.SIGTERM, _interrupted_early)

import typer  # noqa: E402

from . import upgrade_plan  # noqa: E402
from .commands import campaign, check, conform, explore, listing, regression, replay, spec, trace_check  # noqa: E402
from .commands.guard import user_code_errors  # noqa: E402

HELP = """Check Kafka group rebalance protocols against their KIPs.

\b
Exit codes (docs/exit-codes.md):
0 passed;
1 a property violated, a known bug not caught, or a divergence;
2 bad options or files;
3 not proved: a limit cut a search, or a scope is weak;
130 interrupted (Ctrl-C, SIGINT);
143 interrupted (SIGTERM)."""

# rich_markup_mode=None: click's plain help, which wraps every option's text within the
# terminal (rich's tables crop long words such as crash,pause,lose_response at 80 columns)
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None, help=HELP)
app.command(name="check")(user_code_errors(check.check))
app.command(name="replay")(user_code_errors(replay.command))
# groupcheck campaign PROTOCOL --walks N [--engine spark]: many seeded walks, deduplicated and shrunk, with a report
app.command(name="campaign")(user_code_errors(campaign.command))
# groupcheck regression TRACE -o tests/test_x.py: a counterexample as a pytest regression test
app.command(name="regression")(user_code_errors(regression.command))
app.command(name="list")(listing.command)
# groupcheck explore TRACE | PROTOCOL: step through, branch from and export states in a local web page
app.command(name="explore")(user_code_errors(explore.command))
# groupcheck conform --target kafka-python:sticky: judge a real implementation by the model's properties
app.command(name="conform")(user_code_errors(conform.conform))
# groupcheck upgrade-plan --from 0.10.2 --to 3.9: is a Kafka Streams rolling upgrade safe?
app.command(name="upgrade-plan")(upgrade_plan.command)
# groupcheck trace-check HISTORY... --out DIR: recorded group histories validated against the model
app.command(name="trace-check")(trace_check.command)
# groupcheck spec check [PROTOCOL] | spec trace TRACE | spec mc CFG | spec tlc [FOLDER|CFG]: the TLA+ specs (specs/)
# cross-checked against the model, run by groupcheck's evaluator or by real TLC
app.add_typer(spec.app, name="spec")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
