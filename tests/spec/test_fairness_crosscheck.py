"""`groupcheck spec check` on liveness configs (groupcheck/spec/fairness.py): a manifest
variant claiming ``settles_under_fairness`` is accepted only as a liveness claim the model
has, with its TLC model named; the model's side is the BFS with fairness at the config's
scope (a lasso for a known bug, judged by ``judge_lasso`` and walked on the variant's
next; nothing for a base config), the formula is left to TLC, and a scope's reachable
states are compared once."""
from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from groupcheck.commands.spec import run_checks
from groupcheck.spec import fairness, manifest

BUNDLE = manifest.load("streams-group")


def _copy(tmp_path, edit):
    """The streams-group folder copied, its manifest edited by ``edit(data)``."""
    folder = tmp_path / "streams_group"
    shutil.copytree(BUNDLE.folder, folder)
    data = json.loads((folder / "manifest.json").read_text())
    edit(data)
    (folder / "manifest.json").write_text(json.dumps(data))
    return folder


def _liveness_variant(data) -> dict:
    return next(v for v in data["variants"] if v["property"] == "settles_under_fairness")


@pytest.mark.parametrize("change, message", [
    ({"property": "can_settle"}, r"'can_settle' is not a liveness claim the streams-group model has for TLC"),
    ({"property": "no_deadlock"}, r"'no_deadlock' is not a liveness claim"),
    ({"mc": ""}, r'a settles_under_fairness variant needs "mc"'),
])
def test_a_liveness_variant_must_claim_what_the_model_has_and_name_its_tlc_model(tmp_path, change, message):
    folder = _copy(tmp_path, lambda d: _liveness_variant(d).update(change))
    with pytest.raises(manifest.ManifestError, match=message):
        manifest.load("streams-group", folder)


def test_the_shipped_liveness_configs_are_found_with_their_scopes():
    found = {lc.name: lc for lc in fairness.configs(BUNDLE)}
    assert {"MCStreamsGroupLiveness", "MCStreamsGroup_KAFKA20870Liveness"} <= set(found)
    base, bug = found["MCStreamsGroupLiveness"], found["MCStreamsGroup_KAFKA20870Liveness"]
    assert (base.claim, base.variant, base.distinct_states) == ("FairSettles", None, 1178)
    assert (bug.claim, bug.variant.key, bug.distinct_states) == ("FairSettlesKAFKA20870", "KAFKA-20870", 828)
    assert bug.scope.switches == ("kafka-20870",)


def test_a_liveness_config_the_manifest_does_not_name_is_refused(tmp_path):
    folder = _copy(tmp_path, lambda d: d["variants"].remove(_liveness_variant(d)))
    with pytest.raises(manifest.ManifestError, match="MCStreamsGroup_KAFKA20870Liveness.cfg states "
                                                     "FairSettlesKAFKA20870, but no config or variant"):
        fairness.configs(manifest.load("streams-group", folder))


def test_spec_check_says_so_in_one_line(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from groupcheck.cli import app
    _copy(tmp_path, lambda d: d["variants"].remove(_liveness_variant(d)))
    monkeypatch.setattr(manifest, "SPECS", tmp_path)
    result = CliRunner().invoke(app, ["spec", "check", "streams-group", "--walks", "0"])
    text = " ".join((result.stdout + (result.stderr or "")).split())
    assert result.exit_code == 2 and "Traceback" not in text, text
    assert "MCStreamsGroup_KAFKA20870Liveness.cfg states FairSettlesKAFKA20870, but no config or variant" in text


def _rows(bundle, tmp_path):
    """spec check's rows for the two base configs and KAFKA-20870's two variants only (in a copy
    of the folder without the other liveness configs, which the manifest kept here no longer names)."""
    folder = tmp_path / "only"
    shutil.copytree(bundle.folder, folder)
    keep = ("MCStreamsGroupLiveness.cfg", "MCStreamsGroup_KAFKA20870Liveness.cfg")
    for cfg in folder.glob("MC*Liveness.cfg"):
        if cfg.name not in keep:
            cfg.unlink()
    small = replace(bundle, configs=tuple(c for c in bundle.configs if c.name.startswith("MCStreamsGroup")),
                    variants=tuple(v for v in bundle.variants if v.key == "KAFKA-20870"), walk_scopes=(),
                    folder=folder)
    return {r.title.split(" ", 1)[1]: r for r in list(run_checks(small, 0, 1, 200_000))[1:]}


def test_spec_check_finds_the_lasso_leaves_the_formula_to_tlc_and_compares_a_scope_once(tmp_path):
    rows = _rows(BUNDLE, tmp_path)
    assert list(rows) == ["MCStreamsGroup", "MCStreamsGroupLiveness", "KAFKA-20870",
                          "MCStreamsGroup_KAFKA20870Liveness"]           # one row each
    assert all(r.ok for r in rows.values()), {k: r.problems for k, r in rows.items()}
    base, bug = rows["MCStreamsGroupLiveness"].figures, rows["MCStreamsGroup_KAFKA20870Liveness"].figures
    assert base["states"] == "same scope as MCStreamsGroup" and "spec states" not in base
    assert base["model states (fairness, no symmetry)"] == 1178 and "model lasso" not in base
    assert bug["states"] == "same scope as KAFKA-20870"
    assert bug["model lasso"] == "36 steps back to state 30"
    assert bug["spec side"].startswith("TLC's: `groupcheck spec tlc ") and \
        bug["spec side"].endswith("MCStreamsGroup_KAFKA20870Liveness.cfg` checks FairSettlesKAFKA20870")


def test_spec_check_says_when_the_model_finds_no_lasso_or_one_where_it_must_hold(tmp_path):
    def edit(data):
        _liveness_variant(data)["scope"]["switches"] = []               # the fixed client: it converges
        del _liveness_variant(data)["distinct_states"]                  # (its states are not the point here)
        data["configs"][1]["scope"]["switches"] = ["kafka-20870"]       # MCStreamsGroupLiveness under the bug
        data["configs"][1]["distinct_states"] = 828
    rows = _rows(manifest.load("streams-group", _copy(tmp_path, edit)), tmp_path)
    assert any("finds no lasso, not a settles_under_fairness lasso" in p
               for p in rows["MCStreamsGroup_KAFKA20870Liveness"].problems)
    assert any(p.startswith("the model breaks settles_under_fairness at MCStreamsGroupLiveness's scope")
               for p in rows["MCStreamsGroupLiveness"].problems)


def test_two_counts_pinned_at_one_scope_must_agree(tmp_path):
    def edit(data):
        data["configs"][1]["distinct_states"] = 1179
    rows = _rows(manifest.load("streams-group", _copy(tmp_path, edit)), tmp_path)
    assert "the manifest pins 1,179 distinct states for MCStreamsGroupLiveness and 1,178 for MCStreamsGroup, " \
           "at the same scope" in rows["MCStreamsGroupLiveness"].problems
