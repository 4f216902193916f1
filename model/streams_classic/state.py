"""Kafka Streams on the classic group protocol: the state of one exploration.

Instances (Streams processes) run ``threads`` stream threads each; every thread is a
group *member* in a fixed slot ``instance * threads + thread``. Tasks (subtopology x
partition) are bitmasks over task indices (``model.partitions.bits``). Everything is a
NamedTuple: immutable, hashable, cheap.

A rebalance here is one *round*: members send JoinGroup with their SubscriptionInfo
(``Subscription``); when every live member has joined, the leader's
StreamsPartitionAssignor computes the round's assignment (``assign``) and the SyncGroup
responses carry one ``Assignment`` (AssignmentInfo) to each member, which processes it
in its own time (``receive``: ``onAssignment`` and the rebalance listener).
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

# Instance status.
ABSENT = "absent"    # not started yet (a scale-up adds it)
UP = "up"
DOWN = "down"        # stopped for a bounce, or crashed; ``start`` brings it back
GONE = "gone"        # shut down for good (scale-down finished)

# Member (stream thread) status.
OFF = "off"          # its instance is not running
JOINING = "joining"  # must send JoinGroup (rejoin needed)
SYNCING = "syncing"  # joined this round; waiting for the assignment, or holding it unread
STABLE = "stable"    # processed the assignment of its generation
FAILED = "failed"    # the thread died with an exception (``failure`` says which)

# Group status (GroupCoordinator).
PREPARING = "PreparingRebalance"
GROUP_STABLE = "Stable"

NO_LEADER = -1
ASSIGNMENT_ERROR = "ASSIGNMENT_ERROR"     # AssignorError code 3


class Subscription(NamedTuple):
    """What a JoinGroup carries: SubscriptionInfo plus the consumer protocol's
    ownedPartitions (here: the active tasks the member still runs, COOPERATIVE only)."""

    used: int            # usedVersion
    latest: int          # latestSupportedVersion (v1/v2 do not carry it: equal to used)
    protocol: str        # EAGER | COOPERATIVE
    owned: int           # active tasks still running (ownedPartitions)
    prev: int            # prevTasks: the active tasks of its last assignment
    standby: int         # standbyTasks: tasks it keeps state for
    learning: int        # warm-up (learner) tasks it restores
    ready: int           # learners it reports caught up
    leaving: bool        # "leaving soon" (KIP-429's scale-down)


class Assignment(NamedTuple):
    """An AssignmentInfo as one member receives it."""

    version: int         # the encoding's version
    supported: int       # latestSupportedVersion / commonlySupportedVersion (v3+; 0 below)
    error: str           # "" or ASSIGNMENT_ERROR
    active: int
    standby: int
    learning: int        # warm-up tasks (KIP-429's learner tasks)
    learned: int         # its active tasks another instance is learning ("being learned")
    followup: bool       # rejoin right after processing (nextRebalance 0 / final rebalance)
    generation: int


class Member(NamedTuple):
    status: str
    used: int            # the SubscriptionInfo version it sends
    generation: int      # of the last assignment it processed
    active: int          # active tasks it runs now
    prev: int            # active tasks of its last assignment
    standby: int
    learning: int
    ready: int           # learners restored ("caught up")
    learned: int         # actives another instance learns: revoked when the next round begins
    sub: Subscription | None     # the subscription of its current JoinGroup
    inbox: Assignment | None     # the SyncGroup response it has not processed yet
    history: int         # instances (bitmask) of the last round it led; -1: none (KIP-429)
    failure: str = ""


class Instance(NamedTuple):
    status: str
    stage: int           # index into scope.plan: the configuration it runs
    leaving: bool = False


class Group(NamedTuple):
    status: str
    generation: int
    leader: int                  # member slot, NO_LEADER when none
    joined: tuple[int, ...]      # slots that joined this round (sorted)
    order: tuple[int, ...]       # the group's members, oldest first
    version: int                 # AssignmentInfo version of the last completed round (0: none)


class State(NamedTuple):
    group: Group
    instances: tuple[Instance, ...]
    members: tuple[Member, ...]
    budget: int          # faults and operations left
    calm: int            # rounds since the last disturbance (capped)
    since_start: int     # rounds the last-started instance took part in since it started
    last_start: int      # the instance started last (-1: none)


class Action(NamedTuple):
    kind: str
    slot: int            # member slot, or instance index for instance actions
    arg: int = 0


class Event(NamedTuple):
    kind: str
    slot: int
    note: str


@lru_cache(maxsize=None)
def task_names(mask: int) -> str:
    """Tasks as KIP-429 writes them: ``[T1, T3]`` (task index 0 is T1)."""
    return "[" + ", ".join(f"T{t + 1}" for t in range(mask.bit_length()) if mask >> t & 1) + "]"
