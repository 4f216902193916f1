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

from tests.helpers.docs_pages import ROOT, blocks, commands, page

TUTORIAL = "tutorial.md"


def fenced(text: str) -> list[str]:
    return re.findall(r"```\n(.*?)```", text, re.S)


@pytest.mark.slow
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
    """The README's tour commands, exit codes and output lines are the tutorial's, which
    test_the_tutorial_runs_as_written runs and checks."""
    tour = commands(page("README.md"))
    tutorial = {c: (code, shown) for c, code, shown in commands(page(TUTORIAL))}
    assert tour and all(c in tutorial for c, _, _ in tour), [c for c, _, _ in tour if c not in tutorial]
    for c, code, shown in tour:
        assert code == tutorial[c][0] and set(shown) <= set(tutorial[c][1]), c


@pytest.mark.slow
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


def test_the_model_api_page_runs_as_written():
    """docs/model-api.md's Python (the model, its view, the Protocols) runs as written."""
    text = "\n".join(blocks(page("model-api.md"), "python"))
    test = doctest.DocTestParser().get_doctest(text, {}, "docs: the model API", "docs/model-api.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert len(test.examples) >= 6


# The tools pages' commands that run in seconds: run as written (in a folder with examples/
# and specs/), each with the exit code its line gives.
QUICK = {
    "tools/conform.md": ("groupcheck conform --role streams-assignor --target all",
                         "groupcheck conform --role group-coordinator --target reference"),
    "tools/spec.md": ("groupcheck spec mc specs/consumer_group/MCConsumerGroup.cfg",
                      "groupcheck spec mc specs/consumer_group/MCConsumerGroup_KAFKA20442.cfg"),
    "tools/campaign.md": ("groupcheck campaign --variant KAFKA-20442",),
    "records.md": ("groupcheck check consumer --scope", "groupcheck check --variant KAFKA-18641"),
}
# Run by tests/docs/test_docs_examples.py: the own-assignor and regression sections, as written.
EXAMPLES = ("tools/library.md", "tools/replay.md")
# Every other command line of the docs, and why no test runs it as written.
NOT_RUN = {
    "groupcheck conform --target kafka-python:cooperative-sticky ": "about 30 s; its divergence is on results/conformance.md",
    "groupcheck conform --target all ": "about 7 minutes",
    "groupcheck conform --target librdkafka:cooperative-sticky ": "about 3 minutes; its divergences are on results/conformance.md",
    "groupcheck conform --assignor mypkg.assign:MyAssignor": "a placeholder for the reader's own assignor",
    "groupcheck conform --adapter 'node adapter.js'": "a placeholder; tests/conform/test_conform_node.py runs the kafkajs adapter",
    "groupcheck conform --target reference:sticky --scope kip-792-zombies --hypothesis 200": "Hypothesis: tests/conform/",
    "groupcheck conform --role consumer-client": "librdkafka consumers: minutes; tests/conform/test_conform_librdkafka*.py",
    "groupcheck conform --role streams-assignor --assignor mypkg": "a placeholder for the reader's own assignor",
    "groupcheck conform --role streams-assignor --adapter": "a placeholder for the reader's own adapter",
    "groupcheck conform --role group-coordinator --target librdkafka-mock ": "about 6 minutes",
    "groupcheck conform --role group-coordinator --target tansu ": "about 12.5 minutes; its divergences are on results/conformance.md",
    "groupcheck conform --role group-coordinator --target kafka:HOST:PORT ": "a placeholder for the reader's own broker",
    "groupcheck conform --role group-coordinator --bootstrap HOST:PORT ": "a placeholder for the reader's own broker; "
                                                                          "tests/conform/test_conform_coordinator_probes.py runs --bootstrap on a Tansu",
    "groupcheck conform --role group-coordinator --coordinator mypkg": "a placeholder for the reader's own coordinator",
    "groupcheck conform --role group-coordinator --adapter": "a placeholder for the reader's own adapter",
    "groupcheck spec check ": "about 4.5 minutes; tests/spec/ runs its checks",
    "groupcheck spec check consumer-group": "minutes; tests/spec/test_spec_consumer_group.py",
    "groupcheck spec trace groupcheck-out/": "needs the main job's counterexamples; tests/spec/test_spec_cli.py",
    "groupcheck spec trace fleet/": "needs trace-check --generate's fleet; tests/spec/test_spec_cli.py",
    "groupcheck spec tlc specs/consumer ": "real TLC, about a minute; tests/spec/test_tlc_real.py runs every config",
    "groupcheck spec tlc specs/consumer_group/MCConsumerGroup_KAFKA20442.cfg --jar": "a placeholder for the reader's "
                                                                                     "own jar; tests/spec/test_tlc.py",
    "groupcheck campaign consumer-group --walks 2000": "2,000 walks; tests/checker/test_campaign.py",
    "groupcheck campaign consumer --plan cooperative-sticky": "Spark, 100,000 walks; tests/spark/test_campaign_spark.py",
    "groupcheck explore ": "serves a page until Ctrl-C; tests/explorer/test_explorer_cli.py and tests/explorer/test_explorer_e2e.py",
}


def docs_pages() -> list[str]:
    return sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))


def test_every_command_in_the_docs_is_run_or_says_why_not():
    unaccounted = []
    for name in docs_pages():
        if name == TUTORIAL or name in EXAMPLES:
            continue
        for line, _, _ in commands(page(name)):
            quick = any(line.startswith(q) for q in QUICK.get(name, ()))
            if not quick and not any((line + " ").startswith(k) for k in NOT_RUN):
                unaccounted.append(f"{name}: {line}")
    assert not unaccounted, "run these in a test or say in NOT_RUN why not:\n" + "\n".join(unaccounted)


@pytest.mark.slow
def test_the_quick_commands_of_the_tools_pages_run_as_written(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "specs").symlink_to(ROOT / "specs")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    ran = 0
    for name, starts in QUICK.items():
        for line, code, _ in commands(page(name)):
            if any(line.startswith(q) for q in starts):
                done = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True,
                                      timeout=300)
                assert done.returncode == code, (name, line, done.stdout[-2000:], done.stderr[-2000:])
                assert "Traceback" not in done.stderr, done.stderr
                ran += 1
    assert ran == sum(len(v) for v in QUICK.values())
