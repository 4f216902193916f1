"""Known Kafka Streams bugs of the classic protocol, as behaviours kept apart from the
reference (``model/streams_classic``). Same shape as ``consumer.py``: each variant is
the reference with a buggy release's rule switched on through ``Behaviour``, the
smallest scope in which it shows, and the property expected to catch it. The reference
passes every one of these scopes.
"""
from __future__ import annotations

from dataclasses import replace

from groupcheck.model.streams_classic.scope import Behaviour, Config, StreamsScope

from . import Variant, lookup, with_behaviour

REF = Behaviour()


def _scope(*plan: Config, instances: int = 2, tasks: int = 2) -> StreamsScope:
    return StreamsScope(instances=instances, tasks=tasks, plan=plan, max_generation=16)


VARIANTS: tuple[Variant, ...] = (
    with_behaviour(
        key="KAFKA-6054", title="an old leader cannot decode the new subscription: upgrade.from ignored",
        behaviour=replace(REF, honour_upgrade_from=False),
        scope=_scope(Config("0.10.0"), Config("0.10.2", "0.10.0"), Config("0.10.2")),
        expect="leader_never_fails",
        doc="Before the fix, 0.10.1+ always sent SubscriptionInfo v2 and a 0.10.0 leader could not decode "
        "it, so no rolling bounce from 0.10.0 worked. KIP-268: \"config upgrade.from tells the "
        "application to send Subscription using old encoding (version 1 or 2), to be compatible with "
        "potential version 1 or 2 leader in the group\".",
    ),
    with_behaviour(
        key="KAFKA-8649", title="an upgraded leader advertises its own version: old members upgrade past what they support",
        behaviour=replace(REF, advertise_group_min=False),
        scope=_scope(Config("2.0"), Config("2.3")),
        expect="used_version_supported",
        doc="Kafka 2.0-2.3 (fixed 2.4, backported to 2.1): the leader encoded its own LATEST_SUPPORTED_VERSION "
        "as the supported version, and a member on older code raised its used version to it, beyond "
        "what it can encode. The fix advertises the group's lowest supported version.",
    ),
    with_behaviour(
        key="KAFKA-8649-prev-tasks", title="a probing leader hands every thread its whole instance's previous tasks",
        behaviour=replace(REF, advertise_group_min=False),
        scope=replace(_scope(Config("2.3"), Config("2.4", "2.3")), threads=2, max_generation=12),
        expect="no_task_active_twice",
        doc="Kafka 2.0's versionProbingAssignment gave each consumer of a client the client's previous "
        "tasks; with two stream threads per instance both threads get the same tasks, and a task runs "
        "twice. Fixed with KAFKA-8649 (\"dont send entire client's prevTasks to each consumer\", 2.1+). "
        "KIP-429: \"we need to guarantee each topic partition is assigned with exactly one consumer at "
        "any time\".",
    ),
    with_behaviour(
        key="KIP-268-no-downgrade", title="a follower never downgrades after version probing",
        behaviour=replace(REF, follower_downgrades=False),
        scope=_scope(Config("2.4"), Config("3.9")),
        expect="rebalances_bounded",
        doc="KIP-268: the follower that gets the empty assignment \"can downgrade to X (in-memory flag) and "
        "resends a new Subscription with old version X\". One that keeps sending the newer version is "
        "answered with another empty assignment, and the group rebalances forever.",
    ),
    with_behaviour(
        key="KIP-268-no-final-rebalance", title="the leader never triggers the final rebalance",
        behaviour=replace(REF, probing="kip-268", leader_final_rebalance=False),
        scope=replace(_scope(Config("2.0"), Config("2.3")), profile="kip-268", behaviour=replace(REF, probing="kip-268")),
        expect="upgrade_completes",
        doc="KIP-268: \"if the leader is bounced last, the metadata upgrade only finishes after one more "
        "rebalance [...] the leader should be responsible to trigger this final rebalance\". Without it "
        "the group settles on the old version's assignment until something else rebalances it. (Checked "
        "under the kip-268 profile: Kafka's 2.1-2.5 members trigger that rebalance themselves.)",
        also=("upgrade_within_one_extra_rebalance",),
    ),
)


def variant(key: str) -> Variant:
    return lookup(VARIANTS, key, "no Streams known-bug variant")
