"""The adapter interface (Jepsen's client shape) and the JSON Schemas of its messages.

An implementation under test is reached through an ``Adapter``: ``open()`` (handshake,
returns a ``Hello``), ``setup(role, config)``, any number of ``invoke(role, f, value)``,
``teardown()``, ``close()``. Every call answers an ``Outcome``:

    ok    done; ``value`` holds the result
    fail  a definite error: the call had no effect (judged)
    info  not sure what happened (timeout, crash): never judged, only reported

Messages are the ones ``PROTOCOL.md`` documents; ``validate`` checks one against the
schemas in ``schema/`` (both the driver and the adapters validate).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import jsonschema
from referencing import Registry, Resource

SCHEMA_DIR = Path(__file__).with_name("schema")
ROLES = ("assignor", "streams-assignor", "consumer-client", "group-coordinator")


class UnknownTarget(ValueError):
    """A ``--target`` or ``--adapter`` that names nothing the role can drive (bad input:
    one line naming it, exit 2). One class for every role, so the shared driver catches it."""


@dataclass(frozen=True)
class Outcome:
    type: str                 # ok | fail | info
    value: Any = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.type == "ok"


@dataclass(frozen=True)
class Hello:
    """The adapter's answer to ``open``: who it is and what it can do."""

    name: str
    version: str = ""
    roles: tuple[str, ...] = ()
    assignors: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)     # anything else the hello said


class Adapter(Protocol):
    def open(self) -> Hello: ...
    def setup(self, role: str, config: dict) -> Outcome: ...
    def invoke(self, role: str, f: str, value: Any) -> Outcome: ...
    def teardown(self) -> None: ...
    def close(self) -> None: ...


class AdapterError(Exception):
    """The adapter cannot be used (it cannot be started or opened, its hello is invalid,
    it refuses its own setup) or the driver built an invalid message: not a verdict on the
    implementation; the CLI exits 2 with this message. A reply that breaks the protocol
    later is an ``info`` outcome, not this (``process.py``)."""


@lru_cache(maxsize=None)
def _schemas() -> tuple[dict, Registry]:
    docs = {p.name: json.loads(p.read_text()) for p in SCHEMA_DIR.glob("*.schema.json")}
    registry = Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in docs.values())
    return docs, registry


# what each message is, as (schema file, $defs name)
KINDS = {
    "request": ("envelope.schema.json", "request"),
    "reply": ("envelope.schema.json", "reply"),
    "hello": ("envelope.schema.json", "hello"),
    "assignor.setup": ("assignor.schema.json", "setupConfig"),
    "assignor.assign": ("assignor.schema.json", "assignArgument"),
    "assignor.assign.result": ("assignor.schema.json", "assignResult"),
    "streams-assignor.setup": ("streams-assignor.schema.json", "setupConfig"),
    "streams-assignor.assign": ("streams-assignor.schema.json", "assignArgument"),
    "streams-assignor.assign.result": ("streams-assignor.schema.json", "assignResult"),
    "group-coordinator.setup": ("group-coordinator.schema.json", "setupConfig"),
    "group-coordinator.request": ("group-coordinator.schema.json", "requestArgument"),
    "group-coordinator.request.result": ("group-coordinator.schema.json", "result"),
    "group-coordinator.advance": ("group-coordinator.schema.json", "advanceArgument"),
    "group-coordinator.advance.result": ("group-coordinator.schema.json", "result"),
    "group-coordinator.disconnect": ("group-coordinator.schema.json", "disconnectArgument"),
    "group-coordinator.disconnect.result": ("group-coordinator.schema.json", "result"),
}


@lru_cache(maxsize=None)
def _validator(kind: str) -> jsonschema.protocols.Validator:
    docs, registry = _schemas()
    name, definition = KINDS[kind]
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              "$ref": f"{docs[name]['$id']}#/$defs/{definition}"}
    return jsonschema.Draft202012Validator(schema, registry=registry)


def problems(kind: str, message: Any) -> list[str]:
    """Every way ``message`` breaks the schema of ``kind``, each naming its JSON path
    (``$.value.assignment.consumer-001[0]: 'x' is not of type 'array'``); empty: valid."""
    out = []
    for e in sorted(_validator(kind).iter_errors(message), key=lambda e: list(e.absolute_path)):
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path)
        out.append(f"{where}: {e.message}")
    return out


def validate(kind: str, message: Any, who: str) -> None:
    """Raise AdapterError naming ``who`` (the adapter or the driver) and the first path
    where ``message`` breaks the schema of ``kind``."""
    found = problems(kind, message)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise AdapterError(f"{who}: invalid {kind} message: {found[0]}{more}")


def role_kind(role: str, f: str, result: bool = False) -> str | None:
    """The schema kind of an invoke's argument (or ``result``) for ``role``, if defined."""
    kind = f"{role}.{f}" + (".result" if result else "")
    return kind if kind in KINDS else None


def hello_from(value: Any, who: str) -> Hello:
    validate("hello", value, who)
    known = {"name", "version", "roles", "assignors"}
    return Hello(value["name"], value.get("version", ""), tuple(value["roles"]), tuple(value.get("assignors", ())),
                 {k: v for k, v in value.items() if k not in known})
