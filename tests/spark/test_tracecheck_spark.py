"""groupcheck trace-check on Spark (local[2], small): the same verdict table as the local
engine, from JSON lines and from Parquet, and through the CLI."""
from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.tracecheck import engine, fleet

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def strip(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


@pytest.fixture(scope="module")
def spark():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    session = engine.spark_session("local[2]")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("fleet")
    fleet.generate(out, 20, seed=4)
    return out


def test_spark_and_local_give_the_same_verdict_table(spark, fleet_dir):
    local = engine.run_local([fleet_dir / "histories.jsonl"], 200_000)
    on_jsonl = engine.run_spark([fleet_dir / "histories.jsonl"], 200_000, spark=spark)
    on_parquet = engine.run_spark([fleet_dir / "histories.parquet"], 200_000, spark=spark)
    assert len(local) == 20
    assert {r["verdict"] for r in local} >= {"valid", "invalid"} and any(r["violations"] for r in local)
    assert strip(on_jsonl) == strip(local)
    assert strip(on_parquet) == strip(local)


def test_the_cli_on_spark_writes_the_same_table(spark, fleet_dir, tmp_path):
    runner = CliRunner()
    a = runner.invoke(app, ["trace-check", str(fleet_dir / "histories.jsonl"), "--out", str(tmp_path / "local")])
    b = runner.invoke(app, ["trace-check", str(fleet_dir / "histories.jsonl"), "--engine", "spark", "--master", "local[2]",
                            "--out", str(tmp_path / "spark")])
    assert a.exit_code == b.exit_code == 1, b.output
    ta = pq.read_table(tmp_path / "local" / "verdicts.parquet").drop(["seconds"])
    tb = pq.read_table(tmp_path / "spark" / "verdicts.parquet").drop(["seconds"])
    assert ta.equals(tb)
