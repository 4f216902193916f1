"""Running a campaign: the walks, the deduplication of their violations, the shrinking
of each distinct one; in process (``local``) or as Spark tasks (``spark``), with the
same results.

Each walk is a function of (protocol, scope, seed, length) (``walks.run_walk``), so
what a campaign finds does not depend on how the seeds are split into tasks, and a task
Spark retries recomputes the same rows. The seeds run in batches (one Spark job each):
after Ctrl-C the batch under way finishes and the campaign reports the walks done.
SIGTERM is taken as Ctrl-C. Spark does the scheduling, retries, shuffles (the group-bys) and the writing of the
``violations`` and ``coverage`` datasets; the local engine does the same with a loop,
dicts and pyarrow."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..checker import Budget
from ..protocols import get
from ..stopping import Stopped
from . import output
from .shrink import shrink
from .signature import signature
from .walks import run_walk

ENGINES = ("local", "spark")
BATCH = 2_000       # walks per Spark job: after Ctrl-C the job under way finishes, the rest is not started


@dataclass
class Results:
    protocol: str
    scope: dict
    profile: str | None
    length: int
    seeds: range                                 # the seeds asked for
    engine: str
    walks: int = 0                               # walks run (fewer than asked after Ctrl-C)
    steps: int = 0
    distinct_states: int = 0
    new_states: list[int] = field(default_factory=list)     # by walk index: states first met there
    kind_counts: dict[str, int] = field(default_factory=dict)
    violations: list[dict] = field(default_factory=list)     # every violating walk, by walk index
    distinct: list[dict] = field(default_factory=list)       # one per (property, signature), shrunk
    depths: list[int] = field(default_factory=list)          # steps of each walk, by walk index
    interrupted: bool = False


def violation_row(row: dict, first_seed: int) -> dict | None:
    v = row["violation"]
    if v is None:
        return None
    return {"seed": row["seed"], "walk": row["seed"] - first_seed, "property": v["property"],
            "message": v["message"], "signature": signature(v["property"], v["message"]),
            "depth": v["depth"], "path": v["path"]}


def coverage_row(row: dict, first_seed: int) -> dict:
    v = row["violation"]
    return {"seed": row["seed"], "walk": row["seed"] - first_seed, "steps": row["steps"], "kinds": row["kinds"],
            "action_kinds": row["action_kinds"], "properties": row["properties"],
            "fingerprints": row["fingerprints"], "distinct_states": len(row["fingerprints"]),
            "violated": v["property"] if v else None}


def shrink_one(protocol: str, scope: dict, item: dict) -> dict:
    """A distinct violation with its shrunk path (a pure function, run as a Spark task)."""
    model = get(protocol).model
    sc = model.view.scope_from_dict(scope)
    s = shrink(model, sc, item["path"], item["property"])
    return {**item, "shrunk_path": s.path, "shrunk_depth": len(s.path) - 1, "shrunk_message": s.message,
            "replays": s.replays}


def _representative(v: dict) -> tuple:
    """Which violating walk stands for its signature: the shortest, then the first seed."""
    return (v["depth"], v["seed"])


def _batches(seeds: range, size: int) -> list[range]:
    return [seeds[i:i + size] for i in range(0, len(seeds), size)]


def run_campaign(protocol: str, scope: dict, profile: str | None, seeds: range, length: int, out: Path, *,
                 engine: str = "local", master: str = "local[*]", partitions: int | None = None,
                 batch: int | None = None, progress: Callable[[int, int], None] | None = None,
                 budget: Budget | None = None, spark_conf: dict | None = None) -> Results:
    """Run the walks of ``seeds``, write ``violations/`` and ``coverage/`` under ``out``,
    shrink each distinct violation; ``progress(walks done, violations found)``."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    results = Results(protocol, scope, profile, length, seeds, engine)
    budget = budget or Budget()
    size = batch or BATCH
    if engine == "local":
        _local(results, seeds, size, out, progress, budget)
    else:
        _spark(results, seeds, size, out, master, partitions, progress, budget, spark_conf or {})
    return results


# ---------------------------------------------------------------- local

def _local(results: Results, seeds: range, size: int, out: Path, progress, budget: Budget) -> None:
    first = seeds.start
    coverage, violations, seen = [], [], set()
    for s in seeds:
        if budget.spent() == "interrupted":
            results.interrupted = True
            break
        try:
            row = run_walk(results.protocol, results.scope, s, results.length)
        except Stopped:         # a signal inside a user's assignor: the walk under way is lost
            results.interrupted = True
            break
        coverage.append(coverage_row(row, first))
        v = violation_row(row, first)
        if v is not None:
            violations.append(v)
        new = [f for f in row["fingerprints"] if f not in seen]
        seen.update(new)
        results.new_states.append(len(new))
        if progress is not None:
            progress(len(coverage), len(violations))
    results.walks = len(coverage)
    results.steps = sum(c["steps"] for c in coverage)
    results.depths = [c["steps"] for c in coverage]
    results.distinct_states = len(seen)
    kinds: dict[str, int] = {}
    for c in coverage:
        for k, n in c["action_kinds"].items():
            kinds[k] = kinds.get(k, 0) + n
    results.kind_counts = dict(sorted(kinds.items()))
    results.violations = violations
    groups: dict[tuple[str, str], list[dict]] = {}
    for v in violations:
        groups.setdefault((v["property"], v["signature"]), []).append(v)
    distinct = []
    for (prop, sig), vs in sorted(groups.items()):
        rep = min(vs, key=_representative)
        distinct.append({"property": prop, "signature": sig, "count": len(vs), "first_walk": min(v["walk"] for v in vs),
                         "seed": rep["seed"], "message": rep["message"], "depth": rep["depth"], "path": rep["path"]})
    results.distinct = [shrink_one(results.protocol, results.scope, d) for d in distinct]
    output.write_datasets_local(out, coverage, violations)


