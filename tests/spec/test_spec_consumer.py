"""specs/consumer/Consumer.tla against model/consumer, beyond the checks every spec gets
(tests/spec/test_specs.py): both sides' rules matter (a rule changed on either side makes
the cross-check fail), EAGER range, sticky and COOPERATIVE alike; a zombie is a behaviour
of both; the known bugs whose reachable states CI cannot compare still have their
counterexample held by their variant module; a counterexample of the model is accepted by
``groupcheck spec trace``."""
from __future__ import annotations


import pytest

from groupcheck.checker import bfs
from groupcheck.model.core import replay
from groupcheck.spec import crosscheck, manifest
from tests.spec.spec_edits import assert_change_caught, changed_bundle, spec_trace
from groupcheck.properties.known_bugs.consumer import variant

BUNDLE = manifest.load("consumer")


def _config(name):
    return next(c for c in BUNDLE.configs if c.name == name)


def _changed_spec(tmp_path, old: str, new: str, module: str | None = None) -> manifest.Bundle:
    return changed_bundle(BUNDLE, tmp_path, old, new, module)


@pytest.mark.slow
@pytest.mark.parametrize("old, new, config", [
    # resetStateOnResponseError: UNKNOWN_MEMBER_ID would keep the member id
    ("!.memberId = IF error = \"UNKNOWN_MEMBER_ID\" THEN NoMember ELSE @", "!.memberId = @", "MCConsumer"),
    # the range assignor's extra partition to the last member instead of the first
    ("n \\div m + (IF i <= n % m THEN 1 ELSE 0)", "n \\div m + (IF i > m - n % m THEN 1 ELSE 0)", "no-faults"),
    # a lost heartbeat response makes the consumer rejoin
    ("!.status = IF resp.kind # \"Heartbeat\" THEN \"idle\" ELSE @", "!.status = \"idle\"", "MCConsumerCooperative"),
    # a crash forgets the leader's assignment snapshot (the model keeps it)
    ("!.generation = NoGeneration, !.owned = {}, !.userData = {},\n", "!.generation = NoGeneration, !.owned = {}, !.userData = {}, !.snapshot = -1,\n",
     "MCConsumer"),
    # KIP-429's withholding dropped: a partition goes to its new owner while the old one owns it
    ("intended[x] \\ (resolved.contested \\cup", "intended[x] \\ ({} \\cap", "cooperative-no-faults"),
    # COOPERATIVE onJoinPrepare revoking everything, as EAGER does
    ("IF c.needsJoinPrepare /\\ (Reset(c) \\/ ~Cooperative) THEN {}", "IF c.needsJoinPrepare THEN {}",
     "cooperative-no-faults"),
    # onJoinComplete without the follow-up rebalance after a revocation
    ("!.status = IF Cooperative /\\ d.owned \\ assignment # {} THEN \"idle\" ELSE \"stable\"]",
     "!.status = \"stable\"]", "cooperative-no-faults"),
    # the sticky plan forgets the kept claims (every member starts from nothing)
    ("k == KeepClaims(ids, kept, q, [out |-> NoFn, atHigh |-> 0])",
     "k == KeepClaims(ids, [x \\in DOMAIN kept |-> {}], q, [out |-> NoFn, atHigh |-> 0])", "MCConsumerSticky"),
    # KIP-54's StickyAssignor reading ownedPartitions (empty after EAGER's revocation) instead of userData
    ("IF Assignor = \"sticky\" THEN [owned |-> members[x].userData", "IF FALSE THEN [owned |-> members[x].userData",
     "MCConsumerSticky"),
    # the liveness bound of an EAGER group for a COOPERATIVE one
    ("calm <= (IF Cooperative /\\ Live # {} THEN 2 ELSE 1)", "calm <= 1", "MCConsumerCooperative"),
])
def test_a_changed_spec_rule_is_caught(tmp_path, old, new, config):
    assert_change_caught(BUNDLE, tmp_path, old, new, config)


