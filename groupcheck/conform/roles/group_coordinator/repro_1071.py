"""A standalone reproduction script for a KIP-1071 comparison that diverged (``compare_1071``).

``write`` puts ``repro_<target>_kip1071_<scenario>.py`` next to the verdict: a script that
needs only kafka-python (FindCoordinator, CreateTopics; it writes and reads
StreamsGroupHeartbeat v0 itself, kafka-python has none) and replays the scenario against a
broker (``--bootstrap HOST:PORT``, default the run's) in a new group, as a Streams client
would (the epochs and tasks it sends come from the broker's answers). It prints per step the
model's answer and the broker's, ranks the epochs as the run did, and exits 1 when a focus
step differs where the protocol fixes the answer ("reproduced"), 0 when none does, 2 when the
broker could not be used. Every datum goes in as ``json.loads(<repr of a JSON string>)``;
the code is the fixed text groupcheck/templates/repro_streams_group_heartbeat.py.txt.
"""
from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from ....outputs import atomic_write_text
from . import compare_1071 as compare
from .report import slug


def _plain(value):
    """NamedTuples (a Topology) as JSON-ready dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def source(result: dict, target_key: str, bootstrap: str, create_topics_version: int) -> str:
    """The script's text for ``result`` (one ``compare_1071.compare`` that diverged)."""
    names = result["names"]
    data = {"scenario": result["scenario"], "target": target_key, "bootstrap": bootstrap,
            "profile": result["profile"], "protocol": result["protocol"], "steps": result["steps"],
            "focus": list(result["focus"]), "model": result["model"],
            "run_steps": ", ".join(str(d["step"]) for d in result["differences"]),
            "topologies": _plain(compare.topologies(names)), "source": names["source"],
            "partitions": compare.PARTITIONS, "rebalance_timeout_ms": compare.REBALANCE_TIMEOUT_MS,
            "create_topics_version": create_topics_version,
            "error_names": {str(code): name for code, name in compare.ERROR_NAMES.items()}}
    first = result["differences"][0]
    header = ["#!/usr/bin/env python3",
              "# Standalone reproduction of a KIP-1071 (StreamsGroupHeartbeat) divergence found by groupcheck",
              "# (needs only kafka-python: pip install kafka-python). Run: python3 THIS --bootstrap HOST:PORT",
              f"# Target: {target_key!r}; scenario: {result['scenario']}; model profile: {result['profile']}",
              f"# Observed in the run, step {first['step']}: {json.dumps(first['target'])!r}",
              f"# The model's answer: {json.dumps(first['model'])!r}",
              f"# Judgement: {result['judgement']!r}",
              f"# What the protocol fixes: {result['protocol']!r}"]
    body = files("groupcheck").joinpath("templates/repro_streams_group_heartbeat.py.txt").read_text()
    return "\n".join(header) + "\nimport json\n\nDATA = json.loads(" + repr(json.dumps(data)) + ")\n\n" + body


def write(results: list[dict], target_key: str, target, where: Path) -> None:
    """A script for each diverging result, its path kept in the result (``repro``); its default
    ``--bootstrap`` is the target's address, and it creates the source topic when the target
    spoke CreateTopics."""
    create_topics = getattr(target, "versions", {}).get("CreateTopics", -1)
    for r in results:
        if not r["divergence"]:
            continue
        where.mkdir(parents=True, exist_ok=True)
        path = where / f"repro_{slug(target_key)}_kip1071_{r['scenario'].replace('-', '_')}.py"
        atomic_write_text(path, source(r, target_key, target._where(), create_topics),
                          force=True)
        r["repro"] = str(path)
