"""A campaign's run folder:

    violations/      Parquet: every violating walk (seed, walk, property, message, signature, depth, path)
    coverage/        Parquet: every walk (seed, walk, steps, swarm kinds, action-kind counts,
                     properties checked, distinct state fingerprints, the property violated)
    distinct/        Parquet: one row per distinct violation, with its shrunk path
    traces/          the ITF trace (and the story) of each distinct violation, shrunk
    report.html      the report (``report``), one self-contained file
    summary.json     the campaign's inputs and totals, the distinct violations

Spark writes ``violations/`` and ``coverage/`` itself (part files, ``_SUCCESS``); the
local engine writes one part file each with pyarrow, in the same schema. Either reads
back with ``pyarrow.parquet.read_table(folder)``. Each dataset is written under a
temporary name and renamed when complete (``outputs.atomic_folder``), each file through
``outputs.atomic_write_text``: an interrupt leaves no half dataset and no half file."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .. import traces
from ..outputs import atomic_folder, atomic_write_text
from ..protocols import get
from .signature import short

SCHEMAS = {
    "violations": pa.schema([("seed", pa.int64()), ("walk", pa.int64()), ("property", pa.string()),
                             ("message", pa.string()), ("signature", pa.string()), ("depth", pa.int64()),
                             ("path", pa.list_(pa.int64()))]),
    "coverage": pa.schema([("seed", pa.int64()), ("walk", pa.int64()), ("steps", pa.int64()),
                           ("kinds", pa.list_(pa.string())), ("action_kinds", pa.map_(pa.string(), pa.int64())),
                           ("properties", pa.list_(pa.string())), ("fingerprints", pa.list_(pa.int64())),
                           ("distinct_states", pa.int64()), ("violated", pa.string())]),
    "distinct": pa.schema([("property", pa.string()), ("signature", pa.string()), ("count", pa.int64()),
                           ("first_walk", pa.int64()), ("seed", pa.int64()), ("message", pa.string()),
                           ("depth", pa.int64()), ("path", pa.list_(pa.int64())),
                           ("shrunk_depth", pa.int64()), ("shrunk_path", pa.list_(pa.int64())),
                           ("shrunk_message", pa.string()), ("replays", pa.int64()), ("trace", pa.string())]),
}


def spark_schema(name: str):
    """The Spark form of ``SCHEMAS[name]``."""
    from pyspark.sql import types as T

    def convert(t):
        if pa.types.is_int64(t):
            return T.LongType()
        if pa.types.is_string(t):
            return T.StringType()
        if pa.types.is_map(t):
            return T.MapType(convert(t.key_type), convert(t.item_type), True)
        if pa.types.is_list(t):
            return T.ArrayType(convert(t.value_type), True)
        raise TypeError(t)

    return T.StructType([T.StructField(f.name, convert(f.type), True) for f in SCHEMAS[name]])


def _table(name: str, rows: list[dict]) -> pa.Table:
    schema = SCHEMAS[name]
    if name == "coverage":
        rows = [{**r, "action_kinds": list(r["action_kinds"].items())} for r in rows]
    return pa.Table.from_pylist([{f.name: r.get(f.name) for f in schema} for r in rows], schema=schema)


def _write_dataset(folder: Path, table: pa.Table) -> None:
    """One Parquet dataset (one part file), written under a temporary name and renamed;
    an earlier dataset of that name in the run folder (``--force``) is replaced."""
    with atomic_folder(folder, force=True) as tmp:
        pq.write_table(table, tmp / "part-00000.parquet")


def write_datasets_local(out: Path, coverage: list[dict], violations: list[dict]) -> None:
    for name, rows in (("coverage", coverage), ("violations", violations)):
        _write_dataset(out / name, _table(name, rows))


def write_datasets_spark(out: Path, coverage, violations) -> None:
    """Spark writes each dataset into a temporary folder, renamed once it is complete."""
    for name, frame in (("coverage", coverage), ("violations", violations)):
        with atomic_folder(out / name, force=True) as tmp:
            frame.write.mode("overwrite").parquet(str(tmp))


def read(out: Path, name: str) -> list[dict]:
    """A dataset's rows, sorted by walk (or by property and signature)."""
    rows = pq.read_table(out / name, schema=SCHEMAS[name]).to_pylist()
    for r in rows:
        if "action_kinds" in r:
            r["action_kinds"] = dict(r["action_kinds"])
    key = (lambda r: (r["property"], r["signature"])) if name == "distinct" else (lambda r: r["walk"])
    return sorted(rows, key=key)


def write_traces(out: Path, results) -> None:
    """Each distinct violation's shrunk path as an ITF trace and a story; sets ``trace``."""
    protocol = get(results.protocol)
    model = protocol.model
    scope = model.view.scope_from_dict(results.scope)
    for d in results.distinct:
        path = d["shrunk_path"]
        meta = {"profile": getattr(scope, "profile", ""), "seed": d["seed"], "mode": "campaign",
                "violation": {"property": d["property"], "message": d["shrunk_message"],
                              "kind": "deadlock" if d["property"] == "no_deadlock" else
                              model.property(d["property"]).kind},
                "signature": d["signature"]}
        text = traces.story(model, scope, path, f"{d['property']}: {d['shrunk_message']}")
        json_path, _ = traces.write(out / "traces", f"{results.protocol}-{d['property']}-{short(d['signature'])}",
                                    traces.build(model, scope, path, meta), text)
        d["trace"] = str(json_path.relative_to(out))


def summary(results) -> dict:
    return {"protocol": results.protocol, "scope": results.scope, "profile": results.profile,
            "engine": results.engine, "seeds": [results.seeds.start, results.seeds.stop], "length": results.length,
            "walks": results.walks, "steps": results.steps, "distinct_states": results.distinct_states,
            "interrupted": results.interrupted, "violating_walks": len(results.violations),
            "distinct_violations": [{k: d[k] for k in ("property", "signature", "count", "first_walk", "seed",
                                                        "depth", "shrunk_depth", "shrunk_message", "trace")}
                                    for d in results.distinct]}


def finish(out: Path, results) -> dict:
    """Traces, the distinct dataset, report.html and summary.json; returns the summary.
    ``out`` is the run's own folder (``outputs.run_folder``): its files are replaced."""
    from .report import write_report
    out.mkdir(parents=True, exist_ok=True)
    write_traces(out, results)        # traces.write never replaces a trace: a new one gets a new name
    _write_dataset(out / "distinct", _table("distinct", results.distinct))
    write_report(out / "report.html", results)
    s = summary(results)
    atomic_write_text(out / "summary.json", json.dumps(s, indent=1) + "\n", force=True)
    return s
