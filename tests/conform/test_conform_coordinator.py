"""Role group-coordinator: the reference passes, every broken coordinator is flagged with
its named claim, the CLI's exit codes."""
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck.conform.targets.broken.coordinators import BROKEN, EXPECTED
from groupcheck.cli import app
from groupcheck.conform.roles.group_coordinator.campaign import Options, run_target
from groupcheck.conform.targets.inprocess.coordinator import ReferenceCoordinator


def _run(target, tmp_path, n=30):
    return run_target(target, target.name, Options(scenarios=n, out=tmp_path), lambda line: None, float("inf"))


def test_reference_holds_every_claim(tmp_path):
    v = _run(ReferenceCoordinator(), tmp_path)
    assert not any(v.violated.values()), v.text()
    assert all(v.judged[c] > 0 for c in v.judged), v.text()


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_coordinator_flagged_with_its_claim(name, tmp_path):
    v = _run(BROKEN[name](), tmp_path)
    assert v.divergences and v.divergences[0]["claim"] == EXPECTED[name], v.text()
    assert v.divergences[0]["steps"] <= v.divergences[0]["raw_steps"]


def test_cli_unknown_target_is_exit_2(tmp_path):
    r = CliRunner().invoke(app, ["conform", "--role", "group-coordinator", "--target", "nope", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_cli_reference_exit_0_broken_exit_1(tmp_path):
    ok = CliRunner().invoke(app, ["conform", "--role", "group-coordinator", "--target", "reference",
                                  "--scenarios", "10", "--out", str(tmp_path)])
    assert ok.exit_code == 0, ok.output
    bad = CliRunner().invoke(app, ["conform", "--role", "group-coordinator", "--target", "broken:eager-join",
                                   "--scenarios", "10", "--out", str(tmp_path)])
    assert bad.exit_code == 1, bad.output


def test_a_coordinator_class_without_a_docstring_is_named_by_its_path():
    """A user's ``--coordinator`` class needs no docstring: its note is its import path."""
    class Bare(ReferenceCoordinator):
        pass
    assert Bare().note.endswith("Bare") and "test_conform_coordinator" in Bare().note


def test_a_regression_file_keeps_a_hostile_message_out_of_its_code(tmp_path):
    """A divergence's message quotes the target's answers (member ids it chose): a backslash,
    quotes or a newline there leave the written regression test valid Python, its docstring
    closed where it was."""
    import ast

    from groupcheck.conform.roles.group_coordinator.report import write_divergence
    from groupcheck.conform.roles.group_coordinator.runner import ScenarioResult
    from groupcheck.conform.roles.group_coordinator.scenarios import SCOPES
    scope = next(iter(SCOPES))
    hostile = 'member \\N{x} said """; import os\n" \\'
    r = ScenarioResult(scope=scope, path=[0], violation=("same_errors", hostile, 0, None))
    written = write_divergence(tmp_path, 'kafka:"evil"\\host:1', r, 0)
    tree = ast.parse(Path(written["regression"]).read_text())
    assert [type(n).__name__ for n in tree.body[:2]] == ["Expr", "ImportFrom"]      # the docstring, then code
    assert not any(isinstance(n, ast.Import) for n in ast.walk(tree))


def test_each_divergence_carries_its_judgement(tmp_path):
    """A broken coordinator's divergences are in no judgement table: "not yet judged", in the
    JSON and the text (judgements.json holds the known ones, e.g. Tansu's)."""
    name = sorted(BROKEN)[0]
    v = _run(BROKEN[name](), tmp_path)
    assert v.divergences and {d["judgement"] for d in v.divergences} == {"not yet judged"}
    assert "judgement: not yet judged" in v.text()


def test_the_seeded_walks_do_not_move_when_the_model_gains_a_fault_kind(monkeypatch):
    """The walks ban kinds from a fixed tuple: a new budgeted kind of the consumer model (the
    record layer's) leaves every seeded scenario as it was."""
    from dataclasses import replace
    from groupcheck.conform.roles.group_coordinator import scenarios as sc
    before = [list(sc.walk_paths(scope, 3, 20, seed=7)) for scope in sc.SCOPES.values()]
    monkeypatch.setattr(sc, "MODEL", replace(sc.MODEL, fault_kinds=("a_new_kind",) + sc.MODEL.fault_kinds))
    assert [list(sc.walk_paths(scope, 3, 20, seed=7)) for scope in sc.SCOPES.values()] == before
