"""The classic consumer group's state: coordinator, consumers, and the messages between.

Everything is a NamedTuple: immutable, hashable, ordered (so members can be sorted
for symmetry reduction) and cheap. Partition sets are bitmasks (``model.partitions``).
Member ids are issued by the coordinator as 1, 2, 3, ...; 0 stands for Kafka's empty
member id ``""``. Generation -1 is ``Generation.NO_GENERATION``.
"""
from __future__ import annotations

from typing import NamedTuple

from ..delivery import App, Log

# Group states (GroupCoordinator, classic protocol).
EMPTY = "Empty"
PREPARING = "PreparingRebalance"
COMPLETING = "CompletingRebalance"
STABLE = "Stable"
DEAD = "Dead"

# Consumer-side status of one consumer process.
DOWN = "down"          # the process is not running
IDLE = "idle"          # running and needs to (re)join: rejoinNeeded
JOINING = "joining"    # JoinGroup sent, waiting for its response
SYNCING = "syncing"    # SyncGroup sent, waiting for its response
ASSIGNED = "stable"    # holds the assignment of its generation

NO_GENERATION = -1
NO_MEMBER = 0

# Error codes used by the classic protocol (names as in Kafka's Errors).
NONE = "NONE"
MEMBER_ID_REQUIRED = "MEMBER_ID_REQUIRED"
UNKNOWN_MEMBER_ID = "UNKNOWN_MEMBER_ID"
ILLEGAL_GENERATION = "ILLEGAL_GENERATION"
REBALANCE_IN_PROGRESS = "REBALANCE_IN_PROGRESS"
INCONSISTENT_GROUP_PROTOCOL = "INCONSISTENT_GROUP_PROTOCOL"


class Subscription(NamedTuple):
    """ConsumerProtocolSubscription as a JoinGroup carries it (see ``model.wire``).

    ``owned`` is the OwnedPartitions field (v1+), ``generation`` the GenerationId
    field (v2+, default -1). ``user_data`` stands for the sticky assignors' userData:
    the previous assignment (KIP-54 StickyAssignor) with ``user_generation``, the
    "legacy generation" cooperative-sticky also writes there.
    """

    version: int
    topics: int
    owned: int
    generation: int
    user_data: int
    user_generation: int


# ---- requests (consumer -> coordinator); ``kind`` first so mixed tuples compare ----

class JoinGroup(NamedTuple):
    kind: str = "JoinGroup"
    member_id: int = NO_MEMBER
    protocols: tuple[str, ...] = ()
    subscription: Subscription | tuple = ()


class SyncGroup(NamedTuple):
    kind: str = "SyncGroup"
    member_id: int = NO_MEMBER
    generation: int = NO_GENERATION
    assignments: tuple[tuple[int, int], ...] = ()   # leader only: (member id, partitions)


class Heartbeat(NamedTuple):
    kind: str = "Heartbeat"
    member_id: int = NO_MEMBER
    generation: int = NO_GENERATION


class LeaveGroup(NamedTuple):
    kind: str = "LeaveGroup"
    member_id: int = NO_MEMBER


# ---- responses (coordinator -> consumer); ``to`` is the member id addressed ----

class JoinGroupResponse(NamedTuple):
    kind: str = "JoinGroupResponse"
    to: int = NO_MEMBER
    error: str = NONE
    generation: int = NO_GENERATION
    member_id: int = NO_MEMBER
    leader: int = NO_MEMBER
    protocol: str = ""
    members: tuple = ()        # leader only: ((member id, Subscription), ...)


class SyncGroupResponse(NamedTuple):
    kind: str = "SyncGroupResponse"
    to: int = NO_MEMBER
    error: str = NONE
    generation: int = NO_GENERATION   # the request's generation (model-side correlation)
    assignment: int = 0


class HeartbeatResponse(NamedTuple):
    kind: str = "HeartbeatResponse"
    to: int = NO_MEMBER
    error: str = NONE


class GroupMember(NamedTuple):
    """The coordinator's MemberMetadata for one member."""

    member_id: int
    slot: int                  # the connection it answers on (network, not protocol)
    protocols: tuple[str, ...]
    subscription: Subscription
    joined: bool               # its JoinGroup waits in the join purgatory
    syncing: bool              # its SyncGroup waits for the leader's
    assignment: int            # its assignment in the current generation


class Group(NamedTuple):
    status: str
    generation: int
    protocol: str              # the selected assignor name, "" when none
    leader: int
    members: tuple[GroupMember, ...]   # sorted by member id
    pending: tuple[int, ...]   # ids handed out with MEMBER_ID_REQUIRED, not yet joined
    next_id: int

    def member(self, member_id: int) -> GroupMember | None:
        for m in self.members:
            if m.member_id == member_id:
                return m
        return None


class Consumer(NamedTuple):
    """One consumer process and its ConsumerCoordinator."""

    status: str
    config: int                # index into the scope's config plan (rolling bounces)
    member_id: int
    generation: int
    owned: int                 # ownedPartitions: what it believes it owns
    user_data: int             # last assignment received (sticky userData)
    subscribed: int            # topic bitmask
    joined: int                # the topics its last JoinGroup carried (joinedSubscription)
    paused: bool               # stopped past its session timeout; resumes as a zombie
    metadata: int              # cluster metadata version it has seen
    snapshot: int              # as leader: the metadata version its assignment used, else -1
    awaiting: str              # "" or the kind of request whose response it waits for
    outbox: tuple              # () or (request,) not yet delivered
    inbox: tuple               # responses delivered to it, oldest first
    # AbstractCoordinator#needsJoinPrepare: onJoinPrepare runs once per rebalance; a
    # JoinGroup retried after a failed JoinGroup or SyncGroup (lost response, timeout,
    # REBALANCE_IN_PROGRESS) skips it. True again after onJoinComplete and after a reset
    # (resetStateAndRejoin, the KAFKA-12983 fix).
    needs_join_prepare: bool = True
    # the application and its SubscriptionState (``model.delivery``); None without records
    # (``scope.records``) and while the process is down
    app: App | None = None


class State(NamedTuple):
    group: Group
    consumers: tuple[Consumer, ...]
    partitions: tuple[int, ...]     # partition count per topic; 0 means deleted
    metadata: int                   # cluster metadata version
    budget: int                     # faults and operations still allowed
    calm: int                       # liveness monitor: assignments since the last disturbance
    calm_from: int                  # the group generation at the last disturbance
    logs: tuple[Log, ...] | None = None   # per partition bit (``model.delivery``); None without records


class Action(NamedTuple):
    kind: str
    slot: int = -1
    arg: int = -1
