"""What Kafka fixes about one task assignment, judged per invocation.

Each claim looks at one ``assign`` argument (an ApplicationState, see
``schema/streams-assignor.schema.json``) and the implementation's answer (a
TaskAssignment), and returns None (holds), a message (violated) or ``NOT_APPLICABLE``.

The first five are Kafka 3.9's own check of a custom assignment,
``TaskAssignmentUtils#validateTaskAssignment``
(streams/src/main/java/org/apache/kafka/streams/processor/assignment/TaskAssignmentUtils.java),
one claim per ``TaskAssignor.AssignmentError`` code; Kafka returns only the first error
(``first_error``) and StreamsPartitionAssignor#processStreamsPartitionAssignment throws
StreamsException on it (UNKNOWN_* before the GroupAssignment is built, the others after).
``every_task_active`` is not checked by Kafka, but a task placed nowhere is never
processed. Balance is judged only where a target states it (``contracts``).
"""
from __future__ import annotations

from typing import Callable

NOT_APPLICABLE = "n/a"
ACTIVE, STANDBY = "ACTIVE", "STANDBY"


def _tasks(arg: dict) -> dict[str, bool]:
    return {t["id"]: t["stateful"] for t in arg["tasks"]}


def _placed(answer: dict):
    """(process id, task id, type) for every task of every client's assignment."""
    for a in answer["assignment"]:
        for t in a["tasks"]:
            yield a["process_id"], t["id"], t["type"]


def no_unknown_task_id(arg: dict, answer: dict, contracts: frozenset) -> str | None:
    """validateTaskAssignment: "Assignment is invalid: task {} assigned to KafkaStreams
    client {} was unknown" (UNKNOWN_TASK_ID, fatal). Claim: every task assigned is a task
    of the ApplicationState."""
    known = _tasks(arg)
    for pid, tid, _ in _placed(answer):
        if tid not in known:
            return f"task {tid} assigned to {pid} is not a task of the application ({', '.join(known)})"
    return None


def no_active_task_assigned_multiple_times(arg: dict, answer: dict, contracts: frozenset) -> str | None:
    """validateTaskAssignment: "active task {} was assigned to multiple KafkaStreams
    clients" (ACTIVE_TASK_ASSIGNED_MULTIPLE_TIMES). Claim: each task is active on at most
    one client (an entry repeated within one client's list counts too: Kafka's
    KafkaStreamsAssignment keys its tasks by TaskId)."""
    seen: dict[str, str] = {}
    for pid, tid, kind in _placed(answer):
        if kind == ACTIVE:
            if tid in seen:
                return f"active task {tid} assigned to {seen[tid]} and to {pid}"
            seen[tid] = pid
    return None


def no_invalid_standby_task(arg: dict, answer: dict, contracts: frozenset) -> str | None:
    """validateTaskAssignment: "standby task for stateless task {} was assigned to
    KafkaStreams client {}" (INVALID_STANDBY_TASK). Claim: only a stateful task has
    standbys."""
    known = _tasks(arg)
    for pid, tid, kind in _placed(answer):
        if kind == STANDBY and known.get(tid) is False:
            return f"standby of the stateless task {tid} assigned to {pid}"
    return None


def no_missing_process_id(arg: dict, answer: dict, contracts: frozenset) -> str | None:
    """validateTaskAssignment: "KafkaStreams client {} has no assignment"
    (MISSING_PROCESS_ID). Claim: every client of the ApplicationState has an assignment
    (possibly empty)."""
    given = {a["process_id"] for a in answer["assignment"]}
    missing = [c["process_id"] for c in arg["clients"] if c["process_id"] not in given]
    return f"no assignment for {', '.join(missing)}" if missing else None


def no_unknown_process_id(arg: dict, answer: dict, contracts: frozenset) -> str | None:
    """validateTaskAssignment: "the KafkaStreams client {} is unknown" (UNKNOWN_PROCESS_ID,
    fatal). Claim: every assignment is for a client of the ApplicationState."""
    known = {c["process_id"] for c in arg["clients"]}
    unknown = sorted({a["process_id"] for a in answer["assignment"]} - known)
    return f"assignment for {', '.join(unknown)}, not a client of the application" if unknown else None


