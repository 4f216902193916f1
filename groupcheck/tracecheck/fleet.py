"""Synthetic fleets: many groups' histories, some from known-bug variants, some corrupted.

Each group's history is the observations (``observe.py``) of one seeded random walk of
the model (``checker.walk``, swarm kinds) under a scope its room names (``Protocol.fleet``):

* ``walk``: a reference scope of the protocol; the history is valid and breaks nothing;
* ``bug:<KEY>``: the scope of a known-bug variant (``properties/known_bugs/``); the walk
  is one that breaks the variant's property (the first of up to ``BUG_TRIES`` seeded walks
  that does, else the checker's shortest counterexample), so the history is valid and
  breaks it where the break is observable (the variants its room's ``Fleet.bugs`` names are);
* ``corrupt:drop`` / ``corrupt:alter``: a ``walk`` history with one event dropped, or one
  callback's kind swapped (assigned <-> revoked, lost -> assigned, commit -> revoked); meant
  to be invalid (a drop may still be explained by another interleaving: the manifest says
  what was done, the verdict what it means).

Written: ``histories.jsonl``, ``histories.parquet`` (the same lines) and ``manifest.json``
(per group: protocol, what was injected). Same seed, same files.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from groupcheck.model.core import replay

from .. import protocols
from ..checker import Claims, Moves, bfs, swarm_kinds, walk
from ..outputs import atomic_write_text
from .history import Group, write_jsonl, write_parquet

# the protocols a fleet holds by default (each room's ``fleet`` says what it makes of one)
PROTOCOLS = ("consumer-group", "consumer")
LENGTH = 120
BUG_TRIES = 300
SWAP = {"assigned": "revoked", "revoked": "assigned", "lost": "assigned", "commit": "revoked"}


def known() -> tuple[str, ...]:
    """The protocols whose rooms say what a fleet makes of them (``Protocol.fleet``)."""
    return tuple(name for name, p in protocols.PROTOCOLS.items() if p.fleet is not None)


def observations(protocol: str, model, scope, path: list[int]) -> list[dict]:
    first, steps = replay(model, scope, path)
    observe = protocols.get(protocol).observer(model, scope)
    out: list[dict] = []
    for s in steps:
        out.extend(observe(s.prev, s.action, s.next, s.events))
    return out


class _Walker:
    """Walks of one protocol at one scope, with what they share made once."""

    def __init__(self, protocol: str, model, scope):
        self.protocol, self.model, self.scope = protocol, model, scope
        self.claims, self.moves = Claims(model), Moves(model, scope)
        self.inits = model.init_states(scope)

    def walk(self, seed: int) -> tuple[list[int], object]:
        kinds = swarm_kinds(self.model, random.Random(seed))
        path, violation, _ = walk(self.model, self.scope, seed, LENGTH, kinds, self.claims, self.inits, self.moves)
        return path, violation


def _bug_path(w: _Walker, expect: str, rng: random.Random) -> list[int]:
    for _ in range(BUG_TRIES):
        path, violation = w.walk(rng.randrange(2 ** 32))
        if violation is not None and violation.property == expect:
            return path
    report = bfs(w.model, w.scope, max_states=200_000)
    if report.violation is None:
        raise RuntimeError(f"no walk or search under {w.scope} breaks {expect}")
    return report.violation.path


def corrupt(events: list[dict], rng: random.Random) -> tuple[list[dict], str]:
    """One event dropped, or one callback's kind swapped; (events, what was done)."""
    events = [dict(e) for e in events]
    swappable = [i for i, e in enumerate(events) if e.get("kind") in SWAP]
    if swappable and rng.random() < 0.5:
        i = rng.choice(swappable)
        events[i]["kind"] = SWAP[events[i]["kind"]]
        return events, f"alter:{i}"
    i = rng.randrange(len(events))
    del events[i]
    return events, f"drop:{i}"


def generate(out_dir: Path, groups: int, seed: int = 0, protos: tuple[str, ...] = PROTOCOLS,
             bug_share: float = 0.2, corrupt_share: float = 0.2, formats: tuple[str, ...] = ("jsonl", "parquet"),
             progress=None) -> dict:
    """Write a fleet of ``groups`` histories; returns the manifest."""
    rng = random.Random(seed)
    walkers: dict = {}

    def walker(protocol: str, key: str | None) -> _Walker:
        if (protocol, key) not in walkers:
            p = protocols.get(protocol)
            if key is None:
                scope = p.default_scopes()[p.fleet.scope]
            else:
                scope = next(v.buggy_scope() for v in p.variants if v.key == key)
            walkers[(protocol, key)] = _Walker(protocol, p.model, scope)
        return walkers[(protocol, key)]

    out: list[Group] = []
    manifest: dict = {"seed": seed, "groups": []}
    for n in range(groups):
        protocol = protos[n % len(protos)]
        group_rng = random.Random(rng.randrange(2 ** 32))
        roll = group_rng.random()
        injected = "walk"
        if roll < bug_share:
            key = group_rng.choice(protocols.get(protocol).fleet.bugs)
            w = walker(protocol, key)
            expect = next(v.expect for v in protocols.get(protocol).variants if v.key == key)
            path = _bug_path(w, expect, group_rng)
            injected = f"bug:{key}"
        else:
            w = walker(protocol, None)
            for _ in range(20):     # a history says something: at least two events
                path, _ = w.walk(group_rng.randrange(2 ** 32))
                if len(observations(protocol, w.model, w.scope, path)) >= 2:
                    break
        events = observations(protocol, w.model, w.scope, path)
        if injected == "walk" and roll < bug_share + corrupt_share and events:
            events, how = corrupt(events, group_rng)
            injected = f"corrupt:{how}"
        name = f"g{n:05d}"
        scope = w.model.view.scope_to_dict(w.scope)
        lines = [{"group": name, "seq": i, "protocol": protocol, "scope": scope, **e} for i, e in enumerate(events)]
        assert lines, f"{name}: the walk observed nothing"
        out.append(Group(name, protocol, scope, lines))
        manifest["groups"].append({"group": name, "protocol": protocol, "injected": injected, "events": len(events)})
        if progress is not None:
            progress(n + 1)
    out_dir.mkdir(parents=True, exist_ok=True)
    if "jsonl" in formats:
        write_jsonl(out_dir / "histories.jsonl", out)
    if "parquet" in formats:
        write_parquet(out_dir / "histories.parquet", out)
    atomic_write_text(out_dir / "manifest.json", json.dumps(manifest, indent=1, sort_keys=True) + "\n", force=True)
    return manifest
