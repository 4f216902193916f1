"""The protocols groupcheck knows: one room each (``consumer.py``, ``streams_classic.py``,
``streams_group.py``, ``consumer_group.py``), each building its ``Protocol``
(``base.py``), registered here; and the jobs ``groupcheck check`` runs of them.

Adding a protocol: CONTRIBUTING.md's checklist; ``tests/api/test_protocol_rooms.py``
names the piece a registered protocol lacks.
"""
from __future__ import annotations

from dataclasses import dataclass

from groupcheck.model.scopes import shown_repr

from . import consumer, consumer_group, streams_classic, streams_group
from .base import Fleet, Protocol

__all__ = ["PROTOCOLS", "Fleet", "Job", "Protocol", "UnknownProtocol", "UnknownVariant", "expected_jobs", "get",
           "reference_jobs", "shipped_jobs", "variant_job"]

# the registry, in the main job's order
PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (consumer.PROTOCOL, streams_classic.PROTOCOL,
                                                      streams_group.PROTOCOL, consumer_group.PROTOCOL)}


class UnknownProtocol(ValueError):
    pass


def get(name: str) -> Protocol:
    if name not in PROTOCOLS:
        raise UnknownProtocol(f"unknown protocol {shown_repr(name)}; known: {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]


@dataclass(frozen=True)
class Job:
    """One search ``groupcheck check`` runs: a named scope of one protocol, and what it
    must show. ``expect`` None: every property holds; a property name: the scope runs a
    known bug, and the job passes only when BFS finds a violation of exactly that one."""

    protocol: Protocol
    name: str                  # a reference scope's name, "custom", or a variant's key
    scope: object
    expect: str | None = None
    note: str = ""             # added to the scope's line in the legend


def reference_jobs(protocol: Protocol, scopes: dict[str, object]) -> list[Job]:
    return [Job(protocol=protocol, name=name, scope=scope) for name, scope in scopes.items()]


def expected_jobs(protocol: Protocol) -> list[Job]:
    """Every known-bug variant at the scope that shows it, expected to be caught."""
    return [Job(protocol=protocol, name=v.key, scope=v.buggy_scope(), expect=v.expect, note=f"known bug: {v.title}")
            for v in protocol.variants]


def shipped_jobs(protocol: Protocol, profile: str) -> list[Job]:
    """The variants whose behaviour is ``profile``'s (the bugs that release shipped), at
    the scope that shows each, under ``profile``: their violation is the honest answer."""
    jobs = []
    for v in protocol.variants:
        scope = protocol.with_profile(v.scope, profile)
        if scope.behaviour == v.behaviour:
            jobs.append(Job(protocol=protocol, name=v.key, scope=scope,
                            note=f"the scope that shows {v.key}, which {profile} ships"))
    return jobs


class UnknownVariant(ValueError):
    pass


def variant_job(key: str) -> Job:
    """The known-bug variant ``key`` at the scope that shows it, run as a plain check
    (its violation fails the run); the protocol follows from the key."""
    known = []
    for protocol in PROTOCOLS.values():
        for v in protocol.variants:
            if v.key == key:
                return Job(protocol=protocol, name=v.key, scope=v.buggy_scope(), note=f"known bug: {v.title}")
        known.append(f"{protocol.name}: {', '.join(v.key for v in protocol.variants)}")
    raise UnknownVariant(f"unknown variant {shown_repr(key)}; known: {'; '.join(known)}")
