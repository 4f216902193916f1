"""A Kafka Streams (classic protocol) model state (``model/streams_classic``) as the
variables of ``specs/streams_classic/StreamsClassic.tla``.

Task bitmasks become sets of task numbers; the optional subscription and inbox of a thread
become sequences of at most one record; the thread's failure message becomes a record
(who threw, the exception, its cause, the versions it names), parsed from the message so
nothing of it is lost. The release facts of the plan (``Plan``) come from
``model/streams_classic/releases.py`` as each release ships them: a known bug's switch is
the variant module's business, never the constants'. Fields the spec leaves out (seed
002's learner tasks and the leader's history) must keep their starting values:
``variables`` refuses a state where one does not, naming it."""
from __future__ import annotations

import re

from groupcheck.model import streams_classic as rel
from groupcheck.model.streams_classic import CAP, LEADER_FAILURE, REBALANCES_ALLOWED

from ..manifest import OutsideSpec
from ..values import fcn, mask_set, rec, tset




def _release(cfg) -> object:
    r = rel.release(cfg.release)
    return rec(release=r.name, latest=r.latest, used=rel.subscription_version(cfg.release, cfg.upgrade_from),
               protocol=rel.rebalance_protocol(cfg.release, cfg.upgrade_from), family=r.family,
               cooperative=r.cooperative, fix8649=r.kafka_8649_fix, assignmentError=r.assignment_error)


def constants(scope) -> dict:
    if scope.task_assignor != "sticky":
        raise OutsideSpec(f"the spec states the sticky task assignor only, not {scope.task_assignor!r}")
    return {"Instances": tset(range(scope.instances)), "Threads": scope.threads, "Tasks": tset(range(scope.tasks)),
            "Standbys": scope.standbys, "Initial": scope.running, "StartFrom": scope.start,
            "Plan": fcn({st: _release(cfg) for st, cfg in enumerate(scope.plan)}),
            "Profile": scope.behaviour.probing, "Faults": tset(scope.faults), "Operations": tset(scope.operations),
            "Budget": scope.budget, "MaxGeneration": scope.max_generation, "Cap": CAP,
            "RebalancesAllowed": REBALANCES_ALLOWED}


def _failure(by: str, exception: str, cause: str, *detail) -> object:
    return rec(by=by, exception=exception, cause=cause, detail=tuple(detail))


NO_FAILURE = _failure("none", "", "")

# (pattern, by, exception, cause, how the groups become the detail)
_FAILURES = (
    (r"TaskAssignmentException: Kafka Streams (\S+) cannot decode a v(\d+) subscription \(knows up to v(\d+)\)",
     "assign", "TaskAssignmentException", "cannot decode subscription", lambda g: (g[0], int(g[1]), int(g[2]))),
    (r"IllegalStateException: a future \(v(\d+)\) and a pre-2.0 \(v(\d+)\) subscription at the same time",
     "assign", "IllegalStateException", "future next to pre-2.0 subscription", None),
    (r"IllegalArgumentException: SubscriptionInfo version must be between 1 and (\d+); was: (-?\d+)",
     "thread", "IllegalArgumentException", "subscription version out of range", None),
    (r"TaskAssignmentException: cannot decode a v(-?\d+) assignment \(knows up to v(\d+)\)",
     "thread", "TaskAssignmentException", "cannot decode assignment", None),
    (r"ASSIGNMENT_ERROR: TaskAssignmentException, the thread dies",
     "thread", "TaskAssignmentException", "ASSIGNMENT_ERROR", None),
    (r"TaskAssignmentException: sent a v(\d+) subscription but got an assignment with higher version v(\d+)",
     "thread", "TaskAssignmentException", "assignment version above used", None),
    (r"TaskAssignmentException: commonly supported v(\d+) is above what v(\d+) code supports",
     "thread", "TaskAssignmentException", "commonly supported above latest", None),
    (r"IllegalStateException: sent a v(\d+) subscription, got a v(\d+) assignment",
     "thread", "IllegalStateException", "assignment version above used", None),
)


def failure(text: str) -> object:
    """The model's failure message as the spec's failure record."""
    if not text:
        return NO_FAILURE
    leader = text.startswith(LEADER_FAILURE)
    body = text[len(LEADER_FAILURE):] if leader else text
    for pattern, by, exception, cause, detail in _FAILURES:
        m = re.fullmatch(pattern, body)
        if m and (by == "assign") == leader:
            groups = m.groups()
            return _failure(by, exception, cause, *(detail(groups) if detail else (int(g) for g in groups)))
    raise OutsideSpec(f"a failure the spec does not state: {text!r}")


def _subscription(sub) -> tuple:
    if sub is None:
        return ()
    if sub.learning or sub.ready:
        raise OutsideSpec("a subscription reporting warm-up (learner) tasks is outside the spec")
    return (rec(used=sub.used, latest=sub.latest, protocol=sub.protocol, owned=mask_set(sub.owned),
                prev=mask_set(sub.prev), standby=mask_set(sub.standby), leaving=sub.leaving),)


def _assignment(a) -> tuple:
    if a is None:
        return ()
    if a.learning or a.learned:
        raise OutsideSpec("an assignment with warm-up (learner) tasks is outside the spec")
    return (rec(version=a.version, supported=a.supported, error=a.error, active=mask_set(a.active),
                standby=mask_set(a.standby), followup=a.followup, generation=a.generation),)


def _member(m) -> object:
    if m.learning or m.ready or m.learned or m.history != -1:
        raise OutsideSpec("warm-up (learner) tasks and the leader's history are outside the spec")
    return rec(status=m.status, used=m.used, generation=m.generation, active=mask_set(m.active), prev=mask_set(m.prev),
               standby=mask_set(m.standby), subscription=_subscription(m.sub), inbox=_assignment(m.inbox),
               failure=failure(m.failure))


def variables(scope, state) -> dict:
    g = state.group
    return {
        "group": rec(status=g.status, generation=g.generation, leader=g.leader, joined=tset(g.joined),
                     order=tuple(g.order), version=g.version),
        "instances": fcn({i: rec(status=x.status, stage=x.stage, leaving=x.leaving)
                          for i, x in enumerate(state.instances)}),
        "members": fcn({s: _member(m) for s, m in enumerate(state.members)}),
        "budget": state.budget,
        "calm": state.calm,
        "sinceStart": state.since_start,
        "lastStart": state.last_start,
    }
