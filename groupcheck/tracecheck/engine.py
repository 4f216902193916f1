"""Run trace validation over many groups: in-process (``local``) or on Spark, then write
the verdict table (``verdicts.parquet``) and the report (``report.html``), each written
whole (``groupcheck.outputs``); the report through an autoescaping template.

Both engines judge each group with ``judge`` and sort the rows by group, so they give the
same table (but for ``seconds``). Spark reads the lines as text (JSON lines) or the
``group, seq, event`` columns (Parquet), groups them by ``group`` with the events sorted by
``seq``, spreads the groups over ``4 x defaultParallelism`` partitions (adaptive execution
would coalesce them by bytes into one) and validates each group in the Python workers
(``mapPartitions``).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Callable, Iterable

from groupcheck.model.scopes import shorten

from .. import protocols
from ..files import InputError
from ..outputs import atomic_write_bytes, atomic_write_text
from ..render import figure_html, page
from .history import Group, assemble, lines, parse_line, read
from .observe import UnknownKind, observation
from .validate import validate

COLUMNS = ("group", "protocol", "verdict", "events", "explained", "first_unexplained", "violations",
           "violation_detail", "path", "states", "beyond_bounds", "seconds", "cut", "error")
VERDICTS = ("valid", "invalid", "unknown", "error")


def judge(g: Group, max_states: int, max_seconds: float | None, budget=None) -> dict:
    """One group's verdict row (``budget``: a ``checker.Budget`` a signal may interrupt)."""
    row = dict.fromkeys(COLUMNS)
    row.update(group=g.group, protocol=g.protocol, events=len(g.events), explained=0, violations=[], states=0,
               seconds=0.0)
    try:
        protocol = protocols.get(g.protocol)
        scope = protocol.model.view.scope_from_dict(g.scope)
    except Exception as e:       # an unknown protocol, a scope the model rejects
        row.update(verdict="error", error=shorten(f"{type(e).__name__}: {e}", 400))
        return row
    history = []
    for e in g.events:
        try:
            history.append(observation(protocol, e))
        except UnknownKind as bad:
            row.update(verdict="error", error=f"seq {e['seq']}: {bad}")
            return row
    r = validate(g.protocol, protocol.model, scope, history, max_states=max_states, max_seconds=max_seconds,
                 budget=budget)
    row.update(verdict=r.verdict, explained=r.explained, violations=r.properties, states=r.states,
               seconds=round(r.seconds, 6), cut=r.cut, beyond_bounds=r.beyond,
               first_unexplained=None if r.first_unexplained is None else json.dumps(
                   {**r.first_unexplained, "seq": g.events[r.first_unexplained["index"]]["seq"]}, sort_keys=True),
               violation_detail=json.dumps(r.violations, sort_keys=True) if r.violations else None,
               path=None if r.path is None else json.dumps(r.path))
    return row


def failed(rows: list[dict]) -> bool:
    return any(r["verdict"] == "invalid" or r["violations"] for r in rows)


def run_local(paths: Iterable[Path], max_states: int, max_seconds: float | None = None,
              progress: Callable[[int, int], None] | None = None, budget=None) -> list[dict]:
    """The rows of the groups judged, ``progress(judged, groups read)`` after each: once
    ``budget`` (a ``checker.Budget``) is interrupted, the group under way ends ``unknown``
    (cut ``interrupted``) and the rest are not judged."""
    groups = read(paths)
    rows = []
    for i, g in enumerate(groups, start=1):
        rows.append(judge(g, max_states, max_seconds, budget))
        if progress is not None:
            progress(i, len(groups))
        if budget is not None and budget.interrupted:
            break
    return sorted(rows, key=lambda r: r["group"])


def precheck(paths: Iterable[Path]) -> None:
    """Every line parses (the driver reads the input once, so a bad line is named with its
    file and line number before Spark starts)."""
    for path in paths:
        count = 0
        for where, text in lines(Path(path)):
            parse_line(text, where)
            count += 1
        if not count:
            raise InputError(f"{path}: no events")


def _judge_partition(max_states: int, max_seconds: float | None):
    from ..api.custom import trust, trusted
    names = trusted()             # the assignors the driver's command line named

    def run(rows):
        trust(names)
        for row in rows:
            events = []
            try:
                for item in row["events"]:
                    events.append((f"group {row['group']} seq {item['seq']}", json.loads(item["event"])))
                g = assemble(row["group"], events)
            except (InputError, ValueError) as e:
                out = dict.fromkeys(COLUMNS)
                out.update(group=row["group"], verdict="error", error=str(e), events=len(row["events"]), explained=0,
                           violations=[], states=0, seconds=0.0)
                yield out
                continue
            yield judge(g, max_states, max_seconds)
    return run


def spark_session(master: str = "local[*]"):
    """A Spark session for trace-check; BadMaster (one line) when Spark cannot run on
    ``master`` (``groupcheck.sparksession``)."""
    from ..sparksession import ROOT, start
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return start(master, "groupcheck-trace-check", {
        "spark.ui.enabled": "false", "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.shuffle.partitions": "64",     # the Python workers import groupcheck and model from here
        "spark.executorEnv.PYTHONPATH": os.pathsep.join(paths if ROOT in paths else [ROOT, *paths])})


