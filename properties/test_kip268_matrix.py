"""KIP-268's test matrix as a property suite over ``model.streams_classic``.

KIP-268 ("Test Plan") asks for rolling-bounce upgrades from every release 0.10.0-2.0
to every later one in its table (0.10.1-2.0), plus a "simulated upgrade" to a release one
metadata version newer ("to ensure that the implemented 'version probing' work correct
for future changes"), and for "failure scenario[s] during the upgrade". Here every row is
one exhaustive BFS (``groupcheck.checker.bfs``) over a running group on ``from`` that is
upgraded by ``plans.upgrade_plan``: every bounce order and every interleaving of the
rebalance steps. The ``to`` columns are the KIP's table, a spread of later releases
(2.1, 2.3, 2.4, 2.6.0, 2.8, 3.0, 3.9, 4.1) and the simulated ``next`` (4.1's version + 1).

Rows, by test:

* ``test_documented_path`` - each (from, to) pair of the matrix, on the path Kafka's
  upgrade notes prescribe; the test id names it (``one-bounce`` or
  ``two-bounce-upgrade.from=X``). It must be safe (no property fails), complete, and every
  run that finishes the plan settles with every thread on ``to``'s metadata version.
  - one bounce when ``from`` and ``to`` share the metadata version (0.10.1-1.1 are all v2);
  - two bounces, the first with ``upgrade.from=<from>``, whenever ``from`` < 2.0 and the
    versions differ (KIP-268; 0.10.1-1.1 accept "0.10.0", the KAFKA-6054 backport);
  - one bounce from 2.0 to 2.1 and 2.3 (KIP-268 version probing);
  - two bounces with ``upgrade.from="2.0"`` from 2.0 to 2.4 and later, ``next`` included:
    KIP-429's upgrade path to COOPERATIVE supersedes the KIP-268 table's one-bounce
    2.0 -> post-2.0 row (one bounce is unsafe, see ``test_one_bounce_onto_cooperative``).
  Profiles: ``release`` for every row.
* ``test_simulated_version_probing`` - KIP-268's "simulated upgrade" to ``next`` from
  2.0 (two bounces, ``upgrade.from="2.0"``: the first bounce probes) and, as one rolling
  bounce, from the cooperative releases 2.4, 2.6.0, 3.9 and 4.1, under the ``kip-268``
  and ``kafka-2.6+`` profiles (and ``release`` for the one-bounce rows; the 2.0 row runs
  under ``release`` in the matrix). Besides the checks above: some thread must have been
  downgraded, i.e. version probing did happen.
* ``test_documented_path_survives_a_crash`` - the Test Plan's "failure scenario during
  the upgrade": a few rows again, with one crash (and restart) of any instance at any point.
* ``test_one_bounce_without_upgrade_from`` - the documented wrong path: one bounce from
  < 2.0 onto a release with a higher metadata version fails ``leader_never_fails``, and
  the thread that dies is an old-release leader given the new version.
* ``test_second_bounce_keeping_old_upgrade_from`` - KIP-429: "setting it to earlier than
  2.0 will force Streams to remain stuck on an earlier metadata version". Safe, but the
  group never gets above v1/v2, and that is where it settles.
* ``test_invalid_upgrade_from_*`` - a value the release does not accept is a ScopeError
  naming the field, as Kafka rejects it at startup.
* ``test_one_bounce_onto_cooperative`` / ``test_cooperative_*`` - KIP-429, at 3 instances
  and 4 tasks (3 instances with 2 or 3 tasks, 2 instances with 2-3 tasks, and 2 instances
  of 2 threads do not show the hazard, so the 2x2 matrix cannot): one bounce from 2.0 or 2.3 onto a
  cooperative release lets the old eager leader give a task to a cooperative thread while
  another still runs it (``revoke_before_reassign``); one bounce 2.4 -> 3.9 is safe; the
  two bounces with ``upgrade.from="2.3"`` are safe. The full two-bounce 2.3 -> 3.9 run at
  3x4 explores ~350,000 states (minutes), so it is checked bounce by bounce at 3x4 (each
  from a settled group) and as a whole at 2x2.

Scopes: 2 instances and 2 tasks unless said otherwise (a few hundred to a few thousand
states per row). No state counts or timings are asserted.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest

from groupcheck.checker import Report, bfs
from groupcheck.traces import story
from groupcheck.model.core import replay
from groupcheck.model.streams_classic import MODEL, plans
from groupcheck.model.streams_classic import releases as rel
from groupcheck.model.streams_classic.scope import Config, ScopeError, StreamsScope, from_dict, validate
from groupcheck.model.streams_classic.state import UP
from groupcheck.model.streams_classic.step import LEADER_FAILURE, config, live, quiescent

SMALL = {"instances": 2, "tasks": 2}
COOP = {"instances": 3, "tasks": 4}
PROBING_PROFILES = (rel.KIP_268, rel.KAFKA_26)

FROM = ("0.10.0", "0.10.1", "0.10.2", "0.11.0", "1.0", "1.1", "2.0")
KIP_TABLE_TO = ("0.10.1", "0.10.2", "0.11.0", "1.0", "1.1", "2.0")
LATER_TO = ("2.1", "2.3", "2.4", "2.6.0", "2.8", "3.0", "3.9", "4.1", "next")
MATRIX = [(f, t) for f in FROM for t in KIP_TABLE_TO + LATER_TO if rel.later(f, t)]


def version(name: str) -> int:
    return rel.release(name).latest


def documented_bounces(frm: str, to: str) -> int:
    """The rolling bounces Kafka's upgrade notes prescribe from ``frm`` to ``to``."""
    if version(frm) == version(to):
        return 1                  # same metadata: nothing to negotiate
    if rel.later(frm, "2.0"):
        return 2                  # KIP-268: a pre-2.0 leader cannot probe
    if rel.release(to).cooperative and not rel.release(frm).cooperative:
        return 2                  # KIP-429: EAGER -> COOPERATIVE needs upgrade.from
    return 1                      # KIP-268: version probing


