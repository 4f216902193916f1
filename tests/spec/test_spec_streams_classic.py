"""specs/streams_classic/StreamsClassic.tla against model/streams_classic, beyond the checks
every spec gets (tests/spec/test_specs.py): the MC modules TLC users run state the
manifest's scopes, the ASSIGNMENT_ERROR finding breaks no_thread_dies on both sides, both
sides' rules matter (a rule changed on either side makes the cross-check fail), and a
known bug's counterexample is a behaviour of its variant module through `spec trace`."""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.spec import crosscheck, link, manifest
from groupcheck.spec.manifest import Config
from groupcheck.spec.tla_eval import Spec
from groupcheck.model.streams_classic.scope import Config as Release
from tests.spec.spec_edits import assert_change_caught, changed_bundle, spec_trace

BUNDLE = manifest.load("streams-classic")
VARIANTS = {v.key: v for v in BUNDLE.variants}


def _config(name):
    return next(c for c in BUNDLE.configs if c.name == name)


# MC module -> (the manifest scope it states, the next-state operator its cfg names)
MC_MODULES = {
    "MCStreamsClassic": (_config("MCStreamsClassic").scope, "Next"),
    "MCStreamsClassic_KAFKA6054": (VARIANTS["KAFKA-6054"].scope, "NextKAFKA6054"),
    "MCStreamsClassic_KAFKA8649": (VARIANTS["KAFKA-8649"].scope, "NextKAFKA8649"),
    "MCStreamsClassic_KAFKA8649PrevTasks": (VARIANTS["KAFKA-8649-prev-tasks"].scope, "NextKAFKA8649"),
    "MCStreamsClassic_KIP268NoDowngrade": (VARIANTS["KIP-268-no-downgrade"].scope, "NextKIP268NoDowngrade"),
    "MCStreamsClassic_KIP268NoFinalRebalance": (VARIANTS["KIP-268-no-final-rebalance"].scope,
                                                 "NextKIP268NoFinalRebalance"),
}


@pytest.mark.parametrize("module", sorted(MC_MODULES))
def test_each_mc_module_states_its_manifest_scope(module):
    """TLC users get the constants the cross-check uses: every constant the cfg gives (a
    value, or an MC definition through <-) equals the mapping's constant for the scope."""
    scope, next_name = MC_MODULES[module]
    want = BUNDLE.constants(scope)
    cfg = link.read_cfg(BUNDLE.folder / f"{module}.cfg")
    assert cfg["NEXT"] == [next_name]
    spec = Spec.load(BUNDLE.folder / f"{module}.tla", constants=want, next=next_name)
    words = cfg["CONSTANT"]
    given = {}
    for i in range(0, len(words), 3):
        name, how, value = words[i:i + 3]
        given[name] = spec.evaluate(value)
    assert given == want


# the 2.0 -> 2.3 bounce without a crash: KIP-268's probing at a small scope (776 states)
PROBING = Config("probing", replace(_config("MCStreamsClassic").scope, faults=(), budget=0, max_generation=16), 776)


def _changed_spec(tmp_path, old: str, new: str, module: str | None = None) -> manifest.Bundle:
    return changed_bundle(BUNDLE, tmp_path, old, new, module)


def test_the_probing_scope_agrees_before_any_rule_is_changed():
    report = crosscheck.check_config(BUNDLE, PROBING)
    assert report.ok, report.problems
    assert report.figures["witnesses reached"] == ["some_thread_downgraded", "upgrade_finished"]


@pytest.mark.slow
@pytest.mark.parametrize("old, new, config", [
    # 2.1-2.3 (KAFKA-8649's fix): a version change creates the assignment's tasks after all
    ("IF newest.rejoin THEN [newest EXCEPT !.apply = FALSE] ELSE newest", "newest", PROBING),
    # the coordinator changes leader every round (any joined member may lead)
    ("Leaders == IF group.leader \\in group.joined THEN {group.leader} ELSE group.joined", "Leaders == group.joined",
     PROBING),
    # the sticky assignor gives no client base + 1 tasks before the least-loaded pass
    ("(acc.load[c] = base /\\ acc.extra > 0)", "FALSE", "next-version"),
    # a 2.4+ leader hands out a task its previous owner still runs (no KIP-429 withholding)
    ("[active |-> IF own.cooperative THEN given[s] \\ others[s] ELSE given[s],", "[active |-> given[s],",
     "next-version"),
    # the leader never triggers KIP-268's final rebalance
    ("Probeable <= minReceived /\\ minReceived < advertised", "FALSE", "kip-268-2.0-2.3"),
    # a 2.7+ leader throws IllegalStateException as 2.4-2.6 do, instead of answering ASSIGNMENT_ERROR
    ("own.assignmentError \\/ Profile = \"kafka-2.6+\"", "Profile = \"kafka-2.6+\"", "assignment-error"),
    # standbys ignore their previous holders (told apart with three instances only)
    ("c == IF held # {} THEN Min(held) ELSE LeastLoaded(free, acc.load)", "c == LeastLoaded(free, acc.load)",
     "standbys"),
])
def test_a_changed_spec_rule_is_caught(tmp_path, old, new, config):
    """The cross-check fails: it reports differences, or the changed spec cannot even be
    evaluated along the model's states (an error naming the line)."""
    assert_change_caught(BUNDLE, tmp_path, old, new, config)


