"""groupcheck.outputs: files written whole or not at all, never over what is there; the
--out folder rule; check's counterexample traces written whole."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck import outputs, traces
from groupcheck.checker import bfs
from groupcheck.cli import app
from groupcheck.protocols import variant_job
from tests.helpers.interrupted_writes import half_writes

runner = CliRunner()


def test_a_file_is_never_replaced_without_force(tmp_path):
    path = tmp_path / "a" / "f.txt"
    outputs.atomic_write_text(path, "first")
    with pytest.raises(outputs.OutputExists, match="--force"):
        outputs.atomic_write_text(path, "second")
    assert path.read_text() == "first"
    outputs.atomic_write_bytes(path, b"second", force=True)
    assert path.read_bytes() == b"second"
    assert [p.name for p in path.parent.iterdir()] == ["f.txt"]          # no temporary left


def test_a_write_cut_short_leaves_the_old_file_or_none(tmp_path, monkeypatch):
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text("whole")
    with half_writes(monkeypatch):
        for path in (old, new):
            with pytest.raises(OSError):
                outputs.atomic_write_text(path, "x" * 1000, force=True)
    assert old.read_text() == "whole" and not new.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["old.txt"]


def test_a_folder_cut_short_leaves_the_old_folder(tmp_path):
    folder = tmp_path / "coverage"
    with outputs.atomic_folder(folder) as tmp:
        (tmp / "part-0").write_text("first")
    with pytest.raises(RuntimeError):
        with outputs.atomic_folder(folder, force=True) as tmp:
            (tmp / "part-0").write_text("half")
            raise RuntimeError("interrupted")
    assert (folder / "part-0").read_text() == "first"
    with pytest.raises(outputs.OutputExists):
        with outputs.atomic_folder(folder) as tmp:
            pass
    with outputs.atomic_folder(folder, force=True) as tmp:
        (tmp / "part-1").write_text("second")
    assert [p.name for p in folder.iterdir()] == ["part-1"]
    assert [p.name for p in tmp_path.iterdir()] == ["coverage"]


def test_the_folder_rule(tmp_path):
    missing, empty, full = tmp_path / "missing", tmp_path / "empty", tmp_path / "full"
    empty.mkdir()
    full.mkdir()
    (full / "keep").write_text("x")
    assert outputs.run_folder(missing) == missing and missing.is_dir()
    assert outputs.run_folder(empty) == empty
    assert outputs.run_folder(full) == tmp_path / "full-2"
    assert outputs.run_folder(full) == tmp_path / "full-3"          # full-2 is taken (made) by the first
    assert outputs.run_folder(full, force=True) == full
    note = outputs.moved(full, tmp_path / "full-2")
    assert note == f"{full} is not empty: this run writes to {tmp_path / 'full-2'} (--force writes into {full})"
    assert outputs.moved(full, full) is None
    with pytest.raises(outputs.OutputError, match="is a file"):
        outputs.run_folder(full / "keep")


def test_the_folder_rule_takes_the_current_folder_by_its_name(tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "keep").write_text("x")
    monkeypatch.chdir(tmp_path / "here")
    assert outputs.run_folder(Path(".")) == tmp_path / "here-2"


def _trace():
    """KAFKA-20442's shortest counterexample: its path, ITF trace and story."""
    job = variant_job("KAFKA-20442")
    model = job.protocol.model
    v = bfs(model, job.scope).violation
    meta = {"violation": {"property": v.property, "message": v.message}}
    return v.path, traces.build(model, job.scope, v.path, meta), traces.story(model, job.scope, v.path)


def test_a_counterexample_cut_short_leaves_no_half_trace(tmp_path, monkeypatch):
    """check and upgrade-plan write traces with traces.write: a disk that fills mid-write
    leaves no half .itf.json (which a later run would skip as taken, and replay would refuse)."""
    path, trace, text = _trace()
    with half_writes(monkeypatch):
        with pytest.raises(OSError):
            traces.write(tmp_path, "t", trace, text)
    assert list(tmp_path.iterdir()) == []
    json_path, text_path = traces.write(tmp_path, "t", trace, text)
    assert traces.load(json_path).path == path


def test_check_into_the_same_folder_keeps_every_trace(tmp_path):
    """A second check never replaces a counterexample: the same trace is kept as is, a
    different one gets a new name."""
    out = tmp_path / "out"
    args = ["check", "--variant", "KAFKA-20442", "--walks", "0", "--out", str(out)]
    assert runner.invoke(app, args).exit_code == 1
    first = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert any(n.endswith(".itf.json") for n in first)
    assert runner.invoke(app, args).exit_code == 1
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == first
    for p in out.rglob("*.itf.json"):                   # another trace under that name: a new name
        p.write_text(json.dumps({"other": 1}))
    assert runner.invoke(app, args).exit_code == 1
    assert any(p.name.endswith("-2.itf.json") for p in out.rglob("*"))
    assert all(json.loads(p.read_text()) == {"other": 1} for p in out.rglob("*.itf.json") if "-2." not in p.name)


def test_a_second_conform_into_the_same_folder_keeps_the_first(tmp_path):
    """conform into an --out that is not empty writes OUT-2 beside it and says so; the
    first run's verdict stays byte for byte; --force writes into OUT."""
    out = tmp_path / "out"
    args = ["conform", "--target", "reference:range", "--scope", "kip-792-zombies", "--walks", "0",
            "--progress-every", "1000", "--out", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    verdict = out / "conform" / "reference_range" / "verdict.json"
    first, inode = verdict.read_bytes(), verdict.stat().st_ino
    again = runner.invoke(app, [*args, "--seed", "1"])
    assert again.exit_code == 0, again.output
    assert verdict.read_bytes() == first
    assert (tmp_path / "out-2" / "conform" / "reference_range" / "verdict.json").exists()
    assert f"this run writes to {tmp_path / 'out-2'}" in " ".join(again.output.split())
    forced = runner.invoke(app, [*args, "--force"])
    assert forced.exit_code == 0, forced.output
    assert verdict.stat().st_ino != inode and not (tmp_path / "out-3").exists()      # replaced
