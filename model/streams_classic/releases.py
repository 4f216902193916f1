"""Kafka Streams releases as the model knows them: metadata versions, probing rules,
rebalance protocols and the ``upgrade.from`` values each accepts.

Facts from Apache Kafka's source (``StreamsPartitionAssignor``, ``SubscriptionInfo``,
``StreamsAssignmentProtocolVersions``, ``StreamsConfig``; see ``../shared/kafka-behavior.md``
A1). Each release stands for its newest bug-fix release: 0.10.1-1.1 include the KAFKA-6054
backport (``upgrade.from="0.10.0"``), 2.1-2.3 include the KAFKA-8649 fix.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

EARLIEST_PROBEABLE_VERSION = 3   # the first version carrying latestSupportedVersion (2.0)

# How a release's StreamsPartitionAssignor treats a subscription version it does not know.
PRE_PROBING = "pre-probing"      # < 2.0: decoding fails, the leader's thread dies
KIP_268 = "kip-268"              # 2.0-2.3: an empty assignment for the future member, the rest keep their tasks
KAFKA_26 = "kafka-2.6+"          # 2.4+: a normal assignment at the lowest used version, future members included

EAGER, COOPERATIVE = "EAGER", "COOPERATIVE"


class Release(NamedTuple):
    name: str
    latest: int          # LATEST_SUPPORTED_VERSION of SubscriptionInfo / AssignmentInfo
    family: str          # PRE_PROBING | KIP_268 | KAFKA_26

    @property
    def cooperative(self) -> bool:
        """StreamsPartitionAssignor supports COOPERATIVE from 2.4 (KIP-429)."""
        return _key(self.name) >= _key("2.4")

    @property
    def kafka_8649_fix(self) -> bool:
        """KAFKA-8649's fix (8da6993 "Send latest commonly supported version in assignment",
        2.4, backported to the 2.1-2.3 branches; 2.0 never got it). The leader advertises
        the group's lowest latestSupportedVersion, answers a future subscription at
        (minReceived, minSupported) and returns each thread its own previous tasks
        (versionProbingAssignment); the member throws TaskAssignmentException on a version
        above its own (validateMetadataVersions) and rejoins on an upgrade too
        (maybeUpdateSubscriptionVersion)."""
        return _key(self.name) >= _key("2.1")

    @property
    def assignment_error(self) -> bool:
        """From 2.7 (a7ec005, #9446) a future subscription next to a v1/v2 one is a
        TaskAssignmentException that assign() catches: every member gets ASSIGNMENT_ERROR
        (errorAssignment), and a thread handed that code throws TaskAssignmentException
        (StreamsRebalanceListener#onPartitionsAssigned). 2.0-2.6 throw IllegalStateException
        from assign() instead (checkMetadataVersions, 2.6.3), and know no such code."""
        return _key(self.name) >= _key("2.7")


@lru_cache(maxsize=None)
def _key(name: str) -> tuple[int, ...]:
    if name == "next":
        return (99,)
    return tuple(int(x) for x in name.split("."))


_TABLE = (
    ("0.10.0", 1), ("0.10.1", 2), ("0.10.2", 2), ("0.11.0", 2), ("1.0", 2), ("1.1", 2),
    ("2.0", 3), ("2.1", 4), ("2.2", 4), ("2.3", 4), ("2.4", 5), ("2.5", 6),
    ("2.6.0", 7), ("2.6.1", 8), ("2.7", 8), ("2.8", 9), ("3.0", 10), ("3.1", 10),
    ("3.2", 11), ("3.3", 11), ("3.4", 11), ("3.5", 11), ("3.6", 11), ("3.7", 11), ("3.8", 11),
    ("3.9", 11), ("4.0", 11), ("4.1", 11),
)


def _family(name: str) -> str:
    if _key(name) < _key("2.0"):
        return PRE_PROBING
    # 2.0-2.3 answer a future subscription with an empty assignment and give everyone else
    # their previous tasks (StreamsPartitionAssignor#versionProbingAssignment, 2.3.1). From
    # 2.4 (KAFKA-8179 part 7, 133c33f) the future members join a dummy client and the whole
    # group gets a normal, cooperative-safe assignment (versionProbingAssignment, 2.4.1),
    # which 2.6's rewrite (KAFKA-10079) keeps: the leader rules of 2.4-2.5 are 2.6's, and
    # so are the member rules (validateMetadataVersions, maybeUpdateSubscriptionVersion,
    # tasks created anyway).
    return KIP_268 if _key(name) < _key("2.4") else KAFKA_26


RELEASES: dict[str, Release] = {n: Release(n, v, _family(n)) for n, v in _TABLE}
LATEST_RELEASE = "4.1"
# The KIP-268 test plan's "simulated upgrade": a release one metadata version newer.
RELEASES["next"] = Release("next", RELEASES[LATEST_RELEASE].latest + 1, KAFKA_26)

# upgrade.from values (StreamsConfig.UPGRADE_FROM_*): one per release line before 3.9.
UPGRADE_FROM = ("0.10.0", "0.10.1", "0.10.2", "0.11.0", "1.0", "1.1", "2.0", "2.1", "2.2", "2.3",
                "2.4", "2.5", "2.6", "2.7", "2.8", "3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6",
                "3.7", "3.8")
ALIASES = {"2.6": "2.6.1"}


def release(name: str) -> Release:
    """The Kafka Streams release called ``name`` (an alias resolved); KeyError naming the known ones."""
    name = ALIASES.get(name, name)
    if name not in RELEASES:
        raise KeyError(f"unknown Kafka Streams release {name!r}; known: {', '.join(RELEASES)}")
    return RELEASES[name]


def accepts_upgrade_from(name: str, value: str) -> bool:
    """Whether release ``name``'s StreamsConfig accepts ``upgrade.from=value``.

    0.10.0 has no such config; 0.10.1-1.1 accept only "0.10.0" (the KAFKA-6054 backport);
    2.0-2.3 accept "0.10.0".."1.1" (KIP-268); 2.4+ accept every earlier release line
    (2.0-2.3 switch off COOPERATIVE, KIP-429). Anything else is an IllegalArgumentException
    (ConfigException) at startup. (Which later lines each 2.5+ release lists is not
    modelled: the model lets it accept all of them; values from 2.4 on change nothing
    here.)
    """
    line = _key("2.6" if name in ("2.6.0", "2.6.1") else name)
    if value not in UPGRADE_FROM or _key(value) >= line:
        return False
    if _key(name) < _key("0.10.1"):
        return False
    if _key(name) < _key("2.0"):
        return value == "0.10.0"
    if _key(name) < _key("2.4"):
        return _key(value) < _key("2.0")
    return True


@lru_cache(maxsize=None)
def subscription_version(name: str, upgrade_from: str | None) -> int:
    """The SubscriptionInfo version an instance sends at startup (its usedVersion)."""
    latest = release(name).latest
    if upgrade_from == "0.10.0":
        return min(latest, 1)
    if upgrade_from is not None and _key(upgrade_from) < _key("2.0"):
        return min(latest, 2)
    return latest


@lru_cache(maxsize=None)
def rebalance_protocol(name: str, upgrade_from: str | None) -> str:
    """``supportedProtocols()``: COOPERATIVE from 2.4 unless upgrade.from <= 2.3 (KIP-429)."""
    if not release(name).cooperative:
        return EAGER
    if upgrade_from is not None and _key(upgrade_from) < _key("2.4"):
        return EAGER
    return COOPERATIVE


def later(a: str, b: str) -> bool:
    """Release ``b`` is newer than ``a``."""
    return _key(b) > _key(a)
