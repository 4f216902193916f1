"""The explorer's web server: a thin Flask app over ``Session.view()``.

Stateless but for searches in flight: every request opens a fresh session from the
model (``opener()``) and replays the path its URL names, so a link is a state and the
server keeps nothing else. It reads the trace and the model only; it writes nothing but
the exports a person saves, into the ``out_dir`` the command line named.

It answers only its own page (``guard.py``: Host, Origin and the page's token), and no
answer names a path of the machine: a saved file is named by its name in ``out_dir``.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from importlib import resources
from pathlib import Path
from typing import Callable

from flask import Flask, Response, jsonify, render_template, request, send_from_directory
from werkzeug.exceptions import HTTPException
from werkzeug.serving import WSGIRequestHandler

from groupcheck.model import itf

from .. import traces
from ..checker import Budget
from ..outputs import OutputExists, atomic_write_text
from . import guard, search
from .readonly import Recording
from .session import ExploreError, Session

STATIC = Path(__file__).parent / "static"
MAX_JOBS = 4                 # searches running at once
JOB_TTL = 60.0               # seconds a finished search's result is kept if nobody reads it
MAX_BODY = 64 * 1024         # bytes of a POST body (a path of MAX_STEPS indices fits)


class BadRequest(ValueError):
    """Input the server refuses (answered 400 with the message)."""


class QuietRequests(WSGIRequestHandler):
    """werkzeug's request handler without its access log (a line per request on stderr);
    errors are still logged. ``groupcheck explore --log`` serves with werkzeug's own."""

    def log_request(self, code="-", size="-") -> None:
        pass


def said(e: Exception) -> str:
    """An exception as the page may see it: an OSError by its reason and the file's name,
    never its path."""
    if isinstance(e, OSError) and e.strerror:
        return f"{type(e).__name__}: {e.strerror}" + (f" ({Path(str(e.filename)).name})" if e.filename else "")
    return f"{type(e).__name__}: {e}"


def _index(p: str) -> bool:
    return p.isascii() and p.isdigit() and len(p) <= 6


def _path(text: str | None) -> list[int] | None:
    """``"0.3.1"`` as ``[0, 3, 1]``; None for no path (an empty one is refused)."""
    if text is None:
        return None
    if not text.strip():
        raise BadRequest("path is empty: give the initial-state index and action indices separated by dots, "
                         "e.g. 0.3.1 (or leave path out for the start)")
    parts = text.split(".")
    if len(parts) > traces.MAX_STEPS + 1 or not all(_index(p) for p in parts):
        raise BadRequest(f"path {text[:80]!r}: give the initial-state index and action indices separated by "
                         "dots, e.g. 0.3.1")
    return [int(p) for p in parts]


def _json_path(value) -> list[int]:
    if (not isinstance(value, list) or not value
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in value)):
        raise BadRequest("path: give a non-empty list of non-negative integers, e.g. [0, 3, 1]")
    return value


def _name(session: Session, what: str, n: int = 1) -> str:
    """The export's file name, made of the protocol, the first property broken along the
    path and a digest of scope and path (never of user input); ``n`` > 1 for the n-th
    file of that name in a folder."""
    found = session.first_violation()
    prop = found.property if found is not None and found.step <= session.depth else "no_violation"
    digest = hashlib.sha256(json.dumps([session.model.view.scope_to_dict(session.scope), session.path],
                                       sort_keys=True).encode()).hexdigest()[:8]
    if what == "itf":
        return f"{session.protocol.name}-{prop}-{digest}{f'-{n}' if n > 1 else ''}.itf.json"
    # a test module's name: underscores only, so pytest imports it under any import mode
    return f"test_{session.protocol.name.replace('-', '_')}_{prop}_{digest}{f'_{n}' if n > 1 else ''}.py"