def test_a_changed_model_rule_is_caught(monkeypatch):
    """A model rule changed (GroupCoordinator#handleHeartbeat: "case PreparingRebalance =>
    REBALANCE_IN_PROGRESS"; here it would answer NONE, so the member does not rejoin): the
    spec no longer matches."""
    import importlib
    gc = importlib.import_module("groupcheck.model.consumer.coordinator")
    step = importlib.import_module("groupcheck.model.consumer.step")
    original = gc.heartbeat

    def never_rebalancing(group, slot, member_id, generation):
        out = original(group, slot, member_id, generation)
        return out._replace(out=tuple((s, r._replace(error="NONE") if r.error == "REBALANCE_IN_PROGRESS" else r)
                                      for s, r in out.out))
    monkeypatch.setattr(gc, "heartbeat", never_rebalancing)
    step._handle.cache_clear()
    try:
        report = crosscheck.check_config(BUNDLE, _config("no-faults"))
    finally:
        step._handle.cache_clear()
    assert any("does not satisfy Deliver" in p for p in report.problems), report.problems


def _monkeypatched_check(monkeypatch, module: str, name: str, wrapper, config: str):
    """check_config with one model function replaced (the coordinator's cache cleared)."""
    import importlib
    target = importlib.import_module(module)
    step = importlib.import_module("groupcheck.model.consumer.step")
    monkeypatch.setattr(target, name, wrapper(getattr(target, name)))
    step._handle.cache_clear()
    try:
        return crosscheck.check_config(BUNDLE, _config(config))
    finally:
        step._handle.cache_clear()


def test_a_changed_model_withholding_is_caught(monkeypatch):
    """The model's CooperativeStickyAssignor#adjustAssignment skipped (KIP-429: "exclude them
    from the assigned-partitions list to the new owner"): the leader's SyncGroup no longer
    matches the spec's Receive, and both sides reach states the other does not."""
    report = _monkeypatched_check(monkeypatch, "groupcheck.model.consumer.leader", "withhold",
                                  lambda original: lambda intended, previous, contested: dict(intended),
                                  "cooperative-no-faults")
    assert any("does not satisfy Receive" in p for p in report.problems), report.problems
    assert report.figures["only in model"] > 0


def _fencing_path():
    """The scope and path of KAFKA-12983's counterexample at the reference rules: a zombie
    (paused past its session) is answered UNKNOWN_MEMBER_ID at its last step but one."""
    from dataclasses import replace

    from groupcheck.model.consumer.scope import Behaviour
    bug = variant("KAFKA-12983")
    scope = replace(bug.buggy_scope(), partitions=(1,), max_generation=2)
    found = bfs(BUNDLE.model, scope)
    return replace(scope, profile="kafka-3.5+", behaviour=Behaviour()), list(found.violation.path)


def test_a_changed_step_claim_is_caught(tmp_path):
    """A step claim of the spec changed (ILLEGAL_GENERATION would clear the member id as
    UNKNOWN_MEMBER_ID does, and UNKNOWN_MEMBER_ID would keep it): along a path where a
    consumer is fenced, the spec's verdict differs from the model's."""
    scope, path = _fencing_path()
    steps, problems = crosscheck.validate_path(BUNDLE, scope, path[:-1], crosscheck.load_spec(BUNDLE, scope))
    assert problems == [] and steps == len(path) - 2
    bundle = _changed_spec(tmp_path, "(consumers'[s].memberId = NoMember) = (Head(consumers[s].inbox).error = "
                                     "\"UNKNOWN_MEMBER_ID\")", "consumers'[s].memberId # NoMember")
    steps, problems = crosscheck.validate_path(bundle, scope, path[:-1], crosscheck.load_spec(bundle, scope))
    assert problems and "step claim fencing_resets_generation" in problems[0], problems


