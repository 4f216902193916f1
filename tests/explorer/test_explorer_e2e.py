"""The explorer as a person uses it, in real headless Chromium (Debian's package, driven by
Playwright): open a counterexample of each protocol, follow it to the violation, branch,
jump, search, export the regression test and run it, read a foreign trace; values that are
markup (``<script>``, ``<img onerror>``) in a trace show as text and never run. Screenshots
are taken along the way and checked."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from groupcheck import traces
from groupcheck.checker import bfs
from groupcheck.explorer import open_trace, open_variant
from groupcheck.explorer.server import create_app
from groupcheck.protocols import variant_job
from groupcheck.model import itf

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
SHOTS = Path("/tmp/explorer-shots")        # a copy of every screenshot, for a person to look at
# per protocol: a known bug with a short counterexample, and the property it breaks
KNOWN = {"consumer": "KAFKA-13419", "streams-classic": "KAFKA-8649",
         "streams-group": "KAFKA-20899", "consumer-group": "KAFKA-16147"}


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as the "
                    "README's test command does")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: "Content Security Policy" in m.text and errors.append(m.text))   # the page's own CSP
    yield pg
    context.close()
    assert errors == [], errors                 # no script error on any page


@pytest.fixture(scope="module")
def serve():
    """``serve(opener, out_dir=None)``: the app served in-process on a free port (each
    worker its own), its URL; every server is stopped when the module ends."""
    servers = []

    def start(opener, out_dir: Path | None = None) -> str:
        server = make_server("127.0.0.1", 0, create_app(opener, out_dir), threaded=True)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()   # quick to stop
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def counterexamples(tmp_path_factory) -> dict[str, tuple[Path, list[int], str]]:
    out = {}
    folder = tmp_path_factory.mktemp("traces")
    for protocol, key in KNOWN.items():
        job = variant_job(key)
        v = bfs(job.protocol.model, job.scope).violation
        f = folder / f"{key}.itf.json"
        f.write_text(itf.dumps(traces.build(job.protocol.model, job.scope, v.path,
                                            {"violation": {"property": v.property, "message": v.message}})))
        out[protocol] = (f, v.path, v.property)
    return out


def ready(page, previous: str | None = None) -> str:
    """Wait until the page has rendered a view (another one than ``previous``); its path."""
    page.wait_for_function(
        "prev => document.body.dataset.ready === '1' && (prev === null || document.body.dataset.path !== prev)",
        arg=previous, timeout=20_000)
    return page.evaluate("document.body.dataset.path")


def shot(page, tmp_path: Path, name: str) -> Path:
    target = tmp_path / f"{name}.png"
    page.screenshot(path=str(target), full_page=True)
    assert target.exists() and target.stat().st_size > 20_000, f"{target}: {target.stat().st_size} bytes"
    try:
        SHOTS.mkdir(exist_ok=True)
        shutil.copy(target, SHOTS / target.name)
    except OSError:
        pass
    return target


def _dots(path) -> str:
    return ".".join(map(str, path))


@pytest.mark.parametrize("protocol", list(KNOWN))
def test_follow_a_counterexample_to_its_violation(page, serve, counterexamples, tmp_path, protocol):
    f, path, prop = counterexamples[protocol]
    page.goto(serve(lambda: open_trace(f)))
    at = ready(page)
    assert at == _dots(path[:1]) and page.inner_text("#position") == f"step 0 of {len(path) - 1}"
    assert "at step" in page.inner_text("#violation-banner")       # the trace's violation, ahead
    assert not page.is_visible("#save")                            # no out dir: downloads only
    for step in range(1, len(path)):
        nxt = page.locator("#actions a.action.next")
        assert nxt.count() == 1 and nxt.get_attribute("data-index") == str(path[step])
        if step == len(path) - 1:                                  # the last step says what it breaks
            assert nxt.get_attribute("data-breaks") == prop
        if step % 2:
            page.click("#forward")
        else:
            nxt.click()
        at = ready(page, at)
        assert at == _dots(path[: step + 1]) and f"path={at}" in page.url
    assert page.inner_text("#position") == f"step {len(path) - 1} of {len(path) - 1}"
    assert page.inner_text("#action") == open_trace(f).to_violation().action_text()
    assert page.get_attribute(f'#properties tr[data-property="{prop}"]', "data-status") == "violated"
    banner = page.inner_text("#violation-banner")
    assert prop in banner and "at this state" in banner and page.locator("#violation-banner #to-violation").count()
    assert page.locator("#actions a.action.next").count() == 0     # the end of the trace
    page.wait_for_selector("#timeline svg.main-svg")
    tl = open_trace(f).to_violation().timeline()           # a bar per owner per step, as the API has it
    assert page.locator("#timeline .point").count() == sum(len(o) for at in tl.owners for o in at.values())
    assert page.locator("#timeline .shapelayer path").count() >= 1                # the violating step
    shot(page, tmp_path, f"violation-{protocol}")


def test_a_bar_of_the_timeline_goes_to_its_step(page, serve, counterexamples):
    f, path, _ = counterexamples["consumer"]
    page.goto(f"{serve(lambda: open_trace(f))}?path={_dots(path)}")
    at = ready(page)
    page.wait_for_selector("#timeline .point")
    box = page.locator("#timeline .point").first.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    there = ready(page, at)
    assert path[: len(there.split("."))] == [int(x) for x in there.split(".")] and there != at


def test_branch_off_the_trace(page, serve, counterexamples, tmp_path):
    f, path, _ = counterexamples["consumer"]
    page.goto(f"{serve(lambda: open_trace(f))}?path={_dots(path)}")
    at = ready(page)
    for _ in range(2):
        page.click("#back")
        at = ready(page, at)
    assert at == _dots(path[:-2]) and page.locator("#actions a.action.next").count() == 1
    other = page.locator("#actions a.action:not(.next)").first
    index = other.get_attribute("data-index")
    assert int(index) != path[-2]
    other.click()
    at = ready(page, at)
    assert at == _dots(path[:-2] + [int(index)]) and f"path={at}" in page.url
    assert page.locator("#actions a.action.next").count() == 0      # off the trace: nothing ahead
    assert page.locator("#diff li").count() > 0
    shot(page, tmp_path, "branch-consumer")


def test_jump_to_the_violation_and_through_the_history(page, serve, counterexamples, tmp_path):
    f, path, prop = counterexamples["consumer-group"]
    url = serve(lambda: open_trace(f))
    page.goto(url)
    start = at = ready(page)
    page.click("#violation-banner #to-violation")                   # the banner's link
    at = ready(page, at)
    assert at == _dots(path)
    page.go_back()
    at = ready(page, at)
    assert at == start
    page.click("#first-violation")
    at = ready(page, at)
    assert at == _dots(path)
    page.click('#history a[data-step="3"]')
    at = ready(page, at)
    assert at == _dots(path[:4]) and page.inner_text("#position") == f"step 3 of {len(path) - 1}"
    page.go_back()
    at = ready(page, at)
    assert at == _dots(path)
    assert page.get_attribute(f'#properties tr[data-property="{prop}"]', "data-status") == "violated"
    page.go_forward()
    at = ready(page, at)
    assert at == _dots(path[:4])
    shot(page, tmp_path, "history-consumer-group")


def test_run_to_a_violation_from_here(page, serve, tmp_path):
    page.goto(serve(lambda: open_variant("KAFKA-20442")))
    at = ready(page)
    assert page.locator("#violation-banner").is_hidden()            # nothing known ahead yet
    page.click("#run-bfs")
    page.wait_for_selector("#search-result a#search-found", timeout=60_000)
    assert "states" in page.inner_text("#search-progress")
    page.click("#search-found")
    at = ready(page, at)
    assert page.get_attribute('#properties tr[data-property="empty_epochs_equal"]', "data-status") == "violated"
    assert page.is_visible("#violation-banner")
    page.click("#run-walks")
    page.wait_for_function("() => document.querySelector('#search-result').textContent.length > 0 && "
                           "document.querySelector('#stop').hidden", timeout=60_000)
    assert "steps" in page.inner_text("#search-progress")
    shot(page, tmp_path, "search-consumer-group")


def test_a_search_stops_on_the_stop_button(page, serve):
    """The stop button's DELETE carries the page's token: the server stops the search."""
    page.goto(serve(lambda: open_variant("KAFKA-16249")))              # 64,109 states to its violation
    ready(page)
    page.click("#run-bfs")
    page.wait_for_selector("#stop:not([hidden])")
    page.click("#stop")
    page.wait_for_function("() => document.querySelector('#search-result').textContent.length > 0 && "
                           "document.querySelector('#stop').hidden", timeout=30_000)
    assert "stopped by interrupted" in page.inner_text("#search-result")


def test_export_the_regression_test_and_run_it(page, serve, counterexamples, tmp_path):
    f, path, prop = counterexamples["consumer"]
    out = tmp_path / "out"
    page.goto(f"{serve(lambda: open_trace(f), out_dir=out)}?path={_dots(path)}")
    ready(page)
    with page.expect_download() as got:
        page.click("#export-test")
    test = tmp_path / got.value.suggested_filename
    got.value.save_as(test)
    assert test.name.startswith(f"test_consumer_{prop}_")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"})
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout + run.stderr
    with page.expect_download() as got:
        page.click("#export-itf")
    trace = tmp_path / "exported.itf.json"
    got.value.save_as(trace)
    assert open_trace(trace).ahead == path[1:]
    assert not out.exists()                                         # downloads write nothing on the server
    page.click("#save-test")
    page.wait_for_function("() => document.querySelector('#saved').textContent.includes('written')")
    saved_test = [p for p in out.iterdir()]
    assert len(saved_test) == 1 and saved_test[0].name in page.inner_text("#saved")
    assert saved_test[0].read_text() == test.read_text()
    page.click("#save-itf")
    page.wait_for_function("() => document.querySelector('#saved').textContent.includes('.itf.json')")
    saved_itf = [p for p in out.iterdir() if p != saved_test[0]]
    assert len(saved_itf) == 1 and saved_itf[0].name in page.inner_text("#saved")
    assert open_trace(saved_itf[0]).ahead == path[1:]
    shot(page, tmp_path, "export-consumer")
    # written: the two downloads saved by this test, the out dir's two files, the screenshot
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([test.name, trace.name, "out", "export-consumer.png"])


def test_a_foreign_trace_reads_only(page, serve, tmp_path):
    f = tmp_path / "quint.itf.json"
    f.write_text(json.dumps({"#meta": {"source": "quint"}, "vars": ["x", "owners"], "states": [
        {"#meta": {"index": 0}, "x": 0, "owners": {"#map": [["p0", "a"]]}},
        {"#meta": {"index": 1}, "action_taken": "move", "x": 1, "owners": {"#map": [["p0", "b"]]}}]}))
    page.goto(serve(lambda: open_trace(f)))
    at = ready(page)
    assert page.is_visible("#note") and "read-only" in page.inner_text("#note")
    assert page.inner_text("#position") == "step 0 of 1"
    page.click("#forward")
    at = ready(page, at)
    assert at == "1" and "at=1" in page.url and page.inner_text("#position") == "step 1 of 1"
    assert page.locator("td.changed").count() == 2 and page.locator("#diff li").count() == 2
    assert page.locator("#actions a.action").count() == 0 and not page.is_visible("#run-bfs")
    shot(page, tmp_path, "readonly-quint")
    page.click("#back")
    assert ready(page, at) == "0" and "at=0" in page.url


def test_a_bad_link_says_what_is_wrong(page, serve, counterexamples, tmp_path):
    f, _, _ = counterexamples["consumer"]
    page.goto(f"{serve(lambda: open_trace(f))}?path=0.99")
    ready(page)
    message = page.inner_text("#error")
    assert page.is_visible("#error")
    assert "action index 99 out of range" in message and "Traceback" not in message
    shot(page, tmp_path, "error-consumer")


# values a trace may carry that are markup: each would set window.pwned and the title if it ran
EVIL_IMG = '<img src=x onerror="window.pwned=1;document.title=\'pwned\'">'
EVIL_SCRIPT = "<script>window.pwned=2;document.title='pwned'</script>"
EVIL_LINK = '<a href="javascript:window.pwned=3">link</a>'


def harmless(page) -> None:
    """No markup from the data became an element, and none of it ran."""
    assert page.evaluate("() => window.pwned") is None
    assert page.title() != "pwned"
    assert page.locator("body img, body script, a[href^='javascript']").count() == 0


def test_markup_in_a_foreign_trace_shows_as_text(page, serve, tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    f = folder / f"{EVIL_IMG.replace('/', '')}.itf.json"           # a file name is data too
    f.write_text(json.dumps({"#meta": {"source": "quint", "protocol": EVIL_SCRIPT}, "vars": ["x", EVIL_IMG],
                             "states": [{"x": EVIL_SCRIPT, EVIL_IMG: {"#map": [[EVIL_LINK, EVIL_IMG]]}},
                                        {"action_taken": EVIL_IMG, "x": EVIL_LINK, EVIL_IMG: {"#map": []}}]}))
    page.goto(serve(lambda: open_trace(f)))
    at = ready(page)
    harmless(page)
    assert f.name in page.inner_text("#source") and EVIL_SCRIPT in page.inner_text("#source")
    cells = page.locator("#tables td").all_inner_texts()
    assert EVIL_SCRIPT in cells and any(EVIL_LINK in c and EVIL_IMG in c for c in cells), cells
    assert EVIL_IMG in page.locator("#tables summary").all_inner_texts()[0] + " ".join(
        page.locator("#tables th").all_inner_texts()) + " ".join(cells)
    page.click("#forward")
    ready(page, at)
    harmless(page)
    assert page.inner_text("#action") == EVIL_IMG and EVIL_IMG in page.inner_text("#history")
    assert EVIL_LINK in page.inner_text("#diff") and EVIL_SCRIPT in page.inner_text("#diff")
    assert EVIL_IMG in page.inner_text("#raw-state pre") or page.locator("#raw-state pre").count() == 1
    page.goto(f"{serve(lambda: open_trace(f))}?at={EVIL_IMG}")        # a link whose state index is markup
    ready(page)
    harmless(page)
    assert EVIL_IMG[:40] in page.inner_text("#error")
    shot(page, tmp_path, "markup-foreign")


def test_markup_in_a_recorded_violation_and_a_note_shows_as_text(page, serve, counterexamples, tmp_path):
    f, path, _ = counterexamples["consumer"]
    trace = json.loads(f.read_text())
    trace["#meta"]["violation"] = {"property": EVIL_SCRIPT, "message": EVIL_IMG}
    recorded = tmp_path / "recorded.itf.json"
    recorded.write_text(json.dumps(trace))
    page.goto(f"{serve(lambda: open_trace(recorded))}?path={_dots(path)}")
    ready(page)
    page.wait_for_selector("#timeline .point")
    harmless(page)
    banner = page.inner_text("#violation-banner")
    assert f"the trace records {EVIL_SCRIPT}: {EVIL_IMG}" in banner
    trace["#meta"]["protocol"] = EVIL_IMG                              # a protocol no model has: read-only
    stale = tmp_path / "stale.itf.json"
    stale.write_text(json.dumps(trace))
    page.goto(serve(lambda: open_trace(stale)))
    ready(page)
    harmless(page)
    assert f"unknown protocol {EVIL_IMG!r}" in page.inner_text("#note")
    assert EVIL_IMG in page.inner_text("#source")                      # #meta.protocol, beside the file name
    shot(page, tmp_path, "markup-recorded")


def test_markup_in_the_timeline_labels_shows_as_text(page, serve, counterexamples):
    """The chart's labels come from the model; plotly would read tags in them, so the
    server escapes them: drawn by the page's plotly, each shows as written."""
    from dataclasses import replace

    from groupcheck.explorer.timeline import timeline
    f, path, _ = counterexamples["consumer"]
    s = open_trace(f)
    seen = [{EVIL_IMG: (EVIL_SCRIPT,)}, {EVIL_IMG: (EVIL_SCRIPT, EVIL_LINK)}]
    tl = timeline(replace(s.model, view=replace(s.model.view, owners=lambda scope, state: seen[state])), s.scope, [0, 1],
                  ["init", EVIL_IMG], [(1, EVIL_LINK)])
    page.goto(serve(lambda: open_trace(f)))
    ready(page)
    page.wait_for_selector("#timeline .point")
    page.evaluate("fig => Plotly.react(document.querySelector('#timeline'), fig.data, fig.layout)", tl.figure_json())
    page.wait_for_function("() => document.querySelectorAll('#timeline .point').length === 3")
    harmless(page)
    chart = page.locator("#timeline")
    assert EVIL_IMG in chart.locator(".ytick").all_text_contents()
    assert {EVIL_SCRIPT, EVIL_LINK} <= set(chart.locator(".legendtext").all_text_contents())
    assert EVIL_LINK in chart.locator(".annotation").all_text_contents()
    box = chart.locator(".point").last.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("#timeline .hoverlayer .hovertext")
    hover = " ".join(chart.locator(".hoverlayer .hovertext").all_text_contents())
    assert EVIL_IMG in hover and f"held by {EVIL_LINK}" in hover or f"held by {EVIL_SCRIPT}" in hover, hover
    harmless(page)


def test_the_offsets_track_and_its_marks_on_a_record_counterexample(page, serve, tmp_path):
    """Records on (KAFKA-9741): each partition's row has its offsets track under it, and the
    duplicate is listed in words, a link to its step, the claim it breaks in its label."""
    s = open_variant("KAFKA-9741")
    s.run_to_violation("bfs")
    f = s.export_itf(tmp_path / "kafka-9741.itf.json")
    page.goto(f"{serve(lambda: open_trace(f))}?path={_dots(s.path)}")
    at = ready(page)
    page.wait_for_selector("#record-marks li a")
    assert "t0-1 offsets" in page.locator("#timeline .ytick").all_text_contents()
    link = page.locator("#record-marks li a")
    text = f"step {s.depth}: t0-1 offset 0 processed twice (no fault), by C2"
    assert link.all_text_contents() == [text] and "bad" in link.get_attribute("class")
    assert link.get_attribute("aria-label") == f"{text} (breaks no_duplicate_without_failure)"
    shot(page, tmp_path, "offsets-track")
    page.click("#back")
    before = ready(page, at)
    assert before == _dots(s.path[:-1])
    link.click()                                       # back to the mark's step
    assert ready(page, before) == _dots(s.path)
