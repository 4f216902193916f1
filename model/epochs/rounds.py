"""The heartbeat-round monitor of both epoch protocols' explorations, and the slot sets it keeps.

A state keeps sets of client slots as bitmasks (bit ``s``: slot ``s``): ``fresh``, the slots whose
heartbeat in flight was sent this round; ``beaten``, the slots that read a response to one;
``wedged``, the slots whose lost response may have carried an assignment they never saw. A round
ends once every running client has read the response to a heartbeat it sent in the round; the
monitor counts full rounds since the last disturbance (``calm``, capped at K) for the
``converges_within_k`` property. The bit encoding stays here: step code names slots, not bits.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable


def has_slot(slots: int, slot: int) -> int:
    """1 if ``slot`` is in the set, else 0."""
    return slots >> slot & 1


def add_slot(slots: int, slot: int) -> int:
    return slots | 1 << slot


def drop_slot(slots: int, slot: int) -> int:
    return slots & ~(1 << slot)


def slot_set(flags: Iterable[bool]) -> int:
    """The set of the slots whose flag is true (``flags`` in slot order)."""
    return sum(1 << i for i, flag in enumerate(flags) if flag)


def response_read(state: Any, slot: int, clients, running: Callable[[Any], bool], counts: bool,
                  k: int) -> tuple[int, int, int]:
    """(calm, beaten, fresh) after ``slot`` read a heartbeat response. It counts for the round if
    the heartbeat was sent in it and ``counts`` (the consumer: no reconciliation left to run); a
    round ends once every client ``running`` says runs has read one; nothing counts while a lost
    response may hide an assignment (``wedged``)."""
    beaten = state.beaten | (add_slot(0, slot) & state.fresh if counts else 0)
    if state.wedged:
        return 0, 0, 0
    want = slot_set(running(c) for c in clients)
    if beaten & want == want:
        return min(k, state.calm + 1), 0, 0
    return state.calm, beaten, state.fresh
