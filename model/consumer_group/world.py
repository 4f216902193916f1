"""KIP-848 consumer groups: the state of one exploration (``state.py`` holds the RPC's
messages; this is the model's state around them).

The coordinator's ``Group`` (``group.py``), the cluster's topics, and one ``Client`` per
member slot: member id ``m<slot>.<incarnation>``. KIP-1082 (Kafka 4.0+): the client generates
its member id at startup and keeps it for the life of the process, across rejoins after a
fence; a restart (crash, roll) is a new incarnation with a new id. Each client has at most one
heartbeat request or response in flight (ConsumerHeartbeatRequestManager sends one at a
time). The record log is not kept: each step's records travel in its events and
``replay_gives_live_state`` checks them against the group. Everything is a NamedTuple.

With the record layer on (``scope.records``, ``delivery_steps.py``) each partition also has a
data log (``State.logs``: end, committed offset, what was processed) and each running client an
application (``Client.app``: a cursor per owned partition, its offset commit in flight); off,
both stay None in every state, so the state space is the same.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from ..epochs.world import Action, Event, Handled, member_id, slot_of
from .group import Group
from .state import ConsumerGroupHeartbeat

# Client status: Kafka's MemberState (clients/.../consumer/internals/MemberState.java) where the
# model keeps it; FENCED and PREPARE_LEAVING last one step here (their callbacks run inside it).
DOWN = "DOWN"                    # the process is not running (never started, crashed, closed to restart)
JOINING = "JOINING"              # its next heartbeat has epoch 0 and every field
RECONCILING = "RECONCILING"      # it holds a new assignment it has not reconciled yet
ACKNOWLEDGING = "ACKNOWLEDGING"  # reconciled; its next heartbeat reports the new owned partitions
STABLE = "STABLE"                # owns what it was last assigned
LEAVING = "LEAVING"              # closed; its next heartbeat has epoch -1 (static: -2)
UNSUBSCRIBED = "UNSUBSCRIBED"    # left for good (operation leave)
FATAL = "FATAL"                  # a fatal error response: the consumer stops (no rejoin)
IN_GROUP = (RECONCILING, ACKNOWLEDGING, STABLE)


class Reply(NamedTuple):
    """A heartbeat response as the client reads it: error name ("" for none), member epoch,
    the assignment (a bitmask; None: not sent, the client keeps its target)."""

    error: str
    epoch: int
    assignment: Optional[int]


class SentFields(NamedTuple):
    """HeartbeatState.sentFields: what the last heartbeat sent."""

    owned: int                 # the owned partitions it reported
    sub: int                   # the subscription it sent


class Client(NamedTuple):
    status: str
    incarnation: int
    epoch: int
    owned: int                 # partitions it consumes (SubscriptionState's assigned partitions)
    target: int                # currentTargetAssignment: the last assignment received
    sub: int                   # its subscription: 0 as started, 1 after subscription_change
    sent: Optional[SentFields]  # None: the next heartbeat sends every field
    request: Optional[ConsumerGroupHeartbeat]
    reply: Optional[Reply]
    stalled: bool = False      # the application stopped polling (no reconciliation, no callbacks)
    app: object = None         # the record layer (scope.records): its application, a delivery App; None off or DOWN


class State(NamedTuple):
    group: Group
    topics: tuple[tuple[str, int], ...]   # the cluster's topics, by name
    clients: tuple[Client, ...]
    budget: int
    calm: int                  # full heartbeat rounds since the last disturbance (capped at K)
    beaten: int                # slots that read a response to a heartbeat sent this round
    fresh: int = 0             # slots whose heartbeat in flight was sent this round
    wedged: int = 0            # slots whose lost response may have carried an assignment they never saw
    marks: int = 0             # witnesses seen on the way (REVOKED | LOST_RECOVERED | STATIC_KEPT)
    # scopes with classic members (classic_world.py): the ClassicGroup the id holds (``group``
    # is then dead), or the classic members' metadata of a consumer group; None: neither
    classic: object = None
    downgrading: int = 0       # slots that closed to restart as classic consumers (operation downgrade)
    logs: object = None        # the record layer (scope.records): one delivery Log per partition index; None off


REVOKED = 1          # a member revoked partitions and the coordinator saw it (UNREVOKED -> not)
LOST_RECOVERED = 2   # a heartbeat at the member's previous epoch was accepted (the lost-response rule)
STATIC_KEPT = 4      # a static member's next incarnation took its assignment over without a bump
UPGRADED_ONLINE = 8    # a classic group with members became a consumer group (fromClassicGroup)
DOWNGRADED_ONLINE = 16  # a consumer group with classic members became a classic group (convertToClassicGroup)
# the record layer's witnesses (delivery_steps.py)
REDELIVERED = 32           # a record was processed again, a fault having excused it
KILLED_BEFORE_COMMIT = 64  # a process crashed holding processed records whose offsets were not committed
HANDOVER_CLEAN = 128       # a new owner's OffsetFetch started it right after the records processed before


__all__ = ["HANDOVER_CLEAN", "KILLED_BEFORE_COMMIT", "REDELIVERED", "DOWNGRADED_ONLINE", "UPGRADED_ONLINE", "ACKNOWLEDGING", "DOWN", "FATAL", "IN_GROUP", "JOINING", "LEAVING", "LOST_RECOVERED", "RECONCILING",
           "REVOKED", "STABLE", "STATIC_KEPT", "UNSUBSCRIBED", "Action", "Client", "Event", "Reply", "SentFields",
           "State", "Handled", "member_id", "slot_of"]
