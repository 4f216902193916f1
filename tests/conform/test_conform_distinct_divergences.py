"""A run keeps judging after a divergence: every distinct (claim, signature) it meets is
reported once, shrunk, with how many times it was met (``groupcheck/conform/dedupe.py``),
for role group-coordinator (its campaign) and for the driver of the assignor roles."""
import json

from typer.testing import CliRunner

from groupcheck.conform.targets.broken.assignors import _KafkaPythonEager, _roundrobin
from groupcheck.conform.targets.broken.coordinators import EagerJoin
from groupcheck.cli import app
from groupcheck.console import Limits
from groupcheck.conform import driver, verdict
from groupcheck.conform.roles.assignor import targets
from groupcheck.conform.roles.group_coordinator.campaign import Options, run_target
from groupcheck.conform.targets.inprocess.coordinator import ReferenceCoordinator
from groupcheck.conform.roles.group_coordinator.runner import keys, run_scenario
from groupcheck.conform.dedupe import Ledger, signature
from groupcheck.model.consumer import ILLEGAL_GENERATION, NONE, REBALANCE_IN_PROGRESS


class TwoWrongErrors(ReferenceCoordinator):
    """Answers a Heartbeat during a rebalance with NONE, and a SyncGroup cut short by a
    rebalance with ILLEGAL_GENERATION: two different failures of claim same_errors."""

    name = "two-wrong-errors"

    def after(self, before, outcome):
        def wrong(r):
            if r.kind == "HeartbeatResponse" and r.error == REBALANCE_IN_PROGRESS:
                return r._replace(error=NONE)
            if r.kind == "SyncGroupResponse" and r.error == REBALANCE_IN_PROGRESS:
                return r._replace(error=ILLEGAL_GENERATION)
            return r
        return outcome._replace(out=tuple((s, wrong(r)) for s, r in outcome.out))


def _run(target, tmp_path, n=30):
    return run_target(target, target.name, Options(scenarios=n, out=tmp_path), lambda line: None, float("inf"))


def test_signature_keeps_the_kinds_and_errors_and_drops_ids_and_numbers():
    a = signature("member 0 HeartbeatResponse: NONE, model REBALANCE_IN_PROGRESS", "Heartbeat")
    b = signature("member 1 HeartbeatResponse: NONE, model REBALANCE_IN_PROGRESS; "
                  "member 2 HeartbeatResponse: NONE, model REBALANCE_IN_PROGRESS", "Heartbeat")
    assert a == b == "Heartbeat: member HeartbeatResponse NONE model REBALANCE_IN_PROGRESS"
    assert signature("member 0 HeartbeatResponse: NONE, model ILLEGAL_GENERATION", "Heartbeat") != a
    assert signature("member consumer-7-ab12 got generation 5, model 6") == \
        signature("member consumer-1-ff00 got generation 2, model 3")
    ledger = Ledger()
    assert ledger.meet("c", a, "first", 9) is not None and ledger.meet("c", b, "shorter", 3) is None
    (met,) = ledger
    assert (met.count, met.found) == (2, "shorter")


def test_two_different_failures_of_one_claim_are_both_reported_each_shrunk(tmp_path):
    v = _run(TwoWrongErrors(), tmp_path)
    assert [d["claim"] for d in v.divergences] == ["same_errors", "same_errors"], v.text()
    found = {d["signature"].split(":")[0]: d for d in v.divergences}
    assert sorted(found) == ["Heartbeat", "SyncGroup"], v.text()
    assert all(d["claim"] == "same_errors" for d in found.values())
    for kind, d in found.items():
        assert d["shrunk"] and d["steps"] <= d["raw_steps"], d
        # the shrunk scenario, replayed, still ends in the same divergence
        target = TwoWrongErrors()
        r = run_scenario(target, target.open(), d["scope"], d["path"], f"replay-{kind}", {})
        assert ("same_errors", d["signature"]) in [k[:2] for k in keys(r)], r
        assert (tmp_path / d["regression"]).exists()
    assert sum(d["count"] for d in v.divergences) == v.violated["same_errors"]


