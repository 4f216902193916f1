"""specs/consumer/Consumer.tla against model/consumer, beyond the checks every spec gets
(tests/spec/test_specs.py): both sides' rules matter (a rule changed on either side makes
the cross-check fail), and a zombie is a behaviour of both."""
from __future__ import annotations

import pytest

from groupcheck.spec import crosscheck, manifest
from tests.spec.spec_edits import assert_change_caught

BUNDLE = manifest.load("consumer")


def _config(name):
    return next(c for c in BUNDLE.configs if c.name == name)


@pytest.mark.parametrize("old, new, config", [
    # resetStateOnResponseError: UNKNOWN_MEMBER_ID would keep the member id
    ("!.memberId = IF error = \"UNKNOWN_MEMBER_ID\" THEN NoMember ELSE @", "!.memberId = @", "MCConsumer"),
    # the range assignor's extra partition to the last member instead of the first
    ("n \\div m + (IF i <= n % m THEN 1 ELSE 0)", "n \\div m + (IF i > m - n % m THEN 1 ELSE 0)", "no-faults"),
    # a lost heartbeat response makes the consumer rejoin
    ("!.status = IF resp.kind # \"Heartbeat\" THEN \"idle\" ELSE @", "!.status = \"idle\"", "MCConsumer"),
    # a crash forgets the leader's assignment snapshot (the model keeps it)
    ("!.generation = NoGeneration, !.owned = {}, !.userData = {},\n", "!.generation = NoGeneration, !.owned = {}, !.userData = {}, !.snapshot = -1,\n",
     "MCConsumer"),
])
def test_a_changed_spec_rule_is_caught(tmp_path, old, new, config):
    assert_change_caught(BUNDLE, tmp_path, old, new, config)


def test_a_changed_model_rule_is_caught(monkeypatch):
    """A model rule changed (GroupCoordinator#handleHeartbeat: "case PreparingRebalance =>
    REBALANCE_IN_PROGRESS"; here it would answer NONE, so the member does not rejoin): the
    spec no longer matches."""
    import importlib
    gc = importlib.import_module("model.consumer.coordinator")
    step = importlib.import_module("model.consumer.step")
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


def test_the_zombie_witness_is_reached_on_both_sides():
    report = crosscheck.check_config(BUNDLE, _config("MCConsumer"))
    assert report.ok
    assert report.figures["witnesses reached"] == ["sometimes_settled", "sometimes_zombie"]
