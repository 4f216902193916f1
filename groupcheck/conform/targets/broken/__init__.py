"""The built-in broken targets, all in one place: each breaks one rule on purpose and names
the claim or property that must flag it, so every role's judge is shown able to fail.

    assignors.py          partition assignors (``--assignor groupcheck.conform.targets.broken.assignors:Name``)
    streams_assignors.py  Kafka Streams task assignors (``--role streams-assignor --assignor ...:Name``)
    coordinators.py       group coordinators (``--role group-coordinator --target broken:<name>``)
    clients.py            rebalance listeners on real librdkafka consumers (``skips-revoke``, ``ignores-lost``)
    clients_848.py        the same under KIP-848, and a mis-ordered fake observation stream

They live in the package, not in ``examples/``, because ``broken:<name>`` and the
listeners are built-in target names: they must work from an installed groupcheck, and
examples/ is not installed.
"""
