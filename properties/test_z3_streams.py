"""The Kafka Streams z3 queries (KIP-268 version probing): proofs, weakened
counterexamples, and cross-checks against ``model/streams_classic``.

* (e) ``negotiation_never_unreadable`` and (f) ``probing_table_complete_and_exclusive``
  are proved at their stated bound;
* every weakened rule gives SAT; each counterexample is replayed on the model's own
  ``member.on_assignment`` (and, for KAFKA-8649, on ``leader.assign`` with the bug's
  switch), where it breaks the claim, while the real rule on the same input does not;
* the decision table is cross-checked against ``leader.assign`` on every small mix:
  1-3 members, every release in ``RELEASES`` as leader with every usedVersion it can
  start with, every profile, KAFKA-8649 on and off; the row the table selects must be
  the only one, and its outcome must be exactly what ``assign`` returns. The same runs
  check the claims of (e) on ``member.on_assignment``, and that a member handed the
  ASSIGNMENT_ERROR answer (at the leader's LATEST) dies when it cannot decode it or
  knows the code (2.7+), and otherwise carries on without its tasks (2.6.1 next to a
  2.7 leader);
* query (e)'s encoding, with inputs pinned, equals ``assign`` + ``on_assignment``: the
  versions, the leader's follow-up (final rebalance), and per member decodable, readable,
  the used version after and whether it rejoins.
"""
from __future__ import annotations

import random
from dataclasses import replace
from functools import lru_cache
from itertools import combinations_with_replacement

import pytest

from groupcheck.model.streams_classic import releases as rel
from groupcheck.model.streams_classic.leader import answers_with_error, assign
from groupcheck.model.streams_classic.member import on_assignment
from groupcheck.model.streams_classic.scope import PROFILES, Config, StreamsScope, family
from groupcheck.model.streams_classic.state import (
    ASSIGNMENT_ERROR, PREPARING, SYNCING, UP, Assignment, Group, Instance, Member, State, Subscription,
)
from groupcheck.properties.smt import COUNTEREXAMPLE, PROVED, all_queries
from groupcheck.properties.smt import _streams as s
from groupcheck.properties.smt import streams_negotiation_readable as qe
from groupcheck.properties.smt import streams_probing_decision_table as qf
from groupcheck.properties.smt._common import evaluate

# One release per LATEST_SUPPORTED_VERSION (under the "release" profile a release's
# family is a function of its LATEST, so any of them stands for the others as a member;
# as a leader, 2.6.1 and 2.7 differ: ``leader_release`` picks by the witness's fact).
REPS: dict[int, str] = {}
for _name, _r in rel.RELEASES.items():
    REPS.setdefault(_r.latest, _name)


def leader_release(latest: int, assignment_error: bool) -> str:
    return s.leader_classes()[(latest, assignment_error)]


def errors(leader: str, profile: str) -> bool:
    """``leader.answers_with_error`` for this leader under ``profile``."""
    return answers_with_error(scope_for((leader,), profile, True), rel.release(leader))


def startup_versions(name: str) -> list[int]:
    """The usedVersions ``name`` can start with: no upgrade.from, or any it accepts."""
    ufs = [None] + [u for u in rel.UPGRADE_FROM if rel.accepts_upgrade_from(name, u)]
    return sorted({rel.subscription_version(name, u) for u in ufs})


@lru_cache(maxsize=None)
def behaviours(leader: str) -> tuple[tuple[str, bool], ...]:
    """(profile, advertise_group_min): every profile ("release" first), and KAFKA-8649 on
    too where the leader follows kip-268 rules. Not deduplicated by the leader's family:
    the profile also decides the members' families, and a kip-268 leader's final rebalance
    and a kip-268 member's rejoin differ between the release and kip-268 profiles."""
    out = []
    for profile in PROFILES:
        fam = s.py_family(rel.release(leader).latest, profile)
        for advertise in (True, False) if fam == rel.KIP_268 else (True,):
            out.append((profile, advertise))
    return tuple(out)


TASKS = 3
ALL_TASKS = (1 << TASKS) - 1


