"""Role group-coordinator: static members (KIP-345) as named scenarios on a broker
(``coordinator/static.py``): each answer against a cited rule of Kafka's coordinator."""
from types import SimpleNamespace

import pytest

from groupcheck.conform.roles.group_coordinator import static
from groupcheck.conform.roles.group_coordinator import targets


def _answer(**response):
    return [{"member": 2, "response": {"kind": "HeartbeatResponse", "to": "x", **response}}]


def test_a_step_is_judged_by_its_rule():
    fenced = static.STATIC_FENCED[2]
    assert static.check(fenced, _answer(error="FENCED_INSTANCE_ID"), {"$g": 1}) is None
    msg = static.check(fenced, _answer(error="UNKNOWN_MEMBER_ID"), {"$g": 1})
    assert "UNKNOWN_MEMBER_ID" in msg and "FENCED_INSTANCE_ID" in msg and "validateCurrentMember" in msg
    assert "0 answers" in static.check(fenced, [], {})
    rejoin = static.STATIC_REJOIN[2]         # the new member id must not be the old one
    same = [{"member": 1, "response": {"kind": "JoinGroupResponse", "error": "NONE", "generation": 3,
                                       "member_id": "A"}}]
    assert "still $a's" in static.check(rejoin, same, {"$a": "A", "$g": 3})
    same[0]["response"]["member_id"] = "B"
    assert static.check(rejoin, same, {"$a": "A", "$g": 3}) is None


def test_a_broker_without_instance_ids_is_told_why():
    old = SimpleNamespace(name="kafka:h:1", versions={"JoinGroup": 4, "LeaveGroup": 2})
    assert "JoinGroup v5+" in static.unsupported(old)
    assert static.unsupported(SimpleNamespace(name="x")) != ""      # not over TCP
    assert static.unsupported(SimpleNamespace(name="t", versions={"JoinGroup": 9, "LeaveGroup": 5})) == ""


@pytest.fixture(scope="module")
def tansu_runs(tmp_path_factory):
    """Every named scenario run once on one Tansu (started here, stopped before the tests
    look): the runs and the target, shared by the tests below."""
    target = targets.builtin("tansu")
    target.log_dir = tmp_path_factory.mktemp("static-first")
    target.open()
    try:
        runs = [static.run(target, name, f"gc-static-test-{name}") for name in static.SCENARIOS]
    finally:
        target.close()
    return target, runs


def test_static_scenarios_run_on_tansu(tansu_runs):
    """Tansu: a static member's first JoinGroup carries its instance id and
    is admitted without MEMBER_ID_REQUIRED (a dynamic one's is asked for it), its SyncGroup
    answered: the steps every scenario starts with hold; each scenario then reaches its own
    rule (a violation names it)."""
    target, runs = tansu_runs
    assert target.proc is None
    for r in runs:
        assert r["steps"] >= 3, r
        first = r["transcript"][0]["answers"][0]["response"]
        want = "NONE" if r["scenario"].startswith("static") else "MEMBER_ID_REQUIRED"   # a dynamic member's first
        assert first["error"] == want and first["member_id"], r
        assert r["violation"] is None or r["violation"]["step"] >= 3, r
        assert r["violation"] is None or "GroupCoordinator" in r["violation"]["message"], r


def test_a_named_divergence_has_a_standalone_script_that_reproduces_it(tansu_runs, tmp_path):
    """Each named scenario that diverged on one Tansu gets a script (kafka-python only, no
    groupcheck) that, run against a fresh Tansu, prints "reproduced" and exits 1."""
    import subprocess
    import sys

    from groupcheck.conform.roles.group_coordinator import repro
    first, runs = tansu_runs
    scripts = []
    for r in runs:
        if r["violation"]:
            name = r["scenario"]
            path = tmp_path / f"repro_{name.replace('-', '_')}.py"
            path.write_text(static.repro_source(name, "tansu", repro.run_of(first), r["violation"]))
            scripts.append(path)
    assert scripts
    fresh = targets.builtin("tansu")
    fresh.log_dir = tmp_path / "fresh"
    fresh.open()
    try:
        for script in scripts:
            assert "groupcheck" not in "".join(line for line in script.read_text().splitlines(True)
                                               if line.startswith(("import", "from")))
        # each script makes its own group, so they run side by side on the one fresh Tansu
        procs = [(script, subprocess.Popen([sys.executable, str(script), "--bootstrap", fresh._where()],
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
                 for script in scripts]
        try:
            for script, p in procs:
                out, err = p.communicate(timeout=180)
                assert p.returncode == 1 and out.strip().splitlines()[-1].startswith("reproduced: "), \
                    (script.name, out, err)
        finally:
            for _, p in procs:
                p.kill() if p.poll() is None else None
    finally:
        fresh.close()
