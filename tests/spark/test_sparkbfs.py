"""BFS on Spark (``groupcheck check --engine spark``, local[2], small scopes): the same
distinct state counts and depths as the in-process BFS, and on known bugs the same
violated property at the same (shortest) depth, along a path that replays to it."""
from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from groupcheck import checker, sparkbfs
from groupcheck.cli import app
from groupcheck.protocols import get, variant_job
from groupcheck.regression import violation_along

pytestmark = [pytest.mark.spark, pytest.mark.slow]


@pytest.fixture(scope="module")
def spark():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    session = sparkbfs.session("local[2]")
    yield session
    session.stop()


def _both(protocol: str, scope):
    model = get(protocol).model
    local = checker.bfs(model, scope)
    # a bounded search: were states seen before not told apart, it would loop, not hang the suite
    on_spark = sparkbfs.spark_bfs(protocol, model.view.scope_to_dict(scope), master="local[2]", partitions=2,
                                  max_states=4 * local.states)
    return local, on_spark


def test_fingerprints_do_not_depend_on_object_sharing():
    """Equal canonical states get equal fingerprints however their objects are shared
    (a state unpickled on a worker shares nothing with one ``step`` built)."""
    a, b = "C" + str(1), "C" + str(1)
    assert a is not b
    assert sparkbfs.fingerprint(((a, a), 1)) == sparkbfs.fingerprint(((a, b), 1))


def test_same_states_and_depth_as_in_process_bfs(spark):
    # a scope whose states are reached again at greater depths: the anti-join matters
    local, on_spark = _both("consumer-group", get("consumer-group").default_scopes()["lost-response"])
    assert local.complete and on_spark.complete
    assert (on_spark.states, on_spark.depth, on_spark.transitions) == (local.states, local.depth, local.transitions)
    assert on_spark.witnessed == local.witnessed
    assert "can_settle" not in on_spark.checked and on_spark.violation is None


@pytest.mark.parametrize("key", ["KAFKA-20442", "KAFKA-8649"])
def test_known_bug_same_violation_at_the_same_depth_and_the_path_replays(spark, key):
    job = variant_job(key)
    local, on_spark = _both(job.protocol.name, job.scope)
    assert on_spark.violation is not None
    assert (on_spark.violation.property, on_spark.depth) == (local.violation.property, local.depth)
    found = violation_along(job.protocol.model, job.scope, on_spark.violation.path)
    assert (found.property, found.step) == (local.violation.property, local.depth)


def test_cli_engine_spark_reports_the_in_process_state_count(spark):
    protocol = get("streams-group")
    scope = protocol.default_scopes()["one-process"]
    expected = checker.bfs(protocol.model, scope).states
    result = CliRunner().invoke(app, ["check", "streams-group", "--scope", json.dumps(protocol.model.view.scope_to_dict(scope)),
                                      "--engine", "spark", "--master", "local[2]", "--walks", "0",
                                      "--max-states", str(4 * expected)])
    assert result.exit_code == 0, result.output
    assert f"{expected:,}" in result.output


@pytest.mark.parametrize("args", [["--engine", "sprak"], ["--engine", "spark", "--master", "nowhere["],
                                  ["--engine", "spark", "--exact"]])
def test_cli_bad_engine_or_master_exits_2(args):
    result = CliRunner().invoke(app, ["check", "streams-group", "--walks", "0", *args])
    assert result.exit_code == 2, result.output