def test_past_max_divergences_a_new_divergence_is_still_listed_unshrunk(tmp_path):
    target = TwoWrongErrors()
    v = run_target(target, target.name, Options(scenarios=30, out=tmp_path, max_divergences=1), lambda line: None,
                   float("inf"))
    assert [d["shrunk"] for d in v.divergences] == [True, False], v.text()
    assert "regression" not in v.divergences[1] and "not shrunk" in v.text()


def test_the_same_divergence_met_in_many_scenarios_is_reported_once_with_its_count(tmp_path):
    v = _run(EagerJoin(), tmp_path)
    assert [d["claim"] for d in v.divergences] == ["same_held"], v.text()
    assert v.divergences[0].get("count") == v.violated["same_held"] > 1
    assert f"met {v.divergences[0]['count']} times" in v.text()


def test_cli_lists_every_distinct_divergence_and_exits_1(tmp_path):
    r = CliRunner().invoke(app, ["conform", "--role", "group-coordinator", "--target", "broken:no-generation-bump",
                                 "--scenarios", "30", "--out", str(tmp_path)])
    assert r.exit_code == 1, r.output
    assert r.output.count("DIVERGENCE generation_rules") >= 2, r.output
    data = json.loads(next(tmp_path.rglob("verdict.json")).read_text())
    assert data["distinct_divergences"] == len(data["divergences"])
    assert len({(d["claim"], d["signature"]) for d in data["divergences"]}) == len(data["divergences"])
    assert r.output.count("DIVERGENCE generation_rules") == len(data["divergences"])


class TwoWaysToFail(_KafkaPythonEager):
    """Round robin that raises KeyError on unequal subscriptions and ValueError once a topic
    has grown past two partitions: two different failures of claim assignor_answers."""

    name = "two-ways-to-fail"

    def plan(self, counts, topics):
        if len({tuple(sorted(t)) for t in topics.values()}) > 1:
            raise KeyError("unequal subscriptions")
        if max(counts.values(), default=0) > 2:
            raise ValueError("more partitions than at the start")
        return _roundrobin(counts, topics, sorted(topics))


def _drive(spec, scopes, walks=0):
    return driver.run_target(targets.python_assignor(spec),
                             driver.Settings(walks=walks, progress_every=1e9, only=scopes), Limits(100_000, 120, "4GiB"))


def test_driver_reports_two_failures_of_one_claim_each_minimal(tmp_path):
    r = _drive(f"{__name__}:TwoWaysToFail", ("metadata",), walks=20)
    answers = [d for d in r.divergences if d.property == "assignor_answers"]
    assert sorted("KeyError" in d.message for d in answers) == [False, True], [d.message for d in answers]
    assert "ValueError" in next(d.message for d in answers if "KeyError" not in d.message)
    assert all(d.mode == "bfs" for d in answers)          # BFS: each the shortest scenario to its failure
    _, written = verdict.write(r, tmp_path)
    assert len({t for _, _, t in written}) == len(r.divergences)       # a regression file each


def test_driver_reports_a_divergence_met_in_two_scopes_once_with_its_count():
    r = _drive("groupcheck.conform.targets.broken.assignors:IgnoresSubscription", ("metadata", "subscription-v0"))
    valid = [d for d in r.divergences if d.property == "assignment_valid"]
    assert len(valid) == 1 and valid[0].count == 2, [(d.property, d.scope_name, d.message) for d in r.divergences]
    assert sum(d.property == "assignment_valid" for s in r.scopes for d in s.divergences) == 2
    listed = [d for d in verdict.summary(r)["divergences"] if d["property"] == "assignment_valid"]
    assert [d["count"] for d in listed] == [2]


def test_cli_driver_lists_every_distinct_divergence_and_exits_1(tmp_path):
    r = CliRunner().invoke(app, ["conform", "--assignor", f"{__name__}:TwoWaysToFail", "--scope", "metadata",
                                 "--walks", "0", "--out", str(tmp_path)])
    assert r.exit_code == 1, r.output
    assert r.output.count("DIVERGENCE assignor_answers") == 2, r.output
    data = json.loads(next(tmp_path.rglob("verdict.json")).read_text())
    assert data["distinct_divergences"] == len(data["divergences"]) >= 2