def path_id(frm: str, to: str, bounces: int, profile: str = "release") -> str:
    path = "one-bounce" if bounces == 1 else f"two-bounce-upgrade.from={plans.upgrade_from_value(frm)}"
    return f"{frm}->{to}-{path}-{profile}"


@dataclass
class Run:
    report: Report
    settled: set[int] = field(default_factory=set)     # group versions where the plan finished
    settled_used: set[int] = field(default_factory=set)
    top_group: int = 0                                 # highest assignment version anywhere
    top_used: int = 0                                  # highest version any live thread used


def explore(scope: StreamsScope) -> Run:
    """BFS, recording the versions of every state where the plan is complete and the
    group has settled, and the highest versions seen anywhere."""
    last = len(scope.plan) - 1
    run = Run(Report(MODEL.name, "bfs"))

    def visit(state) -> None:
        used = [m.used for m in state.members if live(m)]
        run.top_group = max(run.top_group, state.group.version)
        run.top_used = max([run.top_used, *used])
        if quiescent(scope, state) and all(i.status == UP and i.stage == last for i in state.instances):
            run.settled.add(state.group.version)
            run.settled_used.update(used)

    run.report = bfs(MODEL, scope, on_state=visit)
    return run


def why(scope: StreamsScope, report: Report) -> str:
    v = report.violation
    if v is None:
        return "no violation"
    return f"{v.property}: {v.message}\n" + story(MODEL, scope, v.path, v.property)


def assert_upgrades_to(scope: StreamsScope, to: str) -> Run:
    run = explore(scope)
    assert run.report.violation is None, why(scope, run.report)
    assert run.report.complete
    assert run.settled == {version(to)}, f"settled on {sorted(run.settled)}, not v{version(to)}"
    assert run.settled_used == {version(to)}
    return run


# --- 1. the documented paths -------------------------------------------------------

DOCUMENTED = [(f, t, documented_bounces(f, t)) for f, t in MATRIX]