@lru_cache(maxsize=None)
def scope_for(releases: tuple[str, ...], profile: str, advertise: bool, downgrade: bool = True,
              final_rebalance: bool = True) -> StreamsScope:
    beh = replace(PROFILES[profile], advertise_group_min=advertise, follower_downgrades=downgrade,
                  leader_final_rebalance=final_rebalance)
    return StreamsScope(instances=len(releases), tasks=TASKS, plan=tuple(Config(r) for r in releases),
                        profile=profile, behaviour=beh)


def state_for(releases: tuple[str, ...], used: tuple[int, ...]) -> State:
    """Member i on ``releases[i]`` (instance i, stage i) sending usedVersion ``used[i]``;
    member 0 leads; every member has joined (as ``step`` leaves it before ``assign``)."""
    n = len(releases)
    members = tuple(
        Member(status=SYNCING, used=u, generation=0, active=0, prev=0, standby=0, learning=0, ready=0, learned=0,
               sub=Subscription(used=u, latest=rel.release(r).latest if u >= s.PROBEABLE else u, protocol=rel.EAGER,
                                owned=0, prev=0, standby=0, learning=0, ready=0, leaving=False),
               inbox=None, history=-1)
        for r, u in zip(releases, used))
    group = Group(status=PREPARING, generation=0, leader=0, joined=tuple(range(n)), order=tuple(range(n)), version=0)
    return State(group=group, instances=tuple(Instance(UP, i) for i in range(n)), members=members, budget=0, calm=0,
                 since_start=0, last_start=-1)


def run_model(releases, used, profile, advertise=True, downgrade=True, final_rebalance=True):
    """(assign outcome, [on_assignment result per member; None when the leader threw])."""
    scope = scope_for(tuple(releases), profile, advertise, downgrade, final_rebalance)
    state = state_for(tuple(releases), tuple(used))
    out = assign(scope, state, 0, 1)
    processed = [None] * len(releases)
    for slot, a in out.assignments:
        processed[slot] = on_assignment(scope, scope.plan[slot], state.members[slot], a)
    return out, processed


# ============================================================================ proofs

def test_both_streams_queries_are_registered():
    names = [name for name, _ in all_queries()]
    assert qe.NAME in names and qf.NAME in names


@pytest.mark.parametrize("used", s.USED_DOMAINS)
def test_negotiation_proved(used):
    result = qe.prove(used=used)
    assert result.status == PROVED and result.proved, str(result)
    assert result.weakened is None and result.counterexample is None
    assert result.bound == qe.bound(12, used) and "N=1..12" in result.bound and "LATEST 1..12" in result.bound


def test_decision_table_proved():
    result = qf.prove()
    assert result.status == PROVED, str(result)
    assert result.name == qf.NAME and result.bound.startswith("N=1..12 members, LATEST 1..12")


def test_min_received_over_all_is_not_a_weakening():
    """A future usedVersion never is the minimum: the 2.0+ code's minReceived (over every
    subscription) and the model's (over the ones the leader can read) agree."""
    result = qe.prove(max_members=6, weakened="min-received-over-all")
    assert result.proved and result.weakened == "min-received-over-all", str(result)


def test_every_row_is_reachable_and_selected_alone():
    for fam, rows in qf.TABLE.items():
        for row in rows:
            w = qf.reachable(fam, row)
            assert w is not None, (fam, row.name)
            releases = [leader_release(w["latest"][0], w["leader_assignment_error"])]
            releases += [REPS[lat] for lat in w["latest"][1:]]
            sub_latest = [lat if u >= s.PROBEABLE else u for lat, u in zip(w["latest"], w["used"])]
            v = s.py_view(w["used"], sub_latest, w["latest"][0], fam, errors(releases[0], w["profile"]))
            assert qf.select(rows, v) == [row]
            assert s.py_family(w["latest"][0], w["profile"]) == fam
            out, _ = run_model(releases, w["used"], w["profile"])
            assert outcome_kind(out) == row.outcome, (fam, row.name, w, out)


# ============================================================================ weakenings

