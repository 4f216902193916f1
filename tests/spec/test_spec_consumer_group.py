"""specs/consumer_group/ConsumerGroup.tla against model/consumer_group, beyond the checks
every spec gets (tests/spec/test_specs.py): the finding both sides break at the
lost-response scope, and that both sides' rules matter (a rule changed on either side
makes the cross-check fail)."""
from __future__ import annotations

import dataclasses

import pytest

from groupcheck.spec import crosscheck, manifest
from tests.spec.spec_edits import assert_change_caught, changed_bundle, spec_trace

BUNDLE = manifest.load("consumer-group")


def _config(name):
    return next(c for c in BUNDLE.configs if c.name == name)


def _changed_spec(tmp_path, old: str, new: str, module: str | None = None) -> manifest.Bundle:
    return changed_bundle(BUNDLE, tmp_path, old, new, module)


# a scope small enough to explore twice in a test: one consumer, two partitions, one stall
# (the pinned stall scope has 5,742 states)
TINY_STALL = manifest.Config("tiny-stall", BUNDLE.model.view.scope_from_dict(
    {**BUNDLE.model.view.scope_to_dict(BUNDLE.model.view.default_scope()),
     "members": 1, "partitions": [2], "faults": ["stall"], "budget": 1}), 75)


def test_the_tiny_stall_scope_agrees():
    """The scope the stall rules are flipped at agrees unchanged (so a flip is what fails it)."""
    report = crosscheck.check_config(BUNDLE, TINY_STALL)
    assert report.problems == []


@pytest.mark.slow
@pytest.mark.parametrize("old, new, config", [
    # the uniform assignor's extra quota goes to the last member instead of the first
    ("(IF i <= total % n THEN 1 ELSE 0)", "(IF i > n - total % n THEN 1 ELSE 0)", "one-partition"),
    # the previous-epoch rule dropped: a lost response always fences
    ("~(r.epoch = m.previousEpoch /\\ r.reports /\\ r.owned \\subseteq m.assigned)", "TRUE", "lost-response"),
    # a joining member does not bump the group epoch
    ("!.epoch = IF old = None THEN @ + 1 ELSE @]", "!.epoch = @]", "one-member"),
    # the assignment sent only when it changed (not on a full request)
    ("sent == full \\/ old = None \\/ g2.members[id].assigned # m1.assigned",
     "sent == g2.members[id].assigned # m1.assigned", "MCConsumerGroup"),
    # a crash leaves the process's partitions owned
    ("![s].status = \"DOWN\", ![s].epoch = 0, ![s].owned = {}", "![s].status = \"DOWN\", ![s].epoch = 0", "crash"),
    # a restarted process keeps its member id (no new incarnation)
    ("NewClient(@.incarnation + 1, @.forGood)", "NewClient(@.incarnation, @.forGood)", "crash"),
    # an old incarnation's member never expires (only a gone process's)
    ("/\\ id[2] # clients[s].incarnation \\/ ~Running(clients[s])", "/\\ ~Running(clients[s])", "crash"),
    # the session-timeout fault spares the member (no removal, no bump)
    ("    /\\ group' = RemoveMember(group, IdOf(s))\n    /\\ logs' = RemovedLogs(s, IdOf(s))\n    /\\ budget' = budget - 1",
     "    /\\ group' = group\n    /\\ logs' = RemovedLogs(s, IdOf(s))\n    /\\ budget' = budget - 1", "crash"),
    # a stalled application still reconciles
    ("CanReconcile(c) == c.status = \"RECONCILING\" /\\ ~c.stalled", "CanReconcile(c) == c.status = \"RECONCILING\"",
     TINY_STALL),
    # a static member leaves with -1 (removed) instead of -2 (kept for its next incarnation)
    ("IF Static THEN LeaveStaticEpoch ELSE LeaveEpoch", "LeaveEpoch", "static"),
    # replaceMember forgets the target entry of the member that left
    ("!.target = Put(Drop(g.target, {h}), id, TargetOf(g, h))", "!.target = Drop(g.target, {h})", "static"),
    # a new incarnation replaces a holder that has not left (no UNRELEASED_INSTANCE_ID)
    ("ELSE IF g.members[h].epoch # LeaveStaticEpoch THEN", "ELSE IF FALSE THEN", "static"),
])
def test_a_changed_spec_rule_is_caught(tmp_path, old, new, config):
    """The cross-check fails: it reports differences, or the changed spec cannot even be
    evaluated along the model's states (an error naming the line)."""
    assert_change_caught(BUNDLE, tmp_path, old, new, config)


