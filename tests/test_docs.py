"""The docs site builds with warnings as errors (broken links, anchors and nav fail), the
tutorial's commands and Python run as written, and the README stays one screen whose tour
is the tutorial's and whose test command is the one CI runs."""
from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs_pages import ROOT, blocks, commands, page

TUTORIAL = "tutorial.md"


def fenced(text: str) -> list[str]:
    return re.findall(r"```\n(.*?)```", text, re.S)


def test_the_site_builds_strict(tmp_path):
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent)) or shutil.which("mkdocs")
    assert mkdocs, "mkdocs is missing: pip install -e '.[test]' (the test extra has mkdocs-material)"
    done = subprocess.run([mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    for name in ("index.html", "tutorial/index.html", "exit-codes/index.html", "results/benchmarks/index.html"):
        assert (tmp_path / "site" / name).exists(), name


def test_every_page_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages and all(p in nav for p in pages), sorted(p for p in pages if p not in nav)


def test_the_readme_is_one_screen_with_the_two_commands_first():
    readme = page("README.md")
    assert len(readme.splitlines()) <= 150
    setup_and_check, setup_and_test = (b.strip() for b in fenced(readme)[:2])
    assert setup_and_check.endswith(".venv/bin/groupcheck check") and "'.[test]'" in setup_and_check
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci == setup_and_test, "the README's test command and .ci/run differ"
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", readme), "dated measurements belong in docs/results/"


def test_the_readme_tour_is_the_tutorials():
    tour = [c for c, _, _ in commands(page("README.md"))]
    tutorial = [c for c, _, _ in commands(page(TUTORIAL))]
    assert tour and all(c in tutorial for c in tour), [c for c in tour if c not in tutorial]


def test_the_tutorial_runs_as_written(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "COLUMNS": "200"}
    runs = commands(page(TUTORIAL))
    assert len(runs) >= 8
    for line, code, shown in runs:        # in a shell, as a reader types them, with this venv's groupcheck
        done = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        said = " ".join((done.stdout + "\n" + done.stderr).split())
        assert done.returncode == code, (line, done.stdout[-2000:], done.stderr[-2000:])
        assert "Traceback" not in done.stderr, done.stderr
        for text in shown:
            assert " ".join(text.split()) in said, (line, text, said[-2000:])
    text = "\n".join(blocks(page(TUTORIAL), "python"))
    test = doctest.DocTestParser().get_doctest(text, {}, "docs: the tutorial", f"docs/{TUTORIAL}", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert len(test.examples) >= 4
