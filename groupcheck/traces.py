"""Counterexamples as ITF traces and as readable step-by-step text; reading them back."""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groupcheck.model import itf
from groupcheck.model.core import Model, PathError, replay
from groupcheck.model.scopes import integer, list_of, profile_label, string

from .api.custom import UntrustedAssignor
from .files import InputError, read_text
from .outputs import OutputExists, atomic_write_text
from .protocols import Protocol, get

MAX_STEPS = 10_000          # the longest path `replay` takes (BFS and walks stay far below)


def build(model: Model, scope, path: list[int], meta: dict, loop: int | None = None) -> dict:
    """The ITF trace of ``path``: every state, and the action that led to it.
    ``#meta`` holds protocol, scope, path, ``meta``, and ``profile_label`` (the
    behaviour followed, overrides named) next to ``profile``. A lasso (``loop``: the
    index of the state its cycle starts from) carries ITF's ``"loop": loop``: the last
    state is that state again, and the run repeats the steps after it forever."""
    first, steps = replay(model, scope, path)
    states = [model.view.state_to_itf(scope, first)] + [model.view.state_to_itf(scope, s.next) for s in steps]
    actions = ["init"] + [model.view.describe_action(scope, s.prev, s.action) for s in steps]
    full = {"protocol": model.name, "scope": model.view.scope_to_dict(scope), "path": list(path)}
    for key, value in meta.items():
        full[key] = value
        if key == "profile":
            full["profile_label"] = profile_label(scope)
    full.setdefault("profile_label", profile_label(scope))
    tr = itf.trace(full, states, actions)
    if loop is not None:
        tr["loop"] = loop
    return tr


def story(model: Model, scope, path: list[int], violation: str | None = None, loop: int | None = None) -> str:
    """A numbered account of the run: each action, the callbacks and milestones it
    caused, and at the end the state it reached (where the property broke). A lasso
    (``loop``) ends with the cycle that repeats forever."""
    first, steps = replay(model, scope, path)
    lines = [f"{model.name} counterexample, {len(steps)} steps" + (f": {violation}" if violation else "")]
    for i, s in enumerate(steps, start=1):
        lines.append(f"{i:3}. {model.view.describe_action(scope, s.prev, s.action)}")
        for e in s.events:
            text = model.view.describe_event(scope, e)
            if text is not None:
                lines.append(f"       {text}")
    if loop is not None:
        lines.append(f"     the cycle repeats from step {loop}: steps {loop + 1}-{len(steps)} again, forever"
                     if loop < len(steps) else f"     the run stays at step {loop} for good: nothing is enabled there")
    last = model.view.describe_state(scope, steps[-1].next if steps else first)
    if last:
        lines.append(f"state after step {len(steps)}:" if steps else "initial state:")
        lines.extend("  " + line for line in last.splitlines())
    return "\n".join(lines) + "\n"


def _digest(trace: dict) -> str:
    """Eight hex digits naming the trace's scope (its JSON, keys sorted)."""
    scope = json.dumps(trace["#meta"].get("scope"), sort_keys=True)
    return hashlib.sha256(scope.encode()).hexdigest()[:8]


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_text() == text
    except (OSError, UnicodeDecodeError):
        return False


