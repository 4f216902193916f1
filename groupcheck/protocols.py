"""The protocols groupcheck knows, each with its model and its default scopes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from model.core import Model


@dataclass(frozen=True)
class Protocol:
    name: str
    model: Model
    default_scopes: Callable[[], dict[str, object]]   # name -> scope, run by `groupcheck check`
    profiles: tuple[str, ...]
    with_profile: Callable[[object, str], object]


def _consumer() -> Protocol:
    from model.consumer import MODEL
    from model.consumer.scope import PROFILES, Config, ConsumerScope, with_profile

    def scopes() -> dict[str, object]:
        return {
            "cooperative": ConsumerScope(budget=1, faults=("crash", "pause", "lose_response", "timeout")),
            "eager": ConsumerScope(plan=(Config(("range",)),), budget=1),
            "metadata": ConsumerScope(partitions=(1, 1), budget=1, faults=(),
                                      operations=("add_partition", "delete_topic", "subscription_change",
                                                  "delete_group")),
            # KIP-429's two rolling bounces, eager range -> cooperative-sticky, of a running group
            "upgrade": ConsumerScope(plan=(Config(("range",), 1), Config(("cooperative-sticky", "range")),
                                           Config(("cooperative-sticky",))), budget=0, max_generation=8,
                                     start="stable"),
        }

    return Protocol("consumer", MODEL, scopes, tuple(PROFILES), with_profile)


PROTOCOLS: dict[str, Callable[[], Protocol]] = {"consumer": _consumer}


class UnknownProtocol(ValueError):
    pass


def get(name: str) -> Protocol:
    if name not in PROTOCOLS:
        raise UnknownProtocol(f"unknown protocol {name!r}; known: {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]()