def py_claims_broken(cex: dict, advertise: bool = True) -> set[str]:
    """Query (e)'s claims read in plain Python on a counterexample's assignments, with
    each member's ``on_assignment`` from the model (not the encoding); ``advertise`` is
    KAFKA-8649's switch the counterexample was found with."""
    broken = set()
    for i, (lat, u) in enumerate(zip(cex["latest"], cex["used"])):
        name = REPS[lat]
        scope = scope_for((name,), cex["profile"], advertise, cex["follower_downgrades"])
        m = Member(status=SYNCING, used=u, generation=0, active=0, prev=0, standby=0, learning=0, ready=0, learned=0,
                   sub=None, inbox=None, history=-1)
        a = Assignment(version=cex["version"][i], supported=cex["supported"][i], error="", active=0, standby=0,
                       learning=0, learned=0, followup=False, generation=1)
        done = on_assignment(scope, scope.plan[0], m, a)
        assert (not done.member.failure) == cex["readable"][i], (i, done)
        if done.member.failure:
            broken.add("readable_by_every_receiver")
        elif done.member.used > lat:
            broken.add("used_within_latest")
        if a.version > u:
            broken.add("version_not_above_used")
    return broken


@pytest.mark.parametrize("weakening", qe.WEAKENINGS)
def test_negotiation_weakened_counterexample(weakening):
    result = qe.prove(weakened=weakening)
    assert result.status == COUNTEREXAMPLE and result.weakened == weakening, str(result)
    print(result)
    cex = result.counterexample
    assert cex["outcome"] == qe.NO_ERROR and cex["violated"]
    assert py_claims_broken(cex, weakening != "kafka-8649") == set(cex["violated"]), cex
    # the real leader on the same mix breaks nothing
    releases = [leader_release(cex["latest"][0], cex["leader_assignment_error"])]
    releases += [REPS[lat] for lat in cex["latest"][1:]]
    out, processed = run_model(releases, cex["used"], cex["profile"], downgrade=cex["follower_downgrades"])
    assert not out.failure
    for (slot, a), done in zip(out.assignments, processed):
        assert not a.error and not done.member.failure and done.member.used <= cex["latest"][slot]
        assert a.version <= cex["used"][slot]
    if weakening == "kafka-8649":
        # ... while the model's own KAFKA-8649 switch reproduces the counterexample
        out, processed = run_model(releases, cex["used"], cex["profile"], advertise=False,
                                   downgrade=cex["follower_downgrades"])
        assert [a.version for _, a in out.assignments] == cex["version"]
        assert [a.supported for _, a in out.assignments] == cex["supported"]
        assert [p.member.used for p in processed] == cex["used_after"]
        assert any(p.member.used > lat for p, lat in zip(processed, cex["latest"]))


EXPECTED_PROFILES = {
    "leader-latest-version": {"readable_by_every_receiver", "version_not_above_used"},
    "kafka-8649": {"used_within_latest"},
    "max-supported": {"readable_by_every_receiver", "used_within_latest"},
}


@pytest.mark.parametrize("weakening", sorted(EXPECTED_PROFILES))
def test_negotiation_weakened_profile(weakening):
    """Which claims each weakening breaks (claims one at a time, N <= 4); KAFKA-8649
    never makes an assignment unreadable, it only over-upgrades older members."""
    profile = qe.profile(weakening, max_members=4)
    broken = {part for part, r in profile.items() if r.status == COUNTEREXAMPLE}
    assert broken == EXPECTED_PROFILES[weakening], {k: str(v) for k, v in profile.items()}
    for part in broken:
        cex = profile[part].counterexample
        assert cex["violated"] == [part] and part in py_claims_broken(cex, weakening != "kafka-8649"), cex


def test_negotiation_weakened_with_startup_versions_only():
    for weakening in qe.WEAKENINGS:
        result = qe.prove(used="startup", weakened=weakening)
        assert result.status == COUNTEREXAMPLE, str(result)
        cex = result.counterexample
        assert all(u in (1, 2, lat) for u, lat in zip(cex["used"], cex["latest"])), cex


@pytest.mark.parametrize("weakening, violated", [
    ("drop-min-received-row", ["complete"]),
    ("overlap-future-rows", [f"exclusive: {qf.OLD} | {qf.FUTURE}"]),
])
def test_decision_table_weakened_counterexample(weakening, violated):
    result = qf.prove(weakened=weakening)
    assert result.status == COUNTEREXAMPLE and result.weakened == weakening, str(result)
    print(result)
    cex = result.counterexample
    assert cex["violated"] == violated
    sub_latest = [lat if u >= s.PROBEABLE else u for lat, u in zip(cex["latest"], cex["used"])]
    v = s.py_view(cex["used"], sub_latest, cex["latest"][0], cex["family"])
    weak = qf.table(weakening)[cex["family"]]
    assert [r.name for r in qf.select(weak, v)] == cex["rows_holding"]
    assert len(qf.select(qf.TABLE[cex["family"]], v)) == 1
    assert v.any_future and v.min_received < s.PROBEABLE


