"""`groupcheck list` shows every property's whole KIP quote and a table of behaviour
profiles with the known bugs they ship; every command's --help fits 80 columns."""
from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.commands.listing import _profiles, _variants
from groupcheck.protocols import PROTOCOLS, get

runner = CliRunner()


def test_list_prints_the_whole_kip_quote_of_every_property():
    result = runner.invoke(app, ["list"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for name in PROTOCOLS:
        for prop in get(name).model.properties:
            assert f"{prop.name} ({prop.kind}) {' '.join(prop.doc.split())}" in text, prop.name


def _rows(protocol: str) -> dict[str, list[str]]:
    """The profile table's rows, by profile, rendered wide enough not to wrap."""
    console = Console(file=io.StringIO(), width=400)
    console.print(_profiles(get(protocol), _variants()[protocol]))
    rows = {}
    for line in console.file.getvalue().splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells and cells[0]:
            rows[cells[0]] = cells[1:]
    return rows


def test_the_profile_tables_name_what_each_profile_means_and_the_bugs_it_ships():
    consumer = _rows("consumer")
    # the reference ships the record layer's finding (Kafka's own rules, issue 30)
    assert consumer["kafka-3.5+"] == ["Kafka 3.5 and later: the reference", "-", "cooperative-auto-commit-redelivers"]
    assert consumer["kafka-3.1-3.4"][1:] == ["claim_resolution=highest-generation-only", "KAFKA-14639"]
    assert consumer["kafka-3.0.0"][1:] == ["claim_resolution=highest-generation-only, validate_builtin=true",
                                           "KAFKA-13406"]
    assert consumer["kafka-2.4-2.8"][1:] == [
        "claim_resolution=trust-all, validate_builtin=true, fenced_clears_owned=false", "KAFKA-12984"]
    streams = _rows("streams-classic")
    assert set(streams) == set(get("streams-classic").profiles)
    assert streams["kip-268"][1:] == ["probing=kip-268", "-"]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["", "check", "replay", "list", "upgrade-plan", "conform"])
def test_help_is_readable_at_80_columns(command):
    # a real process: typer's test runner formats help differently from a terminal
    env = {k: v for k, v in os.environ.items() if k not in ("TERMINAL_WIDTH", "FORCE_COLOR")}
    args = [sys.executable, "-m", "groupcheck.cli", *([command] if command else []), "--help"]
    done = subprocess.run(args, capture_output=True, text=True, env={**env, "COLUMNS": "80"}, check=True)
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, [line for line in lines if len(line) > 80]
    group = typer.main.get_command(app)
    cmd = group.commands[command] if command else group
    for param in cmd.params:
        for opt in param.opts + param.secondary_opts:      # options, and arguments by name
            assert opt in done.stdout, (command, opt)
    assert "…" not in done.stdout     # nothing cropped


def test_list_names_the_checkers_own_claims():
    text = runner.invoke(app, ["list"]).output
    from groupcheck.protocols import PROTOCOLS
    assert text.count("no_deadlock (deadlock, the checker's own)") == len(PROTOCOLS)
    assert text.count("can_settle (liveness, the checker's own)") == len(PROTOCOLS)


def test_list_shows_every_protocols_known_bug_variants():
    text = " ".join(runner.invoke(app, ["list"]).output.split())
    for name in PROTOCOLS:
        for v in get(name).variants:
            assert v.key in text and v.expect in text, (name, v.key)
    assert "streams-group known-bug variants" in text and "KAFKA-19233" in text
