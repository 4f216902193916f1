"""The consumer-side ConsumerCoordinator, EAGER and COOPERATIVE, as pure handlers.

Facts from KIP-429 and Kafka's ConsumerCoordinator / AbstractCoordinator:

* onJoinPrepare: "If received UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION ...: reset
  generation / clear member-id correspondingly, call rebalance listener's
  onPartitionsLost for all the partition and then re-join group with empty assigned
  partition." EAGER calls onPartitionsRevoked on everything, always; COOPERATIVE
  revokes only partitions of topics no longer subscribed (and only if non-empty).
* onJoinComplete (COOPERATIVE): "Calculate the newly-added-partitions as
  Minus(assigned-partitions, owned-partitions) and the revoked-partitions as
  Minus(owned-partitions, assigned-partitions) ... If the set of revoked-partitions
  is non-empty, call the rebalance listener's onPartitionsRevoked and rejoin ... For
  those newly-added-partitions, call the rebalance listener's onPartitionsAssigned
  (even if empty)."
* SyncGroup REBALANCE_IN_PROGRESS: rejoin keeping generation and ownedPartitions
  (Kafka 3.3+, after KAFKA-14016 reverted the KAFKA-13419 reset).
"""
from __future__ import annotations

from typing import NamedTuple

from ..assignors import EAGER, lookup, rebalance_protocol
from ..partitions import existing, of_topics
from .coordinator import Event
from .leader import perform_assignment
from .scope import ConsumerScope
from .state import (
    ASSIGNED, IDLE, INCONSISTENT_GROUP_PROTOCOL, JOINING, MEMBER_ID_REQUIRED,
    NO_GENERATION, NO_MEMBER, NONE, REBALANCE_IN_PROGRESS, SYNCING, UNKNOWN_MEMBER_ID, Consumer,
    Heartbeat, JoinGroup, State, Subscription, SyncGroup, DOWN,
)


class Handled(NamedTuple):
    consumer: Consumer
    events: tuple[Event, ...]
    assigned: bool = False        # the leader computed an assignment (liveness monitor)


def callback(slot: int, which: str, partitions: int) -> Event:
    """A ConsumerRebalanceListener call: ``which`` is assigned, revoked or lost."""
    return Event(which, slot, partitions)


def protocol_of(scope: ConsumerScope, c: Consumer) -> str:
    return rebalance_protocol(scope.plan[c.config].assignors)


def subscription(scope: ConsumerScope, c: Consumer) -> Subscription:
    cfg = scope.plan[c.config]
    sticky_family = any(lookup(a).claims_from for a in cfg.assignors)
    return Subscription(
        version=cfg.version,
        topics=c.subscribed,
        owned=c.owned if cfg.version >= 1 else 0,
        generation=c.generation if cfg.version >= 2 else NO_GENERATION,
        user_data=c.user_data if "sticky" in cfg.assignors else 0,
        user_generation=c.generation if sticky_family else NO_GENERATION,
    )


def join(scope: ConsumerScope, state: State, slot: int) -> Handled:
    """onJoinPrepare, then send JoinGroup with the remaining ownedPartitions."""
    c = state.consumers[slot]
    events = []
    owned = c.owned
    if c.generation == NO_GENERATION or c.member_id == NO_MEMBER:
        if owned and scope.behaviour.fenced_clears_owned:
            events.append(callback(slot, "lost", owned))
            owned = 0
    elif protocol_of(scope, c) == EAGER:
        events.append(callback(slot, "revoked", owned))     # always, even when empty
        owned = 0
    else:
        unsubscribed = owned & ~of_topics(c.subscribed, scope.stride, len(scope.partitions))
        if unsubscribed:
            events.append(callback(slot, "revoked", unsubscribed))
            owned &= ~unsubscribed
    c = c._replace(owned=owned, joined=c.subscribed)
    cfg = scope.plan[c.config]
    req = JoinGroup(member_id=c.member_id, protocols=cfg.assignors, subscription=subscription(scope, c))
    return Handled(c._replace(status=JOINING, awaiting="JoinGroup", outbox=(req,)), tuple(events))


def heartbeat(c: Consumer) -> Consumer:
    return c._replace(awaiting="Heartbeat", outbox=(Heartbeat(member_id=c.member_id, generation=c.generation),))


def fenced(c: Consumer, error: str) -> Consumer:
    """resetStateAndGeneration: ILLEGAL_GENERATION keeps the member id, UNKNOWN_MEMBER_ID not."""
    member_id = NO_MEMBER if error == UNKNOWN_MEMBER_ID else c.member_id
    return c._replace(status=IDLE, awaiting="", member_id=member_id, generation=NO_GENERATION)