# the record layer (issue 30) at a scope small enough to explore twice: one consumer, one
# partition, one record, policy auto (441 states)
TINY_RECORDS = manifest.Config("tiny-records", BUNDLE.model.view.scope_from_dict(
    {**BUNDLE.model.view.scope_to_dict(BUNDLE.model.view.default_scope()),
     "members": 1, "partitions": [1], "records": True, "max_records": 1, "commit_policy": "auto"}), 441)


def test_the_tiny_records_scope_agrees():
    """The scope the record rules are flipped at agrees unchanged (so a flip is what fails it)."""
    report = crosscheck.check_config(BUNDLE, TINY_RECORDS)
    assert report.problems == []


@pytest.mark.slow
@pytest.mark.parametrize("module, old, new, config", [
    # OffsetFetch ignores the committed offset: every new position starts at auto.offset.reset
    ("Delivery", "IF log.committed # NoOffset", "IF FALSE", "records-crash"),
    # processing a record does not record it as done
    ("Delivery", "![p].done = @ \\cup {o}]", "![p].done = @]", TINY_RECORDS),
    # a crash excuses nothing: its redelivery counts as a duplicate
    ("ConsumerGroup", "/\\ logs' = IF Records /\\ apps[s] # NoValue THEN Excuse(logs, Owns(apps[s])) ELSE logs",
     "/\\ logs' = logs", "records-crash"),
    # the crash witness never marked
    ("ConsumerGroup", "THEN {\"KILLED_BEFORE_COMMIT\"} ELSE {}", "THEN {} ELSE {}", "records-crash"),
    # the interval auto-commit also while the application holds records (KAFKA-18641's rule)
    ("ConsumerGroup", "AutoCommit(s) == AutoCommitWith(s, TRUE)", "AutoCommit(s) == AutoCommitWith(s, FALSE)",
     TINY_RECORDS),
    # policy after-processing owes no commitSync after a record
    ("ConsumerGroup", "THEN [r.app EXCEPT !.waiting = \"commit\"]", "THEN r.app", "records-crash"),
    # commits_fenced_after_handover also flags a commit by the member that fetched the partition:
    # caught where the spec tells the step's commits apart (AnsweredCommits): a delivered
    # auto-commit, a commitSync after processing, one in onPartitionsRevoked
    ("Delivery", "prevLogs[p].fetcher \\in {0, a.req.member}", "prevLogs[p].fetcher \\in {0}", TINY_RECORDS),
    ("Delivery", "prevLogs[p].fetcher \\in {0, a.req.member}", "prevLogs[p].fetcher \\in {0}", "records-crash"),
    ("Delivery", "prevLogs[p].fetcher \\in {0, a.req.member}", "prevLogs[p].fetcher \\in {0}",
     "records-sync-on-revoke"),
])
def test_a_changed_record_rule_is_caught(tmp_path, module, old, new, config):
    """The record layer's rules in Delivery.tla and ConsumerGroup.tla matter: changed, the
    cross-check fails (states, steps or verdicts differ)."""
    bundle = changed_bundle(BUNDLE, tmp_path, old, new, module)
    pinned = config if isinstance(config, manifest.Config) else next(c for c in bundle.configs if c.name == config)
    report = crosscheck.check_config(bundle, pinned)
    assert report.problems, f"changing {old!r} went unnoticed"


@pytest.mark.slow
@pytest.mark.parametrize("module, old, new, key", [
    # join_epoch_is_rejoin without its client clause: KAFKA-16251's rejoin no longer breaks it
    ("ConsumerGroup", "=> clients'[s].owned = {}", "=> TRUE", "KAFKA-16251"),
    # no request validation: KAFKA-16375's epoch-0 heartbeat reporting partitions is accepted
    ("ConsumerGroup", "IF r.epoch = 0 /\\ r.owned # {} THEN Decided(ErrorOutcome(g, \"INVALID_REQUEST\"))\n    ELSE ",
     "", "KAFKA-16375"),
    # 3.7.0's restart on a new target reads the owned partitions after all (the fix)
    ("ConsumerGroup_KAFKA16249", "                    None, blocked)", "                    owned, blocked)",
     "KAFKA-16249"),
    # the forgotten owners block after all
    ("ConsumerGroup_KAFKA16147", "Blocking(g2, id) \\ g2.lost", "Blocking(g2, id)", "KAFKA-16147"),
    # the epoch map forgets nothing
    ("ConsumerGroup_KAFKA16147", "!.group.lost = EpochMapAfter(g2.lost, m0, m1)", "!.group.lost = {}", "KAFKA-16147"),
])
def test_a_changed_rule_under_a_known_bug_is_caught(tmp_path, module, old, new, key):
    """A rule the variant relies on changed (in the base spec or in the variant module): the
    variant no longer matches the model under the bug's switch (its states, or its verdict
    on the model's counterexample, differ). The 3.7.0 variants (thousands of states) are held
    to the model's counterexample only."""
    import dataclasses
    bundle = _changed_spec(tmp_path, old, new, module)
    variant = next(v for v in bundle.variants if v.key == key)
    if variant.distinct_states > 1000:
        variant = dataclasses.replace(variant, distinct_states=None)
    report = crosscheck.check_variant(bundle, variant)
    assert report.problems, f"changing {old!r} went unnoticed"


