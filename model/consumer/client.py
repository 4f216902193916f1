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

Where Kafka's ConsumerCoordinator (3.9) is more precise than the KIP, the model
follows it, each rule cited at its function: onJoinPrepare runs once per rebalance
(``needsJoinPrepare``), onJoinComplete first checks the assignment against the
current subscription, onLeavePrepare reports ``lost`` only for a reset generation or
a rebalance in progress, and maybeLeaveGroup sends no LeaveGroup when UNJOINED.
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
    """The consumer's RebalanceProtocol (EAGER or COOPERATIVE) for its configured assignors (KIP-429)."""
    return rebalance_protocol(scope.plan[c.config].assignors)


def subscription(scope: ConsumerScope, c: Consumer) -> Subscription:
    cfg = scope.plan[c.config]
    sticky_family = any(lookup(a).claims_from for a in cfg.assignors)
    return Subscription(
        version=cfg.version,
        topics=c.subscribed,
        owned=c.owned if cfg.version >= 1 else 0,
        generation=c.generation if cfg.version >= 2 else NO_GENERATION,
        # KIP-54's StickyAssignor (and any assignor reading claims from userData) writes
        # the previous assignment there
        user_data=c.user_data if any(lookup(a).claims_from == "user_data" for a in cfg.assignors) else 0,
        user_generation=c.generation if sticky_family else NO_GENERATION,
    )


def join(scope: ConsumerScope, state: State, slot: int) -> Handled:
    """onJoinPrepare (if this rebalance has not run it yet), then send JoinGroup with the
    remaining ownedPartitions.

    AbstractCoordinator#joinGroupIfNeeded calls onJoinPrepare only while
    ``needsJoinPrepare``; it clears the flag first and sets it again only after
    onJoinComplete or a reset (resetStateAndRejoin). A JoinGroup retried after a lost
    response, a timeout or a SyncGroup REBALANCE_IN_PROGRESS therefore calls no listener
    (ConsumerCoordinatorTest#testRebalanceInProgressOnSyncGroup rejoins that way)."""
    c = state.consumers[slot]
    events: tuple = ()
    owned = c.owned
    if c.needs_join_prepare:
        owned, events = _on_join_prepare(scope, slot, c)
    c = c._replace(owned=owned, joined=c.subscribed, needs_join_prepare=False)
    cfg = scope.plan[c.config]
    req = JoinGroup(member_id=c.member_id, protocols=cfg.assignors, subscription=subscription(scope, c))
    return Handled(c._replace(status=JOINING, awaiting="JoinGroup", outbox=(req,)), events)


def _on_join_prepare(scope: ConsumerScope, slot: int, c: Consumer) -> tuple[int, tuple[Event, ...]]:
    """ConsumerCoordinator#onJoinPrepare: the partitions still owned, and the callbacks.

    A reset generation or member id: onPartitionsLost(owned) unless empty. Otherwise
    EAGER: onPartitionsRevoked(owned), always, even empty; COOPERATIVE: revoke only the
    partitions of topics no longer subscribed, and only if there are any."""
    owned = c.owned
    if c.generation == NO_GENERATION or c.member_id == NO_MEMBER:
        if owned:
            return 0, (callback(slot, "lost", owned),)
        return 0, ()
    if protocol_of(scope, c) == EAGER:
        return 0, (callback(slot, "revoked", owned),)
    unsubscribed = owned & ~of_topics(c.subscribed, scope.stride, len(scope.partitions))
    if unsubscribed:
        return owned & ~unsubscribed, (callback(slot, "revoked", unsubscribed),)
    return owned, ()


def heartbeat(c: Consumer) -> Consumer:
    return c._replace(awaiting="Heartbeat", outbox=(Heartbeat(member_id=c.member_id, generation=c.generation),))


def fenced(scope: ConsumerScope, c: Consumer, error: str) -> Consumer:
    """resetStateOnResponseError -> resetStateAndRejoin: ILLEGAL_GENERATION keeps the
    member id, UNKNOWN_MEMBER_ID not; the generation is reset and onJoinPrepare will run
    again (``needsJoinPrepare``), unless the profile has KAFKA-12983's bug."""
    member_id = NO_MEMBER if error == UNKNOWN_MEMBER_ID else c.member_id
    again = c.needs_join_prepare or scope.behaviour.fenced_clears_owned
    return c._replace(status=IDLE, awaiting="", member_id=member_id, generation=NO_GENERATION,
                      needs_join_prepare=again)


