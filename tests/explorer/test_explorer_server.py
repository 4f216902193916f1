"""The explorer's HTTP routes (Flask's test client): views by path, refusals, the timeline,
searches, downloads and saves, as the page sends them (its Origin and token: ``page_client``).
What the server refuses to anyone else is in test_explorer_guard.py."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from groupcheck import traces
from groupcheck.checker import bfs
from groupcheck.explorer import open_trace, open_variant
from groupcheck.explorer.server import create_app
from groupcheck.protocols import variant_job
from groupcheck.model import itf

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """KAFKA-13419's shortest counterexample (no_double_ownership), as groupcheck writes it."""
    job = variant_job("KAFKA-13419")
    v = bfs(job.protocol.model, job.scope).violation
    f = tmp_path_factory.mktemp("trace") / "k13419.itf.json"
    f.write_text(itf.dumps(traces.build(job.protocol.model, job.scope, v.path,
                                        {"violation": {"property": v.property, "message": v.message}})))
    return f, v.path


def page_client(app):
    """A test client sending what the explorer's own page sends: its Origin, and the token
    read from the page ``/`` serves."""
    c = app.test_client()
    page = c.get("/").get_data(as_text=True)
    token = re.search(r'<meta name="groupcheck-token" content="([A-Za-z0-9_-]{40,})">', page).group(1)
    c.environ_base.update(HTTP_ORIGIN="http://localhost", HTTP_X_GROUPCHECK_TOKEN=token)
    return c


@pytest.fixture
def client(trace):
    return page_client(create_app(lambda: open_trace(trace[0])))


def _q(path) -> str:
    return ".".join(map(str, path))


def test_the_view_follows_the_path_in_the_url(client, trace):
    _, path = trace
    first = client.get("/api/view").get_json()
    assert (first["path"], first["ahead"], first["depth"]) == ([path[0]], path[1:], 0)
    mid = client.get(f"/api/view?path={_q(path[:4])}").get_json()
    assert mid["path"] == path[:4] and mid["ahead"] == path[4:]              # still on the trace
    end = client.get(f"/api/view?path={_q(path)}").get_json()
    assert end["first_violation"]["property"] == "no_double_ownership"
    assert end["first_violation"]["step"] == len(path) - 1
    broken = {p["name"] for p in end["properties"] if p["status"] == "violated"}
    assert "no_double_ownership" in broken


def test_a_branch_drops_the_way_ahead(client, trace):
    _, path = trace
    here = client.get(f"/api/view?path={_q(path[:3])}").get_json()
    other = next(a["index"] for a in here["actions"] if a["index"] != path[3])
    branch = client.get(f"/api/view?path={_q(path[:3] + [other])}").get_json()
    assert branch["path"] == path[:3] + [other] and branch["ahead"] == []


@pytest.mark.parametrize("bad, words", [
    ("0.x", "give the initial-state index and action indices separated by dots"),
    ("0.99", "step 1: action index 99 out of range"),
    ("5", "initial-state index 5 out of range"),
    ("0..1", "separated by dots"),
    ("-1", "separated by dots"),
    ("", "path is empty"),
    ("0.\u00b2", "separated by dots"),            # a digit to str.isdigit, not to int()
])
def test_a_malformed_path_is_a_400_naming_what_is_wrong(client, bad, words):
    answer = client.get(f"/api/view?path={bad}")
    assert answer.status_code == 400
    assert words in answer.get_json()["error"] and "Traceback" not in answer.get_data(as_text=True)


def test_unknown_routes_and_http_errors_answer_json(client):
    answer = client.get("/api/nothing")
    assert answer.status_code == 404 and "not found" in answer.get_json()["error"]
    assert client.delete("/api/view").status_code == 405 and "error" in client.delete("/api/view").get_json()
    huge = client.post("/api/search", data=b"[" + b"0," * 100_000 + b"0]", content_type="application/json")
    assert huge.status_code == 413 and "too large" in huge.get_json()["error"]


