"""Kafka Streams releases as the model knows them: metadata versions, probing rules,
rebalance protocols and the ``upgrade.from`` values each accepts.

Facts from Apache Kafka's source (``StreamsPartitionAssignor``, ``SubscriptionInfo``,
``StreamsAssignmentProtocolVersions``, ``StreamsConfig``; see ``../shared/kafka-behavior.md``
A1). Each release stands for its newest bug-fix release: 0.10.1-1.1 include the KAFKA-6054
backport (``upgrade.from="0.10.0"``), 2.1-2.3 include the KAFKA-8649 fix.
"""
from __future__ import annotations

from typing import NamedTuple

EARLIEST_PROBEABLE_VERSION = 3   # the first version carrying latestSupportedVersion (2.0)

# How a release's StreamsPartitionAssignor treats a subscription version it does not know.
PRE_PROBING = "pre-probing"      # < 2.0: decoding fails, the leader's thread dies
KIP_268 = "kip-268"              # 2.0-2.5: an empty assignment encoding the leader's version
KAFKA_26 = "kafka-2.6+"          # 2.6+: a normal assignment at the lowest used version

EAGER, COOPERATIVE = "EAGER", "COOPERATIVE"


class Release(NamedTuple):
    name: str
    latest: int          # LATEST_SUPPORTED_VERSION of SubscriptionInfo / AssignmentInfo
    family: str          # PRE_PROBING | KIP_268 | KAFKA_26

    @property
    def cooperative(self) -> bool:
        """StreamsPartitionAssignor supports COOPERATIVE from 2.4 (KIP-429)."""
        return _key(self.name) >= _key("2.4")


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
    # 2.4-2.5 answered future subscriptions through a dummy client with error code
    # VERSION_PROBING; the outcome is KIP-268's (future members get no task, the rest keep
    # theirs), which is what the model follows. KAFKA-10079 (2.6) replaced it.
    return KIP_268 if _key(name) < _key("2.6.0") else KAFKA_26


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


def subscription_version(name: str, upgrade_from: str | None) -> int:
    """The SubscriptionInfo version an instance sends at startup (its usedVersion)."""
    latest = release(name).latest
    if upgrade_from == "0.10.0":
        return min(latest, 1)
    if upgrade_from is not None and _key(upgrade_from) < _key("2.0"):
        return min(latest, 2)
    return latest


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