def run_spark(paths: Iterable[Path], max_states: int, max_seconds: float | None = None, master: str = "local[*]",
              spark=None, check_input: bool = True) -> list[dict]:
    paths = [Path(p) for p in paths]
    if check_input:
        precheck(paths)
    from pyspark.sql import SparkSession
    mine = spark is None and SparkSession.getActiveSession() is None    # a session this call starts, it stops
    spark = spark or spark_session(master)
    try:
        return _on_spark(spark, paths, max_states, max_seconds)
    finally:
        if mine:
            spark.stop()


def _on_spark(spark, paths: list[Path], max_states: int, max_seconds: float | None) -> list[dict]:
    from pyspark.sql import functions as F
    frames = []
    text = [str(p) for p in paths if p.suffix != ".parquet"]
    parquet = [str(p) for p in paths if p.suffix == ".parquet"]
    if text:
        df = spark.read.text(text).where(F.trim("value") != "")
        frames.append(df.select(F.get_json_object("value", "$.group").alias("group"),
                                F.get_json_object("value", "$.seq").cast("long").alias("seq"),
                                F.col("value").alias("event")))
    if parquet:
        frames.append(spark.read.parquet(*parquet).select("group", F.col("seq").cast("long"), "event"))
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other)
    grouped = df.groupBy("group").agg(F.sort_array(F.collect_list(F.struct("seq", "event"))).alias("events"))
    # validation is CPU work on little data: adaptive execution coalesces the grouped rows into
    # as few partitions as their bytes need (one, for a few hundred groups), so spread them again
    rdd = grouped.rdd
    want = spark.sparkContext.defaultParallelism * 4
    if rdd.getNumPartitions() < want:
        rdd = rdd.repartition(want)
    rows = rdd.mapPartitions(_judge_partition(max_states, max_seconds)).collect()
    return sorted(rows, key=lambda r: r["group"])


def write_verdicts(rows: list[dict], path: Path, *, force: bool = True) -> None:
    """verdicts.parquet, written whole (``outputs.atomic_write_bytes``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    schema = pa.schema([("group", pa.string()), ("protocol", pa.string()), ("verdict", pa.string()),
                        ("events", pa.int64()), ("explained", pa.int64()), ("first_unexplained", pa.string()),
                        ("violations", pa.list_(pa.string())), ("violation_detail", pa.string()),
                        ("path", pa.string()), ("states", pa.int64()), ("beyond_bounds", pa.int64()),
                        ("seconds", pa.float64()),
                        ("cut", pa.string()), ("error", pa.string())])
    table = pa.Table.from_pylist([{c: r.get(c) for c in COLUMNS} for r in rows], schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    atomic_write_bytes(path, sink.getvalue().to_pybytes(), force=force)


def summary(rows: list[dict]) -> dict:
    by: dict = {}
    props: dict = {}
    for r in rows:
        by.setdefault(r["protocol"] or "?", dict.fromkeys(VERDICTS, 0))[r["verdict"]] += 1
        for p in r["violations"] or ():
            props[p] = props.get(p, 0) + 1
    return {"verdicts": by, "violations": dict(sorted(props.items(), key=lambda kv: -kv[1]))}


def write_report(rows: list[dict], path: Path, title: str = "groupcheck trace-check", *, force: bool = True) -> None:
    """A self-contained HTML page (plotly.js inlined): verdicts by protocol, time per group,
    violated properties; the template ``trace_check_report.html`` escapes every value."""
    import plotly.graph_objects as go
    s = summary(rows)
    colours = {"valid": "#2ca02c", "invalid": "#d62728", "unknown": "#ff7f0e", "error": "#7f7f7f"}
    protos = sorted(s["verdicts"])
    verdicts = go.Figure([go.Bar(name=v, x=protos, y=[s["verdicts"][p][v] for p in protos], marker_color=colours[v])
                          for v in VERDICTS])
    verdicts.update_layout(barmode="stack", title="Verdicts by protocol", yaxis_title="groups")
    times = go.Figure([go.Histogram(x=[r["seconds"] * 1000 for r in rows if r["protocol"] == p], name=p, opacity=0.7)
                       for p in protos])
    times.update_layout(barmode="overlay", title="Validation time per group", xaxis_title="ms", yaxis_title="groups")
    props = go.Figure([go.Bar(x=list(s["violations"]), y=list(s["violations"].values()), marker_color="#d62728")])
    props.update_layout(title="Properties broken (groups)", yaxis_title="groups")
    shown = 200
    bad = [r for r in rows if r["verdict"] != "valid" or r["violations"]][:shown]
    html = page("trace_check_report.html", title=title, total=len(rows), generated=time.strftime("%Y-%m-%d %H:%M:%S"),
                figures=figure_html((verdicts, times, props)), shown=shown, rows=bad)
    atomic_write_text(path, html, force=force)
