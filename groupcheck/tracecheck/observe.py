"""What a recorder can see of a model step: the observations, as JSON-ready dicts.

Each protocol's room (``groupcheck/protocols/<package>.py``) gives its observer and the
kinds it emits (``Protocol.observer``, ``Protocol.observed``); the pieces they share are
here. Per protocol:

``consumer-group``
    the client's rebalance callbacks, ``{"kind": "revoked" | "assigned" | "lost",
    "client": "C1", "partitions": [...], "epoch": E}`` (E: the client's member epoch after
    the step) and its offset commits ``{"kind": "commit", "client", "partitions", "epoch",
    "error"}`` (what the consumer-client role of ``groupcheck conform`` observes), and the
    coordinator's ``__consumer_offsets`` records, ``{"kind": "record", "type":
    "ConsumerGroupCurrentMemberAssignment", "record": {...}}`` (the record's key fields and
    value, as ``model/consumer_group/record_types.py`` has them; ``value`` null: a tombstone).
``consumer``
    the listener callbacks ``{"kind": "assigned" | "revoked" | "lost", "client": "C1",
    "partitions": [...]}``.
``streams-group``, ``streams-classic``
    the events the model's story shows, ``{"kind": ..., "client": "C1", "text": ...}``
    (the text is ``describe_event``'s line).

Everything else a step does (requests, responses, the coordinator's internal milestones)
is silent.
"""
from __future__ import annotations

import json
from typing import Any, Callable

from groupcheck.model.scopes import shorten

BOOK = ("group", "seq", "protocol", "scope", "ts")     # the fields of a line that are not the observation ("ts": a recorder's timestamp, not compared)


def to_json(x: Any) -> Any:
    """A model value (NamedTuples, tuples, ints, strings) as plain JSON values."""
    if hasattr(x, "_asdict"):
        return {k: to_json(v) for k, v in x._asdict().items()}
    if isinstance(x, (tuple, list)):
        return [to_json(v) for v in x]
    if isinstance(x, (frozenset, set)):
        return sorted(to_json(v) for v in x)
    return x


class UnknownKind(ValueError):
    """An event whose kind the protocol's model never emits."""


def observation(protocol, event: dict) -> dict:
    """The part of a recorded event the model's observation is compared with: its kind and
    the fields of that kind (``protocol.observed``); an unknown kind raises UnknownKind
    naming it and the known."""
    known = protocol.observed
    kind = event.get("kind")
    if not isinstance(kind, str) or kind not in known:
        raise UnknownKind(f"unknown event kind {shorten(json.dumps(kind))} for {protocol.name}; known kinds: "
                          f"{', '.join(known)}")
    return {k: event[k] for k in ("kind",) + known[kind] if k in event}


def key(observation: dict) -> str:
    """The canonical text two observations are compared by (book-keeping fields left out)."""
    return json.dumps({k: v for k, v in observation.items() if k not in BOOK}, sort_keys=True,
                      separators=(",", ":"))


def client(slot: int) -> str | None:
    """The client a model slot stands for, as a recorder names it: slot 0 is C1."""
    return f"C{slot + 1}" if slot >= 0 else None


def described(model, scope) -> Callable:
    """The observer of a protocol whose events the story shows: each event ``describe_event``
    gives a line for, ``{"kind", "client", "text"}``."""
    def observe(prev, action, nxt, events) -> list[dict]:
        out = []
        for e in events:
            text = model.view.describe_event(scope, e)
            if text is not None:
                out.append({"kind": e.kind, "client": client(getattr(e, "slot", -1)), "text": text})
        return out
    return observe
