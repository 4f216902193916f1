"""Each deliberately broken assignor (groupcheck/conform/targets/broken/assignors.py) is flagged with the
property it names; the choice is not flagged; a written regression file runs green
while the divergence is there and red once it is gone."""
import subprocess
import sys
from pathlib import Path

import pytest

from groupcheck.console import Limits
from groupcheck.conform import driver, verdict
from groupcheck.conform.roles.assignor import targets

FLAGGED = [
    ("TrustsStaleUserData", "assignment_valid", "kip-792-zombies"),
    ("MovesOwnedAtOnce", "validate_cooperative_assignment", "kip-792-zombies"),
    ("TrustsStaleClaims", "generation_aware_claims", "stale-claims-old-clients"),
    ("WithholdsEveryClaim", "no_partition_withheld", "kip-792-zombies"),
    ("AssumesEqualSubscriptions", "no_partition_withheld", "metadata"),
    ("IgnoresSubscription", "assignment_valid", "metadata"),
    ("ShufflesMembers", "deterministic", "kip-792-zombies"),
]


def run(cls, scope, walks=0):
    target = targets.python_assignor(f"groupcheck.conform.targets.broken.assignors:{cls}")
    return driver.run_target(target, driver.Settings(walks=walks, progress_every=1e9, only=(scope,)),
                             Limits(100_000, 120, "4GiB"))


@pytest.mark.slow
@pytest.mark.parametrize("cls, prop, scope", FLAGGED)
def test_each_broken_assignor_is_flagged_with_its_property(cls, prop, scope):
    r = run(cls, scope)
    assert r.divergences, f"{cls}: nothing flagged"
    assert r.divergences[0].property == prop, [(d.property, d.message) for d in r.divergences]


def test_a_choice_is_not_flagged():
    r = run("ReverseOrderRoundRobin", "metadata", walks=10)
    assert r.divergences == []
    rows = {p["property"]: p for p in verdict.summary(r)["properties"]}
    assert rows["assignment_valid"]["judged"] > 0 and rows["assignment_valid"]["status"] == "held"


def test_a_driven_role_writes_its_verdict_through_the_one_writer(tmp_path, monkeypatch):
    """The assignor (and streams-assignor) verdict is written by ``campaign.write_verdict``,
    as every scenario-list role's is: verdict.json and verdict.txt, the text the console shows."""
    import json

    from groupcheck.conform import campaign
    calls = []
    shared = campaign.write_verdict
    monkeypatch.setattr(campaign, "write_verdict", lambda *a: calls.append(a) or shared(*a))
    r = run("ReverseOrderRoundRobin", "metadata")
    path, _ = verdict.write(r, tmp_path)
    assert len(calls) == 1 and path == calls[0][0] / "verdict.json"
    data = json.loads(path.read_text())
    assert (path.parent / "verdict.txt").read_text() == verdict.text(r, data) + "\n"
    assert data["target"] == r.target.name and data["properties"]


@pytest.mark.slow
def test_the_regression_file_runs_green_then_red_once_fixed(tmp_path):
    r = run("IgnoresSubscription", "metadata")
    _, written = verdict.write(r, tmp_path)
    # by the divergence, not the file name: a long target name (the import path) fills the 80
    # characters of the file name's slug before the property's name
    test = next(t for d, (_, _, t) in zip(r.divergences, written) if d.property == "assignment_valid")
    green = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                           capture_output=True, text=True, cwd=Path(__file__).parents[2])
    assert green.returncode == 0, green.stdout[-2000:]
    # the same scenario driven through the (correct) reference range assignor: the
    # divergence is gone, so the regression test fails
    fixed = tmp_path / "test_fixed.py"
    fixed.write_text(test.read_text().replace("python:groupcheck.conform.targets.broken.assignors:IgnoresSubscription", "reference:range"))
    red = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(fixed)],
                         capture_output=True, text=True, cwd=Path(__file__).parents[2])
    assert red.returncode == 1 and "no longer violated" in red.stdout


def test_a_walk_counterexample_is_shrunk_and_still_replays():
    from groupcheck.conform.regression import divergence_along
    from groupcheck.model.consumer.scope import to_dict

    target = targets.python_assignor("groupcheck.conform.targets.broken.assignors:AssumesEqualSubscriptions")
    r = driver.run_target(target, driver.Settings(walks=300, walk_length=80, progress_every=1e9, only=("metadata",),
                                                  bfs=False), Limits(100_000, 120, "4GiB"))
    d = r.divergences[0]
    assert d.mode == "walks" and d.property == "no_partition_withheld"
    assert len(d.path) - 1 <= d.raw_length
    found = divergence_along(target.key, to_dict(d.scope), d.path, d.property)
    assert found is not None and found.step == len(d.path) - 1