def test_the_config_names_the_out_folder_by_its_name(trace, tmp_path):
    assert create_app(lambda: open_trace(trace[0])).test_client().get("/api/config").get_json() == {
        "out_dir": None, "readonly": False, "modes": ["bfs", "walks"], "max_states": 200_000, "max_seconds": 60.0}
    saving = create_app(lambda: open_trace(trace[0]), out_dir=tmp_path / "saved").test_client()
    assert saving.get("/api/config").get_json()["out_dir"] == "saved"        # never the machine's path


def test_the_page_and_plotly_are_served_from_the_package(client):
    page = client.get("/")
    assert page.status_code == 200 and b'id="timeline"' in page.data and b"/static/app.js" in page.data
    js = client.get("/static/plotly.min.js")
    assert js.status_code == 200 and len(js.data) > 1_000_000
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/../server.py").status_code == 404


def test_the_timeline_route_gives_a_plotly_figure(client, trace):
    _, path = trace
    fig = client.get(f"/api/timeline?path={_q(path)}").get_json()
    assert {t["name"] for t in fig["data"]} == {"C1", "C2"}
    assert [s["x0"] for s in fig["layout"]["shapes"]] == [len(path) - 1]


def test_a_read_only_trace_is_navigated_by_state_index(tmp_path):
    f = tmp_path / "quint.itf.json"
    f.write_text(json.dumps({"#meta": {"source": "quint"}, "vars": ["x"],
                             "states": [{"x": 0}, {"x": 1, "action_taken": "inc"}]}))
    c = page_client(create_app(lambda: open_trace(f)))
    assert c.get("/api/config").get_json()["readonly"] is True
    v = c.get("/api/view?at=1").get_json()
    assert v["readonly"] and v["action"] == "inc" and v["diff"][0]["field"] == "x"
    assert c.get("/api/view").get_json()["depth"] == 0 and c.get("/api/view?path=1").get_json()["depth"] == 1
    assert c.get("/api/view?at=7").status_code == 400 and "out of range 0..1" in c.get("/api/view?at=7").get_json()["error"]
    assert "give a state index" in c.get("/api/view?at=0.1").get_json()["error"]
    assert c.get("/api/timeline?at=1").get_json() is None
    assert c.post("/api/search", json={"path": [0]}).status_code == 400
    assert "read-only" in c.get("/api/export/itf?at=1").get_json()["error"]


def _wait(c, key: str, limit: float = 60.0) -> dict:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        s = c.get(f"/api/search/{key}").get_json()
        if s["done"]:
            return s
        time.sleep(0.05)
    raise AssertionError("the search did not finish")


def test_a_search_runs_to_the_violation_and_reports_progress():
    c = page_client(create_app(lambda: open_variant("KAFKA-20442")))
    key = c.post("/api/search", json={"path": [0], "mode": "bfs"}).get_json()["id"]
    done = _wait(c, key)
    r = done["result"]
    assert r["property"] == "empty_epochs_equal" and done["explored"] > 0 and "violated" in r["text"]
    assert c.get(f"/api/view?path={_q(r['path'])}").get_json()["first_violation"]["property"] == r["property"]
    assert c.get(f"/api/search/{key}").status_code == 400          # reported once, then forgotten


def test_a_search_from_a_state_continues_its_path():
    c = page_client(create_app(lambda: open_variant("KAFKA-20442")))
    key = c.post("/api/search", json={"path": [0, 0], "mode": "bfs", "max_states": 10**9}).get_json()["id"]
    r = _wait(c, key)["result"]
    assert r["path"][:2] == [0, 0] and r["property"] == "empty_epochs_equal"


def test_a_search_can_be_stopped():
    c = page_client(create_app(lambda: open_variant("KAFKA-16249")))     # 64,109 states to its violation
    key = c.post("/api/search", json={"path": [0], "mode": "bfs"}).get_json()["id"]
    assert c.delete(f"/api/search/{key}").status_code == 200
    done = _wait(c, key)
    assert done["result"]["path"] is None and done["result"]["cut"] == "interrupted"


