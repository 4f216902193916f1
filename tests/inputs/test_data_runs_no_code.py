"""Data never runs code: a trace, a history, a scope file or --scope JSON that names a
user's assignor (``module:Class``) does not import the module nor instantiate the class;
the command exits 2 with one line giving the flag (--assignor) that trusts it. Only the
command line loads user code. A module in the working folder writes a marker file when
it is imported and when its class is instantiated: the marker must never appear, and
with --assignor it does (so the test can fail).

Then a grep of the installed packages for eval/exec/pickle.load/shell=True/yaml.load,
each hit justified in a short allowlist."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from groupcheck import traces
from groupcheck.tracecheck import fleet
from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.scope import ConsumerScope, to_dict

ROOT = Path(__file__).resolve().parents[2]
EVIL = "evil_assignor:Evil"
FLAG = f"add --assignor {EVIL} to trust it"
MODULE = textwrap.dedent("""
    from pathlib import Path
    Path("imported.marker").write_text("imported")

    class Evil:
        name = "evil"
        supported_protocols = ("EAGER",)

        def __init__(self):
            Path("instantiated.marker").write_text("instantiated")

        def assign(self, cluster, subscriptions):
            return {m: [] for m in subscriptions}
""")
SCOPE = ConsumerScope(members=2, partitions=(1,), budget=0, max_generation=2)
EVIL_SCOPE = {**to_dict(SCOPE), "plan": [{"assignors": [EVIL]}]}


def _trace() -> dict:
    tr = json.loads(traces.itf.dumps(traces.build(MODEL, SCOPE, [0, 0, 0], {
        "profile": SCOPE.profile, "violation": {"property": "no_double_ownership", "message": "m", "kind": "always"}})))
    tr["#meta"]["scope"] = EVIL_SCOPE
    return tr


def _history() -> str:
    events = fleet.observations("consumer", MODEL, SCOPE, [0, 0, 0]) or [{"kind": "assigned", "client": "C1",
                                                                         "partitions": []}]
    return "".join(json.dumps({"group": "g", "seq": i, "protocol": "consumer", "scope": EVIL_SCOPE, **e}) + "\n"
                   for i, e in enumerate(events))


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "evil_assignor.py").write_text(MODULE)
    (tmp_path / "trace.itf.json").write_text(json.dumps(_trace()))
    (tmp_path / "scope.json").write_text(json.dumps(EVIL_SCOPE))
    (tmp_path / "h.jsonl").write_text(_history())
    import pyarrow as pa
    import pyarrow.parquet as pq
    rows = [json.loads(line) for line in _history().splitlines()]
    pq.write_table(pa.table({"group": [r["group"] for r in rows], "seq": [r["seq"] for r in rows],
                             "event": [json.dumps(r) for r in rows]}), tmp_path / "h.parquet")
    return tmp_path


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "4000", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "groupcheck.cli", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)


def _markers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.marker"))


COMMANDS = [
    ("replay", "trace.itf.json"),
    ("regression", "trace.itf.json"),
    ("explore", "trace.itf.json"),
    ("spec", "trace", "trace.itf.json"),
    ("spec", "trace", "h.jsonl"),
    ("spec", "trace", "h.parquet"),
    ("trace-check", "h.jsonl", "--out", "tc"),
    ("trace-check", "h.parquet", "--out", "tc"),
    ("check", "consumer", "--scope", "@scope.json", "--walks", "0"),
    ("check", "consumer", "--scope", json.dumps(EVIL_SCOPE), "--walks", "0"),
    ("campaign", "consumer", "--scope", "@scope.json", "--walks", "1"),
    ("explore", "consumer", "--scope", "@scope.json"),
]


@pytest.mark.slow
@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a[:2]) + (" @file" if "@scope.json" in a else "")
                                                for a in COMMANDS])
def test_a_file_naming_an_assignor_is_refused_and_nothing_runs(folder, args):
    r = _run(folder, *args)
    lines = [x for x in r.stderr.splitlines() + r.stdout.splitlines() if x.strip()]
    assert r.returncode == 2, r.stdout + r.stderr
    assert _markers(folder) == [], r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    errors = [x for x in lines if x.startswith("error:")]
    assert len(errors) == 1 and FLAG in errors[0] and f"names assignor {EVIL}" in errors[0], lines


@pytest.mark.slow
@pytest.mark.parametrize("args", [("replay", "trace.itf.json"), ("check", "consumer", "--scope", "@scope.json",
                                                                   "--walks", "0", "--max-states", "50"),
                                  ("trace-check", "h.jsonl", "--out", "tc")], ids=["replay", "check", "trace-check"])
def test_with_the_flag_the_assignor_is_loaded_and_runs(folder, args):
    r = _run(folder, *args, "--assignor", EVIL)
    assert _markers(folder) == ["imported.marker", "instantiated.marker"], r.stdout + r.stderr
    assert "did not load" not in r.stdout + r.stderr


def test_the_plan_flag_trusts_what_it_names(folder):
    r = _run(folder, "check", "consumer", "--plan", EVIL, "--budget", "0", "--walks", "0", "--max-states", "50")
    assert _markers(folder) == ["imported.marker", "instantiated.marker"], r.stdout + r.stderr


# ------------------------------------------------------------------ no eval, exec, pickle of input, shell=True

# the builtins, not methods (z3's model.eval evaluates a formula, not Python text)
PATTERNS = re.compile(r"(?<![\w.])eval\(|(?<![\w.])exec\(|pickle\.loads?\(|pickle\.Unpickler|shell\s*=\s*True"
                      r"|yaml\.load\(|yaml\.unsafe_load")
ALLOWED = {
    # (file, hit): why it is safe
    ("groupcheck/frontier.py", "pickle.loads("):
        "unpacks the BFS frontier's blocks, which this process packed itself and holds in memory",
    ("groupcheck/conform/roles/consumer_client/repro_records.py", "exec("):
        "in the template of the standalone record repro script: its module loader runs the groupcheck "
        "modules the script carries (written into it from groupcheck's own source, never from an input)",
}


def _hits() -> list[tuple[str, str, int]]:
    found = []
    for package in ("groupcheck", "model", "properties"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                code = line.split("#", 1)[0]
                for m in PATTERNS.finditer(code):
                    found.append((str(path.relative_to(ROOT)), m.group(0), n))
    return found


def test_no_eval_exec_pickle_shell_or_yaml_load_outside_the_allowlist():
    unexplained = [h for h in _hits() if (h[0], h[1]) not in ALLOWED]
    assert unexplained == [], unexplained


def test_the_grep_finds_what_it_looks_for():
    """The pattern is not vacuous: each forbidden form matches."""
    for text in ("eval(x)", "exec(code)", "pickle.load(f)", "pickle.loads(b)", "run(a, shell=True)", "yaml.load(s)",
                 "x = pickle.Unpickler(f)", " eval(x)"):
        assert PATTERNS.search(text), text
    assert not PATTERNS.search("m.eval(g, model_completion=True)")


# ------------------------------------------------------------------ regression writes no code from the trace

def _regression(tmp_path: Path, name: str, prop: str):
    from typer.testing import CliRunner

    from groupcheck.cli import app
    tr = json.loads(traces.itf.dumps(traces.build(MODEL, SCOPE, [0, 0, 0], {
        "profile": SCOPE.profile, "violation": {"property": prop, "message": "m", "kind": "always"}})))
    f = tmp_path / name
    f.write_text(json.dumps(tr))
    return CliRunner().invoke(app, ["regression", str(f), "-o", str(tmp_path / "test_written.py")])


def test_regression_refuses_a_property_that_is_not_a_name(tmp_path):
    r = _regression(tmp_path, "t.itf.json", "x():\n    pass\nopen('pwned.marker', 'w')\ndef y")
    assert r.exit_code == 2 and "is not a property of the consumer model" in " ".join(r.output.split()), r.output
    assert not (tmp_path / "test_written.py").exists()


def test_regression_keeps_a_hostile_file_name_inside_the_docstring(tmp_path):
    import ast
    r = _regression(tmp_path, "a\"\"\"\nopen('pwned.marker', 'w')\n\"\"\".itf.json", "no_double_ownership")
    assert r.exit_code == 0, r.output
    tree = ast.parse((tmp_path / "test_written.py").read_text())
    kinds = [type(node).__name__ for node in tree.body]
    assert kinds == ["Expr", "ImportFrom", "Assign", "Assign", "Assign", "FunctionDef"], kinds
    assert "pwned" in ast.get_docstring(tree)


def test_a_spec_manifest_naming_another_mapping_module_is_refused_unimported(tmp_path, monkeypatch):
    import shutil

    from groupcheck.spec import manifest
    folder = tmp_path / "consumer"
    shutil.copytree(ROOT / "specs" / "consumer", folder)
    data = json.loads((folder / "manifest.json").read_text())
    data["mapping"] = "evil_assignor"
    (folder / "manifest.json").write_text(json.dumps(data))
    (tmp_path / "evil_assignor.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(manifest.ManifestError, match="'evil_assignor' is not one of groupcheck's mappings"):
        manifest.load("consumer", folder)
    assert _markers(tmp_path) == []