# ---------------------------------------------------------------- spark

def spark_session(master: str, conf: dict | None = None):
    """A Spark session for campaigns (no UI: there may be no network); BadMaster (one
    line) when Spark cannot run on ``master`` (``groupcheck.sparksession``)."""
    from ..sparksession import start
    return start(master, "groupcheck-campaign", {
        "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "8", "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.showConsoleProgress": "false", **(conf or {})})


def _walk_partition(protocol: str, scope: dict, length: int, fail_first_attempt: str | None):
    def run(seeds):
        seeds = list(seeds)
        if fail_first_attempt:     # tests: the first attempt of every task fails after its walks, Spark retries it
            from pyspark import TaskContext
            ctx = TaskContext.get()
            if ctx is not None and ctx.attemptNumber() == 0:
                rows = [run_walk(protocol, scope, s, length) for s in seeds]   # the work done, then lost
                marker = Path(fail_first_attempt) / f"stage{ctx.stageId()}-part{ctx.partitionId()}-walks{len(rows)}"
                marker.touch()
                raise RuntimeError("injected failure on a task's first attempt")
        for s in seeds:
            yield run_walk(protocol, scope, s, length)
    return run


def _spark(results: Results, seeds: range, size: int, out: Path, master: str, partitions: int | None,
           progress, budget: Budget, conf: dict) -> None:
    from pyspark.sql import functions as F

    conf = dict(conf)
    # tests: a folder where the first attempt of each walk task leaves a mark before it fails
    fail_first = conf.pop("groupcheck.test.failFirstAttempt", None)
    spark = spark_session(master, conf)
    sc = spark.sparkContext
    first = seeds.start
    walks_done, found = sc.accumulator(0), sc.accumulator(0)
    protocol, scope, length = results.protocol, results.scope, results.length

    def count(row):
        walks_done.add(1)
        if row["violation"] is not None:
            found.add(1)
        return row

    stop = threading.Event()

    def poll():
        while not stop.wait(0.2):
            if progress is not None:
                progress(walks_done.value, found.value)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    done = []
    try:
        for b in _batches(seeds, size):
            if budget.spent() == "interrupted":
                results.interrupted = True
                break
            rdd = (sc.parallelize(list(b), partitions or sc.defaultParallelism)
                   .mapPartitions(_walk_partition(protocol, scope, length, fail_first)).map(count).cache())
            rdd.count()
            done.append(rdd)
    finally:
        stop.set()
        poller.join()
    rows = sc.union(done) if done else sc.parallelize([], 1)
    coverage = spark.createDataFrame(rows.map(lambda r: coverage_row(r, first)), output.spark_schema("coverage"))
    violations = spark.createDataFrame(rows.flatMap(lambda r: [v for v in [violation_row(r, first)] if v]),
                                       output.spark_schema("violations"))
    output.write_datasets_spark(out, coverage, violations)
    coverage = spark.read.parquet(str(out / "coverage"))
    violations = spark.read.parquet(str(out / "violations"))
    totals = coverage.agg(F.count("*").alias("walks"), F.sum("steps").alias("steps")).first()
    results.walks, results.steps = totals["walks"], totals["steps"] or 0
    results.depths = [r["steps"] for r in coverage.select("walk", "steps").orderBy("walk").collect()]
    # distinct states: each fingerprint counted at the first walk that met it
    firsts = (coverage.select("walk", F.explode("fingerprints").alias("fp")).groupBy("fp")
              .agg(F.min("walk").alias("walk")).groupBy("walk").count().collect())
    new = [0] * results.walks
    for r in firsts:
        new[r["walk"]] = r["count"]
    results.new_states = new
    results.distinct_states = sum(new)
    kinds = (coverage.select(F.explode("action_kinds").alias("kind", "n")).groupBy("kind")
             .agg(F.sum("n").alias("n")).collect())
    results.kind_counts = dict(sorted((r["kind"], r["n"]) for r in kinds))
    results.violations = [r.asDict() for r in violations.orderBy("walk").collect()]
    reps = (violations.groupBy("property", "signature")
            .agg(F.count("*").alias("count"), F.min("walk").alias("first_walk"),
                 F.min_by("seed", F.struct("depth", "seed")).alias("seed")))
    distinct = (reps.join(violations.select("seed", "message", "depth", "path"), "seed")
                .orderBy("property", "signature").collect())
    items = [{"property": r["property"], "signature": r["signature"], "count": r["count"],
              "first_walk": r["first_walk"], "seed": r["seed"], "message": r["message"], "depth": r["depth"],
              "path": list(r["path"])} for r in distinct]
    if items:
        results.distinct = (sc.parallelize(items, min(len(items), sc.defaultParallelism))
                            .map(lambda d: shrink_one(protocol, scope, d)).collect())
    for rdd in done:
        rdd.unpersist()
