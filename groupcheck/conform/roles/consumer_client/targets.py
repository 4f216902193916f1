"""The consumer-client targets: real librdkafka consumers on librdkafka's mock cluster
(``targets/librdkafka/``), classic (``librdkafka:<assignor>``, the assignor the group
runs) and KIP-848 (``librdkafka-consumer-protocol``, ``group.protocol=consumer``), and
the judge's self-tests: the same consumers with a broken rebalance listener
(``librdkafka-consumer-protocol:<broken>``; classic: ``python -m
groupcheck.conform.roles.consumer_client --assignor <broken>:<assignor>``)."""
from __future__ import annotations

CLASSIC_TARGETS = ("librdkafka:range", "librdkafka:roundrobin", "librdkafka:cooperative-sticky")
CONSUMER_PROTOCOL_TARGETS = ("librdkafka-consumer-protocol", "librdkafka-consumer-protocol:skips-revoke",
                             "librdkafka-consumer-protocol:ignores-lost")
BUILTIN = CLASSIC_TARGETS + CONSUMER_PROTOCOL_TARGETS


def campaign_of(name: str):
    """(the campaign's run, its Options class, the target's key) of a built-in target name."""
    from . import campaign
    if name in CONSUMER_PROTOCOL_TARGETS:                  # KIP-848: group.protocol=consumer
        return campaign.run_848, campaign.Options848, name.partition(":")[2] or "librdkafka"
    return campaign.run, campaign.Options, name.split(":", 1)[1]