def write(out_dir: Path, stem: str, trace: dict, text: str) -> tuple[Path, Path]:
    """Write ``<stem>-<scope digest>.itf.json`` and ``.txt``; return the paths written.
    A pair already there with the same content is kept; one with other content is
    never overwritten: the new pair gets a numeric suffix (``-2``, ``-3``, ...). Each
    file is written whole (``outputs.atomic_write_text``): an interrupt leaves none half-written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    body = itf.dumps(trace)
    base = f"{stem}-{_digest(trace)}"
    for n in itertools.count(1):
        name = base if n == 1 else f"{base}-{n}"
        json_path, text_path = out_dir / f"{name}.itf.json", out_dir / f"{name}.txt"
        if _holds(json_path, body) and _holds(text_path, text):
            return json_path, text_path
        if json_path.exists() or text_path.exists():
            continue
        try:        # written whole under a temporary name; linked only if the name is still free
            atomic_write_text(json_path, body)
        except OutputExists:        # another run has just taken it
            continue
        atomic_write_text(text_path, text, force=True)      # the name is this trace's now
        return json_path, text_path


# ---------------------------------------------------------------- reading traces back

class ReplayError(ValueError):
    """A trace groupcheck cannot replay; the message names the file and the problem."""


class Untrusted(ReplayError):
    """A trace whose scope names user code (an assignor) the command line did not name."""


@dataclass(frozen=True)
class Recorded:
    """A groupcheck trace as read: what to replay and what it recorded."""

    protocol: Protocol
    scope: Any
    path: list[int]
    trace: dict
    violation: dict | None        # {"property": ..., "message": ...} or None
    loop: int | None = None       # a lasso: the index of the state its cycle starts from (ITF "loop")


def _violation(meta: dict) -> dict | None:
    """#meta.violation, checked: an object with string property and message."""
    if "violation" not in meta or meta["violation"] is None:
        return None
    v = meta["violation"]
    if not isinstance(v, dict):
        raise ReplayError("#meta.violation: expected an object with property and message")
    return {k: string(v.get(k), f"#meta.violation.{k}") for k in ("property", "message")}


def _path(value: Any) -> list[int]:
    if isinstance(value, list) and len(value) > MAX_STEPS + 1:
        raise ReplayError(f"#meta.path: {len(value):,} entries; replay takes at most {MAX_STEPS:,} steps "
                         f"({MAX_STEPS + 1:,} entries)")
    trail = list(list_of(integer)(value, "#meta.path"))
    if not trail:
        raise ReplayError("#meta.path: empty; a path needs at least the initial-state index")
    for i, index in enumerate(trail):
        if index < 0:
            raise ReplayError(f"#meta.path[{i}]: {index} is negative; a path holds indices from 0")
    return trail


def _loop(tr: dict, path: list[int]) -> int | None:
    """ITF's ``loop``, checked: an index of one of the path's states."""
    if tr.get("loop") is None:
        return None
    loop = tr["loop"]
    if not isinstance(loop, int) or isinstance(loop, bool) or not 0 <= loop < len(path):
        raise ReplayError(f"loop: {loop!r} is not the index of a state of the path (0..{len(path) - 1})")
    return loop


def _not_ours(meta: dict) -> str | None:
    """Why a trace cannot be replayed by groupcheck, if its #meta lacks what we write."""
    missing = [k for k in ("protocol", "scope", "path") if k not in meta]
    if not missing:
        return None
    source = meta.get("source")
    origin = (f"it comes from {source[:60]!r}, not groupcheck" if isinstance(source, str) and source != "groupcheck"
              else "it is not a groupcheck trace")
    return (f"#meta has no {', '.join(repr(k) for k in missing)}: {origin}; groupcheck replays the "
            "traces it writes, whose #meta names the protocol, scope and path")


def load(path: Path) -> Recorded:
    """Read a trace file written by groupcheck. Raise ReplayError naming the problem."""
    try:
        tr = itf.load(read_text(path))
    except InputError as e:
        raise ReplayError(str(e)) from None
    except itf.TraceError as e:
        raise ReplayError(f"{path}: {e}") from None
    meta = tr.get("#meta", {})
    why = _not_ours(meta)
    if why:
        raise ReplayError(f"{path}: {why}")
    try:
        protocol = get(string(meta["protocol"], "#meta.protocol"))
    except ValueError as e:
        raise ReplayError(f"{path}: {e}") from None
    try:
        scope = protocol.model.view.scope_from_dict(meta["scope"])
    except UntrustedAssignor as e:
        raise Untrusted(f"{path}: #meta.{e}") from None
    except ValueError as e:       # a ScopeError naming scope.<field>
        raise ReplayError(f"{path}: #meta.{e}") from None
    try:
        trail, violation = _path(meta["path"]), _violation(meta)
        loop = _loop(tr, trail)
        replay(protocol.model, scope, trail)
    except PathError as e:
        raise ReplayError(f"{path}: the path does not replay: {e}") from None
    except ValueError as e:       # a malformed path or violation, a start that cannot be built
        raise ReplayError(f"{path}: {e}") from None
    return Recorded(protocol, scope, trail, tr, violation, loop)


