"""How long the explorer takes per click: the state a link names and all its successors.

A click in `groupcheck explore` is one request: a fresh session from the model, replayed
to the path in the URL, then everything the page shows (tables, diff, every property,
every enabled action stepped to say what it would break, the path's history and first
violation), serialised to JSON; the ownership timeline is a second request. This
script walks seeded random paths through a scope and times both requests through the
Flask app (as the page makes them) at every step. Target: under 100 ms per click.

    python benchmarks/explore_bench.py                        # the largest reference scope
    python benchmarks/explore_bench.py --protocol consumer --scope-name cooperative
    python benchmarks/explore_bench.py --all                   # the largest scope of each protocol

Prints a Markdown table (median, p95 and max milliseconds per click).
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from groupcheck.explorer import Session  # noqa: E402
from groupcheck.explorer.server import create_app  # noqa: E402
from groupcheck.protocols import PROTOCOLS, get  # noqa: E402

# the reference scope of each protocol with the most distinct states (`groupcheck check`,
# 2026-11-24); consumer's three-members (74,601 states) is the largest of all
LARGEST = {"consumer": "three-members", "streams-classic": "first-bounce-2.3-3.9",
           "streams-group": "static-membership", "consumer-group": "online-downgrade"}


def _ms(xs: list[float]) -> tuple[float, float, float]:
    xs = sorted(xs)
    return statistics.median(xs), xs[min(len(xs) - 1, int(0.95 * len(xs)))], xs[-1]


def measure(protocol: str, scope_name: str, walks: int, length: int, seed: int) -> dict:
    p = get(protocol)
    scopes = p.default_scopes()
    if scope_name not in scopes:
        raise SystemExit(f"{protocol} has no reference scope {scope_name!r}; known: {', '.join(scopes)}")
    scope = scopes[scope_name]
    client = create_app(lambda: Session(p, scope, [0], source=scope_name)).test_client()
    rng = random.Random(seed)
    view_ms, timeline_ms, actions = [], [], []
    for _ in range(walks):
        path = [0]
        for _ in range(length):
            q = ".".join(map(str, path))
            t = time.perf_counter()
            answer = client.get(f"/api/view?path={q}")
            view_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            client.get(f"/api/timeline?path={q}")
            timeline_ms.append((time.perf_counter() - t) * 1000)
            moves = answer.get_json()["actions"]
            actions.append(len(moves))
            if not moves:
                break
            path.append(rng.randrange(len(moves)))
    click = [a + b for a, b in zip(view_ms, timeline_ms)]
    return {"protocol": protocol, "scope": scope_name, "clicks": len(view_ms),
            "successors": statistics.mean(actions), "view": _ms(view_ms), "timeline": _ms(timeline_ms),
            "click": _ms(click), "depth": length}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--protocol", choices=PROTOCOLS, default="consumer")
    ap.add_argument("--scope-name", default=None, help="a reference scope (default: the protocol's largest)")
    ap.add_argument("--all", action="store_true", help="the largest reference scope of every protocol")
    ap.add_argument("--walks", type=int, default=5)
    ap.add_argument("--length", type=int, default=40, help="clicks per walk")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    jobs = [(p, LARGEST[p]) for p in PROTOCOLS] if args.all else [(args.protocol, args.scope_name or LARGEST[args.protocol])]
    print("| protocol / scope | clicks | successors per state (mean) | view ms (median / p95 / max) "
          "| timeline ms (median / p95 / max) | click ms (median / p95 / max) |")
    print("|---|---:|---:|---:|---:|---:|")
    for protocol, name in jobs:
        r = measure(protocol, name, args.walks, args.length, args.seed)
        cells = [" / ".join(f"{x:.1f}" for x in r[k]) for k in ("view", "timeline", "click")]
        print(f"| {protocol} / {name} | {r['clicks']} | {r['successors']:.1f} | " + " | ".join(cells) + " |",
              flush=True)


if __name__ == "__main__":
    main()