def _save(out_dir: Path, s: Session, what: str, text: str) -> str:
    """Write ``text`` into ``out_dir`` under the export's name, never over another file;
    the name written (relative to ``out_dir``: the page never sees the machine's paths)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for n in range(1, 100):
        target = out_dir / _name(s, what, n)
        if target.exists() and target.read_text() == text:
            return target.name                             # saved before: kept, not doubled
        try:
            atomic_write_text(target, text)                # whole or not at all, never over a file
            return target.name
        except OutputExists:
            continue
    raise BadRequest(f"the --out folder has 99 files named {_name(s, what)} and its numbered copies already")


class _Jobs:
    """Searches running in threads: progress while they run, the result once done."""

    def __init__(self):
        self.lock = threading.Lock()
        self.jobs: dict[str, dict] = {}

    def start(self, session: Session, mode: str, limits: dict) -> str:
        with self.lock:
            now = time.monotonic()
            for k in [k for k, j in self.jobs.items() if j["done"] and now - j["ended"] > JOB_TTL]:
                del self.jobs[k]                       # finished a minute ago and never read
            if sum(not j["done"] for j in self.jobs.values()) >= MAX_JOBS:
                raise BadRequest(f"{MAX_JOBS} searches are running; stop one first")
            key = uuid.uuid4().hex[:12]
            job = self.jobs[key] = {"done": False, "explored": 0, "depth": 0, "started": now, "ended": 0.0,
                                    "result": None, "budget": Budget(), "error": None}

        def progress(explored: int, depth: int) -> None:
            job["explored"], job["depth"] = explored, depth

        def work() -> None:
            try:
                r = search.run(session, mode, progress=progress, budget=job["budget"], **limits)
                job["explored"] = r.explored
                job["result"] = {"text": r.text(), "path": r.path, "property": r.property, "message": r.message,
                                 "cut": r.cut, "complete": r.complete}
            except Exception as e:          # noqa: BLE001 - reported to the page, never lost
                job["error"] = said(e)
            finally:
                job["ended"], job["done"] = time.monotonic(), True

        threading.Thread(target=work, daemon=True).start()
        return key

    def get(self, key: str) -> dict:
        job = self.jobs.get(key)
        if job is None:
            raise BadRequest(f"no search {key[:20]!r}: a finished search is reported once, or kept "
                             f"{JOB_TTL:.0f} s if nobody asks")
        return job

    def report(self, key: str) -> dict:
        """The search's progress; once it is done, its result (then it is forgotten)."""
        job = self.get(key)
        done = job["done"]
        answer = {"done": done, "explored": job["explored"], "depth": job["depth"],
                  "seconds": round((job["ended"] or time.monotonic()) - job["started"], 2),
                  "result": job["result"], "error": job["error"]}
        if done:
            with self.lock:
                self.jobs.pop(key, None)
        return answer