def every_task_active(arg: dict, answer: dict, contracts: frozenset) -> str | None:
    """TaskAssignor's purpose: "assign tasks to KafkaStreams clients"; Kafka does not
    check it, but a task active nowhere is processed by nobody (its input partitions go
    unread). Claim: every task of the ApplicationState is active on some client."""
    active = {tid for _, tid, kind in _placed(answer) if kind == ACTIVE}
    missing = [t for t in _tasks(arg) if t not in active]
    return f"task(s) {', '.join(missing)} active on no client" if missing else None


def balanced_active_tasks(arg: dict, answer: dict, contracts: frozenset) -> str | None:
    """Where a target states balance (``contracts`` holds ``balanced``, as Kafka's
    StickyTaskAssignor and the model's sticky placement do): with every client running
    the same number of threads, the clients not leaving get active task counts within one
    of each other, and a leaving client none."""
    if "balanced" not in contracts:
        return NOT_APPLICABLE
    stay = [c for c in arg["clients"] if not c.get("leaving")]
    if len(stay) < 2 or len({c["threads"] for c in stay}) != 1:
        return NOT_APPLICABLE
    counts = {c["process_id"]: 0 for c in arg["clients"]}
    for pid, _, kind in _placed(answer):
        if kind == ACTIVE and pid in counts:
            counts[pid] += 1
    load = [counts[c["process_id"]] for c in stay]
    if max(load) - min(load) > 1:
        return "active tasks per client " + ", ".join(f"{c['process_id']}: {counts[c['process_id']]}" for c in stay)
    return None


# Kafka's five AssignmentError codes, in the order validateTaskAssignment finds them
KAFKA_ERRORS: dict[str, str] = {
    "UNKNOWN_TASK_ID": "no_unknown_task_id",
    "ACTIVE_TASK_ASSIGNED_MULTIPLE_TIMES": "no_active_task_assigned_multiple_times",
    "INVALID_STANDBY_TASK": "no_invalid_standby_task",
    "MISSING_PROCESS_ID": "no_missing_process_id",
    "UNKNOWN_PROCESS_ID": "no_unknown_process_id",
}
FATAL = ("UNKNOWN_TASK_ID", "UNKNOWN_PROCESS_ID")
CLAIMS: dict[str, Callable[[dict, dict, frozenset], str | None]] = {
    "no_unknown_task_id": no_unknown_task_id,
    "no_active_task_assigned_multiple_times": no_active_task_assigned_multiple_times,
    "no_invalid_standby_task": no_invalid_standby_task,
    "no_missing_process_id": no_missing_process_id,
    "no_unknown_process_id": no_unknown_process_id,
    "every_task_active": every_task_active,
    "balanced_active_tasks": balanced_active_tasks,
}
ANSWERS_DOC = ("a task assignor answers every valid ApplicationState: a definite error (fail) is a "
               "divergence; info (timeout, crash) is never judged")
DETERMINISTIC_DOC = ("TaskAssignor#assign is a function of its ApplicationState: the same input answered "
                     "twice gets the same TaskAssignment")
DOCS = {"assignor_answers": ANSWERS_DOC, "deterministic": DETERMINISTIC_DOC,
        **{name: (f.__doc__ or "").strip() for name, f in CLAIMS.items()}}


def first_error(arg: dict, answer: dict) -> str | None:
    """The AssignmentError Kafka's validateTaskAssignment returns (the first of its
    checks that fails), or None for NONE. (Kafka checks unknown task ids and repeated
    actives in one pass over the clients; here a whole pass per code, which can only
    differ in which of two errors of one answer is named.)"""
    for code, claim in KAFKA_ERRORS.items():
        if CLAIMS[claim](arg, answer, frozenset()) is not None:
            return code
    return None


def judge(arg: dict, answer: dict, contracts: frozenset) -> dict[str, str | None]:
    return {name: claim(arg, answer, contracts) for name, claim in CLAIMS.items()}
