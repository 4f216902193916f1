"""What the explorer's server refuses and what it never gives away (guard.py, server.py):
every route, as Flask's url_map lists it (a route added later is covered too), refuses
another Host; every state-changing one refuses another Origin and a missing or wrong token,
before it reads or writes anything; no answer names a path of the machine."""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from flask import url_for

from groupcheck import traces
from groupcheck.checker import bfs
from groupcheck.commands.explore import _opener
from groupcheck.explorer import open_variant
from groupcheck.explorer.guard import SAFE, TOKEN_HEADER
from groupcheck.explorer.server import create_app, said
from groupcheck.protocols import variant_job
from groupcheck.model import itf
from tests.explorer.test_explorer_server import page_client

ROOT = Path(__file__).resolve().parents[2]
# a value for each argument a route's URL takes; a new argument fails here until it has one
ARGS = {"key": "0123456789ab", "what": "itf", "name": "app.js"}
BODY = {"path": [0], "what": "itf", "mode": "bfs", "max_states": 10}     # a request each POST route takes
PAGE = "http://localhost"          # the test client's server: localhost, port 80
FORGED_HOSTS = ["evil.example", "evil.example:80", "localhost:8080", "127.0.0.1:81", "[::1]:8080", "127.0.0.2",
                "0.0.0.0", "127.0.0.1.evil.example", "localhost.evil.example", "evil@localhost", "localhost/x",
                "localhost:x", "[::1", ""]
FORGED_ORIGINS = [None, "null", "http://evil.example", "http://localhost:8080", "https://localhost",
                  "http://localhost/", "http://127.0.0.1.evil.example", "file://", "http://evil@localhost"]


