"""groupcheck campaign without Spark: the walk as a pure function, the signature, the
shrinker, the local engine's run folder and report, the command line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from groupcheck import traces
from groupcheck.campaign import output
from groupcheck.campaign.engine import run_campaign
from groupcheck.campaign.report import TITLES
from groupcheck.campaign.shrink import shrink
from groupcheck.campaign.signature import signature
from groupcheck.campaign.walks import fingerprint, run_walk, run_walks
from groupcheck.checker import Budget, bfs
from groupcheck.cli import app
from groupcheck.protocols import get, variant_job
from groupcheck.model.core import first_violation, replay

ROOT = Path(__file__).resolve().parents[2]


def _variant(key: str):
    job = variant_job(key)
    return job.protocol.name, job.protocol.model, job.scope, job.protocol.model.view.scope_to_dict(job.scope)


def test_a_walk_is_a_function_of_its_inputs_whatever_the_grouping():
    scope = get("consumer").model.view.scope_to_dict(get("consumer").model.view.default_scope())
    whole = run_walks("consumer", scope, range(20), 40)
    grouped = run_walks("consumer", scope, range(12, 20), 40) + run_walks("consumer", scope, [5, 3, 0, 1, 2, 4], 40) \
        + run_walks("consumer", scope, range(6, 12), 40)
    assert sorted(grouped, key=lambda r: r["seed"]) == whole
    assert len({tuple(r["fingerprints"]) for r in whole}) > 10        # the seeds do differ
    assert all(r["fingerprints"] and r["steps"] > 0 for r in whole)
    model = get("consumer").model
    sc = model.view.scope_from_dict(scope)
    inits = {fingerprint(model, sc, s) for s in model.init_states(sc)}
    assert all(inits & set(r["fingerprints"]) for r in whole)          # each walk starts at an initial state


@pytest.mark.parametrize("protocol", ["consumer", "consumer-group", "streams-classic", "streams-group"])
def test_fingerprints_agree_across_processes_with_other_string_hashes(protocol):
    model = get(protocol).model
    scope = model.view.scope_to_dict(model.view.default_scope())
    here = run_walks(protocol, scope, range(3), 30)
    code = ("import json, sys; from groupcheck.campaign.walks import run_walks; "
            f"print(json.dumps(run_walks({protocol!r}, json.loads(sys.argv[1]), range(3), 30)))")
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT)}
    there = subprocess.run([sys.executable, "-c", code, json.dumps(scope)], env=env, capture_output=True,
                           text=True, check=True, cwd=ROOT).stdout
    assert json.loads(there) == json.loads(json.dumps(here))


def test_the_signature_forgets_names_and_numbers_but_not_the_property():
    a = signature("no_double_ownership", "C1 and C2 both own {t0-1}")
    assert a == signature("no_double_ownership", "C2 and C3 both own {t0-0}")
    assert a != signature("revoke_before_reassign", "C1 and C2 both own {t0-1}")
    assert signature("e", "EMPTY with group epoch 5 != assignment epoch 4") == \
        signature("e", "EMPTY with group epoch 3 != assignment epoch 2")


def _long_violation(protocol, scope_dict, prop, at_least):
    for seed in range(500):
        v = run_walk(protocol, scope_dict, seed, 100)["violation"]
        if v is not None and v["property"] == prop and v["depth"] >= at_least:
            return v
    raise AssertionError("no long violating walk")


def test_a_long_walk_shrinks_to_near_the_bfs_shortest_and_still_breaks_the_property():
    protocol, model, scope, d = _variant("KAFKA-20442")
    shortest = len(bfs(model, scope).violation.path) - 1                  # 6
    v = _long_violation(protocol, d, "empty_epochs_equal", 20)
    s = shrink(model, scope, v["path"], "empty_epochs_equal")
    assert len(s.path) - 1 <= 1.5 * shortest < v["depth"]
    first, steps = replay(model, scope, s.path)
    assert first_violation(model, scope, first, steps)[:2] == ("empty_epochs_equal", s.message)
    assert shrink(model, scope, v["path"], "empty_epochs_equal") == s      # deterministic


def test_shrinking_a_consumer_bug_keeps_its_property_and_stays_within_its_budget():
    protocol, model, scope, d = _variant("KAFKA-13419")
    v = _long_violation(protocol, d, "settles_fully_owned", 30)
    s = shrink(model, scope, v["path"], v["property"], max_replays=40)
    assert s.replays <= 40 and s.property == v["property"] and len(s.path) <= len(v["path"])
    with pytest.raises(ValueError, match="does not break"):
        shrink(model, scope, v["path"][:3], v["property"])


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    protocol, model, scope, d = _variant("KAFKA-20442")
    out = tmp_path_factory.mktemp("campaign") / "run"
    seen = []
    results = run_campaign(protocol, d, None, range(0, 60), 40, out, progress=lambda w, v: seen.append((w, v)))
    summary = output.finish(out, results)
    return out, results, summary, seen


def test_the_local_engine_finds_and_dedupes_the_violation(local_run):
    out, results, summary, seen = local_run
    assert results.walks == 60 and len(results.violations) > 5
    assert {v["message"] for v in results.violations} != {results.violations[0]["message"]}   # numbers differ
    assert [d["property"] for d in results.distinct] == ["empty_epochs_equal"]
    d = results.distinct[0]
    assert d["count"] == len(results.violations) and d["shrunk_depth"] <= 9
    # the shortest violating walk (then the first seed) stands for the signature
    assert (d["depth"], d["seed"]) == min((v["depth"], v["seed"]) for v in results.violations)
    assert d["first_walk"] == results.violations[0]["walk"]
    assert seen[-1] == (60, len(results.violations)) and len(seen) == 60
    assert sum(results.new_states) == results.distinct_states > 100


def test_the_run_folder_holds_parquet_traces_and_summary(local_run):
    out, results, summary, _ = local_run
    coverage = pq.read_table(out / "coverage").to_pylist()
    assert len(coverage) == 60 and {c["seed"] for c in coverage} == set(range(60))
    assert len(pq.read_table(out / "violations")) == len(results.violations)
    assert output.read(out, "distinct")[0]["shrunk_path"] == results.distinct[0]["shrunk_path"]
    assert json.loads((out / "summary.json").read_text())["walks"] == 60
    recorded = traces.load(out / summary["distinct_violations"][0]["trace"])
    assert recorded.violation["property"] == "empty_epochs_equal"
    first, steps = replay(recorded.protocol.model, recorded.scope, recorded.path)
    assert first_violation(recorded.protocol.model, recorded.scope, first, steps)[0] == "empty_epochs_equal"


def test_the_report_is_one_self_contained_page_with_the_four_plots(local_run):
    out, *_ = local_run
    page = (out / "report.html").read_text()
    assert len(page) > 1_000_000                     # plotly.js inline
    assert "<script src=\"http" not in page and "<script src='http" not in page
    for title in TITLES:
        assert title in page
    assert "empty_epochs_equal" in page and "traces/" in page


def test_ctrl_c_keeps_the_walks_done(tmp_path):
    protocol, model, scope, d = _variant("KAFKA-20442")
    budget = Budget()

    def progress(walks, found):
        if walks == 7:
            budget.interrupted = True

    results = run_campaign(protocol, d, None, range(100, 150), 30, tmp_path, progress=progress, budget=budget)
    output.finish(tmp_path, results)
    assert results.interrupted and results.walks == 7
    assert [c["seed"] for c in output.read(tmp_path, "coverage")] == list(range(100, 107))


runner = CliRunner()


def test_cli_exit_codes(tmp_path):
    found = runner.invoke(app, ["campaign", "--variant", "KAFKA-20442", "--walks", "30", "--length", "40",
                                "--out", str(tmp_path / "a")])
    assert found.exit_code == 1, found.output
    assert "empty_epochs_equal" in found.output and (tmp_path / "a" / "report.html").exists()
    clean = runner.invoke(app, ["campaign", "consumer", "--walks", "10", "--length", "20", "--out", str(tmp_path / "b")])
    assert clean.exit_code == 0, clean.output
    assert "10 walks" in clean.output


@pytest.mark.parametrize("args, message", [
    (["nope"], "unknown protocol 'nope'"),
    (["consumer", "--engine", "hadoop"], "'hadoop' is not an engine"),
    (["consumer", "--profile", "kafka-9"], "unknown profile 'kafka-9'"),
    (["consumer", "--tasks", "3"], "--tasks does not apply to consumer"),
    ([], "name a protocol"),
    (["--variant", "KAFKA-20442", "--budget", "3"], "drop --budget"),
    (["--variant", "KAFKA-0"], "unknown variant"),
    (["consumer", "--partitions", "2"], "--partitions applies to --engine spark"),
    (["consumer", "--scope", "{\"members\": \"x\"}"], "members"),
])
def test_cli_bad_input_exits_2_naming_the_problem(args, message, tmp_path):
    result = runner.invoke(app, ["campaign", *args, "--out", str(tmp_path / "x")])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert not (tmp_path / "x").exists()


SCRIPT = "<script>alert(1)</script>"


def test_the_report_shows_markup_in_a_message_or_the_scope_as_text(local_run, tmp_path):
    """A violation's message and the scope (a --scope or scope file's values) reach the
    page as text. (A guard: the f-string report escaped these too; the template must.)"""
    import copy

    from groupcheck.campaign.report import write_report
    _, results, _, _ = local_run
    crafted = copy.deepcopy(results)
    crafted.distinct[0].update(shrunk_message=f"member {SCRIPT} lost", property="p<i>")
    crafted.scope = {**crafted.scope, "note": SCRIPT}
    write_report(tmp_path / "report.html", crafted)
    page = (tmp_path / "report.html").read_text()
    assert SCRIPT not in page and "p<i>" not in page
    assert "member &lt;script&gt;alert(1)&lt;/script&gt; lost" in page and "p&lt;i&gt;" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&#39;}" in page.replace("&#x27;", "&#39;")     # the scope


def test_a_second_campaign_into_the_same_folder_keeps_the_first(tmp_path):
    """Today's bug: a second campaign into --out deleted the first one's traces/. Now it
    writes OUT-2 beside it and says so; --force writes into OUT."""
    out = tmp_path / "run"
    args = ["campaign", "--variant", "KAFKA-20442", "--length", "40", "--out", str(out)]
    assert runner.invoke(app, [*args, "--walks", "20"]).exit_code == 1
    first = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert any(p.parts[0] == "traces" for p in first)
    again = runner.invoke(app, [*args, "--walks", "5", "--seed", "100"])
    assert again.exit_code == 1, again.output
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == first
    assert f"this run writes to {tmp_path / 'run-2'}" in " ".join(again.output.split())
    assert json.loads((tmp_path / "run-2" / "summary.json").read_text())["walks"] == 5
    forced = runner.invoke(app, [*args, "--walks", "5", "--seed", "100", "--force"])
    assert forced.exit_code == 1, forced.output
    assert json.loads((out / "summary.json").read_text())["walks"] == 5
    assert len(pq.read_table(out / "coverage")) == 5 and not (tmp_path / "run-3").exists()


def test_a_report_cut_short_leaves_the_last_whole_one(local_run, tmp_path, monkeypatch):
    from tests.helpers.interrupted_writes import half_writes

    from groupcheck.campaign.report import write_report
    _, results, _, _ = local_run
    write_report(tmp_path / "report.html", results)
    whole = (tmp_path / "report.html").read_bytes()
    with half_writes(monkeypatch), pytest.raises(OSError):
        output.finish(tmp_path, results)
    assert (tmp_path / "report.html").read_bytes() == whole
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["report.html"]     # no half trace either


def test_a_dataset_cut_short_leaves_the_last_whole_one(tmp_path, monkeypatch):
    """A write that fails half-way (a full disk, Ctrl-C) leaves the dataset written
    before it, not an empty folder or a half part file."""
    rows = [{"seed": 1, "walk": 0, "steps": 3, "kinds": [], "action_kinds": {"join": 3}, "properties": [],
             "fingerprints": [], "distinct_states": 1, "violated": None}]
    output.write_datasets_local(tmp_path, rows, [])
    before = output.read(tmp_path, "coverage")

    def half_write(table, where, **kwargs):
        Path(where).write_bytes(b"PAR1 half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq, "write_table", half_write)
    with pytest.raises(OSError):
        output.write_datasets_local(tmp_path, rows * 2, [])
    monkeypatch.undo()
    assert output.read(tmp_path, "coverage") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["coverage", "violations"]
