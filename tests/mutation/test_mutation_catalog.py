"""The mutation catalog stays applicable to HEAD, and the runner's pieces work
(without running any heavy stage)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mutation import report
from mutation.catalog import MUTANTS
from mutation.mutant import FAMILIES, Mutant, MutantNotApplicable, apply, mutated_text
from mutation.report import Record
from mutation.run import copy_tree, run_one, tracked_files
from mutation.stages import classify

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("m", MUTANTS, ids=lambda m: m.name)
def test_mutant_applies_once_and_compiles(m: Mutant):
    text = (ROOT / m.path).read_text()
    assert m.path.startswith("model/"), "mutants seed model rules only"
    assert text.count(m.old) == 1, f"{m.name}: `old` occurs {text.count(m.old)} times in {m.path}"
    assert m.new != m.old
    compile(mutated_text(text, m), m.path, "exec")
    assert m.why.strip() and m.family in FAMILIES


def test_names_unique_and_catalog_sized():
    names = [m.name for m in MUTANTS]
    assert len(names) == len(set(names))
    assert 70 <= len(MUTANTS) <= 120
    assert all(not m.equivalent or len(m.equivalent) > 40 for m in MUTANTS)


BOGUS = Mutant("bogus", "assignors", "model/assignors/range.py", "no such text anywhere", "x", "a test mutant")
REAL = MUTANTS[0]


def test_apply_into_a_copy_and_not_found(tmp_path: Path):
    files = [f for f in tracked_files(ROOT) if f.startswith("model/")]
    copy_tree(ROOT, files, tmp_path)
    apply(tmp_path, REAL)
    assert REAL.new in (tmp_path / REAL.path).read_text()
    assert (ROOT / REAL.path).read_text().count(REAL.old) == 1      # the repo is untouched
    with pytest.raises(MutantNotApplicable):
        apply(tmp_path, BOGUS)
    # the runner reports a mutant whose text is absent as n/a, without running a stage
    rec = run_one(BOGUS, ROOT, files, runner=None, stages=["main"], full=False)
    assert rec.verdict == "n/a"


def _rec(name: str, verdict: str, stage: str = "", kind: str = "") -> Record:
    return Record(name, "assignors", "p", "o", "n", f"why {name}", verdict, stage=stage, kind=kind,
                  stages=[{"stage": "main"}])


def test_report_totals(tmp_path: Path):
    records = [
        _rec("a", "killed", "main", "property"),
        _rec("b", "killed", "main", "known-bug"),
        _rec("c", "killed", "properties", "test"),
        _rec("d", "killed", "tests", "test"),
        _rec("e", "survived"),
        _rec("f", "limit", "main"),
        _rec("g", "n/a"),
        _rec("h", "equivalent"),
    ]
    t = report.totals(records)
    assert (t["applicable"], t["n/a"], t["equivalent"]) == (6, 1, 1)
    assert (t["killed_by_main"], t["killed_by_property"], t["killed"], t["detected"], t["survived"]) == (2, 2, 4, 5, 1)
    assert t["score_killed_pct"] == round(400 / 6, 1)
    assert [s["name"] for s in t["survivors"]] == ["e"]
    report.write(tmp_path, records, {"base": "x", "stages": ["main"]})
    assert json.loads((tmp_path / "report.json").read_text())["totals"]["killed"] == 4
    assert "`e`" in (tmp_path / "report.md").read_text()
    assert [r.name for r in report.load(tmp_path)] == list("abcdefgh")


def test_classify_main_output():
    out = "x\nno_double_ownership violated in consumer/cooperative: m1 and m2 own p0\n"
    assert classify("main", 1, out, "") == ("killed", "no_double_ownership @ consumer/cooperative", "property")
    missed = "summary: 1 missed\n  missed: consumer/KAFKA-7026: expected KAFKA-7026 to violate x; BFS explored 3\n"
    assert classify("main", 1, missed, "")[2] == "known-bug"
    assert classify("main", 3, "weak\n", "")[:2] == ("limit", "exit 3: weak")
    assert classify("main", 2, "", "error: did not settle\n")[1] == "exit 2: error: did not settle"
    assert classify("tests", 1, "FAILED tests/test_a.py::test_b - assert 0\n", "")[:2] == ("killed", "tests/test_a.py::test_b")


def test_main_stage_runs_the_mutated_protocol_only():
    from mutation.stages import command, protocols_of
    assert protocols_of("model/streams_classic/leader.py") == ("streams-classic",)
    assert protocols_of("model/assignors/streams_tasks.py") == ("streams-classic",)
    assert protocols_of("model/assignors/sticky.py") == ("consumer",)
    assert protocols_of("model/core.py") == ()
    assert command("main", "py") == ["py", "-m", "groupcheck.cli", "check"]
    assert command("main", "py", ("consumer",))[-1] == "consumer"
    assert {protocols_of(m.path) for m in MUTANTS} <= {("consumer",), ("streams-classic",)}