@pytest.mark.slow
def test_a_changed_spec_rule_no_pinned_scope_reaches_is_caught_by_walks(tmp_path):
    """Seed 002's "leaving soon" rejoin (a thread told it is leaving after its JoinGroup said
    otherwise) needs a round under way when the scale-down comes: past 10,000 states at any
    pinned scope, but the walks of the four-stage plan with scaling reach it."""
    bundle = _changed_spec(tmp_path, "told == inst.leaving /\\ ~(m.subscription # <<>> /\\ m.subscription[1].leaving)",
                           "told == FALSE")
    report = crosscheck.check_walks(bundle, bundle.walk_scopes[5], walks=40, length=60, seed=11)
    assert any("not a step of Receive" in p for p in report.problems), report.problems


def test_a_changed_model_rule_is_caught(monkeypatch):
    """A model rule changed (maybeUpdateSubscriptionVersion: a 2.4+ thread handed a higher
    commonly supported version upgrades and rejoins; here it would upgrade silently): the
    spec, which states the rule, no longer matches the model."""
    import importlib
    member = importlib.import_module("groupcheck.model.streams_classic.member")
    original = member._kafka_26

    def upgrades_without_rejoining(scope, own, m, version, supported):
        v = original(scope, own, m, version, supported)
        return v._replace(rejoin=False) if not isinstance(v, str) and v.used > m.used else v
    monkeypatch.setattr(member, "_kafka_26", upgrades_without_rejoining)
    report = crosscheck.check_config(BUNDLE, _config("next-version"))
    assert any("does not satisfy Receive" in p for p in report.problems), report.problems
    assert any("only the model reaches" in p for p in report.problems)


def test_a_changed_model_assignor_is_caught(monkeypatch):
    """The model's sticky task assignor changed (every task to the least loaded client,
    stickiness dropped): the spec's StickyTaskAssignor no longer matches."""
    import importlib
    tasks = importlib.import_module("groupcheck.model.assignors.streams_tasks")
    original = tasks.sticky

    def not_sticky(clients, all_tasks, standbys):
        fresh = [c._replace(prev=0, owned=0) for c in clients]
        return original(fresh, all_tasks, standbys)
    monkeypatch.setattr(tasks, "sticky", not_sticky)
    report = crosscheck.check_config(BUNDLE, _config("next-version"))
    assert any("does not satisfy Assign" in p for p in report.problems), report.problems


def test_a_known_bug_trace_is_a_behaviour_of_its_variant(tmp_path):
    """groupcheck spec trace on the KAFKA-8649 counterexample groupcheck writes: a behaviour
    of the variant module (not of the base spec), step by step."""
    from groupcheck.checker import bfs
    from groupcheck.properties.known_bugs.streams_classic import variant
    scope = variant("KAFKA-8649").buggy_scope()
    assert scope == VARIANTS["KAFKA-8649"].scope
    found = bfs(BUNDLE.model, scope)
    assert found.violation.property == "used_version_supported"
    result = spec_trace(BUNDLE, scope, found.violation.path, tmp_path)
    assert result.exit_code == 0, result.stdout
    assert "a behaviour of StreamsClassic_KAFKA8649 (KAFKA-8649)" in result.stdout
    assert f"{len(found.violation.path) - 1} steps" in result.stdout
    base = crosscheck.load_spec(BUNDLE, scope)
    steps, problems = crosscheck.validate_path(BUNDLE, scope, list(found.violation.path), base)
    assert problems and "not a step of Assign" in problems[0]


def test_a_plan_the_spec_never_saw_is_checked_too():
    """The release facts are constants: a plan no pinned scope uses (0.10.1 -> 2.5 with
    upgrade.from=0.10.1, then 2.5) is held against the model all the same."""
    scope = replace(BUNDLE.configs[0].scope, plan=(Release("0.10.1"), Release("2.5", "0.10.1"), Release("2.5")),
                    faults=(), budget=0, tasks=1)
    report = crosscheck.check_walks(BUNDLE, scope, walks=6, length=60, seed=3)
    assert report.ok, report.problems
    assert report.figures["steps validated"] > 60
