"""The scenarios the assignor role is driven through: named consumer scopes whose
leader runs the target, each reaching a rule family the model knows matters.

Like the protocols' reference scopes (``groupcheck/protocols/``), each scope's comment
names what it is there for. Which scopes a target gets depends on the protocols it supports (the two-bounce
upgrade and the KIP-792 zombies need COOPERATIVE; subscription v0 carries no
ownedPartitions, so COOPERATIVE cannot run on it).
"""
from __future__ import annotations

from dataclasses import replace

from groupcheck.model.consumer import MODEL, Behaviour, Config, ConsumerScope

from .targets import COOPERATIVE, EAGER, Target


def scopes(target: Target) -> dict[str, ConsumerScope]:
    t = target.name
    coop = COOPERATIVE in target.protocols
    own = Config((t,), 3)
    out: dict[str, ConsumerScope] = {
        # KIP-792's generation rules: a zombie (pause) rejoins with a stale claim, a lost
        # JoinGroup/SyncGroup response leaves a member one generation behind
        "kip-792-zombies": ConsumerScope(members=2, partitions=(3,), plan=(own,), faults=("pause", "lose_response"),
                                         budget=1),
        # member order: a rolling restart of a running three-member group; each bounced
        # member rejoins under a new, higher member id, so the leader's member order (by
        # member id, as Kafka's assignors sort) changes from round to round
        "member-order": ConsumerScope(members=3, partitions=(2,), plan=(own, own), start="stable", budget=0,
                                      max_generation=5),
        # three members and a lost response: where KAFKA-14639 and KAFKA-13406 live
        "three-members": ConsumerScope(members=3, partitions=(1,), plan=(own,), faults=("lose_response",), budget=1),
        # metadata: partitions added, a topic deleted, a subscription changed (unequal
        # subscriptions; claims on partitions that no longer exist)
        "metadata": ConsumerScope(members=2, partitions=(2, 1), plan=(own,), faults=(),
                                  operations=("add_partition", "delete_topic", "subscription_change"), budget=1),
        # subscription v1 on the wire: ownedPartitions without a generation (kafka-python's
        # own cooperative-sticky sends v1)
        "subscription-v1": ConsumerScope(members=2, partitions=(3,), plan=(Config((t,), 1),),
                                         faults=("pause", "lose_response"), budget=1),
        # a mixed-version group: a rolling bounce from subscription v1 to v3 of a running group
        "mixed-versions": ConsumerScope(members=2, partitions=(3,), plan=(Config((t,), 1), own), start="stable",
                                        faults=("lose_response",), budget=1, max_generation=6),
    }
    if coop:
        # KIP-792's generation rule needs two claims on one partition at different
        # generations. Kafka 3.5+ clients never send one (a fenced consumer rejoins owning
        # nothing), but a group may still hold 2.4-2.8 clients (KAFKA-12983: a fenced
        # zombie rejoins still claiming): their stale claims reach the leader here. That
        # client bug breaks the group's own properties whoever assigns, so this scope
        # judges only the per-invocation claims (``EXCLUDED``)
        out["stale-claims-old-clients"] = replace(
            ConsumerScope(members=2, partitions=(3,), plan=(own,), faults=("pause",), budget=1, max_generation=5),
            profile="custom", behaviour=Behaviour(fenced_clears_owned=False))
        # KIP-429's two rolling bounces of a running group: eager range (v1) ->
        # [target, range] (still EAGER) -> target (COOPERATIVE). An assignor that does not
        # also support EAGER cannot be listed next to range: the scope is not configurable,
        # and the verdict says so (see ``configurable``)
        out["two-bounce-upgrade"] = ConsumerScope(members=2, partitions=(3,), plan=(
            Config(("range",), 1), Config((t, "range"), 3), Config((t,), 3)), start="stable", budget=0,
            max_generation=8)
    if coop and EAGER not in target.protocols:
        # what is left to a COOPERATIVE-only assignor: one bounce straight from range; the
        # bounced member shares no protocol with the others (INCONSISTENT_GROUP_PROTOCOL)
        out["one-bounce-upgrade"] = ConsumerScope(members=2, partitions=(3,), plan=(
            Config(("range",), 1), Config((t,), 3)), start="stable", budget=0, max_generation=8)
    if not coop:
        # subscription v0: no ownedPartitions, no generation
        out["subscription-v0"] = ConsumerScope(members=2, partitions=(2, 1), plan=(Config((t,), 0),), faults=("crash",),
                                               operations=("subscription_change",), budget=1)
        if not coop:
            # switching a running group onto the target in two bounces (range -> [target, range] -> target)
            out["rolling-switch"] = ConsumerScope(members=2, partitions=(3,), plan=(
                Config(("range",), 3), Config((t, "range"), 3), own), start="stable", budget=0, max_generation=8)
    return out


# scopes whose client behaviour breaks the group's properties by itself: there only the
# per-invocation claims (what the assignor answered) are judged
EXCLUDED: dict[str, frozenset[str]] = {
    "stale-claims-old-clients": frozenset([p.name for p in MODEL.properties] + ["no_deadlock", "can_settle"]),
}


def configurable(scope: ConsumerScope) -> str | None:
    """Why the model cannot run ``scope`` (a plan stage with no rebalance protocol in
    common, COOPERATIVE on subscription v0), or None."""
    from groupcheck.model.consumer import validate
    from groupcheck.model.scopes import ScopeError
    try:
        validate(scope)
    except ScopeError as e:
        return str(e)
    return None
