"""One campaign walk as a pure function of (protocol, scope, seed, length).

Everything a walk needs arrives as plain JSON-able values (a Spark executor gets them
pickled), and the row it returns holds only plain values too. The walk is
``checker.walk`` with the swarm kinds ``checker.walks`` draws from the walk's seed; its
path is then replayed to list the states it visited. A state is named by a 64-bit
fingerprint that is the same in every process (``fingerprint``): Python's ``hash()`` of
strings is salted per process, so it would not do for counting distinct states across
Spark executors."""
from __future__ import annotations

import hashlib
import random
from collections import Counter
from enum import Enum
from functools import lru_cache

from groupcheck.model.core import Model, replay

from ..checker import Claims, swarm_kinds, walk
from ..protocols import get


def stable_text(value) -> str:
    """A text of ``value`` that does not depend on the process: like ``repr``, but the
    items of sets and the keys of dicts are sorted (their iteration order follows the
    salted string hash)."""
    if isinstance(value, (frozenset, set)):
        return "{" + ",".join(sorted(stable_text(v) for v in value)) + "}"
    if isinstance(value, dict):
        items = sorted((stable_text(k), stable_text(v)) for k, v in value.items())
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    if isinstance(value, tuple):
        return type(value).__name__ + "(" + ",".join(stable_text(v) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ",".join(stable_text(v) for v in value) + "]"
    if isinstance(value, Enum):
        return f"{type(value).__name__}.{value.name}"
    if hasattr(value, "__dataclass_fields__"):
        fields = ",".join(f"{k}={stable_text(getattr(value, k))}" for k in value.__dataclass_fields__)
        return f"{type(value).__name__}({fields})"
    return repr(value)


def fingerprint(model: Model, scope, state) -> int:
    """A 64-bit signed fingerprint of the state's canonical (symmetry-reduced) form:
    blake2b of its ``stable_text``, the same in every process."""
    return _digest(model.canonical(scope, state))


def _digest(canonical) -> int:
    digest = hashlib.blake2b(stable_text(canonical).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@lru_cache(maxsize=8)
def _setup(protocol: str, scope_json: str):
    """The model, scope, claims and initial states of a JSON scope, and a memo of
    fingerprints: caches of pure values (the same inputs give the same values), so a
    walk stays a function of its inputs."""
    import json
    from ..api.custom import trust_scope
    model = get(protocol).model
    d = json.loads(scope_json)
    trust_scope(d)                # the driver's own scope, checked there (a Spark worker's first sight of it)
    scope = model.view.scope_from_dict(d)
    return model, scope, Claims(model), model.init_states(scope), {}


MEMO = 1 << 16      # fingerprints remembered per scope (a pure function of the state; then it starts over)


def _fingerprint(model: Model, scope, state, memo: dict) -> int:
    """``fingerprint``, remembered by canonical state (walks meet the same states again and again)."""
    key = model.canonical(scope, state)
    fp = memo.get(key)
    if fp is None:
        if len(memo) >= MEMO:
            memo.clear()
        fp = memo[key] = _digest(key)
    return fp


def scope_key(scope: dict) -> str:
    import json
    return json.dumps(scope, sort_keys=True)


def run_walk(protocol: str, scope: dict, seed: int, length: int) -> dict:
    """Walk ``length`` steps from ``seed``; return its row: seed, steps, action-kind
    counts, the claims checked, the distinct state fingerprints met (sorted), and the
    violation (property, message, path, depth; None when the walk broke nothing)."""
    model, sc, claims, inits, memo = _setup(protocol, scope_key(scope))
    kinds = swarm_kinds(model, random.Random(seed))
    path, violation, steps = walk(model, sc, seed, length, kinds, claims, inits)
    first, replayed = replay(model, sc, path)
    states = {_fingerprint(model, sc, first, memo)}
    states.update(_fingerprint(model, sc, s.next, memo) for s in replayed)
    counts = Counter(s.action.kind for s in replayed)
    row = {"seed": int(seed), "steps": int(steps), "kinds": sorted(kinds),
           "action_kinds": dict(sorted(counts.items())), "properties": list(claims.checked),
           "fingerprints": sorted(states), "violation": None}
    if violation is not None:
        row["violation"] = {"property": violation.property, "message": violation.message,
                            "path": [int(i) for i in violation.path], "depth": len(violation.path) - 1}
    return row


def run_walks(protocol: str, scope: dict, seeds, length: int) -> list[dict]:
    """``run_walk`` for each seed, in order."""
    return [run_walk(protocol, scope, s, length) for s in seeds]
