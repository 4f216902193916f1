"""What a tool needs to know about one protocol: its ``Protocol`` record (its room).

Each protocol's module (``consumer.py``, ``streams_classic.py``, ``streams_group.py``,
``consumer_group.py``) builds one, by keyword, with every piece given: a piece the protocol
does not have is ``None``, said where the record is built. ``tests/api/test_protocol_rooms.py``
checks every registered protocol has each piece, well-formed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from groupcheck.model.core import Model

# observe(prev, action, next, events) -> [observation, ...]: what a recorder sees of one step
Observe = Callable[[Any, Any, Any, tuple], list[dict]]


@dataclass(frozen=True, kw_only=True)
class Fleet:
    """What ``trace-check --generate`` makes of a protocol's histories: clean walks of one
    reference scope, and the known-bug variants whose break shows in a history."""

    scope: str                  # a reference scope's name
    bugs: tuple[str, ...]       # variant keys


# eq=False: a protocol is itself (the registry holds one of each), compared and hashed by identity
@dataclass(frozen=True, kw_only=True, eq=False)
class Protocol:
    name: str                   # as the command line spells it, e.g. consumer-group
    package: str                # its folder under model/, specs/ and tests/model/, e.g. consumer_group
    model: Model
    # name -> scope, each with a comment naming the rule family it is there for: run by the
    # main job (`groupcheck check`), which must stay within about a minute
    default_scopes: Callable[[], dict[str, object]]
    profiles: tuple[str, ...]   # the first is the reference
    with_profile: Callable[[object, str], object]
    # one line describing a scope (the legend under `groupcheck check`'s table)
    scope_text: Callable[[object], str]
    # the scope fields `groupcheck check` sets from its flags (--members, --instances, ...)
    flags: tuple[str, ...]
    # one stage of --plan ('range,cooperative-sticky' or '3.9 upgrade.from=2.3') as the
    # scope's JSON form; raises ValueError naming what is wrong (None: no --plan flag)
    plan_stage: Callable[[str], dict] | None
    # reference tables for `groupcheck list`: (title, columns, rows) (None: none)
    reference: Callable[[], list[tuple[str, list[str], list[list[str]]]]] | None
    # the known-bug variants (properties/known_bugs/<package>.py), run by the main job
    variants: tuple
    # the sometimes-claims (witnesses) a scope cannot reach, with the reason, e.g.
    # {"sometimes_zombie": "no pause fault"}; every other witness must be reached
    out_of_reach: Callable[[object], dict[str, str]]
    # trace-check: observer(model, scope) -> observe, and the kinds of observation it
    # emits with the fields compared (a recorder's other fields are dropped)
    observer: Callable[[Model, object], Observe]
    observed: dict[str, tuple[str, ...]]
    # trace-check --generate (None: it makes no histories of this protocol)
    fleet: Fleet | None
    # the module mapping a model state onto the TLA+ spec's variables, the only name
    # specs/<package>/manifest.json may give as its "mapping" (None: no spec)
    spec_mapping: str | None
