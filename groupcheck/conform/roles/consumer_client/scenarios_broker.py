"""Named scenarios for real clients on a broker: what model walks rarely give.

Each is a function of the timing (``group.Settings``) so its waits outlast exactly the
timer it is about; ``named(settings)`` returns ``(name, scenario or None, reason)``: a
scenario a client cannot run is listed with the reason, never faked. The ops are those
of ``scenarios.py``.
"""
from __future__ import annotations

from groupcheck.conform.roles.consumer_client.scenarios import finish

from ...targets.clients.group import Settings


def _join(*names) -> list[dict]:
    return [{"op": "join", "member": n} for n in names] + [{"op": "settle", "max_s": 60}]


# kafkajs 2.2.4 resolves a RegExp subscription once, in consumer.subscribe (src/consumer/index.js:
# the topics in the metadata that match it then), so a topic created later is never consumed.
NO_GROWTH = {"kafkajs": "kafkajs 2.2.4 resolves a RegExp subscription to the topics that exist at subscribe() "
                        "(src/consumer/index.js), so a topic created later is never consumed: nothing grows"}


def named(s: Settings) -> list[tuple[str, list[dict] | None, str]]:
    session, max_poll = s.session_timeout_ms / 1000, s.max_poll_interval_ms / 1000
    out = [
        ("kill-and-rejoin", _join("c1", "c2", "c3") + [{"op": "kill", "member": "c2"}, {"op": "settle", "max_s": 60}]
         + _join("c2"), "a crash (SIGKILL): the broker expires the member after the session timeout"),
        ("poll-stall-past-max-poll", _join("c1", "c2") + [
            {"op": "stall", "member": "c1"}, {"op": "wait", "seconds": round(max_poll + session, 1)},
            {"op": "commit", "member": "c2"}, {"op": "resume", "member": "c1"}, {"op": "commit", "member": "c1"}],
         "the application stops polling past max.poll.interval.ms; heartbeats go on; it is kicked"),
        ("sigstop-past-session", _join("c1", "c2") + [
            {"op": "sigstop", "member": "c1"}, {"op": "wait", "seconds": round(2 * session + 2, 1)},
            {"op": "sigcont", "member": "c1"}, {"op": "commit", "member": "c1"}],
         "the whole process stops (no heartbeats) past the session timeout, then commits at once"),
        ("sigstop-short", _join("c1", "c2") + [
            {"op": "sigstop", "member": "c2"}, {"op": "wait", "seconds": round(session / 3, 1)},
            {"op": "sigcont", "member": "c2"}, {"op": "wait", "seconds": 2}],
         "a stop shorter than the session timeout: nothing should move"),
        ("close-and-join", _join("c1", "c2", "c3") + [{"op": "close", "member": "c1"}, {"op": "settle", "max_s": 60}]
         + _join("c1"), "LeaveGroup then a new member"),
    ]
    if s.static:
        out.append(("static-restart", _join("c1", "c2") + [{"op": "kill", "member": "c1"}] + _join("c1"),
                    "a static member restarted with the same group.instance.id within the session timeout"))
    out.append(("topic-growth", None if s.client in NO_GROWTH else _join("c1", "c2", "c3") + [
        {"op": "commit", "member": "c1"}, {"op": "grow_topic"}, {"op": "settle", "max_s": 60},
        {"op": "commit", "member": "c2"}],
        NO_GROWTH.get(s.client, "a topic the members' pattern subscription matches is created (CreateTopics): the "
                                "group's partitions grow and a rebalance must hand the new ones out")))
    return [(n, None if sc is None else finish(sc[:-1] if sc[-1]["op"] == "settle" else sc), why)
            for n, sc, why in out]


def with_records(ops: list[dict]) -> list[dict]:
    """A consumer-model walk for members that process records: one record per partition
    produced after every operation but a wait or a settle, so each fault meets records."""
    out: list[dict] = []
    for op in ops:
        out.append(op)
        if op["op"] not in ("wait", "settle"):
            out.append({"op": "produce", "count": 1})
    return out


def records_named() -> list[tuple[str, list[dict], str]]:
    """The record scenarios (members with a commit policy, issue 30): (name, scenario, why).
    Two partitions suit them: each member of two owns one."""
    return [
        ("records-join", [{"op": "join", "member": "c1"}, {"op": "produce", "count": 3}, {"op": "settle", "max_s": 60},
                          {"op": "wait", "seconds": 2}] + _join("c2") + [{"op": "produce", "count": 2},
                                                                          {"op": "wait", "seconds": 3}],
         "a second member joins: the first hands a partition over (its commits decide where the new owner starts)"),
        ("records-join-while-producing", [{"op": "join", "member": "c1"}, {"op": "produce", "count": 2},
                                          {"op": "settle", "max_s": 60}, {"op": "join", "member": "c2"}]
         + [op for _ in range(4) for op in ({"op": "produce", "count": 1}, {"op": "wait", "seconds": 1})]
         + [{"op": "settle", "max_s": 60}, {"op": "produce", "count": 1}, {"op": "wait", "seconds": 3}],
         "a second member joins while records keep coming: records returned during the rebalance (between a "
         "commit before it and the revocation) must be committed by someone before the new owner starts"),
        ("records-kill-after-hold", _join("c1", "c2") + [
            {"op": "produce", "count": 2}, {"op": "wait", "seconds": 2}, {"op": "hold", "member": "c1"},
            {"op": "produce", "count": 2}, {"op": "kill", "member": "c1"}, {"op": "settle", "max_s": 60},
            {"op": "wait", "seconds": 3}],
         "a member processes a record and is SIGKILLed before committing it; the survivor takes its partition"),
        ("records-sigstop-past-session", _join("c1", "c2") + [
            {"op": "produce", "count": 2}, {"op": "wait", "seconds": 2}, {"op": "sigstop", "member": "c1"},
            {"op": "produce", "count": 2}, {"op": "wait", "seconds": 14}, {"op": "settle", "max_s": 60},
            {"op": "sigcont", "member": "c1"}, {"op": "commit", "member": "c1"}, {"op": "produce", "count": 1},
            {"op": "wait", "seconds": 3}],
         "a member's process stops past the session timeout (the survivor takes its partitions), then continues "
         "and commits what it processed: a zombie commit the coordinator must refuse"),
        ("records-kill-after-grab", _join("c1", "c2") + [
            {"op": "produce", "count": 2}, {"op": "wait", "seconds": 2}, {"op": "grab", "member": "c1"},
            {"op": "produce", "count": 2}, {"op": "wait", "seconds": 3}, {"op": "kill", "member": "c1"},
            {"op": "settle", "max_s": 60}, {"op": "wait", "seconds": 3}],
         "poll returns a member a record and the application is stuck before processing it (more than one "
         "auto-commit interval), then SIGKILLed: an auto-commit of what poll returned loses the record"),
    ]