def create_app(opener: Callable[[], Session | Recording], out_dir: Path | None = None,
               host: str | None = None) -> Flask:
    """The app serving the sessions ``opener`` makes; saved exports go into ``out_dir``.
    It answers requests addressed to the loopback names or ``host`` (``--host``) only."""
    app = Flask(__name__, static_folder=None, template_folder=str(STATIC))
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    token = guard.install(app, host)
    jobs = _Jobs()

    def at() -> Session | Recording:
        """A fresh session at the state the query names (?path=0.3.1; a read-only trace: ?at=3)."""
        s = opener()
        if isinstance(s, Recording):
            raw = request.args.get("at", request.args.get("path"))
            if raw is not None:
                if not _index(raw):
                    raise BadRequest(f"at {raw[:40]!r}: give a state index, e.g. at=3")
                s.goto(int(raw))
            return s
        path = _path(request.args.get("path"))
        return s.goto(path) if path is not None else s

    def session_for(path: list[int] | None) -> Session:
        s = opener()
        if isinstance(s, Recording):
            raise BadRequest("this trace is read-only: nothing to search or export")
        return s.goto(path) if path is not None else s

    @app.errorhandler(BadRequest)
    @app.errorhandler(ExploreError)
    @app.errorhandler(ValueError)
    def refused(e):
        return jsonify({"error": str(e)}), 400

    @app.errorhandler(HTTPException)
    def not_here(e):             # 404, 405, 413, ...: said in JSON like every refusal
        return jsonify({"error": f"{request.method} {request.path}: {e.name.lower()}"}), e.code

    @app.errorhandler(Exception)
    def broken(e):               # a bug of ours: said plainly, never a traceback page
        app.logger.exception("internal error")      # the traceback on the terminal serving
        return jsonify({"error": f"internal error ({said(e)})"}), 500

    @app.get("/")
    def index():                 # the page, holding the token its state-changing requests send
        page = render_template("index.html", token=token)
        return Response(page, mimetype="text/html", headers={"Cache-Control": "no-store"})

    @app.get("/static/plotly.min.js")
    def plotly_js():
        js = resources.files("plotly") / "package_data" / "plotly.min.js"
        return Response(js.read_bytes(), mimetype="text/javascript",
                        headers={"Cache-Control": "max-age=86400"})

    @app.get("/static/<name>")
    def static_file(name: str):
        return send_from_directory(STATIC, name)

    @app.get("/api/config")
    def config():
        s = opener()
        return jsonify({"out_dir": out_dir.name if out_dir else None, "readonly": isinstance(s, Recording),
                        "modes": list(search.MODES), "max_states": search.MAX_STATES,
                        "max_seconds": search.MAX_SECONDS})

    @app.get("/api/view")
    def view():
        return jsonify(at().view())

    @app.get("/api/timeline")
    def timeline():
        s = at()
        tl = None if isinstance(s, Recording) else s.timeline()
        if tl is None:
            return jsonify(None)
        return jsonify({**tl.figure_json(), "marks": tl.mark_list()})    # marks: the offsets track in words

    @app.post("/api/search")
    def start_search():
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            raise BadRequest("give a JSON object: {\"path\": [...], \"mode\": \"bfs\" or \"walks\"}")
        mode = body.get("mode", "bfs")
        if mode not in search.MODES:
            raise BadRequest(f"mode {str(mode)[:20]!r}: give one of {', '.join(search.MODES)}")
        limits = {}
        for key, cap, kind in (("max_states", search.MAX_STATES, int), ("max_seconds", search.MAX_SECONDS, float)):
            value = body.get(key, cap)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise BadRequest(f"{key}: give a positive number (at most {cap:,})")
            limits[key] = kind(min(value, cap))
        if mode == "walks":
            limits.pop("max_states")
        return jsonify({"id": jobs.start(session_for(_json_path(body.get("path"))), mode, limits)})

    @app.get("/api/search/<key>")
    def search_status(key: str):
        return jsonify(jobs.report(key))

    @app.delete("/api/search/<key>")
    def search_stop(key: str):
        jobs.get(key)["budget"].interrupted = True
        return jsonify({"stopping": key})

    def export_text(s: Session, what: str) -> str:
        if what == "itf":
            return itf.dumps(s.itf())
        if what == "test":
            return s.test_text()
        raise BadRequest(f"what {str(what)[:20]!r}: give itf or test")

    @app.get("/api/export/<what>")
    def download(what: str):
        s = session_for(_path(request.args.get("path")))
        body = export_text(s, what)
        kind = "application/json" if what == "itf" else "text/x-python"
        return Response(body, mimetype=kind,
                        headers={"Content-Disposition": f'attachment; filename="{_name(s, what)}"'})

    @app.post("/api/export")
    def save():
        if out_dir is None:
            raise BadRequest("start groupcheck explore with --out DIR to save files; the links download them")
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            raise BadRequest("give a JSON object: {\"path\": [...], \"what\": \"itf\" or \"test\"}")
        s = session_for(_json_path(body.get("path")))
        text = export_text(s, body.get("what"))
        try:
            return jsonify({"written": _save(out_dir, s, body["what"], text)})
        except OSError as e:
            raise BadRequest(f"cannot save into the --out folder: {e.strerror or type(e).__name__}") from None

    return app