class Counting:
    """An opener that counts the sessions it makes: a refused request makes none."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return open_variant("KAFKA-20442")


def routes(app) -> list[tuple[str, str]]:
    """(method, URL) for every method of every route the app has."""
    with app.test_request_context():
        return sorted({(m, url_for(rule.endpoint, **{a: ARGS[a] for a in rule.arguments}))
                       for rule in app.url_map.iter_rules() for m in rule.methods})


def changing(app) -> list[tuple[str, str]]:
    found = [(m, u) for m, u in routes(app) if m not in SAFE]
    assert {u for _, u in found} >= {"/api/search", "/api/export", f"/api/search/{ARGS['key']}"}
    return found


def _token(app) -> str:
    page = app.test_client().get("/").get_data(as_text=True)
    return re.search(r'<meta name="groupcheck-token" content="([A-Za-z0-9_-]{40,})">', page).group(1)


@pytest.mark.parametrize("host", FORGED_HOSTS)
def test_every_route_refuses_another_host_reading_and_writing_nothing(tmp_path, host):
    opener, out = Counting(), tmp_path / "out"
    app = create_app(opener, out_dir=out)
    token, c = _token(app), app.test_client()
    for method, url in routes(app):                 # even with the page's Origin and token
        answer = c.open(url, method=method, json=BODY, headers={"Host": host, "Origin": PAGE, TOKEN_HEADER: token})
        assert answer.status_code == 403, (method, url, answer.status_code)
        assert token not in answer.get_data(as_text=True)
        assert method == "HEAD" or "forbidden" in answer.get_json()["error"]          # HEAD: no body
    assert opener.calls == 0 and not out.exists()


def test_the_served_names_are_the_loopback_ones_and_the_host_given(tmp_path):
    app = create_app(Counting(), host="Explorer.LAN")
    c = app.test_client()
    for host in ["localhost", "LOCALHOST:80", "127.0.0.1", "127.0.0.1:80", "[::1]", "[::1]:80", "explorer.lan",
                 "Explorer.LAN:80"]:
        assert c.get("/api/config", headers={"Host": host}).status_code == 200, host
    assert c.get("/api/config", headers={"Host": "other.lan"}).status_code == 403
    assert create_app(Counting()).test_client().get("/", headers={"Host": "explorer.lan"}).status_code == 403
    on_lan = c.post("/api/search", json=BODY, headers={"Host": "explorer.lan", "Origin": "http://explorer.lan",
                                                       TOKEN_HEADER: _token(app)})
    assert on_lan.status_code == 200 and on_lan.get_json()["id"]


@pytest.mark.parametrize("origin", FORGED_ORIGINS)
def test_every_state_changing_route_refuses_another_origin(tmp_path, origin):
    opener, out = Counting(), tmp_path / "out"
    app = create_app(opener, out_dir=out)
    token, c = _token(app), app.test_client()
    for method, url in changing(app):
        headers = {TOKEN_HEADER: token, **({"Origin": origin} if origin is not None else {})}
        answer = c.open(url, method=method, json=BODY, headers=headers)
        assert answer.status_code == 403 and "Origin" in answer.get_json()["error"], (method, url)
    assert opener.calls == 0 and not out.exists()


@pytest.mark.parametrize("sent", ["none", "empty", "wrong", "another server's"])
def test_every_state_changing_route_needs_the_token(tmp_path, sent):
    opener, out = Counting(), tmp_path / "out"
    app = create_app(opener, out_dir=out)
    token = {"none": None, "empty": "", "wrong": _token(app)[:-1] + "x",
             "another server's": _token(create_app(Counting(), out_dir=out))}[sent]
    c = app.test_client()
    for method, url in changing(app):
        headers = {"Origin": PAGE, **({TOKEN_HEADER: token} if token is not None else {})}
        answer = c.open(url, method=method, json=BODY, headers=headers)
        assert answer.status_code == 403 and TOKEN_HEADER in answer.get_json()["error"], (method, url)
    assert opener.calls == 0 and not out.exists()


def test_the_page_itself_passes_every_check(tmp_path):
    """The refusals above come from the guard: the same requests from the page are served."""
    out = tmp_path / "out"
    app = create_app(Counting(), out_dir=out)
    c = page_client(app)
    answers = {(m, u): c.open(u, method=m, json=BODY) for m, u in changing(app)}
    assert all(a.status_code != 403 for a in answers.values()), {k: a.status_code for k, a in answers.items()}
    assert answers[("POST", "/api/export")].status_code == 200 and len(list(out.iterdir())) == 1


def test_no_reading_route_writes(tmp_path):
    """GET, HEAD and OPTIONS pass without Origin or token (another site can send them, by
    an <img src>, though not read the answer): none of them writes anything."""
    out = tmp_path / "out"
    app = create_app(Counting(), out_dir=out)
    c = app.test_client()
    for method, url in routes(app):
        if method in SAFE:
            for query in ("", "?path=0.0", "?path=0&what=itf"):
                c.open(url + query, method=method, headers={"Origin": "http://evil.example"})
    assert not out.exists()


def test_a_dns_rebinding_page_reads_nothing_and_writes_nothing(tmp_path):
    """attacker.example resolved to 127.0.0.1: the browser sends the attacker's Host and
    Origin. The page (and its token), the states, the out folder: all 403; nothing saved."""
    opener, out = Counting(), tmp_path / "out"
    app = create_app(opener, out_dir=out)
    c = app.test_client()
    forged = {"Host": "attacker.example", "Origin": "http://attacker.example"}
    said_back = [c.get(u, headers=forged) for u in ("/", "/api/config", "/api/view?path=0", "/api/timeline",
                                                     "/api/export/itf?path=0")]
    said_back += [c.post("/api/export", json={"path": [0], "what": w}, headers=forged) for w in ("itf", "test")]
    said_back.append(c.post("/api/search", json=BODY, headers=forged))
    assert [a.status_code for a in said_back] == [403] * len(said_back)
    text = "".join(a.get_data(as_text=True) for a in said_back)
    assert _token(app) not in text and str(tmp_path) not in text and "groupcheck-token" not in text
    assert opener.calls == 0 and not out.exists()


def test_the_token_is_random_per_server_and_only_in_the_page():
    a, b = create_app(Counting()), create_app(Counting())
    assert _token(a) != _token(b) and len(_token(a)) >= 40
    c = a.test_client()
    for method, url in routes(a):
        if url != "/":
            assert _token(a) not in c.open(url, method=method, json=BODY).get_data(as_text=True), url


def test_every_answer_forbids_sniffing_framing_and_foreign_scripts():
    app = create_app(Counting())
    c = app.test_client()
    for method, url in routes(app):
        h = c.open(url, method=method, headers={"Origin": PAGE}).headers
        assert h["X-Content-Type-Options"] == "nosniff", url
        assert "script-src 'self'" in h["Content-Security-Policy"] and "frame-ancestors 'none'" in \
            h["Content-Security-Policy"], url


# ------------------------------------------------------------------ no path of the machine


@pytest.fixture(scope="module")
def deep(tmp_path_factory) -> tuple[Path, Path, list[int]]:
    """KAFKA-13419's counterexample in a folder of its own, and a groupcheck trace there
    whose path no longer replays (it opens read-only)."""
    folder = tmp_path_factory.mktemp("where-traces-lie") / "a" / "b"
    folder.mkdir(parents=True)
    job = variant_job("KAFKA-13419")
    v = bfs(job.protocol.model, job.scope).violation
    good = folder / "k13419.itf.json"
    trace = traces.build(job.protocol.model, job.scope, v.path, {"violation": {"property": v.property,
                                                                              "message": v.message}})
    good.write_text(itf.dumps(trace))
    stale = folder / "stale.itf.json"
    trace["#meta"]["path"] = v.path + [999]
    stale.write_text(itf.dumps(trace))
    return good, stale, v.path


def _machine_paths(*more: Path) -> list[str]:
    return [p for p in {str(ROOT), os.getcwd(), str(Path.home()), *map(str, more)} if len(p) > 1]


def _everything_said(answer) -> str:
    return answer.get_data(as_text=True) + json.dumps(dict(answer.headers))


def _walk(c, app, dots: str) -> list:
    """Every route, each method, with and without a path; a search run to its end."""
    answers = []
    for method, url in routes(app):
        for query in ("", f"?path={dots}"):
            answers.append(c.open(url + query, method=method, json={**BODY, "path": [int(x) for x in dots.split(".")]}))
    key = c.post("/api/search", json={"path": [0], "mode": "bfs"}).get_json()["id"]
    while not (done := c.get(f"/api/search/{key}")).get_json()["done"]:
        answers.append(done)
        time.sleep(0.05)
    return answers + [done]


def test_no_answer_names_a_path_of_the_machine(deep, tmp_path):
    good, stale, path = deep
    out = tmp_path / "saved" / "out"
    app = create_app(_opener(str(good), None, None, None, {}), out_dir=out)     # as groupcheck explore serves it
    c = page_client(app)
    answers = _walk(c, app, ".".join(map(str, path)))
    saved = [a.get_json()["written"] for a in answers if a.request.path == "/api/export"
             and a.request.method == "POST" and a.status_code == 200]
    assert saved and all(out.joinpath(w).is_file() for w in saved)              # the saves said where, by name
    readonly = create_app(_opener(str(stale), None, None, None, {}))
    note = readonly.test_client().get("/api/view").get_json()["note"]
    assert note.startswith("opened read-only: stale.itf.json: ")                 # the file by its name
    answers.append(readonly.test_client().get("/api/view"))
    for a in answers:
        text = _everything_said(a)
        assert not [p for p in _machine_paths(good.parent, out, tmp_path) if p in text], (a.request.url, text[:400])


def test_no_refusal_names_a_path_of_the_machine(deep, tmp_path):
    good, _, path = deep
    moved = tmp_path / "where" / "k.itf.json"
    moved.parent.mkdir()
    moved.write_text(good.read_text())
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    said_back = []
    vanishing = create_app(_opener(str(moved), None, None, None, {}), out_dir=blocked / "out")
    c = page_client(vanishing)
    said_back.append(c.post("/api/export", json={"path": path, "what": "itf"}))   # --out under a file: cannot save
    assert said_back[-1].status_code == 400 and "cannot save into the --out folder" in said_back[-1].get_json()["error"]
    moved.unlink()                                                                 # the trace gone while served
    said_back.append(c.get("/api/view"))
    assert said_back[-1].status_code == 400 and "k.itf.json" in said_back[-1].get_json()["error"]

    def broken():
        raise PermissionError(13, "Permission denied", str(tmp_path / "secret" / "x.json"))
    said_back.append(page_client(create_app(broken)).get("/api/view"))             # a bug of ours: a 500
    assert said_back[-1].status_code == 500 and "x.json" in said_back[-1].get_json()["error"]
    full = tmp_path / "full"
    crowded = page_client(create_app(_opener(str(good), None, None, None, {}), out_dir=full))
    first = crowded.post("/api/export", json={"path": path, "what": "itf"}).get_json()["written"]
    (full / first).write_text("edited")
    for n in range(2, 100):
        (full / first.replace(".itf.json", f"-{n}.itf.json")).write_text("another")
    said_back.append(crowded.post("/api/export", json={"path": path, "what": "itf"}))
    assert said_back[-1].status_code == 400 and "99 files" in said_back[-1].get_json()["error"]
    for a in said_back:
        text = _everything_said(a)
        assert not [p for p in _machine_paths(tmp_path, good.parent) if p in text], (a.request.url, text[:400])


def test_an_os_error_is_said_by_its_reason_and_file_name():
    assert said(FileNotFoundError(2, "No such file or directory", "/home/someone/secret/t.json")) == \
        "FileNotFoundError: No such file or directory (t.json)"
    assert said(ValueError("bad value")) == "ValueError: bad value"
