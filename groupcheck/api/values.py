"""The values of groupcheck's public API, on Kafka's terms: frozen dataclasses.

Each constructor normalises what it is given (lists become tuples, ``("t", 0)`` pairs
become ``TopicPartition``) and raises ``ApiError`` naming the field that is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NO_GENERATION = -1   # Generation.NO_GENERATION: the subscription carries no generation


class ApiError(ValueError):
    """Bad input to a groupcheck.api function; the message names the field."""


class CooperativeAssignmentError(ApiError):
    """ConsumerCoordinator#validateCooperativeAssignment's IllegalStateException."""

    def __init__(self, partitions: tuple["TopicPartition", ...]):
        self.partitions = partitions
        moved = ", ".join(str(tp) for tp in partitions)
        super().__init__("Assignor supporting the COOPERATIVE protocol violates its requirements: "
                         f"{moved} both added to one member and revoked from another in one round")


class StreamsAssignFailed(RuntimeError):
    """The Streams leader's assign() threw; in Kafka its stream thread dies."""


def _int(value: Any, where: str, low: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(f"{where}: expected an int, got {value!r}")
    if low is not None and value < low:
        raise ApiError(f"{where}: {value} is below {low}")
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ApiError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _sequence(value: Any, where: str) -> tuple:
    """A list, tuple, set or frozenset as a tuple; anything else is an error."""
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise ApiError(f"{where}: expected a list, got {type(value).__name__}")
    return tuple(value)


@dataclass(frozen=True, order=True, repr=False)
class TopicPartition:
    """org.apache.kafka.common.TopicPartition; ``str`` prints it as Kafka does: ``orders-0``."""

    topic: str
    partition: int

    def __post_init__(self) -> None:
        _str(self.topic, "TopicPartition.topic")
        _int(self.partition, "TopicPartition.partition", 0)

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"

    def __repr__(self) -> str:
        return f"TopicPartition({self.topic!r}, {self.partition})"


def topic_partition(value: Any, where: str) -> TopicPartition:
    """``value`` as a TopicPartition: one already, or a ``(topic, partition)`` pair."""
    if isinstance(value, TopicPartition):
        return value
    if isinstance(value, (tuple, list)) and len(value) == 2:
        try:
            return TopicPartition(value[0], value[1])
        except ApiError as e:
            raise ApiError(f"{where}: {e}") from None
    raise ApiError(f"{where}: expected a TopicPartition or a (topic, partition) pair, got {value!r}")


def topic_partitions(value: Any, where: str) -> tuple[TopicPartition, ...]:
    """A list of TopicPartitions (or pairs), sorted, each checked."""
    items = _sequence(value, where)
    return tuple(sorted({topic_partition(v, f"{where}[{i}]") for i, v in enumerate(items)}))


@dataclass(frozen=True)
class StickyUserData:
    """StickyAssignor's userData (StickyAssignorUserData v1): the member's previous
    assignment and its generation. The EAGER StickyAssignor reads its claims from here,
    not from ownedPartitions (which an EAGER member has emptied before joining)."""

    previous_assignment: tuple[TopicPartition, ...] = ()
    generation: int = NO_GENERATION

    def __post_init__(self) -> None:
        object.__setattr__(self, "previous_assignment",
                           topic_partitions(self.previous_assignment, "StickyUserData.previous_assignment"))
        _int(self.generation, "StickyUserData.generation", NO_GENERATION)


@dataclass(frozen=True)
class Subscription:
    """ConsumerPartitionAssignor.Subscription: what a member's JoinGroup carries.

    ``owned_partitions`` is ownedPartitions (KIP-429); ``generation`` the generation of
    that claim (KIP-792's GenerationId field, or cooperative-sticky's userData before
    it), -1 for none; ``user_data`` the StickyAssignor's userData, if any."""

    topics: tuple[str, ...]
    owned_partitions: tuple[TopicPartition, ...] = ()
    generation: int = NO_GENERATION
    user_data: StickyUserData | None = None

    def __post_init__(self) -> None:
        topics = _sequence(self.topics, "Subscription.topics")
        object.__setattr__(self, "topics", tuple(sorted({_str(t, f"Subscription.topics[{i}]")
                                                         for i, t in enumerate(topics)})))
        object.__setattr__(self, "owned_partitions",
                           topic_partitions(self.owned_partitions, "Subscription.owned_partitions"))
        _int(self.generation, "Subscription.generation", NO_GENERATION)
        if self.user_data is not None and not isinstance(self.user_data, StickyUserData):
            raise ApiError(f"Subscription.user_data: expected StickyUserData or None, got {self.user_data!r}")


@dataclass(frozen=True)
class ClaimResolution:
    """Which ownedPartitions claims the leader keeps (AbstractStickyAssignor, KIP-792).

    ``kept``: per member, the partitions it keeps as previous owner;
    ``partitions_with_multiple_previous_owners``: claimed twice at the same highest
    generation, so nobody keeps them (Kafka 3.5+)."""

    kept: dict[str, tuple[TopicPartition, ...]]
    partitions_with_multiple_previous_owners: tuple[TopicPartition, ...]


@dataclass(frozen=True, order=True, repr=False)
class TaskId:
    """org.apache.kafka.streams.processor.TaskId: subtopology and partition; prints ``0_1``."""

    subtopology: int
    partition: int

    def __post_init__(self) -> None:
        _int(self.subtopology, "TaskId.subtopology", 0)
        _int(self.partition, "TaskId.partition", 0)

    def __str__(self) -> str:
        return f"{self.subtopology}_{self.partition}"

    def __repr__(self) -> str:
        return f"TaskId({self.subtopology}, {self.partition})"


def task_ids(value: Any, where: str) -> tuple[TaskId, ...]:
    """A list of TaskIds (or ``(subtopology, partition)`` pairs), sorted."""
    out = set()
    for i, v in enumerate(_sequence(value, where)):
        if isinstance(v, TaskId):
            out.add(v)
        elif isinstance(v, (tuple, list)) and len(v) == 2:
            try:
                out.add(TaskId(v[0], v[1]))
            except ApiError as e:
                raise ApiError(f"{where}[{i}]: {e}") from None
        else:
            raise ApiError(f"{where}[{i}]: expected a TaskId or a (subtopology, partition) pair, got {v!r}")
    return tuple(sorted(out))


@dataclass(frozen=True)
class StreamsSubscription:
    """One stream thread's JoinGroup: its release and SubscriptionInfo.

    ``used_version`` / ``latest_supported_version`` default to what the release sends
    with ``upgrade_from``; ``prev_tasks`` / ``standby_tasks`` are SubscriptionInfo's
    prevTasks / standbyTasks; ``owned_tasks`` the active tasks a COOPERATIVE member
    still runs (its ownedPartitions). Threads of one Kafka Streams instance share a
    ``process_id`` (default: the member id, one thread per instance)."""

    release: str
    upgrade_from: str | None = None
    used_version: int | None = None
    latest_supported_version: int | None = None
    prev_tasks: tuple[TaskId, ...] = ()
    standby_tasks: tuple[TaskId, ...] = ()
    owned_tasks: tuple[TaskId, ...] = ()
    process_id: str | None = None

    def __post_init__(self) -> None:
        _str(self.release, "StreamsSubscription.release")
        for name in ("used_version", "latest_supported_version"):
            if getattr(self, name) is not None:
                _int(getattr(self, name), f"StreamsSubscription.{name}", 1)
        for name in ("prev_tasks", "standby_tasks", "owned_tasks"):
            object.__setattr__(self, name, task_ids(getattr(self, name), f"StreamsSubscription.{name}"))


@dataclass(frozen=True)
class StreamsAssignment:
    """One member's AssignmentInfo: the version it is encoded in, the commonly supported
    version it advertises (None below v3, which cannot carry it), the AssignorError code
    (0 NONE, 3 ASSIGNMENT_ERROR), the active and standby tasks, and whether the member is
    asked to rebalance again at once (nextRebalanceMs 0, or KIP-268's final rebalance)."""

    version: int
    commonly_supported_version: int | None
    error_code: int
    active_tasks: tuple[TaskId, ...] = ()
    standby_tasks: tuple[TaskId, ...] = field(default=())
    rebalance_now: bool = False