@pytest.mark.parametrize("body, words", [
    ({"path": [0], "mode": "dfs"}, "mode 'dfs'"),
    ({"path": "0.1"}, "path: give a non-empty list"),
    ({"path": [0], "max_states": -3}, "max_states: give a positive number"),
    ([1, 2], "give a JSON object"),
])
def test_a_bad_search_request_is_refused(client, body, words):
    answer = client.post("/api/search", json=body)
    assert answer.status_code == 400 and words in answer.get_json()["error"]


def _download(client, url: str) -> tuple[str, bytes]:
    answer = client.get(url)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    match = re.fullmatch(r'attachment; filename="([^"/]+)"', answer.headers["Content-Disposition"])
    assert match, answer.headers["Content-Disposition"]
    return match.group(1), answer.data


def test_the_downloaded_tests_go_red_and_green_as_the_bug_comes_and_goes(client, trace, tmp_path):
    _, path = trace
    caught, text = _download(client, f"/api/export/test?path={_q(path)}")
    assert re.fullmatch(r"test_consumer_no_double_ownership_[0-9a-f]{8}\.py", caught)
    assert "no_double_ownership" in text.decode() and str(path) in text.decode()
    before, quiet = _download(client, f"/api/export/test?path={_q(path[:-1])}")   # one step short of it
    assert re.fullmatch(r"test_consumer_no_violation_[0-9a-f]{8}\.py", before)
    files = {"caught": (caught, text.decode()),
             # KAFKA-13419 fixed (no late SyncGroup applied): the known-bug test goes red
             "fixed": ("test_fixed.py", text.decode().replace("'apply_late_sync': True", "'apply_late_sync': False")),
             "quiet": (before, quiet.decode()),
             # the last step put back: the no-violation test goes red
             "broken": ("test_broken.py", quiet.decode().replace(str(path[:-1]), str(path)))}
    assert files["fixed"][1] != files["caught"][1] and files["broken"][1] != files["quiet"][1]
    for name, body in files.values():
        (tmp_path / name).write_text(body)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "."],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"})
    outcome = {name: "PASSED" if f"PASSED {name}::" in run.stdout else "FAILED" if f"FAILED {name}::" in run.stdout
               else None for name, _ in files.values()}
    assert [outcome[files[k][0]] for k in ("caught", "fixed", "quiet", "broken")] == \
        ["PASSED", "FAILED", "PASSED", "FAILED"], run.stdout + run.stderr


def test_the_itf_download_is_the_path_with_its_violation(client, trace):
    _, path = trace
    name, data = _download(client, f"/api/export/itf?path={_q(path)}")
    assert re.fullmatch(r"consumer-no_double_ownership-[0-9a-f]{8}\.itf\.json", name)
    exported = json.loads(data)
    assert exported["#meta"]["violation"]["property"] == "no_double_ownership"
    assert exported["#meta"]["path"] == path and len(exported["states"]) == len(path)
    start, data = _download(client, "/api/export/itf")                 # no path: the state the trace opens at
    assert "no_violation" in start and json.loads(data)["#meta"]["path"] == path[:1]


def test_saves_go_into_the_out_folder_only(trace, tmp_path):
    out = tmp_path / "out"
    c = page_client(create_app(lambda: open_trace(trace[0]), out_dir=out))
    written = [c.post("/api/export", json={"path": trace[1], "what": w}).get_json()["written"] for w in ("itf", "test")]
    assert sorted(written) == sorted(p.name for p in out.iterdir())         # named within the out folder
    again = c.post("/api/export", json={"path": trace[1], "what": "test"}).get_json()["written"]
    assert again == written[1] and len(list(out.iterdir())) == 2              # the same content: kept, not doubled
    assert c.post("/api/export", json={"path": trace[1], "what": "exe"}).status_code == 400
    edited = out / written[0]
    edited.write_text("edited by hand")                                        # never overwritten
    third = c.post("/api/export", json={"path": trace[1], "what": "itf"}).get_json()["written"]
    assert edited.read_text() == "edited by hand" and third == edited.name.replace(".itf.json", "-2.itf.json")
    assert (out / third).is_file() and len(list(out.iterdir())) == 3
    refused = page_client(create_app(lambda: open_trace(trace[0]))).post("/api/export", json={"path": [0], "what": "itf"})
    assert refused.status_code == 400 and "--out" in refused.get_json()["error"]