def test_unknown_weakenings_rejected():
    with pytest.raises(ValueError):
        qe.prove(weakened="nope")
    with pytest.raises(ValueError):
        qf.prove(weakened="nope")


# ============================================================================ cross-checks

def outcome_kind(out) -> str:
    """Read off ``assign``'s result alone: a probing round hands out no task (the members
    in these states own none to keep), a normal one places all of them."""
    if out.failure:
        return qf.LEADER_FAILS
    if out.assignments and all(a.error == ASSIGNMENT_ERROR for _, a in out.assignments):
        return qf.ASSIGNMENT_ERROR
    placed = 0
    for _, a in out.assignments:
        placed |= a.active
    return qf.NORMAL if placed == ALL_TASKS else qf.PROBING if placed == 0 else "partial"


def expected(outcome: str, v: s.View, advertise: bool, profile: str):
    """What ``assign`` hands each member under a row's outcome: (version, supported, error).
    A kip-268 leader without KAFKA-8649's fix (2.0, or the switch off) advertises its own
    LATEST; with it (2.1+), under the release profile, the probing answer is at
    (minReceived, minSupported), else at the leader's LATEST."""
    if outcome == qf.LEADER_FAILS:
        return None
    fixed = v.leader_latest >= 4 and advertise
    adv = v.leader_latest if v.leader_family == s.KIP and not fixed else v.min_supported
    sup = adv if v.min_received >= s.PROBEABLE else 0
    if outcome == qf.ASSIGNMENT_ERROR:      # StreamsPartitionAssignor#errorAssignment
        return [(v.leader_latest, v.leader_latest, ASSIGNMENT_ERROR)] * len(v.future)
    if outcome == qf.PROBING:
        answer = (v.min_received, sup, "") if fixed and profile == "release" else (v.leader_latest,) * 2 + ("",)
        return [answer if f else (v.min_received, sup, "") for f in v.future]
    return [(v.min_received, sup, "")] * len(v.future)


def small_mixes():
    """1-2 members: every release as leader x every usedVersion it can start with; the
    other member on one release per LATEST, with every startup version or v3 (a
    downgraded member). 3 members: one leader release per leader class (LATEST and
    ``assignment_error``: 2.6.1 and 2.7 both), the others on one
    release per LATEST at its default version, or the newest release at v1/v2."""
    leaders = [(name, u) for name in rel.RELEASES for u in startup_versions(name)]
    reps = [(name, u) for name in s.leader_classes().values() for u in startup_versions(name)]
    two = sorted({(REPS[lat], u) for lat in REPS for u in startup_versions(REPS[lat]) + [3] if u <= lat})
    top = REPS[max(REPS)]
    three = sorted({(REPS[lat], lat) for lat in REPS} | {(top, 1), (top, 2)})
    cases = [(lead,) for lead in leaders] + [(lead, o) for lead in leaders for o in two]
    cases += [(lead,) + rest for lead in reps for rest in combinations_with_replacement(three, 2)]
    for case in cases:
        yield tuple(r for r, _ in case), tuple(u for _, u in case)


def error_received(release: str, profile: str, version: int, done) -> bool:
    """A member handed the ASSIGNMENT_ERROR answer: it first checks it can decode the
    version; then a 2.7+ thread (any 2.0+ one under the kafka-2.6+ profile) throws
    TaskAssignmentException on the code, an older one carries on without the assignment's
    tasks (it owned none here, so it does not rejoin). Returns whether it survived."""
    own = rel.release(release)
    knows = own.assignment_error or (profile == rel.KAFKA_26 and own.family != rel.PRE_PROBING)
    if version > own.latest:
        assert done.member.failure == f"TaskAssignmentException: cannot decode a v{version} assignment " \
                                      f"(knows up to v{own.latest})", done
    elif knows:
        assert done.member.failure == f"{ASSIGNMENT_ERROR}: TaskAssignmentException, the thread dies", done
    else:
        assert not done.member.failure and done.member.active == 0 and done.note.startswith("ignores"), done
    assert not done.rejoin
    return not done.member.failure


