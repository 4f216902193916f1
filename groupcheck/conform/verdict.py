"""The verdict of a conformance run: per target and property, held / violated / not
exercised with counts; text for the console and JSON for tools; each divergence written
as an ITF trace (``groupcheck/traces.py``) and a runnable pytest regression file."""
from __future__ import annotations

import json
import re
from pathlib import Path

from groupcheck import traces
from groupcheck.outputs import atomic_write_bytes, atomic_write_text

from . import campaign, roles
from .judgements import judgement
from .driver import CHECKER_ONLY, TargetRun
from .recording import NOT_APPLICABLE
from .regression import render

HELD, VIOLATED, NOT_EXERCISED = "held", "violated", "not exercised"


def _invocation_counts(run: TargetRun) -> dict[str, dict[str, int]]:
    """Per per-invocation claim: judged (inputs x round modes it applied to) and violated."""
    rec = run.recorder
    out = {name: {"judged": 0, "violated": 0} for name in _role(run).per_invocation}
    for key, call in rec.calls.items():
        for mode in sorted(call.modes):
            for name, msg in rec.verdicts(key, mode).items():
                if msg == NOT_APPLICABLE:
                    continue
                out[name]["judged"] += 1
                out[name]["violated"] += msg is not None
    return out


def _role(run: TargetRun) -> roles.Role:
    return run.role or roles.get("assignor")


def properties(run: TargetRun) -> list[dict]:
    """One row per property: name, source, status, counts, and the first divergence."""
    rows = []
    found = {}
    for d in (d for s in run.scopes for d in s.divergences):      # every one met, in every scope
        found.setdefault(d.property, []).append(d)
    counts = _invocation_counts(run) if run.recorder else {}
    ran = [s for s in run.scopes if s.reports]
    role = _role(run)
    model_props = [p.name for p in role.model.properties if p.kind != "sometimes"] + list(CHECKER_ONLY)
    for name in model_props + list(role.per_invocation) + ["formed_group_claims"]:
        per_call = name in role.per_invocation
        source = "checker" if name in CHECKER_ONLY else "start" if name == "formed_group_claims" else "model"
        row = {"property": name, "source": "invocation" if per_call else source}
        if per_call:
            row.update(counts.get(name, {"judged": 0, "violated": 0}))
            exercised = row["judged"] > 0
        else:
            scopes = [s for s in ran if name in s.checked or name in {d.property for d in s.divergences}]
            if name == "formed_group_claims":       # judged on the initial states of stable-start scopes
                scopes = [s for s in scopes if s.scope.start == "stable"]
            row["scopes"] = len(scopes)
            row["states"] = sum(r.states for s in scopes for r in s.reports if r.mode == "bfs")
            row["violated"] = len({d.scope_name for d in found.get(name, [])})
            exercised = bool(scopes)
        row["status"] = VIOLATED if name in found or row.get("violated") else (HELD if exercised else NOT_EXERCISED)
        if name in found:
            d = min(found[name], key=lambda d: len(d.path))
            row["divergence"] = {"scope": d.scope_name, "steps": len(d.path) - 1, "message": d.message, "mode": d.mode}
        rows.append(row)
    return rows


def summary(run: TargetRun) -> dict:
    rec = run.recorder
    calls = rec.calls.values() if rec else ()
    return {
        "target": run.target.name, "spec": run.target.key, "note": run.target.note,
        "protocols": list(run.target.protocols), "seconds": round(run.seconds, 2),
        "invocations": rec.invocations if rec else 0, "distinct_inputs": len(rec.calls) if rec else 0,
        "info": rec.info if rec else 0, "failed_inputs": sum(c.outcome.type == "fail" for c in calls),
        "judged_answers": sum(c.outcome.type != "info" for c in calls),
        "info_errors": list(dict.fromkeys(c.outcome.error for c in calls if c.outcome.type == "info"))[:5],
        "states": sum(r.states for s in run.scopes for r in s.reports if r.mode == "bfs"),
        "walk_steps": sum(r.states for s in run.scopes for r in s.reports if r.mode == "walks"),
        "scopes": [{"name": s.name, "not_run": s.not_run, "cut": s.cut, "not_judged": s.not_judged, "info": s.info,
                    "info_steps": s.info_steps,
                    "searches": [{"mode": r.mode, "states": r.states, "complete": r.complete, "cut": r.cut,
                                  "seconds": round(r.seconds, 2)} for r in s.reports]} for s in run.scopes],
        "properties": properties(run),
        "distinct_divergences": len(run.divergences),
        "divergences": [{"property": d.property, "signature": d.signature, "count": d.count, "message": d.message,
                         "scope": d.scope_name, "mode": d.mode, "steps": len(d.path) - 1, "raw_steps": d.raw_length,
                         "found_after_seconds": round(d.found_after, 3),
                         **judgement(run.target.key, d.property, d.signature)} for d in run.divergences],
        "error": run.error,
    }


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:80] or "target"