@pytest.mark.slow
@pytest.mark.parametrize("frm,to,bounces", DOCUMENTED, ids=[path_id(*c) for c in DOCUMENTED])
def test_documented_path(frm, to, bounces):
    scope = plans.upgrade_scope(frm, to, bounces, **SMALL)
    assert len(scope.plan) == bounces + 1
    assert_upgrades_to(scope, to)


PROBING = ([("2.0", "next", 2, p) for p in PROBING_PROFILES]
           + [(f, "next", 1, p) for f in ("2.4", "2.6.0", "3.9", "4.1") for p in ("release", *PROBING_PROFILES)])


@pytest.mark.parametrize("frm,to,bounces,profile", PROBING, ids=[path_id(*c) for c in PROBING])
def test_simulated_version_probing(frm, to, bounces, profile):
    scope = plans.upgrade_scope(frm, to, bounces, profile=profile, **SMALL)
    run = assert_upgrades_to(scope, to)
    assert run.top_used == version("next")
    assert run.report.witnessed["some_thread_downgraded"], "no thread was ever downgraded: no probing"


CRASH = [("0.10.0", "0.10.1"), ("0.10.1", "1.1"), ("0.10.0", "2.0"), ("1.1", "next"), ("2.0", "2.3"),
         ("2.0", "next"), ("4.1", "next")]


@pytest.mark.slow
@pytest.mark.parametrize("frm,to", CRASH, ids=[path_id(f, t, documented_bounces(f, t)) + "-crash" for f, t in CRASH])
def test_documented_path_survives_a_crash(frm, to):
    scope = plans.upgrade_scope(frm, to, documented_bounces(frm, to), crash=True, **SMALL)
    assert scope.faults == ("crash",) and scope.budget == 1
    assert_upgrades_to(scope, to)


def test_the_matrix_covers_the_kips_table_and_the_later_releases():
    pairs = set(MATRIX)
    for i, f in enumerate(FROM):
        for t in KIP_TABLE_TO[i:] + LATER_TO:
            assert (f, t) in pairs
    assert len(MATRIX) == 84
    assert {b for _, _, b in DOCUMENTED} == {1, 2}


# --- 2. the documented wrong paths ----------------------------------------------------

FORGOT = [(f, t) for f, t in MATRIX if rel.later(f, "2.0") and version(t) > version(f)]


@pytest.mark.parametrize("frm,to", FORGOT, ids=[f"{f}->{t}-one-bounce-no-upgrade.from" for f, t in FORGOT])
def test_one_bounce_without_upgrade_from(frm, to):
    scope = plans.upgrade_scope(frm, to, 1, **SMALL)
    v = bfs(MODEL, scope).violation
    assert v is not None and v.property == "leader_never_fails", v
    _, steps = replay(MODEL, scope, v.path)
    last = steps[-1].next
    dead = [s for s, m in enumerate(last.members) if m.failure.startswith(LEADER_FAILURE)]
    assert [config(scope, last, s).release for s in dead] == [frm]
    assert f"v{version(to)}" in last.members[dead[0]].failure


# (from, to, upgrade.from of the first bounce, of the second, the version the group stays on)
STUCK = [
    ("0.10.0", "2.0", "0.10.0", "0.10.0", 1),
    ("0.10.0", "next", "0.10.0", "1.1", 2),
    ("0.10.1", "2.4", "0.10.1", "0.10.1", 2),
    ("1.1", "2.0", "1.1", "1.1", 2),
    ("1.0", "3.9", "1.0", "1.0", 2),
    ("0.11.0", "next", "0.11.0", "0.11.0", 2),
]


@pytest.mark.parametrize("frm,to,first,second,stays", STUCK,
                         ids=[f"{f}->{t}-upgrade.from={a}-then-{b}" for f, t, a, b, _ in STUCK])
