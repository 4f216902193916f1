"""groupcheck campaign on Spark (local mode, small): the same results as the local
engine, and a task that fails and is retried changes nothing."""
from __future__ import annotations

import os

import pytest

from groupcheck.campaign import output
from groupcheck.campaign.engine import run_campaign, spark_session
from groupcheck.protocols import variant_job

pytestmark = [pytest.mark.spark, pytest.mark.slow]

WALKS, LENGTH = 40, 40
DATASETS = ("coverage", "violations", "distinct")


@pytest.fixture(scope="module")
def spark():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # local[2,3]: two threads, a task may fail up to 3 times
    session = spark_session("local[2,3]", {"spark.task.maxFailures": "3"})
    yield session
    session.stop()


@pytest.fixture(scope="module")
def variant():
    job = variant_job("KAFKA-20442")
    return job.protocol.name, job.protocol.model.view.scope_to_dict(job.scope)


@pytest.fixture(scope="module")
def local(variant, tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    results = run_campaign(*variant, None, range(WALKS), LENGTH, out)
    output.finish(out, results)
    return out, results


def _same(a, b):
    (out_a, ra), (out_b, rb) = a, b
    for name in DATASETS:
        assert output.read(out_a, name) == output.read(out_b, name), name
    assert (ra.walks, ra.steps, ra.distinct_states, ra.new_states, ra.kind_counts, ra.depths) == \
        (rb.walks, rb.steps, rb.distinct_states, rb.new_states, rb.kind_counts, rb.depths)
    assert ra.violations == rb.violations and ra.distinct == rb.distinct


def test_spark_finds_what_the_local_engine_finds(spark, variant, local, tmp_path):
    seen = []
    results = run_campaign(*variant, None, range(WALKS), LENGTH, tmp_path, engine="spark", partitions=3,
                           progress=lambda w, v: seen.append(w))
    output.finish(tmp_path, results)
    assert (tmp_path / "coverage" / "_SUCCESS").exists()          # Spark wrote the dataset
    assert results.distinct and results.violations
    _same(local, (tmp_path, results))


def test_a_retried_task_changes_nothing(spark, variant, local, tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    out = tmp_path / "run"
    results = run_campaign(*variant, None, range(WALKS), LENGTH, out, engine="spark", partitions=4, batch=25,
                           spark_conf={"groupcheck.test.failFirstAttempt": str(marks)})
    output.finish(out, results)
    failed = sorted(p.name for p in marks.iterdir())
    assert len(failed) == 8, failed           # every walk task of both batches failed once, and was retried
    _same(local, (out, results))
