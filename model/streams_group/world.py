"""KIP-1071 streams groups: the state of one exploration (``state.py`` holds the RPC's
messages; this is the model's state around them).

The coordinator's group (a streams ``Group``, ``group.py``; with classic members a
``migration.MigratingGroup`` or a classic ``model.consumer.state.Group``), the SHUTDOWN_APPLICATION requester, the
cluster's topics, and one ``Client`` per member slot: process ``slot //
members_per_process``, member id ``m<slot>.<incarnation>`` (a restart is a new
incarnation: Kafka's member id lives as long as the process). Each client has at most
one request or one response in flight. The record log is not kept: each step's records
travel in its events and ``replay_gives_live_state`` checks them against the group.
Everything is a NamedTuple: immutable, hashable.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from ..epochs.world import Action, Event, Handled, member_id, slot_of  # noqa: F401  (part of this API)
from .group import Group, Tasks

# Client status.
DOWN = "down"          # not running (crashed, or closed for a restart); ``restart`` brings it back
JOINING = "joining"    # its next heartbeat has epoch 0
MEMBER = "member"      # in the group (as far as it knows); heartbeats with its epoch
LEAVING = "leaving"    # closed; its next heartbeat has epoch -1
STOPPED = "stopped"    # shut down for good (SHUTDOWN_APPLICATION)
FAILED = "failed"      # a fatal error response
REJOINING = "rejoining"  # classic client (classic_clients.py): its next request is a JoinGroup
SYNCING = "syncing"      # classic client: its next request is a SyncGroup
WAITING = "waiting"      # classic client: its JoinGroup / SyncGroup waits at the coordinator (purgatory)


class Request(NamedTuple):
    """What a heartbeat reports: epoch, owned (active, standby, warm-up), topology epoch
    (sent when joining), the shutdown request, and the warm-ups restored (task offsets)."""

    epoch: int
    owned: Tasks
    topology_epoch: int
    shutdown: bool
    caught: int
    joining: bool = False     # a join heartbeat: carries the topology (its epoch is 0 unless KAFKA-19335)
    unsent: int = 0           # roles (bit 0 active, 1 standby, 2 warm-up) whose owned list is left null
    redeployed: bool = False  # its topology is the redeployed one (``redeploy``: same epoch, other subtopologies)

    def sends_owned(self, role: int) -> bool:
        """Whether the owned-task list of ``role`` (ACTIVE, STANDBY, WARMUP) is sent (not left null)."""
        return not self.unsent >> role & 1


def unsent_roles(owned: Tasks, sent: Tasks) -> int:
    """``Request.unsent`` when the lists equal to the ones last sent are left null (KAFKA-20870's hazard)."""
    return sum(1 << role for role in range(len(owned)) if owned[role] == sent[role])


class Reply(NamedTuple):
    """A heartbeat response as the client reads it: error name ("" for none), member
    epoch, the assigned tasks (None: unchanged) and the status codes."""

    error: str
    epoch: int
    tasks: Optional[Tasks]
    statuses: tuple[int, ...]


class Client(NamedTuple):
    status: str
    incarnation: int
    epoch: int
    owned: Tasks              # tasks it runs: (active, standby, warm-up) bitmasks
    topology_epoch: int
    caught: int               # warm-up tasks it has restored
    shutdown: bool            # it requests (or carries out) SHUTDOWN_APPLICATION
    request: Optional[Request]
    reply: Optional[Reply]
    # ``redeploy``: the client restarts with another topology under the same topology epoch
    redeployed: bool = False
    # the owned tasks it last sent (kept only under the ``kafka-20870`` switch; None otherwise)
    sent: Optional[Tasks] = None
    classic: bool = False     # it speaks the classic protocol (JoinGroup / SyncGroup / Heartbeat)


class Uncommitted(NamedTuple):
    """The last streams heartbeat's write while its response is unread (failover may lose it)."""

    committed: Group                    # the group before the write: what the log holds without it
    created: tuple[str, ...]            # the internal topics the write asked to create
    slot: int                           # the client whose heartbeat it was
    request: Request                    # its heartbeat, sent again if the write is lost


class HandledHeartbeat(NamedTuple):
    """The data of a handled streams heartbeat: ``Handled``'s fields and the internal topics it
    asked to create."""

    request: Request
    response: object
    records: tuple
    events: tuple
    created: tuple[str, ...]


class State(NamedTuple):
    group: Group
    shutdown: Optional[str]            # the coordinator's SHUTDOWN_APPLICATION requester
    topics: tuple[tuple[str, int], ...]  # the cluster's topics, by name
    clients: tuple[Client, ...]
    budget: int
    calm: int                          # full heartbeat rounds since the last disturbance (capped)
    beaten: int                        # slots that read a response to a heartbeat sent this round
    fresh: int = 0                     # slots whose heartbeat in flight was sent this round
    wedged: int = 0                    # slots whose lost response may have carried tasks they never saw
    marks: int = 0                     # witnesses seen on the way (WARMUP_PROMOTED | BECAME_READY | STATIC_KEPT)
    creating: tuple[tuple[str, int], ...] = ()   # internal topics (name, partitions) whose CreateTopics is in flight
    # scopes with failover: the last streams heartbeat's write while its response is not yet
    # read, which a failover may lose (None: every write is committed)
    uncommitted: Optional[Uncommitted] = None
    # scopes with classic members and failover: the classic group's last GroupMetadata record
    # value (Kafka writes it when the group reaches Stable or Empty, and on a conversion back)
    classic_record: object = None


WARMUP_PROMOTED, BECAME_READY = 1, 2
STATIC_KEPT = 4     # a static member's replacement took its tasks over without a group-epoch bump