def _write_divergences(run: TargetRun, model, where: Path, data: dict, written: list) -> None:
    role = _role(run)
    for i, d in enumerate(run.divergences):
        meta = {"profile": d.scope.profile, "mode": d.mode,
                "violation": {"property": d.property, "message": d.message, "kind": "always"},
                "conform": {"target": run.target.key, "role": role.name, "scope_name": d.scope_name}}
        stem = f"{slug(run.target.name)}-{d.scope_name}-{d.property}"
        text = traces.story(model, d.scope, d.path, f"{d.property}: {d.message}")
        itf, txt = traces.write(where, f"{stem}-{i}", traces.build(model, d.scope, d.path, meta), text)
        # the index after the slug (at most 80 characters): two divergences of one claim, two files
        test = where / f"test_{slug(stem).replace('-', '_').replace('.', '_').replace(':', '_')}_{i}.py"
        atomic_write_text(test, render(itf.name, run.target.key, role.scope_to_dict(d.scope), d.path, d.property,
                                       role.name, role.model_words), force=True)
        data["divergences"][i].update({"trace": str(itf), "story": str(txt), "regression": str(test)})
        script = role.repro(where, slug(stem) + f"-{i}", run, d) if role.repro else None
        if script is not None:
            data["divergences"][i]["repro"] = str(script)
        written.append((itf, txt, test))


def write(run: TargetRun, out_dir: Path) -> tuple[Path, list[tuple[Path, Path, Path]]]:
    """verdict.json and verdict.txt (``campaign.write_verdict``, the one verdict writer of
    every role), and per divergence its ITF trace, story and regression test, under
    ``out_dir`` (the run's folder, ``outputs.run_folder``), each written whole."""
    where = out_dir / "conform" / slug(run.target.name)
    where.mkdir(parents=True, exist_ok=True)
    data = summary(run)
    written = []
    model = _role(run).conform_model(run.recorder) if run.recorder else None
    if run.divergences:
        run.recorder.register()           # the traces replay the paths through the target's answers
    try:
        _write_divergences(run, model, where, data, written)
    finally:
        if run.divergences:
            run.recorder.unregister()
    adapter = getattr(run.recorder, "adapter", None)
    if hasattr(adapter, "transcript"):          # an external program: the messages exchanged, kept
        lines = [json.dumps({"dir": d, "message": m}) for d, m in adapter.transcript[-5000:]]
        atomic_write_text(where / "adapter-transcript.jsonl", "\n".join(lines) + "\n", force=True)
        try:                                     # the program's stderr, kept beside its transcript
            stderr = Path(adapter.log_path).read_bytes()[-2 ** 20:]
        except OSError:
            stderr = b""
        atomic_write_bytes(where / "adapter-stderr.log", stderr, force=True)
        data["adapter_log"] = {"transcript": "adapter-transcript.jsonl", "stderr": "adapter-stderr.log",
                               "restarts": adapter.restarts}
    return campaign.write_verdict(where, data, text(run, data) + "\n"), written


def text(run: TargetRun, data: dict) -> str:
    lines = [f"target {data['target']} ({data['note']}); protocols {', '.join(data['protocols'])}",
             f"  {data['invocations']:,} invocations, {data['distinct_inputs']:,} distinct inputs, "
             f"{data['failed_inputs']} failed, {data['info']} info (not judged); {data['states']:,} BFS states, "
             f"{data['walk_steps']:,} walk steps; {data['seconds']:.1f} s"]
    for s in data["scopes"]:
        if s["not_run"]:
            lines.append(f"  scope {s['name']}: not run: {s['not_run']}")
        elif s["cut"]:
            lines.append(f"  scope {s['name']}: incomplete ({s['cut']})")
        if s["not_judged"]:
            lines.append(f"  scope {s['name']}: {s['not_judged']}")
        if s["info"]:
            lines.append(f"  scope {s['name']}: info: {s['info']}")
    for error in data["info_errors"]:
        lines.append(f"  info (not judged): {error}")
    if data["info"] and not data["judged_answers"]:
        lines.append("  BROKEN TARGET: every answer was info (it hung, exited or answered garbage): nothing judged")
    width = max([len("property")] + [len(row["property"]) for row in data["properties"]])
    lines.append(f"  {'property':{width}} {'source':10} {'status':14} counts")
    for row in data["properties"]:
        if row["source"] == "invocation":
            counts = f"{row['violated']:,} of {row['judged']:,} judged inputs violate"
        else:
            counts = f"{row['scopes']} scopes, {row['states']:,} states; violated in {row['violated']}"
        lines.append(f"  {row['property']:{width}} {row['source']:10} {row['status']:14} {counts}")
    if data["divergences"]:
        lines.append(f"  {len(data['divergences'])} distinct divergences (by claim and signature), met "
                     f"{sum(d['count'] for d in data['divergences'])} times in all (scope searches)")
    for d in data["divergences"]:
        shrunk = f", shrunk from {d['raw_steps']}" if d["mode"] == "walks" else ""
        lines.append(f"  DIVERGENCE {d['property']} in scope {d['scope']} ({d['mode']}, {d['steps']} steps{shrunk}): "
                     f"{d['message']}")
        lines.append(f"    met {d['count']} times; signature: {d['signature']}")
        lines.append(f"    judgement: {d['judgement']}" + (f" ({d['decided_by']})" if d["decided_by"] else ""))
        if "trace" in d:
            lines.append(f"    written: {d['trace']}  {d['regression']}" + (f"  {d['repro']}" if d.get("repro") else ""))
    return "\n".join(lines)
