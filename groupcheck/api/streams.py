"""The Kafka Streams leader's assignment (StreamsPartitionAssignor#assign) on Kafka's terms.

Builds the round the model's leader sees (one Streams instance per ``process_id``,
its threads in member-id order) and runs ``model.streams_classic.leader.assign``:
version negotiation (KIP-268) per the leader's release and the profile, then the
sticky task placement with cooperative withholding (KIP-429).
"""
from __future__ import annotations

from typing import Mapping

from groupcheck.model import streams_classic as rel
from groupcheck.model.streams_classic import PROFILES, Config, StreamsScope, fresh, leader_assign
from groupcheck.model.streams_classic import (
    ASSIGNMENT_ERROR,
    OFF,
    PREPARING,
    SYNCING,
    UP,
    Group,
    Instance,
    State,
    Subscription,
)

from .layout import checked_members
from .values import (
    ApiError,
    StreamsAssignFailed,
    StreamsAssignment,
    StreamsSubscription,
    TaskId,
    _int,
    task_ids,
)

ERROR_CODES = {"": 0, ASSIGNMENT_ERROR: 3}   # AssignorError: NONE 0, ASSIGNMENT_ERROR 3


def _mask(index: dict[TaskId, int], tasks: tuple[TaskId, ...], where: str) -> int:
    out = 0
    for t in tasks:
        if t not in index:
            raise ApiError(f"{where}: task {t} is not one of the topology's tasks")
        out |= 1 << index[t]
    return out


def _subscription(sub: StreamsSubscription, index: dict[TaskId, int], where: str) -> Subscription:
    """The SubscriptionInfo the model's leader reads (as member.subscribe builds it)."""
    try:
        release = rel.release(sub.release)
    except KeyError as e:
        raise ApiError(f"{where}.release: {e.args[0]}") from None
    if sub.upgrade_from is not None and not rel.accepts_upgrade_from(sub.release, sub.upgrade_from):
        raise ApiError(f"{where}.upgrade_from: Kafka Streams {sub.release} rejects upgrade.from={sub.upgrade_from!r}")
    used = sub.used_version or rel.subscription_version(sub.release, sub.upgrade_from)
    default_latest = release.latest if used >= rel.EARLIEST_PROBEABLE_VERSION else used
    latest = sub.latest_supported_version or default_latest
    return Subscription(used=used, latest=latest, protocol=rel.rebalance_protocol(sub.release, sub.upgrade_from),
                        owned=_mask(index, sub.owned_tasks, f"{where}.owned_tasks"),
                        prev=_mask(index, sub.prev_tasks, f"{where}.prev_tasks"),
                        standby=_mask(index, sub.standby_tasks, f"{where}.standby_tasks"),
                        learning=0, ready=0, leaving=False)


def _processes(subscriptions: dict[str, StreamsSubscription]) -> dict[str, list[str]]:
    """process id -> its members (threads) in member-id order, processes in id order;
    the threads of one process run one release."""
    out: dict[str, list[str]] = {}
    for m in sorted(subscriptions):
        out.setdefault(subscriptions[m].process_id or m, []).append(m)
    for pid, members in out.items():
        configs = {(subscriptions[m].release, subscriptions[m].upgrade_from) for m in members}
        if len(configs) > 1:
            raise ApiError(f"subscriptions[{members[-1]!r}].release: the threads of process {pid!r} "
                           f"run different releases {sorted(configs, key=str)}")
    return dict(sorted(out.items()))


def assign_streams(subscriptions: Mapping[str, StreamsSubscription], *, leader: str, tasks: list[TaskId],
                   standby_replicas: int = 0, generation: int = 1,
                   profile: str = "release") -> dict[str, StreamsAssignment]:
    """StreamsPartitionAssignor#assign: each stream thread's subscription -> its
    AssignmentInfo, as the ``leader`` member computes it for ``tasks`` (all the
    topology's tasks) with num.standby.replicas ``standby_replicas``.

    Clients (instances) are ranked by process id and threads by member id (the model
    breaks ties by seniority in the group; here that order stands for it). Raises
    StreamsAssignFailed when the leader's assign() throws (e.g. a pre-2.0 leader given a
    subscription it cannot decode: KAFKA-6054)."""
    subscriptions = checked_members(subscriptions, "subscriptions", StreamsSubscription)
    if leader not in subscriptions:
        raise ApiError(f"leader: {leader!r} is not a member (members: {', '.join(sorted(subscriptions))})")
    if profile not in PROFILES:
        raise ApiError(f"profile: unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    all_tasks = task_ids(tasks, "tasks")
    if not all_tasks:
        raise ApiError("tasks: give the topology's tasks, at least one")
    _int(standby_replicas, "standby_replicas", 0)
    _int(generation, "generation", 0)
    index = {t: i for i, t in enumerate(all_tasks)}
    model_subs = {m: _subscription(sub, index, f"subscriptions[{m!r}]") for m, sub in subscriptions.items()}
    scope, state, slots = _round(subscriptions, model_subs, len(all_tasks), standby_replicas, profile,
                                 leader, generation)
    out = leader_assign(scope, state, slots[leader], generation)
    if out.failure:
        raise StreamsAssignFailed(out.failure)
    by_slot = dict(out.assignments)
    return {m: _assignment(by_slot[s], all_tasks) for m, s in sorted(slots.items())}


def _round(subscriptions: dict[str, StreamsSubscription], model_subs: dict[str, Subscription], tasks: int,
           standbys: int, profile: str, leader: str, generation: int) -> tuple[StreamsScope, State, dict[str, int]]:
    """The scope and the state of a round whose members have all joined, and each
    member's slot (process p's thread t is slot ``p * threads + t``)."""
    processes = _processes(subscriptions)
    threads = max(len(ms) for ms in processes.values())
    slots = {m: p * threads + t for p, ms in enumerate(processes.values()) for t, m in enumerate(ms)}
    plan = tuple(Config(subscriptions[ms[0]].release, subscriptions[ms[0]].upgrade_from) for ms in processes.values())
    scope = StreamsScope(instances=len(processes), threads=threads, tasks=tasks, standbys=standbys,
                         plan=plan, profile=profile, behaviour=PROFILES[profile])
    members = [fresh(scope, 0, OFF) for _ in range(len(processes) * threads)]
    for m, s in slots.items():
        members[s] = members[s]._replace(status=SYNCING, used=model_subs[m].used, sub=model_subs[m])
    joined = tuple(sorted(slots.values()))
    group = Group(status=PREPARING, generation=generation - 1, leader=slots[leader], joined=joined, order=joined,
                  version=0)
    state = State(group=group, instances=tuple(Instance(UP, p) for p in range(len(processes))),
                  members=tuple(members), budget=0, calm=0, since_start=0, last_start=-1)
    return scope, state, slots


def _assignment(a, all_tasks: tuple[TaskId, ...]) -> StreamsAssignment:
    def tasks(mask: int) -> tuple[TaskId, ...]:
        return tuple(t for i, t in enumerate(all_tasks) if mask >> i & 1)

    return StreamsAssignment(a.version, a.supported or None, ERROR_CODES[a.error], tasks(a.active),
                             tasks(a.standby), a.followup)
