"""The docs' library examples (docs/tools/library.md), its own-assignor commands and the
trace -> replay -> regression -> pytest chain (docs/tools/replay.md), run as written
(commands in a copy of examples/)."""
from __future__ import annotations

import doctest
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import Phase, settings

from groupcheck.model import assignors
from groupcheck.model.assignors import ASSIGNORS, rebalance_protocol
from groupcheck.properties.stateful import PropertyViolated

from tests.helpers.docs_pages import ROOT, blocks, commands, section

LIBRARY = "tools/library.md"
REPLAY = "tools/replay.md"


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(assignors, "ASSIGNORS", dict(ASSIGNORS))
    yield
    rebalance_protocol.cache_clear()


def test_the_library_examples_print_what_the_docs_say():
    text = "\n".join(blocks(section(LIBRARY, "Library API and your own assignor (`groupcheck.api`)"), "python"))
    test = doctest.DocTestParser().get_doctest(text, {}, "docs: the library API", f"docs/{LIBRARY}", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert len(test.examples) >= 15


@pytest.mark.slow
def test_the_commands_run_as_written_each_reading_what_the_one_before_wrote(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    runs = [(line, code) for line, code, _ in commands(section(LIBRARY, "Check your own assignor"),
                                                        section(REPLAY, "From a counterexample to a regression test"))]
    assert [shlex.split(line)[1] for line, _ in runs][-4:] == ["check", "replay", "regression", "-m"]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    outputs = []
    for line, code in runs:      # in a shell, as a reader types them, with this venv's groupcheck and python
        done = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == code, (line, done.stdout[-2000:], done.stderr[-2000:])
        assert "Traceback" not in done.stderr, done.stderr
        outputs.append(" ".join(done.stdout.split()))
    check, replay, regression, pytest_run = outputs[-4:]
    assert "converges_within_k violated" in check
    assert re.search(r" (\d+)/\1 ", outputs[0]) and "✗" not in outputs[0]     # every property held
    step = re.search(r"reproduced: converges_within_k violated at step (\d+)", replay).group(1)
    assert f"asserts converges_within_k at step {step}" in regression
    assert "1 passed" in pytest_run


def test_the_hypothesis_snippet_runs_and_catches_the_broken_assignor(registry):
    snippet = blocks(section(LIBRARY, "Check your own assignor"), "python")[0]
    found: dict = {}
    exec(snippet, found)
    case = found["TestBalancedCooperative"]
    case.settings = settings(max_examples=25, stateful_step_count=60, deadline=None, database=None, derandomize=True)
    case("runTest").runTest()
    broken: dict = {}
    exec(snippet.replace("BalancedCooperative", "RangeClaimingCooperative"), broken)
    case = broken["TestRangeClaimingCooperative"]
    case.settings = settings(max_examples=100, stateful_step_count=60, deadline=None, database=None, derandomize=True,
                             phases=[Phase.generate])
    with pytest.raises(PropertyViolated) as e:
        case("runTest").runTest()
    assert e.value.property == "converges_within_k"
