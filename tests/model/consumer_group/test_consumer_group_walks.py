"""Seeded swarm walks over every consumer-group reference scope, and the command line on the
consumer-group protocol: check with scopes, profiles and variants; bad input exits 2 with a
message naming what was wrong."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from groupcheck.checker import walks
from groupcheck.cli import app
from groupcheck.protocols.consumer_group import reference_scopes
from groupcheck.model.consumer_group import MODEL

SCOPES = reference_scopes()
runner = CliRunner()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCOPES))
def test_every_property_holds_over_200_seeded_walks(name):
    report = walks(MODEL, SCOPES[name], seed=848, count=200, length=60, swarm=True)
    assert report.violation is None, report.violation
    assert report.complete and report.walks == 200
    assert "no_deadlock" in report.checked and "converges_within_k" in report.checked


def test_walks_replay_by_seed():
    scope = SCOPES["timeouts"]
    a, b = (walks(MODEL, scope, seed=7, count=20, length=60) for _ in range(2))
    assert (a.states, a.depth) == (b.states, b.depth)


def run(*args):
    result = runner.invoke(app, list(args))
    return result, " ".join(result.output.split())


def test_check_consumer_group_on_a_small_scope_passes():
    result, text = run("check", "consumer-group", "--scope", '{"members": 2, "partitions": [2]}', "--walks", "0")
    assert result.exit_code == 0, result.output
    assert "consumer-group" in text and "PASSED" in text


def test_check_a_variant_reports_its_violation():
    result, text = run("check", "--variant", "KAFKA-20442", "--walks", "0")
    assert result.exit_code == 1, result.output
    assert "empty_epochs_equal" in text


@pytest.mark.parametrize("args, message", [
    (["check", "consumer-group", "--profile", "kafka-9.9"], "unknown profile 'kafka-9.9' for consumer-group"),
    (["check", "consumer-group", "--scope", '{"members": 9}'], "scope.members: 9 is outside 1..4"),
    (["check", "consumer-group", "--scope", '{"assignor": 3}'], "scope.assignor: expected a string"),
    (["check", "consumer-group", "--scope", '{"switches": ["kafka-1"]}'], "scope.switches[0]: unknown switch 'kafka-1'"),
    (["check", "consumer-group", "--scope", '{"faults": ["meteor"]}'], "scope.faults: unknown fault 'meteor'"),
    (["check", "consumer-group", "--tasks", "2"], "--tasks does not apply to consumer-group"),
    (["check", "consumer-group", "--variant", "KAFKA-14639"], "KAFKA-14639 is a consumer variant"),
])
def test_bad_consumer_group_options_exit_2_with_a_clear_message(args, message):
    result, text = run(*args)
    assert result.exit_code == 2, (args, result.output)
    assert message in text, (args, result.output)
    assert "Traceback" not in result.output