def test_a_changed_model_fencing_breaks_the_step_claim_on_both_sides(monkeypatch):
    """The model's resetStateAndRejoin keeping the generation: at the fencing step both sides
    find fencing_resets_generation broken (their verdicts agree), and the step is not the
    spec's Receive."""
    import importlib
    client = importlib.import_module("groupcheck.model.consumer.client")
    scope, path = _fencing_path()
    original = client.fenced
    monkeypatch.setattr(client, "fenced", lambda scope, c, error: original(scope, c, error)._replace(
        generation=c.generation))
    steps, problems = crosscheck.validate_path(BUNDLE, scope, path[:-1], crosscheck.load_spec(BUNDLE, scope))
    assert problems and "not a step of Receive" in problems[0], problems
    first, walked = replay(BUNDLE.model, scope, path[:steps + 1])
    claim = next(p for p in BUNDLE.model.properties if p.name == "fencing_resets_generation")
    last = walked[-1]
    assert claim.check(scope, last.prev, last.action, last.next, last.events) is not None
    spec = crosscheck.load_spec(BUNDLE, scope)
    assert not spec.holds_step("fencing_resets_generation", crosscheck.as_state(spec, BUNDLE, scope, last.prev),
                               crosscheck.as_state(spec, BUNDLE, scope, last.next))


def test_the_claims_resolution_by_generation_is_pinned(tmp_path):
    """KIP-792's rule (per partition, the claimant of the highest generation keeps it) matters
    when two claims meet: KIP-54's StickyAssignor, whose userData outlives EAGER's revocation,
    after a zombie rejoins. The model's first such leader assignment is a step of the spec's
    Receive; with every claim trusted (Kafka before KIP-341) it is not."""
    from groupcheck.model.consumer.scope import Config, ConsumerScope
    scope = ConsumerScope(members=2, partitions=(2,), plan=(Config(("sticky",)),), faults=("pause",), budget=1,
                          max_generation=3)
    path = _first_path(scope, _claims_meet)
    spec = crosscheck.load_spec(BUNDLE, scope)
    steps, problems = crosscheck.validate_path(BUNDLE, scope, path, spec)
    assert problems == [] and steps == len(path) - 1
    bundle = _changed_spec(tmp_path, "p \\in claims[y].owned => claims[y].generation < claims[x].generation", "TRUE")
    steps, problems = crosscheck.validate_path(bundle, scope, path, crosscheck.load_spec(bundle, scope))
    assert problems and f"step {len(path) - 1}" in problems[0] and "not a step of Receive" in problems[0], problems


def _claims_meet(state, action) -> bool:
    """The leader reads a JoinGroup response in which two members claim one partition."""
    if action.kind != "receive":
        return False
    c = state.consumers[action.slot]
    resp = c.inbox[0]
    if resp.kind != "JoinGroupResponse" or not resp.members or c.awaiting != "JoinGroup":
        return False
    seen = 0
    for _, sub in resp.members:
        if seen & sub.user_data:
            return True
        seen |= sub.user_data
    return False


def _first_path(scope, wanted) -> list[int]:
    """A shortest path (initial index, action indices) ending with an action ``wanted``
    takes, by the model's BFS without symmetry."""
    from collections import deque
    model = BUNDLE.model
    inits = model.init_states(scope)
    parent = {s: None for s in inits}
    queue = deque(inits)
    while queue:
        s = queue.popleft()
        if not model.within_bounds(scope, s):
            continue
        for i, a in enumerate(model.actions(scope, s)):
            if wanted(s, a):
                path = [i]
                while parent[s] is not None:
                    s, j = parent[s]
                    path.append(j)
                return [inits.index(s)] + path[::-1]
            t, _ = model.step(scope, s, a)
            if t not in parent:
                parent[t] = (s, i)
                queue.append(t)
    raise AssertionError("no such step at this scope")


