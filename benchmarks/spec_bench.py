"""The TLA+ evaluator against the model, on the same scopes (``groupcheck spec``).

For each spec and each pinned config of its manifest: the model's BFS without symmetry
(states, seconds, states/s), the spec's enumeration by the evaluator (Init and Next, the
same states), and the evaluator's speed on its own (successor sets computed per second,
``steps_by`` checks per second over the model's transitions). Prints a Markdown table.

    python benchmarks/spec_bench.py                 # every spec
    python benchmarks/spec_bench.py consumer-group  # one
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from groupcheck.spec import crosscheck, manifest  # noqa: E402
from groupcheck.spec.link import camel  # noqa: E402


def measure(bundle: manifest.Bundle, config: manifest.Config) -> dict:
    model, scope = bundle.model, config.scope
    started = time.perf_counter()
    mg = crosscheck.model_graph(model, scope)
    model_s = time.perf_counter() - started

    from groupcheck.spec import tla_eval
    crosscheck._SPECS.clear()
    tla_eval._PARSED.clear()
    started = time.perf_counter()
    spec = crosscheck.load_spec(bundle, scope)
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    sg = crosscheck.spec_graph(spec, bundle.constraint)
    spec_s = time.perf_counter() - started

    edges = []
    crosscheck.model_graph(model, scope, on_edge=lambda s, a, t: edges.append((s, a, t)))
    mapped = {}

    def to_spec(s):
        if s not in mapped:
            mapped[s] = crosscheck.as_state(spec, bundle, scope, s)
        return mapped[s]
    pairs = [(camel(a.kind), to_spec(s), to_spec(t)) for s, (a, _events), t in edges]
    started = time.perf_counter()
    for name, s, t in pairs:
        spec.steps_by(name, s, t)
    check_s = time.perf_counter() - started
    return {"protocol": bundle.protocol.name, "config": config.name, "states": len(mg.order),
            "spec states": len(sg.order), "transitions": mg.edges, "model s": model_s,
            "spec load s": load_s, "spec s": spec_s, "steps_by/s": len(pairs) / check_s if check_s else 0.0}


def main(names: list[str]) -> None:
    rows = []
    for name in names or list(manifest.folders()):
        bundle = manifest.load(name)
        for config in bundle.configs:
            rows.append(measure(bundle, config))
            print(f"measured {name} {config.name}", file=sys.stderr, flush=True)
    print("| protocol | config | states (model = spec) | transitions | model BFS | model states/s "
          "| spec parse+load | spec enumeration | spec states/s | spec / model | steps_by checks/s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        same = (f"{r['states']:,}" if r["states"] == r["spec states"]
                else f"{r['states']:,} / {r['spec states']:,} (differ)")
        print(f"| {r['protocol']} | {r['config']} | {same} | {r['transitions']:,} | {r['model s']:.2f} s "
              f"| {r['states'] / r['model s']:,.0f} | {r['spec load s']:.2f} s | {r['spec s']:.2f} s "
              f"| {r['spec states'] / r['spec s']:,.0f} | {r['spec s'] / r['model s']:.0f}x "
              f"| {r['steps_by/s']:,.0f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