# ---------------------------------------------------------------- comparing traces

class _Absent:
    """What one side of a comparison lacks (a field, an item, a whole state)."""

    def __repr__(self) -> str:
        return "(absent)"


ABSENT = _Absent()


@dataclass(frozen=True)
class Difference:
    """Where a recorded trace and its replay part: state index, field path (``""``:
    the whole state), and the two values (ABSENT where one side has nothing)."""

    state: int
    field: str
    recorded: Any
    reproduced: Any

    def text(self) -> str:
        where = f"state {self.state}" + (f", {self.field}" if self.field else "")
        return f"{where}: recorded {_brief(self.recorded)}, reproduced {_brief(self.reproduced)}"


def _brief(value: Any) -> str:
    if value is ABSENT:
        return repr(ABSENT)
    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= 80 else text[:77] + "..."


def _parts(value: Any) -> tuple[str, dict] | None:
    """The parts of an ITF value a difference can point into, keyed by their path
    suffix: a record's fields, a list's or #tup's items, a #map's values by key.
    None for a leaf (a scalar, #set, #bigint, or a malformed encoding)."""
    if isinstance(value, list):
        return "list", {f"[{i}]": v for i, v in enumerate(value)}
    if not isinstance(value, dict):
        return None
    if list(value) == ["#tup"] and isinstance(value["#tup"], list):
        return "#tup", {f"[{i}]": v for i, v in enumerate(value["#tup"])}
    if list(value) == ["#map"] and isinstance(value["#map"], list) and all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in value["#map"]):
        return "#map", {f"[{k}]": v for k, v in value["#map"]}
    if any(k.startswith("#") for k in value):
        return None
    return "record", {f".{k}": v for k, v in value.items()}


def _same(a: Any, b: Any) -> bool:
    """JSON equality, where true is not 1 and 1.0 is not 1."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _diff(recorded: Any, reproduced: Any, where: str, out: list[tuple[str, Any, Any]]) -> None:
    a, b = _parts(recorded), _parts(reproduced)
    if a is None or b is None or a[0] != b[0]:
        if recorded is ABSENT or reproduced is ABSENT or not _same(recorded, reproduced):
            out.append((where.lstrip("."), recorded, reproduced))
        return
    for key in list(a[1]) + [k for k in b[1] if k not in a[1]]:
        _diff(a[1].get(key, ABSENT), b[1].get(key, ABSENT), where + key, out)


def changed_fields(before: Any, after: Any) -> list[tuple[str, Any, Any]]:
    """(field path, old, new) for every leaf where two ITF values differ (ABSENT where
    one side lacks it): the explorer's diff of consecutive states."""
    found: list[tuple[str, Any, Any]] = []
    _diff(before, after, "", found)
    return found


def differences(recorded: list[dict], reproduced: list[dict]) -> list[Difference]:
    """Every field, action_taken included, in which the recorded states and the
    reproduced ones differ, state by state (each state's own #meta is left out)."""
    def body(states: list[dict], i: int) -> Any:
        return {k: v for k, v in states[i].items() if k != "#meta"} if i < len(states) else ABSENT

    out: list[Difference] = []
    for i in range(max(len(recorded), len(reproduced))):
        found: list[tuple[str, Any, Any]] = []
        _diff(body(recorded, i), body(reproduced, i), "", found)
        out.extend(Difference(i, where, a, b) for where, a, b in found)
    return out


def as_json(value: Any) -> Any:
    """``value`` as it reads back from a trace file (tuples become lists)."""
    return json.loads(itf.dumps(value))