def test_a_trace_of_a_known_bug_is_a_behaviour_of_its_variant(tmp_path):
    """groupcheck spec trace on the counterexample groupcheck writes for KIP-429's hazard of a
    leader that does not withhold: accepted by the variant module, step by step."""
    scope = variant("KIP-429-no-withholding").buggy_scope()
    found = bfs(BUNDLE.model, scope)
    assert found.violation.property == "no_double_ownership"
    result = spec_trace(BUNDLE, scope, found.violation.path, tmp_path)
    assert result.exit_code == 0, result.stdout
    assert "a behaviour of Consumer_KIP429NoWithholding" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("module, old, new, config", [
    # onJoinPrepare's commit before the rebalance not awaited: the JoinGroup goes out at once
    ("Consumer", "IF prep /\\ marked.waiting # \"\"", "IF FALSE", "MCConsumerRecords"),
    # EAGER's onJoinPrepare marks nothing pending revocation (KAFKA-14196's rule in the base)
    ("Consumer", "Join(s) == JoinWith(s, TRUE)", "Join(s) == JoinWith(s, FALSE)", "records-eager-auto"),
    # onPartitionsRevoked commits nothing under sync-on-revoke
    ("Consumer", "LET req == IF CommitPolicy = \"sync-on-revoke\"", "LET req == IF FALSE", "records-sync-on-revoke"),
    # a zombie's OffsetFetch takes the partition over (the log's fetcher)
    ("Consumer", "IF Zombie(s) THEN logs[p].fetcher ELSE consumers[s].memberId", "consumers[s].memberId",
     "records-pause"),
    # a crash excuses nothing
    ("Consumer", "/\\ logs' = IF Records /\\ apps[s] # NoValue THEN Excuse(logs, Owns(apps[s])) ELSE logs",
     "/\\ logs' = logs", "records-crash"),
    # commits_fenced_after_handover also flags a commit by the member that fetched the partition:
    # caught where the spec tells the step's commits apart (AnsweredCommits): a delivered
    # auto-commit, a commitSync after processing, one in EAGER's onPartitionsRevoked
    ("Delivery", "prevLogs[p].fetcher \\in {0, a.req.member}", "prevLogs[p].fetcher \\in {0}", "records-eager-auto"),
    ("Delivery", "prevLogs[p].fetcher \\in {0, a.req.member}", "prevLogs[p].fetcher \\in {0}", "records-crash"),
    ("Delivery", "prevLogs[p].fetcher \\in {0, a.req.member}", "prevLogs[p].fetcher \\in {0}",
     "records-sync-on-revoke"),
    # auto.offset.reset=earliest starts at the log end
    ("Delivery", "IF OffsetReset = \"earliest\" THEN 0 ELSE log.end", "log.end", "records-sync-on-revoke"),
])
def test_a_changed_record_rule_is_caught(tmp_path, module, old, new, config):
    """The record layer's rules in Consumer.tla and Delivery.tla matter: changed, the
    cross-check at a record config fails (states, steps or verdicts differ)."""
    bundle = changed_bundle(BUNDLE, tmp_path, old, new, module)
    report = crosscheck.check_config(bundle, next(c for c in bundle.configs if c.name == config))
    assert report.problems, f"changing {old!r} went unnoticed"


@pytest.mark.slow
def test_the_cooperative_auto_commit_finding_is_a_behaviour_of_the_base_spec():
    """The finding cooperative-auto-commit-redelivers (the reference rules, no variant
    module): the model's shortest counterexample is a behaviour of Consumer.tla, and its
    last step breaks no_duplicate_without_failure there too."""
    finding = variant("cooperative-auto-commit-redelivers")
    scope = finding.buggy_scope()
    found = bfs(BUNDLE.model, scope)
    assert found.violation.property == "no_duplicate_without_failure"
    spec = crosscheck.load_spec(BUNDLE, scope)
    path = list(found.violation.path)
    steps, problems = crosscheck.validate_path(BUNDLE, scope, path, spec)
    assert problems == [] and steps == len(path) - 1
    _, taken = replay(BUNDLE.model, scope, path)
    last = taken[-1]
    before, after = (crosscheck.as_state(spec, BUNDLE, scope, s) for s in (last.prev, last.next))
    assert not spec.holds_step("no_duplicate_without_failure", before, after)