@pytest.mark.slow
def test_a_changed_model_rule_is_caught(monkeypatch):
    """A model rule changed (maybeReconcile: "revokedPartitions = owned - assigned"; here the
    consumer would keep what it should revoke): the spec, which states the rule, no longer
    matches the model."""
    import importlib
    step = importlib.import_module("groupcheck.model.consumer_group.step")
    original = step.reconcile

    def keeps_revoked(c, commit_error):
        out, callbacks = original(c, commit_error)
        return out._replace(owned=c.owned | c.target), callbacks
    monkeypatch.setattr(step, "reconcile", keeps_revoked)
    report = crosscheck.check_config(BUNDLE, _config("one-partition"))
    assert any("does not satisfy Reconcile" in p for p in report.problems), report.problems
    assert any("only the model reaches" in p for p in report.problems)


def test_a_trace_of_the_model_is_a_behaviour_of_the_spec(tmp_path):
    """groupcheck spec trace on a counterexample groupcheck wrote: accepted, step by step."""
    from groupcheck.checker import bfs
    scope = _config("lost-response").scope
    found = bfs(BUNDLE.model, scope)
    assert found.violation.property == "commits_only_by_owner"
    result = spec_trace(BUNDLE, scope, found.violation.path, tmp_path)
    assert result.exit_code == 0, result.stdout
    assert "a behaviour of ConsumerGroup" in result.stdout
    assert f"{len(found.violation.path) - 1} steps" in result.stdout


def _patched_session_timeout(original):
    def keeps_epoch(group, member_id, profile="kip-848", config=None):
        out = original(group, member_id, profile)
        return out._replace(group=dataclasses.replace(out.group, group_epoch=group.group_epoch))
    return keeps_epoch


def _patched_new_client(original):
    def skips_an_incarnation(incarnation, *args, **kw):
        return original(incarnation + 1 if incarnation > 0 else incarnation, *args, **kw)
    return skips_an_incarnation


def _patched_static_leave(original):
    def bumps(group, member):
        out = original(group, member)
        return out._replace(group=dataclasses.replace(out.group, group_epoch=out.group.group_epoch + 1))
    return bumps


def _patched_fenced(original):
    def keeps_owned(c, rules=None):
        out, callbacks = original(c) if rules is None else original(c, rules)
        return out._replace(owned=c.owned), ()
    return keeps_owned


@pytest.mark.slow
@pytest.mark.parametrize("module, name, patch, config", [
    # the session-timeout fault removes the member without bumping the group epoch
    ("groupcheck.model.consumer_group.step", "session_timeout", _patched_session_timeout, "crash"),
    # a restarted process skips an incarnation (its member id is not the next one)
    ("groupcheck.model.consumer_group.step", "new_client", _patched_new_client, "crash"),
    # a stalled application still reconciles
    ("groupcheck.model.consumer_group.step", "can_reconcile", lambda original: lambda c, rules=None: c.status == "RECONCILING",
     TINY_STALL),
    # a static member's -2 leave bumps the group epoch
    ("groupcheck.model.consumer_group.coordinator", "static_leave", _patched_static_leave, "static"),
    # a fenced consumer keeps running its partitions (KAFKA-16251's rule, with the switch off)
    ("groupcheck.model.consumer_group.member", "fenced", _patched_fenced, "crash"),
])
def test_a_changed_model_rule_of_restarts_stalls_and_static_members_is_caught(monkeypatch, module, name, patch,
                                                                             config):
    import importlib
    target = importlib.import_module(module)
    step = importlib.import_module("groupcheck.model.consumer_group.step")
    monkeypatch.setattr(target, name, patch(getattr(target, name)))
    step._heartbeat.cache_clear()        # the handler's answers are cached across tests
    try:
        pinned = config if isinstance(config, manifest.Config) else _config(config)
        report = crosscheck.check_config(BUNDLE, pinned)
    finally:
        step._heartbeat.cache_clear()
    assert report.problems, f"the model's changed {name} went unnoticed"
