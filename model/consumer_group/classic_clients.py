"""Classic consumers (``group.protocol=classic``, cooperative-sticky) for the explorable model
of a KIP-848 consumer group's online migration: slots that start as members of a STABLE
classic group, speak JoinGroup / SyncGroup / Heartbeat (``model/consumer/state``'s messages,
the consumer protocol's bytes inside), answered by the classic coordinator of
``model/consumer/coordinator.py`` while the group is classic and translated by
``migration_classic`` once it is a consumer group, and ``upgrade``: close (the classic Java
consumer sends LeaveGroup on close) and restart on the consumer protocol.

    init(group_id, n, index, generation) -> (ClassicGroup, clients)
    request(slot, client, index) -> JoinGroup | SyncGroup | Heartbeat
    handle(group, slot, message, cluster, profile, config, ...) -> (group, responses, records, events)
    answer(clients, responses) -> clients           (responses by member id to the waiting slots)
    on_response(client, response, index) -> client
    upgrade(group, slot, client, ...) -> (group, client, records, events)
    expire(group, member_id, ...) -> (group, responses, records, events)
    conversion_replies(before) -> responses         (a converted rebalancing classic group's waiters)
    converged(group, slot, client) -> bool

Client rules (apache/kafka clients/.../consumer/internals/ConsumerCoordinator.java,
AbstractCoordinator.java, cooperative): a Heartbeat answered REBALANCE_IN_PROGRESS rejoins
keeping its partitions; ILLEGAL_GENERATION resets the generation and loses them
(onPartitionsLost); UNKNOWN_MEMBER_ID also resets the member id (a new incarnation here, the
MEMBER_ID_REQUIRED round trip collapsed); the JoinGroup carries the owned partitions and the
generation (ConsumerProtocolSubscription v3); a SyncGroup assignment replaces the owned set,
revoked partitions are given up (onPartitionsRevoked) and, having revoked, the client rejoins at
once (onJoinComplete: "requestRejoin ... revoked partitions"). The classic leader's assignment
(``assign``) is the broker's uniform assignor over the members' owned partitions with the
cooperative rule (a partition still owned by another member is withheld), standing in for
CooperativeStickyAssignor. Member ids are ``m<slot>.<incarnation>`` as in ``world.py``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from ..consumer import coordinator as classic_coordinator
from ..consumer.state import COMPLETING, ILLEGAL_GENERATION, NONE, REBALANCE_IN_PROGRESS
from ..consumer.state import STABLE as CLASSIC_STABLE
from ..consumer.state import (UNKNOWN_MEMBER_ID, GroupMember, Heartbeat, JoinGroup, JoinGroupResponse, LeaveGroup,
                              SyncGroup, SyncGroupResponse)
from ..consumer.state import Group as ClassicState
from ..wire.consumer_protocol import Subscription, encode_subscription
from .coordinator_update import Config
from .group import Group, Member, topic_partitions_of
from .migration import (ClassicGroup, MigratingGroup, assignment_of, consumer_of, consumer_session_timeout,
                        encoded_assignment, subscription_of, wire_mask)
from .migration_classic import classic_heartbeat, classic_join, classic_leave, classic_sync
from .target import new_target, subscription_metadata

PROTOCOL = "cooperative-sticky"
GENERATION = 1          # the classic group's generation when an exploration starts
MEMBER, REJOINING, SYNCING, WAITING, DOWN, FAILED = "member", "rejoining", "syncing", "waiting", "down", "failed"


class ClassicClient(NamedTuple):
    """A classic consumer process: its status (its next request follows from it: MEMBER a
    Heartbeat, REJOINING a JoinGroup, SYNCING a SyncGroup; WAITING: one is at the coordinator),
    incarnation (its member id), generation, the partitions it consumes, the response it has
    not read yet."""

    status: str
    incarnation: int
    generation: int
    owned: int
    reply: object = None

    # What the explorable model reads of every client (world.Client's fields), for a classic one.
    stalled = property(lambda self: False)
    request = property(lambda self: None)
    sent = property(lambda self: None)
    sub = property(lambda self: 0)
    target = property(lambda self: self.owned)
    epoch = property(lambda self: self.generation)


def member_id(slot: int, incarnation: int) -> str:
    return f"m{slot}.{incarnation}"


def slot_of(mid: str) -> tuple[int, int]:
    s, _, i = mid[1:].partition(".")
    return int(s), int(i)


def metadata(index, topics: tuple[str, ...], owned: int, generation: int) -> bytes:
    """The JoinGroup protocol metadata: ConsumerProtocolSubscription v3 with the owned
    partitions and the generation (ConsumerCoordinator#metadata / CooperativeStickyAssignor)."""
    tps = tuple((t.topic_id, t.partitions) for t in topic_partitions_of(index, owned))
    return encode_subscription(Subscription(tuple(topics), None, tps, generation, None), 3)


def assign(state: ClassicState, index, topics: tuple[tuple[str, int], ...]) -> tuple[tuple[str, bytes], ...]:
    """The classic leader's assignment: the uniform assignor over the subscriptions (owned
    partitions as the members' current assignment), then the cooperative rule."""
    owned = {m.member_id: wire_mask(index, subscription_of(m.subscription).owned_partitions) for m in state.members}
    members = tuple(Member(member_id=m.member_id,
                           subscribed_topic_names=tuple(sorted(set(subscription_of(m.subscription).topics))),
                           assigned=owned[m.member_id]) for m in state.members)
    g = Group(group_id="leader", partition_index=tuple(index), group_epoch=1, members=members,
              target_assignment=tuple(sorted(owned.items())))
    g = replace(g, subscription_metadata=subscription_metadata(g, dict(topics)))
    target = new_target(g, "uniform")
    out = []
    for m in state.members:
        others = 0
        for other, mask in owned.items():
            others |= mask if other != m.member_id else 0
        mine = target.get(m.member_id, 0) & (~others | owned[m.member_id])
        out.append((m.member_id, encoded_assignment(index, mine, m.subscription)))
    return tuple(out)


def init(group_id: str, n: int, index, topics: tuple[tuple[str, int], ...], generation: int = GENERATION):
    """A classic group STABLE at ``generation`` held by slots 0..n-1, each consuming the
    assignment the leader made for it."""
    names = tuple(t for t, _ in topics)
    subs = tuple(GroupMember(member_id=member_id(s, 0), slot=s, protocols=(PROTOCOL,),
                             subscription=metadata(index, names, 0, -1), joined=False, syncing=False, assignment=b"")
                 for s in range(n))
    state = ClassicState(status=CLASSIC_STABLE, generation=generation, protocol=PROTOCOL, leader=member_id(0, 0),
                         members=subs, pending=(), next_id=1)
    given = dict(assign(state, index, topics))
    members = tuple(m._replace(assignment=given[m.member_id],
                               subscription=metadata(index, names, _mask(index, given[m.member_id]), generation))
                    for m in subs)
    clients = tuple(ClassicClient(MEMBER, 0, generation, _mask(index, given[m.member_id])) for m in members)
    return ClassicGroup(group_id, state._replace(members=members)), clients


def _mask(index, assignment_bytes) -> int:
    return wire_mask(index, assignment_of(assignment_bytes).assigned_partitions)


def request(slot: int, c: ClassicClient, index, topics: tuple[str, ...]):
    mid = member_id(slot, c.incarnation)
    if c.status == REJOINING:
        return JoinGroup(member_id=mid, protocols=(PROTOCOL,),
                         subscription=metadata(index, topics, c.owned, c.generation))
    if c.status == SYNCING:
        return SyncGroup(member_id=mid, generation=c.generation)
    return Heartbeat(member_id=mid, generation=c.generation)


def handle(group, slot: int, message, cluster, index, profile="kip-848", config: Config = Config(), switches=(),
           classic_max_size=None):
    """The coordinator answers a classic request: (group, responses as (member id, response),
    records, events). A classic group answers a JoinGroup once every member joined and a
    SyncGroup once the leader's arrives (so a response may go to others, or to nobody yet)."""
    if isinstance(group, (Group, MigratingGroup)):
        if isinstance(message, JoinGroup):
            out = classic_join(group, message, cluster, profile, config, switches=switches)
            if out.response is None:        # an empty consumer group was deleted: a classic group now
                group, responses, records, events = handle(out.group, slot, message, cluster, index, profile,
                                                           config, switches, classic_max_size)
                return group, responses, out.records + records, out.events + events
        elif isinstance(message, SyncGroup):
            out = classic_sync(group, message)
        else:
            out = classic_heartbeat(group, message)
        return out.group, ((message.member_id, out.response),), out.records, out.events
    st = group.state
    if isinstance(message, Heartbeat):
        out = classic_coordinator.heartbeat(st, slot, message.member_id, message.generation)
    elif isinstance(message, JoinGroup):
        if st.member(message.member_id) is None and message.member_id not in st.pending:
            st = st._replace(pending=st.pending + (message.member_id,))   # MEMBER_ID_REQUIRED, collapsed
        out = classic_coordinator.join_group(st, slot, message)
    else:
        leader = st.status == COMPLETING and message.member_id == st.leader
        given = assign(st, index, cluster.topics) if leader else ()
        out = classic_coordinator.sync_group(st, slot, message.member_id, message.generation, given)
    return group._replace(state=_kept(st, out.group)), tuple((r.to, r) for _, r in out.out), (), ()


def _kept(before: ClassicState, after: ClassicState) -> ClassicState:
    """Kafka's ClassicGroup keeps a member's last assignment until the leader's SyncGroup
    replaces it (fromClassicGroup reads it); model/consumer's coordinator clears it when a join
    completes, so it is restored here."""
    last = {m.member_id: m.assignment for m in before.members}
    return after._replace(members=tuple(m if m.assignment else m._replace(assignment=last.get(m.member_id) or b"")
                                        for m in after.members))


def answer(clients: list, responses) -> list:
    """Deliver responses, by member id, to the classic clients waiting for them."""
    for mid, response in responses:
        slot, inc = slot_of(mid)
        c = clients[slot]
        if isinstance(c, ClassicClient) and c.incarnation == inc and c.status == WAITING:
            clients[slot] = c._replace(reply=response)
    return clients


def on_response(c: ClassicClient, response, index) -> ClassicClient:
    """The client reads a response (the cooperative ConsumerCoordinator's rules, module doc)."""
    c = c._replace(reply=None)
    err = response.error
    if err == UNKNOWN_MEMBER_ID:
        return c._replace(status=REJOINING, incarnation=c.incarnation + 1, generation=-1, owned=0)
    if err == ILLEGAL_GENERATION:
        return c._replace(status=REJOINING, generation=-1, owned=0)
    if err == REBALANCE_IN_PROGRESS:
        return c._replace(status=REJOINING)
    if err != NONE:
        return c._replace(status=FAILED, owned=0)
    if response.kind == "JoinGroupResponse":
        return c._replace(status=SYNCING, generation=response.generation)
    if response.kind == "SyncGroupResponse":
        owned = _mask(index, response.assignment)
        return c._replace(status=REJOINING if c.owned & ~owned else MEMBER, owned=owned)
    return c._replace(status=MEMBER)


def upgrade(group, slot: int, c: ClassicClient, config: Config = Config(), classic_max_size=None, switches=()):
    """The client closes: onPartitionsRevoked, LeaveGroup (AbstractCoordinator#maybeLeaveGroup),
    then it is DOWN until it restarts on the consumer protocol. (group, client, records, events,
    responses to others)."""
    mid = member_id(slot, c.incarnation)
    down = c._replace(status=DOWN, owned=0, reply=None)
    if isinstance(group, ClassicGroup):
        if group.state.member(mid) is None:
            return group, down, (), (), ()
        out = classic_coordinator.leave_group(group.state, mid)
        return (group._replace(state=_kept(group.state, out.group)), down, (), (),
                tuple((r.to, r) for _, r in out.out))
    if isinstance(group, (Group, MigratingGroup)) and not consumer_of(group).dead and consumer_of(group).member(mid):
        out = classic_leave(group, LeaveGroup(member_id=mid), config, classic_max_size, switches)
        return out.group, down, out.records, out.events, ()
    return group, down, (), (), ()


def expire(group, mid: str, config: Config = Config(), classic_max_size=None, switches=()):
    """A classic member's session expired: removed from a classic group (which rebalances) or
    fenced from a consumer group (which may downgrade). (group, responses, records, events)."""
    if isinstance(group, ClassicGroup):
        out = classic_coordinator.remove_member(group.state, mid, "session timeout")
        return group._replace(state=_kept(group.state, out.group)), tuple((r.to, r) for _, r in out.out), (), ()
    out = consumer_session_timeout(group, mid, config=config, classic_max_size=classic_max_size, switches=switches)
    return out.group, (), out.records, out.events


def conversion_replies(before) -> tuple:
    """convertToConsumerGroup: "completeAllJoinFutures / completeAllSyncFutures
    (REBALANCE_IN_PROGRESS)" for the requests waiting in a rebalancing classic group."""
    if not isinstance(before, ClassicGroup):
        return ()
    out = []
    for m in before.state.members:
        if m.joined:
            out.append((m.member_id, JoinGroupResponse(to=m.member_id, error=REBALANCE_IN_PROGRESS)))
        elif m.syncing:
            out.append((m.member_id, SyncGroupResponse(to=m.member_id, error=REBALANCE_IN_PROGRESS,
                                                       generation=before.state.generation)))
    return tuple(out)


def converged(group, slot: int, c: ClassicClient, index) -> bool:
    """A classic client at its target: in a consumer group STABLE at the target epoch consuming
    its target; in a classic group STABLE at its generation consuming its assignment."""
    mid = member_id(slot, c.incarnation)
    if c.status != MEMBER or c.reply is not None:
        return False
    if isinstance(group, ClassicGroup):
        m = group.state.member(mid)
        return (group.state.status == CLASSIC_STABLE and m is not None and c.generation == group.state.generation
                and c.owned == _mask(index, m.assignment))
    if not isinstance(group, MigratingGroup) or not group.is_classic(mid):
        return False
    g = group.group
    m = g.member(mid)
    return c.generation == g.target_assignment_epoch and m.is_reconciled_to(g.target_assignment_epoch) \
        and c.owned == g.target_of(mid)


def is_classic_member(group, mid: str) -> bool:
    if isinstance(group, ClassicGroup):
        return group.state.member(mid) is not None
    return isinstance(group, MigratingGroup) and group.is_classic(mid)


__all__ = ["DOWN", "FAILED", "GENERATION", "MEMBER", "PROTOCOL", "REJOINING", "SYNCING", "WAITING", "ClassicClient",
           "answer", "assign", "conversion_replies", "converged", "expire", "handle", "init", "is_classic_member",
           "member_id", "metadata", "on_response", "request", "slot_of", "upgrade"]
