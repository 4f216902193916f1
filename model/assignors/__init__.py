"""Reference partition assignors: range, roundrobin, sticky, cooperative-sticky.

Each assignor is a pure function from the leader's view of the group to an intended
assignment ``{member_id: partition mask}``. Members are ordered by member id, as
Kafka's assignors sort them. Sticky assignors start from the *resolved* claims
(``ownership.resolve_claims``); cooperative withholding is ``ownership.withhold``.

``ASSIGNORS`` is the registry the consumer model reads (``lookup``). A user's own
assignor is adapted by ``groupcheck.api`` and added with ``register``: the model
itself never imports anything by name.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, NamedTuple

from . import range as _range, roundrobin as _roundrobin, sticky as _sticky

EAGER = "EAGER"
COOPERATIVE = "COOPERATIVE"
PROTOCOL_IDS = {EAGER: 0, COOPERATIVE: 1}


class Member(NamedTuple):
    """One member as the assignor sees it: its eligible partitions and kept claims.

    ``topics``, ``owned`` and ``generation`` are its subscription as the leader read
    it (ownedPartitions and generation only when the assignor reads claims): what a
    non-built-in assignor gets in Kafka, unresolved. The built-in plans ignore them.
    """

    member_id: int
    eligible: int   # partitions of its subscribed topics that exist
    claims: int     # resolved previous ownership (sticky assignors only)
    topics: int = 0         # subscribed topics (a topic bitmask)
    owned: int = 0          # raw ownedPartitions claim
    generation: int = -1    # the claim's generation (KIP-792)
    # the whole ConsumerProtocolSubscription as the JoinGroup carried it (version, topics,
    # ownedPartitions, generation, userData), for non-built-in assignors only: what
    # Kafka hands any assignor; ``groupcheck conform`` sends it to real implementations
    subscription: tuple = ()


Plan = Callable[[tuple[Member, ...], int], dict[int, int]]  # (members, stride)


@dataclass(frozen=True)
class Assignor:
    name: str
    supported_protocols: tuple[str, ...]   # ConsumerPartitionAssignor#supportedProtocols
    builtin: bool
    claims_from: str | None                # "owned" (ownedPartitions), "user_data", or None
    withholds: bool                         # cooperative adjustAssignment inside the assignor
    plan: Plan


ASSIGNORS: dict[str, Assignor] = {
    a.name: a
    for a in (
        Assignor(name="range", supported_protocols=(EAGER,), builtin=True, claims_from=None, withholds=False,
                 plan=_range.plan),
        Assignor(name="roundrobin", supported_protocols=(EAGER,), builtin=True, claims_from=None, withholds=False,
                 plan=_roundrobin.plan),
        Assignor(name="sticky", supported_protocols=(EAGER,), builtin=True, claims_from="user_data", withholds=False,
                 plan=_sticky.plan),
        Assignor(name="cooperative-sticky", supported_protocols=(COOPERATIVE, EAGER), builtin=True,
                 claims_from="owned", withholds=True, plan=_sticky.plan),
        # A user's own cooperative assignor that is sticky but forgets to withhold:
        # ConsumerCoordinator#validateCooperativeAssignment exists for exactly this.
        Assignor(name="custom-cooperative", supported_protocols=(COOPERATIVE, EAGER), builtin=False,
                 claims_from="owned", withholds=False, plan=_sticky.plan),
    )
}


PACKAGED = frozenset(ASSIGNORS)   # the assignors above; ``register`` never replaces them


class AssignorConfigError(ValueError):
    """The configured assignor list cannot select a rebalance protocol."""


def lookup(name: str) -> Assignor:
    """The registered assignor called ``name``; AssignorConfigError naming the known ones."""
    try:
        return ASSIGNORS[name]
    except KeyError:
        raise AssignorConfigError(f"unknown assignor {name!r}; known: {', '.join(ASSIGNORS)}") from None


def register(assignor: Assignor) -> None:
    """Add a non-built-in assignor under ``assignor.name`` (replacing one registered
    earlier under that name, never one of the packaged assignors)."""
    if assignor.name in PACKAGED:
        raise AssignorConfigError(f"{assignor.name!r} is a packaged assignor; choose another name")
    if assignor.builtin:
        raise AssignorConfigError(f"{assignor.name!r}: a registered assignor is not built-in "
                                  "(validateCooperativeAssignment applies to it)")
    if not assignor.supported_protocols or set(assignor.supported_protocols) - set(PROTOCOL_IDS):
        raise AssignorConfigError(f"{assignor.name!r}: supported_protocols {list(assignor.supported_protocols)}; "
                                  f"give a non-empty list of {', '.join(PROTOCOL_IDS)}")
    ASSIGNORS[assignor.name] = assignor
    rebalance_protocol.cache_clear()


@lru_cache(maxsize=256)
def rebalance_protocol(assignors: tuple[str, ...]) -> str:
    """The consumer's RebalanceProtocol for its configured assignor list.

    KIP-429: "Only consider protocols that are supported by all the assignors. If
    there is no common protocols supported across all the assignors, throw an
    exception during starting up time. If there are multiple protocols that are
    commonly supported, select the one with the highest id".
    """
    if not assignors:
        raise AssignorConfigError("partition.assignment.strategy is empty")
    unknown = [a for a in assignors if a not in ASSIGNORS]
    if unknown:
        raise AssignorConfigError(f"unknown assignor(s): {', '.join(unknown)}; known: {', '.join(ASSIGNORS)}")
    common = set(lookup(assignors[0]).supported_protocols)
    for name in assignors[1:]:
        common &= set(lookup(name).supported_protocols)
    if not common:
        raise AssignorConfigError(
            f"assignors {list(assignors)} have no rebalance protocol in common"
        )
    return max(common, key=PROTOCOL_IDS.__getitem__)