def test_decision_table_matches_leader_assign_on_small_mixes():
    checked, seen, undecodable, survived = 0, set(), 0, 0
    for releases, used in small_mixes():
        leader = rel.release(releases[0])
        sub_latest = [rel.release(r).latest if u >= s.PROBEABLE else u for r, u in zip(releases, used)]
        for profile, advertise in behaviours(releases[0]):
            fam = family(scope_for((releases[0],), profile, advertise), releases[0])
            v = s.py_view(used, sub_latest, leader.latest, fam, errors(releases[0], profile))
            rows = qf.select(qf.TABLE[fam], v)
            assert len(rows) == 1, (releases, used, profile, rows)
            seen.add((fam, rows[0].name))
            out, processed = run_model(releases, used, profile, advertise)
            case = (releases, used, profile, advertise, out)
            assert outcome_kind(out) == rows[0].outcome, case
            want = expected(rows[0].outcome, v, advertise, profile)
            got = None if out.failure else [(a.version, a.supported, a.error) for _, a in out.assignments]
            assert got == want, case
            if got is not None and got[0][2]:
                for i, done in enumerate(processed):
                    survived += error_received(releases[i], profile, got[i][0], done)
                    undecodable += got[i][0] > rel.release(releases[i]).latest
            if got is None or got[0][2] or not advertise:
                continue
            # query (e)'s claims, on the model itself
            for i, done in enumerate(processed):
                assert not done.member.failure, case
                assert done.member.used <= rel.release(releases[i]).latest, case
                assert got[i][0] <= used[i], case
            checked += 1
    assert seen == {(fam, r.name) for fam, rows in qf.TABLE.items() for r in rows}
    assert checked > 5_000, checked
    assert undecodable > 0          # an older member next to a newer 2.7+ leader's error answer
    assert survived > 0             # a 2.6.1 member reads a 2.7 leader's v8 error answer and carries on


@lru_cache(maxsize=None)
def encoded(n: int, weakened: str | None):
    e = qe.encode(n, weakened)
    neg = e.negotiated
    outputs = {"leader_fails": neg.leader_fails, "error": neg.error}
    for i in range(n):
        outputs.update({f"version_{i}": neg.version[i], f"supported_{i}": neg.supported[i],
                        f"followup_{i}": neg.followup[i], f"readable_{i}": e.readable[i],
                        f"used_after_{i}": e.used_after[i], f"rejoin_{i}": e.rejoin[i],
                        f"decodable_{i}": e.decodable[i]})
    return e, outputs


def encoding_matches_model(releases, used, profile, advertise, downgrade, final_rebalance) -> set[str]:
    """Query (e)'s encoding with the inputs pinned against ``assign`` + ``on_assignment``;
    returns which kinds of round the mix was (for coverage)."""
    n = len(releases)
    e, outputs = encoded(n, None if advertise else "kafka-8649")
    m = e.mix
    pins = [m.profile == s.PROFILE_NAMES.index(profile), e.downgrade == downgrade,
            e.final_rebalance == final_rebalance]
    pins += [x == rel.release(r).latest for x, r in zip(m.latest, releases)]
    pins += [x == u for x, u in zip(m.used, used)]
    pins.append(m.leader_error == rel.release(releases[0]).assignment_error)
    got = evaluate(e.premises, pins, outputs)
    assert got is not None
    out, processed = run_model(releases, used, profile, advertise, downgrade, final_rebalance)
    case = (releases, used, profile, advertise, downgrade, final_rebalance, out)
    assert got["leader_fails"] == bool(out.failure), case
    assert got["error"] == (bool(out.assignments) and out.assignments[0][1].error == ASSIGNMENT_ERROR), case
    kinds = set()
    if out.failure:
        return {"leader fails"}
    for (slot, a), done in zip(out.assignments, processed):
        assert (got[f"version_{slot}"], got[f"supported_{slot}"]) == (a.version, a.supported), case
        assert got[f"followup_{slot}"] == a.followup, case
        assert got[f"decodable_{slot}"] == ("cannot decode" not in done.member.failure), case
        if got["error"]:
            kinds.add("error, undecodable" if not got[f"decodable_{slot}"] else "error")
            continue
        assert got[f"readable_{slot}"] == (not done.member.failure), case
        if not done.member.failure:
            assert got[f"used_after_{slot}"] == done.member.used, case
            assert got[f"rejoin_{slot}"] == done.rejoin, case
            if a.followup:
                kinds.add("final rebalance")
            fam = family(scope_for((releases[slot],), profile, advertise), releases[slot])
            if a.version >= s.PROBEABLE and a.version < used[slot] and a.version != a.supported and \
                    fam == rel.KIP_268:
                kinds.add(f"kip-268 older, {'rejoins' if done.rejoin else 'stays'}")
            if a.version >= s.PROBEABLE and a.version < used[slot] and fam == rel.KAFKA_26:
                kinds.add("kafka-2.6+ older")
    return kinds


