"""What the exploration state of both epoch protocols shares: member ids and the steps.

A client occupies a member slot; each start of its process is a new incarnation with a new
member id ``m<slot>.<incarnation>`` (KIP-1082 for consumers, KIP-1071 for Streams: the id
lives as long as the process). ``Action`` is one step the explorer may take, ``Event`` what a
step reports; each protocol's ``world.py`` re-exports them beside its own ``Client`` and
``State``.
"""
from __future__ import annotations

from typing import Any, NamedTuple


class Action(NamedTuple):
    """One step: its kind (a rule's name), the client slot it acts on, an argument."""

    kind: str
    slot: int
    arg: int = 0


class Event(NamedTuple):
    """What a step did: its kind, the slot, a note for people, and data for the properties:
    a ``Handled`` for a step through the coordinator; the consumer group's deliver / reconcile /
    close / fenced: the callbacks run, (("commit", mask, epoch, error), ("revoked", mask),
    ("assigned", mask), ("lost", mask))."""

    kind: str
    slot: int
    note: str
    data: tuple = ()


class Handled(NamedTuple):
    """The data of a step through the coordinator (a handled request, a timer, a regex resolution)."""

    request: Any            # the request handled (None: a timer or a resolution)
    response: Any           # its response (a classic request: the responses it released)
    records: tuple          # the records written
    events: tuple           # the coordinator's outcome events: (kind, ...) tuples


def member_id(slot: int, incarnation: int) -> str:
    return f"m{slot}.{incarnation}"


def slot_of(member_id_: str) -> tuple[int, int]:
    """(slot, incarnation) of a member id this model made."""
    s, _, i = member_id_[1:].partition(".")
    return int(s), int(i)
