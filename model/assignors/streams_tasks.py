"""Kafka Streams task assignors: where active, standby and warm-up tasks go.

Both place tasks on *clients* (Streams instances), then spread each client's tasks over
its stream threads. Tasks are bitmasks; every rule breaks ties by task or instance index,
so the result is deterministic.

* ``sticky``: StickyTaskAssignor's aim, balanced and sticky. Each previous owner keeps
  its tasks up to its fair share; the rest go to the least loaded client.
* ``learner``: KIP-429's incremental Streams design ("Assignment Algorithm"). An active
  task moves to another instance only once that instance has restored it as a *learner*
  (warm-up) task and reports it caught up; new instances and leaving instances are
  balanced through learners.

A task assignor of one's own (KIP-924's ``TaskAssignor#assign(ApplicationState)``, Kafka
3.8+) is added with ``register`` and named by ``scope.task_assignor``: the model hands
it a ``Request`` (the leader's view of the clients) and takes its ``Placement`` of active
and standby tasks; version negotiation, the spread over threads and cooperative
withholding stay Kafka's (``streams_classic/leader.py``). The model never imports one by
name: ``groupcheck conform --role streams-assignor`` registers its target here.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

from ..partitions import bits, count


class Client(NamedTuple):
    """One Streams instance of the round, summed over its threads' subscriptions."""

    instance: int
    prev: int            # previous active tasks (prevTasks)
    owned: int           # active tasks still running (ownedPartitions, COOPERATIVE)
    standby: int         # tasks it keeps state for (standbyTasks)
    learning: int        # its warm-up tasks
    ready: int           # warm-ups reported caught up
    leaving: bool
    new: bool            # not in the leader's previous round (KIP-429: "new-coming")


class Placement(NamedTuple):
    """Per client (same order as the input): active, standby and learner tasks, and
    (registered task assignors only) whether the client is told to rejoin at once
    (KafkaStreamsAssignment#followupRebalanceDeadline; empty: nobody)."""

    active: tuple[int, ...]
    standby: tuple[int, ...]
    learning: tuple[int, ...]
    followup: tuple[bool, ...] = ()


class Request(NamedTuple):
    """What a registered task assignor gets: KIP-924's ApplicationState as the model has it.
    Clients are in seniority order (oldest first), so renaming instances renames nothing."""

    clients: tuple[Client, ...]
    tasks: int           # every task of the topology (a bitmask)
    standbys: int        # num.standby.replicas
    threads: tuple[int, ...]    # per client: the stream threads (consumers) in this round
    leader: int          # index of the leader's client
    cooperative: bool    # the leader withholds tasks still owned elsewhere (KIP-429)


class PlacementError(Exception):
    """A registered task assignor's answer makes the leader's assign() throw (Kafka 3.9:
    StreamsPartitionAssignor#processStreamsPartitionAssignment throws StreamsException
    on an AssignmentError); ``str(error)`` is the exception's text."""


TaskAssignor = Callable[[Request], Placement]
BUILT_IN = ("sticky", "learner")
REGISTERED: dict[str, TaskAssignor] = {}


def register(name: str, place: TaskAssignor) -> None:
    """Make ``place`` the task assignor ``scope.task_assignor == name`` selects (replacing
    one registered earlier under that name, never a built-in one)."""
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is a built-in task assignor; choose another name")
    REGISTERED[name] = place


def unregister(name: str) -> None:
    REGISTERED.pop(name, None)


def known() -> tuple[str, ...]:
    """Every task assignor a scope may name: the built-in ones, then the registered."""
    return BUILT_IN + tuple(n for n in REGISTERED if n not in BUILT_IN)


def _least_loaded(candidates: list[int], load: list[int]) -> int:
    return min(candidates, key=lambda c: (load[c], c))


def _previous_owner(clients: list[Client], t: int) -> int | None:
    """The client that ran task ``t``: one still running it first, else the lowest."""
    bit = 1 << t
    running = [c for c, cl in enumerate(clients) if cl.owned & bit]
    if running:
        return running[0]
    had = [c for c, cl in enumerate(clients) if cl.prev & bit]
    return had[0] if had else None


def sticky(clients: list[Client], tasks: int, standbys: int) -> Placement:
    """Balanced and sticky: a previous owner keeps a task while under its fair share
    (``tasks // clients``, the first ``tasks % clients`` owners one more); the rest go
    to the least loaded client. Leaving clients get nothing."""
    stay = [c for c, cl in enumerate(clients) if not cl.leaving] or list(range(len(clients)))
    n = count(tasks)
    base, extra = divmod(n, len(stay))
    load = [0] * len(clients)
    active = [0] * len(clients)
    left = []
    for t in bits(tasks):
        c = _previous_owner(clients, t)
        if c in stay and (load[c] < base or (load[c] == base and extra > 0)):
            if load[c] == base:
                extra -= 1
            active[c] |= 1 << t
            load[c] += 1
        else:
            left.append(t)
    for t in left:
        c = _least_loaded(stay, load)
        active[c] |= 1 << t
        load[c] += 1
    learning = [0] * len(clients)
    return Placement(tuple(active), _standbys(clients, tasks, standbys, active, learning), tuple(learning))