def test_negotiation_encoding_matches_model():
    """200 seeded mixes of 1-4 members (any release, any used version, any profile,
    KAFKA-8649 on/off, follower downgrades on/off, the leader's final rebalance on/off):
    the encoding pinned == the model."""
    rng = random.Random(268)
    names = list(rel.RELEASES)
    for _ in range(200):
        n = rng.randint(1, 4)
        releases = [rng.choice(names) for _ in range(n)]
        used = [rng.randint(1, rel.release(r).latest) for r in releases]
        profile, advertise = rng.choice(behaviours(releases[0]))
        encoding_matches_model(releases, used, profile, advertise, rng.random() < 0.5, rng.random() < 0.8)


@pytest.mark.parametrize("releases, used, kind", [
    # a 2.3 group after the last bounce from 2.0: the v4 member gets a v3 assignment advertising v4
    (("2.3", "2.3"), (3, 4), "kip-268 older"),
    (("2.3", "2.3"), (3, 3), "final rebalance"),           # every member supports v4, uses v3
    (("2.3", "2.1", "2.3"), (4, 3, 4), "kip-268 older"),
    (("2.5", "2.3", "2.4"), (6, 4, 5), "kafka-2.6+ older"),
    (("3.9", "3.9", "next"), (2, 11, 12), "error"),
    (("2.6.1", "2.6.1", "3.9"), (2, 8, 11), "leader fails"),
    (("3.9", "2.8", "next", "3.9"), (11, 9, 12, 2), "error, undecodable"),
])
def test_negotiation_encoding_matches_model_on_the_rounds_the_fixes_touch(releases, used, kind):
    """The 2.1-2.3 member rejoin, the kip-268-profile final rebalance, the 2.4+ leader's
    normal answer, the error answer at the leader's LATEST (2.7+) and the 2.6 leader's
    IllegalStateException, on chosen mixes under every profile and switch."""
    kinds = set()
    for profile, advertise in behaviours(releases[0]):
        for downgrade in (True, False):
            for final_rebalance in (True, False):
                kinds |= encoding_matches_model(releases, used, profile, advertise, downgrade, final_rebalance)
    if kind == "kip-268 older":
        assert {"kip-268 older, rejoins", "kip-268 older, stays"} <= kinds, kinds
    else:
        assert kind in kinds, kinds


def test_pinned_view_matches_python_view():
    """The z3 view (future, minReceived, minSupported) is the Python one."""
    for n in (1, 2, 3):
        m = s.mix(n)
        v = s.view(m)
        premises = s.domain(m) + v.defs
        outputs = {"any_future": v.any_future, "min_received": v.min_received, "min_supported": v.min_supported}
        rng = random.Random(n)
        for _ in range(40):
            latest = [rng.randint(1, s.max_version()) for _ in range(n)]
            used = [rng.randint(1, lat) for lat in latest]
            pins = [m.profile == 0] + [x == y for x, y in zip(m.latest, latest)] + \
                   [x == y for x, y in zip(m.used, used)]
            got = evaluate(premises, pins, outputs)
            sub_latest = [lat if u >= s.PROBEABLE else u for lat, u in zip(latest, used)]
            want = s.py_view(used, sub_latest, latest[0], s.py_family(latest[0], "release"))
            assert got == {"any_future": want.any_future, "min_received": want.min_received,
                           "min_supported": want.min_supported}