def receive(scope: ConsumerScope, state: State, slot: int) -> Handled:
    """The consumer handles the response at the head of its inbox (AbstractCoordinator's
    JoinGroupResponseHandler, SyncGroupResponseHandler, HeartbeatResponseHandler); a
    response it no longer awaits is dropped."""
    c = state.consumers[slot]
    resp, rest = c.inbox[0], c.inbox[1:]
    kind = resp.kind.removesuffix("Response")
    if c.awaiting != kind or resp.to != c.member_id:
        c = c._replace(inbox=rest)
        if kind == "SyncGroup" and resp.error == NONE and scope.behaviour.apply_late_sync:
            return _complete(scope, slot, c, resp.assignment, late=True)
        return Handled(c, (Event("ignored", slot, note=f"{resp.kind} no longer awaited"),))
    c = c._replace(inbox=rest, awaiting="")
    if kind == "JoinGroup":
        return _on_join_response(scope, state, slot, c, resp)
    if kind == "SyncGroup":
        if resp.error == NONE:
            return _complete(scope, slot, c, resp.assignment)
        if resp.error == REBALANCE_IN_PROGRESS:
            return Handled(c._replace(status=IDLE), ())
        return Handled(fenced(scope, c, resp.error), (Event("fenced", slot, note=resp.error),))
    # HeartbeatResponse
    if resp.error == NONE:
        return Handled(c, ())
    if resp.error == REBALANCE_IN_PROGRESS:
        return Handled(c._replace(status=IDLE), ())
    return Handled(fenced(scope, c, resp.error), (Event("fenced", slot, note=resp.error),))


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
        return Handled(fenced(scope, c, resp.error), (Event("fenced", slot, note=resp.error),))
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
    """ConsumerCoordinator#onJoinComplete.

    1. An assignment that does not match the current subscription (a partition of a topic
       no longer subscribed: SubscriptionState#checkAssignmentMatchedSubscription) means
       the subscription changed since the JoinGroup: requestRejoin and return, with no
       callback, no onAssignment and the owned partitions unchanged.
    2. COOPERATIVE: revoked = owned - assigned; if non-empty, onPartitionsRevoked(revoked)
       and requestRejoin.
    3. onAssignment (the sticky userData), owned = assigned, then
       onPartitionsAssigned(assigned - owned), always, even empty.
    Then rejoinNeededOrPending: a subscription changed since the JoinGroup
    (joinedSubscription), or the leader's assignment snapshot is stale.
    In every case the rebalance is over: the next JoinGroup runs onJoinPrepare again."""
    c = c._replace(needs_join_prepare=True)
    subscribed = of_topics(c.subscribed, scope.stride, len(scope.partitions))
    if assigned & ~subscribed:
        status = c.status if late else IDLE
        return Handled(c._replace(status=status),
                       (Event("rejoin", slot, assigned, "assignment does not match the current subscription"),))
    events = []
    revoked = c.owned & ~assigned
    added = assigned & ~c.owned
    cooperative = protocol_of(scope, c) != EAGER
    if cooperative and revoked:
        events.append(callback(slot, "revoked", revoked))
    events.append(callback(slot, "assigned", added))        # always, even when empty
    rejoin = (cooperative and revoked) or c.joined != c.subscribed or stale_snapshot(c)
    # a late response (apply_late_sync) changes ownership only: the consumer is mid-rejoin
    status = c.status if late else IDLE if rejoin else ASSIGNED
    c = c._replace(owned=assigned, user_data=assigned, status=status)
    return Handled(c, tuple(events))


def refresh(scope: ConsumerScope, state: State, c: Consumer, slot: int) -> tuple[Consumer, tuple[Event, ...]]:
    """The consumer sees the current cluster metadata.

    KIP-429 1.2: "If topic metadata has changed: call onPartitionsLost on those
    owned-but-no-longer-exist partitions; and if the consumer is the leader, send
    join-group request". Only the KIP's text (``lost_on_deleted_partitions``) does the
    first part: Kafka's ConsumerCoordinator never has, and the partitions stay owned
    until an assignment revokes them. The leader rejoins through the metadata snapshot
    its assignment used (ConsumerCoordinator#rejoinNeededOrPending): ``stale_snapshot``."""
    if not scope.behaviour.lost_on_deleted_partitions:
        return c._replace(metadata=state.metadata), ()
    gone = c.owned & ~existing(state.partitions, scope.stride)
    events = (callback(slot, "lost", gone),) if gone else ()
    return c._replace(metadata=state.metadata, owned=c.owned & ~gone), events


def stale_snapshot(c: Consumer) -> bool:
    """The leader assigned with metadata it has since seen change: it must rejoin."""
    return c.snapshot != -1 and c.snapshot != c.metadata


def rebalance_in_progress(c: Consumer) -> bool:
    """AbstractCoordinator#rebalanceInProgress: PREPARING_REBALANCE or COMPLETING_REBALANCE.
    A consumer waiting to retry a failed JoinGroup / SyncGroup is still in that state; one
    that only has a rejoin requested (after onJoinComplete, a heartbeat's
    REBALANCE_IN_PROGRESS, a subscription change) is STABLE until it sends JoinGroup."""
    return c.status in (JOINING, SYNCING) or (c.status == IDLE and not c.needs_join_prepare)


def unjoined(c: Consumer) -> bool:
    """MemberState.UNJOINED: never joined, or reset by resetStateAndGeneration, and no
    JoinGroup sent since."""
    return c.status == IDLE and c.needs_join_prepare and c.generation == NO_GENERATION


def leave(scope: ConsumerScope, slot: int, c: Consumer) -> tuple[Event, ...]:
    """ConsumerCoordinator#onLeavePrepare: every owned partition (if any) is lost when the
    generation or member id was reset or a rebalance is in progress, else revoked."""
    if not c.owned:
        return ()
    lost = c.generation == NO_GENERATION or c.member_id == NO_MEMBER or rebalance_in_progress(c)
    return (callback(slot, "lost" if lost else "revoked", c.owned),)


def sends_leave_group(c: Consumer) -> bool:
    """AbstractCoordinator#maybeLeaveGroup: a dynamic member sends LeaveGroup only when it
    has a member id and is not UNJOINED (an ILLEGAL_GENERATION reset keeps the member id
    but leaves the member UNJOINED: the coordinator drops it at its session timeout)."""
    return c.member_id != NO_MEMBER and not unjoined(c)