def receive(scope: ConsumerScope, state: State, slot: int) -> Handled:
    c = state.consumers[slot]
    resp, rest = c.inbox[0], c.inbox[1:]
    c = c._replace(inbox=rest)
    kind = resp.kind.removesuffix("Response")
    if c.awaiting != kind or resp.to != c.member_id:
        if kind == "SyncGroup" and resp.error == NONE and scope.behaviour.apply_late_sync:
            return _complete(scope, slot, c, resp.assignment, late=True)
        return Handled(c, (Event("ignored", slot, note=f"{resp.kind} no longer awaited"),))
    c = c._replace(awaiting="")
    if kind == "JoinGroup":
        return _on_join_response(scope, state, slot, c, resp)
    if kind == "SyncGroup":
        if resp.error == NONE:
            return _complete(scope, slot, c, resp.assignment)
        if resp.error == REBALANCE_IN_PROGRESS:
            return Handled(c._replace(status=IDLE), ())
        return Handled(fenced(c, resp.error), (Event("fenced", slot, note=resp.error),))
    # HeartbeatResponse
    if resp.error == NONE:
        return Handled(c, ())
    if resp.error == REBALANCE_IN_PROGRESS:
        return Handled(c._replace(status=IDLE), ())
    return Handled(fenced(c, resp.error), (Event("fenced", slot, note=resp.error),))


def _on_join_response(scope: ConsumerScope, state: State, slot: int, c: Consumer, resp) -> Handled:
    if resp.error == MEMBER_ID_REQUIRED:
        # KIP-394 / KIP-429 step 1.5: take the id and send JoinGroup again at once.
        c = c._replace(member_id=resp.member_id, joined=c.subscribed)
        req = JoinGroup(member_id=c.member_id, protocols=scope.plan[c.config].assignors,
                        subscription=subscription(scope, c))
        return Handled(c._replace(awaiting="JoinGroup", outbox=(req,)), ())
    if resp.error == INCONSISTENT_GROUP_PROTOCOL:
        # The consumer's poll() throws InconsistentGroupProtocolException: it stops.
        down = c._replace(status=DOWN, member_id=NO_MEMBER, generation=NO_GENERATION, owned=0)
        return Handled(down, (Event("fatal", slot, note=INCONSISTENT_GROUP_PROTOCOL),))
    if resp.error != NONE:
        return Handled(fenced(c, resp.error), (Event("fenced", slot, note=resp.error),))
    c = c._replace(generation=resp.generation, member_id=resp.member_id, snapshot=-1)
    assignments: tuple = ()
    events: tuple = ()
    led = resp.leader == c.member_id
    if led:   # the leader assigns with fresh metadata and remembers which
        c, events = refresh(scope, state, c, slot)
        result = perform_assignment(scope, slot, protocol_of(scope, c), resp, state.partitions)
        events += result.events
        if result.assignments is None:     # the exception surfaces from poll(); it rejoins
            return Handled(c._replace(status=IDLE), events, True)
        assignments = result.assignments
        c = c._replace(snapshot=state.metadata)
    req = SyncGroup(member_id=c.member_id, generation=c.generation, assignments=assignments)
    return Handled(c._replace(status=SYNCING, awaiting="SyncGroup", outbox=(req,)), events, led)


def _complete(scope: ConsumerScope, slot: int, c: Consumer, assigned: int, late: bool = False) -> Handled:
    """onJoinComplete: revoke what was taken away, then onPartitionsAssigned(added)."""
    events = []
    revoked = c.owned & ~assigned
    added = assigned & ~c.owned
    cooperative = protocol_of(scope, c) != EAGER
    if cooperative and revoked:
        events.append(callback(slot, "revoked", revoked))
    events.append(callback(slot, "assigned", added))        # always, even when empty
    subscribed = of_topics(c.subscribed, scope.stride, len(scope.partitions))
    # requestRejoin: revocations (COOPERATIVE), an assignment outside the subscription,
    # a subscription changed since the JoinGroup (joinedSubscription), stale metadata
    rejoin = (cooperative and revoked) or assigned & ~subscribed or c.joined != c.subscribed or stale_snapshot(c)
    # a late response (apply_late_sync) changes ownership only: the consumer is mid-rejoin
    status = c.status if late else IDLE if rejoin else ASSIGNED
    c = c._replace(owned=assigned, user_data=assigned, status=status)
    return Handled(c, tuple(events))


def refresh(scope: ConsumerScope, state: State, c: Consumer, slot: int) -> tuple[Consumer, tuple[Event, ...]]:
    """KIP-429 1.2: "If topic metadata has changed: call onPartitionsLost on those
    owned-but-no-longer-exist partitions; and if the consumer is the leader, send
    join-group request". The leader knows it from the metadata snapshot its
    assignment used (ConsumerCoordinator#rejoinNeededOrPending): ``stale_snapshot``."""
    gone = c.owned & ~existing(state.partitions, scope.stride)
    events = (callback(slot, "lost", gone),) if gone else ()
    return c._replace(metadata=state.metadata, owned=c.owned & ~gone), events


def stale_snapshot(c: Consumer) -> bool:
    """The leader assigned with metadata it has since seen change: it must rejoin."""
    return c.snapshot != -1 and c.snapshot != c.metadata


def leave(scope: ConsumerScope, slot: int, c: Consumer, rebalancing: bool) -> tuple[Event, ...]:
    """onLeavePrepare: lost if the generation was reset or a rebalance is under way, else revoked."""
    if not c.owned:
        return ()
    lost = c.generation == NO_GENERATION or c.member_id == NO_MEMBER or rebalancing
    return (callback(slot, "lost" if lost else "revoked", c.owned),)
