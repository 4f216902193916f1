"""groupcheck's command line: check, replay, regression, list, upgrade-plan (one module each).

Exit codes: 0 every property held; 1 a property was violated (the counterexample is
written first); 2 bad options or files.
"""
from __future__ import annotations

import typer

from . import upgrade_plan
from .commands import check, listing, regression, replay
from .commands.guard import user_code_errors

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Check Kafka group rebalance protocols against their KIPs.")
app.command(name="check")(user_code_errors(check.check))
app.command(name="replay")(user_code_errors(replay.command))
# groupcheck regression TRACE -o tests/test_x.py: a counterexample as a pytest regression test
app.command(name="regression")(user_code_errors(regression.command))
app.command(name="list")(listing.command)
# groupcheck upgrade-plan --from 0.10.2 --to 3.9: is a Kafka Streams rolling upgrade safe?
app.command(name="upgrade-plan")(upgrade_plan.command)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