def learner(clients: list[Client], tasks: int, standbys: int, leader: int) -> Placement:
    """KIP-429's incremental assignment, in its order: active, learner, standby.

    Actives go "to instances with learner tasks that indicate 'ready'" (once nobody still
    runs the task), else "to previous owners", "to unready learner tasks owners", "to
    instances with standby tasks", "to resource available instances". Existing learners
    stay. New learners are picked "out of heaviest loaded instances" (a donor above its
    fair share gives its lowest-numbered tasks) for "new-coming instances", and every
    task of a leaving instance is learned by the instances that stay. ``leader`` is the
    index of the leader's client: among equally loaded clients it keeps the fewest tasks.
    """
    k = len(clients)
    stay = [c for c in range(k) if not clients[c].leaving]
    active = [0] * k
    load = [0] * k
    orphans = []
    for t in bits(tasks):
        bit = 1 << t
        running = {c for c in range(k) if clients[c].owned & bit}
        ready = [c for c in stay if clients[c].ready & bit and running <= {c}]
        owner = _previous_owner(clients, t)
        unready = [c for c in stay if clients[c].learning & bit]
        standby = [c for c in stay if clients[c].standby & bit]
        if ready:
            c = ready[0]
        elif owner is not None:
            c = owner
        elif unready:
            c = unready[0]
        elif standby:
            c = standby[0]
        else:
            orphans.append(t)
            continue
        active[c] |= bit
        load[c] += 1
    for t in orphans:      # last: "to resource available instances"
        c = _least_loaded(stay or list(range(k)), load)
        active[c] |= 1 << t
        load[c] += 1
    # existing learners stay while their task is active elsewhere
    learning = [clients[c].learning & ~active[c] if c in stay else 0 for c in range(k)]
    if stay:
        _new_learners(clients, tasks, stay, leader, active, learning)
    return Placement(tuple(active), _standbys(clients, tasks, standbys, active, learning), tuple(learning))


def _new_learners(clients: list[Client], tasks: int, stay: list[int], leader: int,
                  active: list[int], learning: list[int]) -> None:
    """Pick learners from donors (over-loaded or leaving clients) for clients under
    their share: any staying client for a leaving donor's task, only new clients
    otherwise (KIP-429's Streams design, version 1.0: "learner tasks shall only be assigned to them")."""
    k = len(clients)

    def effective(c: int) -> int:
        return count(active[c] & ~_union(learning, c)) + count(learning[c])

    base, extra = divmod(count(tasks), len(stay))
    order = sorted(stay, key=lambda c: (-effective(c), c == leader, c))
    quota = {c: base + (1 if i < extra else 0) for i, c in enumerate(order)}
    released: list[tuple[int, bool]] = []
    for c in range(k):
        free = list(bits(active[c] & ~_union(learning, c)))
        if clients[c].leaving:
            released += [(t, True) for t in free]
        elif c in quota and effective(c) > quota[c]:
            released += [(t, False) for t in free[: effective(c) - quota[c]]]
    for t, from_leaving in sorted(released):
        for c in stay:
            if (effective(c) < quota[c] and not active[c] >> t & 1
                    and (from_leaving or clients[c].new)):
                learning[c] |= 1 << t
                break


def _union(masks: list[int], skip: int) -> int:
    out = 0
    for i, m in enumerate(masks):
        if i != skip:
            out |= m
    return out


def _standbys(clients: list[Client], tasks: int, replicas: int, active: list[int],
              learning: list[int]) -> tuple[int, ...]:
    """``replicas`` standbys per task, never on the instance running it or learning it:
    "to instances without matching active tasks", previous holders first, then the
    least loaded. Leaving clients get none."""
    k = len(clients)
    standby = [0] * k
    load = [0] * k
    for t in bits(tasks):
        bit = 1 << t
        for _ in range(replicas):
            free = [c for c in range(k) if not clients[c].leaving
                    and not (active[c] | learning[c] | standby[c]) & bit]
            if not free:
                break
            held = [c for c in free if (clients[c].standby | clients[c].prev) & bit]
            c = held[0] if held else _least_loaded(free, load)
            standby[c] |= bit
            load[c] += 1
    return tuple(standby)


def spread(tasks: int, prev: list[int]) -> list[int]:
    """Spread one client's tasks over its threads: a thread keeps what it had while
    under its share (the first ``n % threads`` threads may take one more), the rest go
    to the least loaded thread."""
    threads = len(prev)
    out = [0] * threads
    load = [0] * threads
    base, extra = divmod(count(tasks), threads)
    left = []
    for t in bits(tasks):
        had = [i for i in range(threads) if prev[i] >> t & 1]
        i = had[0] if had else None
        if i is not None and (load[i] < base or (load[i] == base and extra > 0)):
            if load[i] == base:
                extra -= 1
            out[i] |= 1 << t
            load[i] += 1
        else:
            left.append(t)
    for t in left:
        i = min(range(threads), key=lambda j: (load[j], j))
        out[i] |= 1 << t
        load[i] += 1
    return out
