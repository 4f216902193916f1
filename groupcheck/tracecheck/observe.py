"""What a recorder can see of a model step: the observations, as JSON-ready dicts.

Per protocol:

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

from groupcheck.model import partitions as bits
from groupcheck.model.scopes import shorten

CALLBACKS = ("revoked", "assigned", "lost", "commit")
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


_CALLBACK = ("client", "partitions", "epoch")
# per protocol, the kinds of observation the model emits and the fields it compares; a
# recorder's other fields (a host, a thread name) are not the model's and are dropped
FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "consumer": {k: ("client", "partitions") for k in ("assigned", "revoked", "lost")},
    "consumer-group": {"assigned": _CALLBACK, "revoked": _CALLBACK, "lost": _CALLBACK,
                       "commit": _CALLBACK + ("error",), "record": ("type", "record")},
    "streams-group": {k: ("client", "text") for k in ("handle", "expire", "session_timeout")},
    "streams-classic": {k: ("client", "text") for k in ("assign", "receive", "failed", "leader_failed", "shutdown")},
}


class UnknownKind(ValueError):
    """An event whose kind the protocol's model never emits."""


def observation(protocol: str, event: dict) -> dict:
    """The part of a recorded event the model's observation is compared with: its kind and
    the fields of that kind; an unknown kind raises UnknownKind naming it and the known."""
    known = FIELDS[protocol]
    kind = event.get("kind")
    if not isinstance(kind, str) or kind not in known:
        raise UnknownKind(f"unknown event kind {shorten(json.dumps(kind))} for {protocol}; known kinds: "
                          f"{', '.join(known)}")
    return {k: event[k] for k in ("kind",) + known[kind] if k in event}


def key(observation: dict) -> str:
    """The canonical text two observations are compared by (book-keeping fields left out)."""
    return json.dumps({k: v for k, v in observation.items() if k not in BOOK}, sort_keys=True,
                      separators=(",", ":"))


def _client(slot: int) -> str | None:
    return f"C{slot + 1}" if slot >= 0 else None


def _consumer(model, scope) -> Callable:
    def observe(prev, action, nxt, events) -> list[dict]:
        return [{"kind": e.kind, "client": _client(e.slot), "partitions": bits.names(e.partitions, scope.stride)}
                for e in events if e.kind in ("assigned", "revoked", "lost")]
    return observe


def _consumer_group(model, scope) -> Callable:
    from groupcheck.model.consumer_group import Handled
    from groupcheck.model.consumer_group import partition_names as _parts

    def is_callbacks(data) -> bool:
        return bool(data) and all(isinstance(c, tuple) and c and c[0] in CALLBACKS for c in data)

    def observe(prev, action, nxt, events) -> list[dict]:
        out = []
        for e in events:
            data = e.data
            if is_callbacks(data):
                client = nxt.clients[e.slot] if 0 <= e.slot < len(nxt.clients) else None
                for c in data:
                    o = {"kind": c[0], "client": _client(e.slot), "partitions": _parts(scope, c[1])}
                    if c[0] == "commit":
                        o["epoch"], o["error"] = c[2], c[3]
                    elif getattr(client, "epoch", None) is not None:
                        o["epoch"] = client.epoch
                    out.append(o)
            elif isinstance(data, Handled):
                for r in data.records:
                    out.append({"kind": "record", "type": type(r).__name__, "record": to_json(r)})
        return out
    return observe


def _described(model, scope) -> Callable:
    def observe(prev, action, nxt, events) -> list[dict]:
        out = []
        for e in events:
            text = model.view.describe_event(scope, e)
            if text is not None:
                out.append({"kind": e.kind, "client": _client(getattr(e, "slot", -1)), "text": text})
        return out
    return observe


OBSERVERS = {"consumer": _consumer, "consumer-group": _consumer_group,
             "streams-group": _described, "streams-classic": _described}


def observer(protocol: str, model, scope) -> Callable[[Any, Any, Any, tuple], list[dict]]:
    """``observe(prev, action, next, events) -> [observation, ...]`` for one scope."""
    return OBSERVERS[protocol](model, scope)
