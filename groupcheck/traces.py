"""Counterexamples as ITF traces and as readable step-by-step text."""
from __future__ import annotations

from pathlib import Path

from model import itf
from model.core import Model, PathError, replay

from .protocols import get


def build(model: Model, scope, path: list[int], meta: dict) -> dict:
    """The ITF trace of ``path``: every state, and the action that led to it."""
    first, steps = replay(model, scope, path)
    states = [model.state_to_itf(scope, first)] + [model.state_to_itf(scope, s.next) for s in steps]
    actions = ["init"] + [model.describe_action(scope, s.prev, s.action) for s in steps]
    full = {"protocol": model.name, "scope": model.scope_to_dict(scope), "path": list(path), **meta}
    return itf.trace(full, states, actions)


def story(model: Model, scope, path: list[int], violation: str | None = None) -> str:
    """A numbered account of the run: each action, the callbacks and milestones it caused."""
    first, steps = replay(model, scope, path)
    lines = [f"{model.name} counterexample, {len(steps)} steps" + (f": {violation}" if violation else "")]
    for i, s in enumerate(steps, start=1):
        lines.append(f"{i:3}. {model.describe_action(scope, s.prev, s.action)}")
        for e in s.events:
            text = model.describe_event(scope, e)
            if text is not None:
                lines.append(f"       {text}")
    return "\n".join(lines) + "\n"


def write(out_dir: Path, stem: str, trace: dict, text: str) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / f"{stem}.itf.json"
    text_path = out_dir / f"{stem}.txt"
    json_path.write_text(itf.dumps(trace))
    text_path.write_text(text)
    return json_path, text_path


class ReplayError(ValueError):
    pass


def load(path: Path) -> tuple[object, object, list[int], dict]:
    """Read a trace file: (protocol, scope, path, meta). Raise ReplayError naming the problem."""
    try:
        text = path.read_text()
    except OSError as e:
        raise ReplayError(f"cannot read {path}: {e.strerror}") from None
    try:
        tr = itf.load(text)
    except itf.TraceError as e:
        raise ReplayError(f"{path}: {e}") from None
    meta = tr.get("#meta", {})
    for key in ("protocol", "scope", "path"):
        if key not in meta:
            raise ReplayError(f"{path}: #meta has no {key!r}; groupcheck needs protocol, scope and path to replay")
    try:
        protocol = get(meta["protocol"])
        scope = protocol.model.scope_from_dict(meta["scope"])
    except ValueError as e:
        raise ReplayError(f"{path}: {e}") from None
    trail = meta["path"]
    if not isinstance(trail, list) or not all(isinstance(i, int) for i in trail):
        raise ReplayError(f"{path}: #meta.path must be a list of integers")
    try:
        replay(protocol.model, scope, trail)
    except PathError as e:
        raise ReplayError(f"{path}: the path does not replay: {e}") from None
    return protocol, scope, trail, tr
