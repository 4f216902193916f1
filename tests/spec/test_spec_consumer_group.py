"""specs/consumer_group/ConsumerGroup.tla against model/consumer_group, beyond the checks
every spec gets (tests/spec/test_specs.py): the finding both sides break at the
lost-response scope, and that both sides' rules matter (a rule changed on either side
makes the cross-check fail)."""
from __future__ import annotations

import json

import pytest

from groupcheck.spec import crosscheck, link, manifest
from tests.spec.spec_edits import assert_change_caught

BUNDLE = manifest.load("consumer-group")


def _config(name):
    return next(c for c in BUNDLE.configs if c.name == name)


def test_the_lost_response_scope_breaks_commits_only_by_owner_on_both_sides():
    """The model's finding (a partition released while its first owner has not reconciled
    it yet, its commit accepted) is reached at the lost-response scope, and the spec's step
    claim of the same name breaks on the same transitions (the verdicts agree everywhere)."""
    report = crosscheck.check_config(BUNDLE, _config("lost-response"))
    assert report.ok
    assert report.figures["claims broken on both sides"] == ["commits_only_by_owner"]
    assert report.figures["witnesses reached"] == ["lost_response_recovered", "revocation_completes"]


@pytest.mark.parametrize("old, new, config", [
    # the uniform assignor's extra quota goes to the last member instead of the first
    ("(IF i <= total % n THEN 1 ELSE 0)", "(IF i > n - total % n THEN 1 ELSE 0)", "one-partition"),
    # the previous-epoch rule dropped: a lost response always fences
    ("~(r.epoch = m.previousEpoch /\\ r.reports /\\ r.owned \\subseteq m.assigned)", "TRUE", "lost-response"),
    # a joining member does not bump the group epoch
    ("!.epoch = IF fresh0 THEN @ + 1 ELSE @]", "!.epoch = @]", "one-member"),
    # the assignment sent only when it changed (not on a full request)
    ("sent == full \\/ fresh0 \\/ m0.assigned # m1.assigned", "sent == m0.assigned # m1.assigned", "MCConsumerGroup"),
])
def test_a_changed_spec_rule_is_caught(tmp_path, old, new, config):
    """The cross-check fails: it reports differences, or the changed spec cannot even be
    evaluated along the model's states (an error naming the line)."""
    assert_change_caught(BUNDLE, tmp_path, old, new, config)


def test_a_changed_model_rule_is_caught(monkeypatch):
    """A model rule changed (maybeReconcile: "revokedPartitions = owned - assigned"; here the
    consumer would keep what it should revoke): the spec, which states the rule, no longer
    matches the model."""
    import importlib
    step = importlib.import_module("model.consumer_group.step")
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
    from typer.testing import CliRunner

    from groupcheck import traces
    from groupcheck.checker import bfs
    from groupcheck.cli import app
    scope = _config("lost-response").scope
    found = bfs(BUNDLE.model, scope)
    assert found.violation.property == "commits_only_by_owner"
    trace = tmp_path / "cx.itf.json"
    trace.write_text(json.dumps(traces.build(BUNDLE.model, scope, found.violation.path, {})))
    result = CliRunner().invoke(app, ["spec", "trace", str(trace)])
    assert result.exit_code == 0, result.stdout
    assert "a behaviour of ConsumerGroup" in result.stdout
    assert f"{len(found.violation.path) - 1} steps" in result.stdout