def test_second_bounce_keeping_old_upgrade_from(frm, to, first, second, stays):
    base = plans.upgrade_scope(frm, to, 2, **SMALL)
    scope = validate(replace(base, plan=(Config(frm), Config(to, first), Config(to, second))))
    run = explore(scope)
    assert run.report.violation is None, why(scope, run.report)
    assert run.report.complete
    assert run.settled == {stays} and run.settled_used == {stays}
    assert run.top_group == stays and run.top_used == stays < version(to)


INVALID = [  # (release, upgrade.from)
    ("2.0", "2.3"),      # 2.0-2.3 accept only the pre-2.0 lines
    ("2.3", "2.0"),
    ("2.0", "0.9"),      # never a release line with the config
    ("3.9", "0.9"),
    ("1.1", "1.0"),      # 0.10.1-1.1 accept only "0.10.0" (KAFKA-6054)
    ("0.10.1", "0.10.1"),
    ("0.10.0", "0.10.0"),  # 0.10.0 has no upgrade.from
]


@pytest.mark.parametrize("release,value", INVALID, ids=[f"{r}-upgrade.from={v}" for r, v in INVALID])
def test_invalid_upgrade_from_is_rejected_naming_the_field(release, value):
    assert not rel.accepts_upgrade_from(release, value)
    scope = StreamsScope(instances=2, tasks=2, plan=(Config("0.10.0"), Config(release, value)))
    with pytest.raises(ScopeError) as e:
        validate(scope)
    assert "plan[1].upgrade_from" in str(e.value) and repr(value) in str(e.value)


def test_invalid_upgrade_from_in_json_is_rejected_naming_the_field():
    with pytest.raises(ScopeError, match=r"plan\[1\]\.upgrade_from"):
        from_dict({"plan": [{"release": "1.1"}, {"release": "2.0", "upgrade_from": "2.3"}]})


@pytest.mark.parametrize("frm,to", [("2.0", "2.3"), ("0.10.1", "1.0"), ("2.1", "2.3")])
def test_invalid_upgrade_from_two_bounce_plan_is_rejected(frm, to):
    with pytest.raises(ScopeError, match=rf"upgrade\.from='{frm}'"):
        plans.upgrade_plan(frm, to, bounces=2)


# --- KIP-429: onto a cooperative release (3 instances, 4 tasks) ----------------------------

UNSAFE = [("2.3", "3.9", "release"), ("2.0", "2.4", "release"),
          *[("2.0", "next", p) for p in ("release", *PROBING_PROFILES)]]


@pytest.mark.slow
@pytest.mark.parametrize("frm,to,profile", UNSAFE, ids=[path_id(f, t, 1, p) for f, t, p in UNSAFE])
def test_one_bounce_onto_cooperative_is_unsafe(frm, to, profile):
    scope = plans.upgrade_scope(frm, to, 1, profile=profile, **COOP)
    v = bfs(MODEL, scope).violation
    assert v is not None and v.property == "revoke_before_reassign", v


@pytest.mark.slow
def test_cooperative_one_bounce_from_2_4_is_safe():
    scope = plans.upgrade_scope("2.4", "3.9", 1, **COOP)
    assert_upgrades_to(scope, "3.9")


@pytest.mark.slow
@pytest.mark.parametrize("bounce", [1, 2], ids=["first-bounce-upgrade.from=2.3", "second-bounce"])
def test_cooperative_two_bounces_each_bounce_is_safe(bounce):
    plan = plans.upgrade_plan("2.3", "3.9", bounces=2)
    assert plan[1] == Config("3.9", "2.3") and plan[2] == Config("3.9")
    scope = validate(replace(plans.upgrade_scope("2.3", "3.9", 2, **COOP), plan=plan[bounce - 1:bounce + 1]))
    run = explore(scope)
    assert run.report.violation is None, why(scope, run.report)
    assert run.report.complete
    assert run.settled == {version("3.9")}


def test_cooperative_two_bounces_whole_plan_is_safe():
    scope = plans.upgrade_scope("2.3", "3.9", 2, **SMALL)
    assert_upgrades_to(scope, "3.9")
