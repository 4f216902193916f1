// groupcheck explore: a thin view over /api/view. The URL is the state (?path=0.3.1, or
// ?at=3 for a read-only trace); every link is a state, and the browser's back and
// forward walk the history.
"use strict";

const $ = (sel) => document.querySelector(sel);
let V = null;          // the view shown
let C = null;          // /api/config
let job = null;        // the search in flight
let loading = 0;       // the latest load(); an older one finishing later is dropped

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function query() {
  const q = new URLSearchParams(location.search);
  if (C && C.readonly) return q.has("at") ? `at=${encodeURIComponent(q.get("at"))}` : "";
  return q.has("path") ? `path=${encodeURIComponent(q.get("path"))}` : "";
}

function href(path) {
  return C.readonly ? `?at=${path}` : `?path=${path.join(".")}`;
}

function go(target) {            // target: a path (array) or, read-only, a state index
  history.pushState(null, "", href(target));
  $("#saved").textContent = "";    // it named the file saved from the state left
  load();
}

function linkTo(target, text, attrs = {}) {
  return el("a", { href: href(target), onclick: (e) => { e.preventDefault(); go(target); }, ...attrs, text });
}

// what a request that changes something (a search started or stopped, a file saved) carries:
// the server's token, which only this page holds (guard.py)
const TOKEN = document.querySelector('meta[name="groupcheck-token"]').content;

function changing(method, body) {
  const headers = { "X-Groupcheck-Token": TOKEN };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

async function api(url, options) {
  let r;
  try { r = await fetch(url, options); } catch (e) { throw new Error(`the explorer's server does not answer (${e.message}); is groupcheck explore still running?`); }
  const body = await r.json().catch(() => null);
  if (!r.ok) throw new Error(body && body.error ? body.error : `${url.split("?")[0]}: ${r.status} ${r.statusText}`);
  return body;
}

function showError(message) {
  const box = $("#error");
  box.textContent = message;
  box.hidden = !message;
  if (message && !V) box.append(" ", el("a", { href: "?", text: "go to the start" }));   // nothing shown yet
}

async function load() {
  const mine = ++loading;
  document.body.dataset.ready = "0";
  try {
    if (!C) C = await api("/api/config");
    document.body.classList.toggle("readonly", C.readonly);
    const view = await api(`/api/view?${query()}`);
    if (mine !== loading) return;
    V = view;
    showError("");
    render();
    if (!C.readonly) await drawTimeline(mine);
  } catch (e) {
    if (mine !== loading) return;
    showError(e.message);
  }
  if (mine !== loading) return;
  document.body.dataset.path = V ? (V.readonly ? String(V.depth) : V.path.join(".")) : "";
  document.body.dataset.ready = "1";
}

function whole() { return V.path.concat(V.ahead); }

function render() {
  const length = V.readonly ? V.length : V.depth + V.ahead.length;
  $("#source").textContent = V.source + (V.protocol ? ` · ${V.protocol}` : "");
  $("#scope").textContent = V.readonly ? "" : `${V.scope_text} · behaviour ${V.profile_label}`;
  document.title = `step ${V.depth} · ${V.source} · groupcheck explore`;
  $("#position").textContent = `step ${V.depth} of ${length}`;
  $("#back").disabled = V.depth === 0;
  $("#forward").disabled = V.readonly ? V.depth >= V.length : false;
  $("#forward").title = V.readonly ? "the next state of the trace" : V.ahead.length
    ? "the next step of the trace" : "nothing ahead on this path: the browser's forward";
  $("#note").hidden = !V.note;
  $("#note").textContent = V.note || "";
  $("#action").textContent = V.action;
  $("#events").replaceChildren(...V.events.map((t) => el("li", { text: t })));
  renderBanner();
  renderDiff();
  renderTables();
  $("#raw-state pre").textContent = JSON.stringify(V.state, null, 1);
  if (!V.readonly) {
    renderProperties();
    renderActions();
    $("#export-itf").href = `/api/export/itf?path=${V.path.join(".")}`;
    $("#export-test").href = `/api/export/test?path=${V.path.join(".")}`;
    $("#save").hidden = !C.out_dir;
  }
  $("#history").replaceChildren(...V.history.map((h) => {
    const target = V.readonly ? h.step : whole().slice(0, h.step + 1);
    const a = linkTo(target, h.action, { "data-step": h.step });
    const li = el("li", { class: h.step === V.depth ? "current" : h.step > V.depth ? "ahead" : "" }, a);
    if (V.first_violation && V.first_violation.step === h.step) li.classList.add("broken");
    return li;
  }));
}

function renderBanner() {        // #violation-banner exists only while there is a violation to show
  const old = $("#violation-banner");
  if (old) old.remove();
  const f = V.first_violation;
  const recorded = V.recorded ? el("div", { class: "recorded", text: `the trace records ${V.recorded.property}: ${V.recorded.message}` }) : "";
  if (!f) {
    $("#recorded").replaceChildren(recorded);      // a recording the model no longer reproduces
    return;
  }
  $("#recorded").replaceChildren();
  const where = f.step === V.depth ? "at this state" : f.step < V.depth ? `back at step ${f.step}` : `at step ${f.step}`;
  const b = el("div", { id: "violation-banner" }, el("strong", { text: `${f.property} violated ${where}: ` }), f.message, " ");
  if (f.step !== V.depth) b.append(linkTo(whole().slice(0, f.step + 1), `go to step ${f.step}`, { id: "to-violation" }));
  else b.append(el("a", { id: "to-violation", href: href(V.path), text: "(here)" }));
  b.append(recorded);
  $("#note").after(b);
}

function renderDiff() {
  const items = V.diff.map((c) => {
    const li = el("li", {}, el("code", { text: c.field || "(the whole state)" }), " ",
      el("span", { class: "before", text: c.before }), " → ", el("span", { class: "after", text: c.after }));
    if (c.added && c.added.length) li.append(" ", el("span", { class: "added", text: `+${c.added.join(", ")}` }));
    if (c.removed && c.removed.length) li.append(" ", el("span", { class: "removed", text: `−${c.removed.join(", ")}` }));
    return li;
  });
  $("#diff").replaceChildren(...items);
  $("#no-diff").textContent = items.length ? "" : V.depth ? "no change" : "no change: the initial state";
}

function renderTables() {
  $("#tables").replaceChildren(...V.tables.map((t, i) => {
    const changed = t.rows.some((row) => row.some((c) => c.changed));
    const head = el("tr", {}, ...t.columns.map((c) => el("th", { text: c })));
    const rows = t.rows.map((row) => el("tr", {}, ...row.map((c) => el("td", { class: (c.changed ? "changed" : "") + (c.text.length > 32 ? " long" : ""), title: c.path, text: c.text }))));
    const d = el("details", { class: "state-table", "data-title": t.title },
      el("summary", { text: t.title + (changed ? "  (changed)" : "") }),
      el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)));
    d.open = changed || i === 0 || V.tables.length === 1;
    return d;
  }));
}

function renderProperties() {
  $("#properties tbody").replaceChildren(...V.properties.map((p) => {
    const first = p.first_broken === null ? "" : linkTo(whole().slice(0, p.first_broken + 1), `step ${p.first_broken}`,
      { title: `first broken at step ${p.first_broken} of this path` });
    // the message under the name; "not judged" says why in its tooltip (every step claim at step 0)
    const name = el("td", {}, el("span", { class: "name", text: p.name }));
    if (p.message && p.status !== "not judged") name.append(el("div", { class: "message", text: p.message }));
    return el("tr", { "data-property": p.name, "data-status": p.status, class: p.status.replace(" ", "-"), title: p.doc },
      name, el("td", { text: p.kind }), el("td", { text: p.status, title: p.message || p.doc }), el("td", {}, first));
  }));
}

function renderActions() {
  $("#actions").replaceChildren(...V.actions.map((m) => {
    const attrs = { class: "action" + (m.fault ? " fault" : ""), "data-index": m.index, "data-kind": m.kind };
    if (m.breaks) { attrs["data-breaks"] = m.breaks.property; attrs.title = `${m.breaks.property}: ${m.breaks.message}`; }
    if (V.ahead.length && V.ahead[0] === m.index) attrs.class += " next";
    const a = linkTo(V.path.concat([m.index]), m.text, attrs);
    const li = el("li", {}, a);
    if (V.ahead.length && V.ahead[0] === m.index) li.append(el("span", { class: "tag", text: "next in trace" }));
    if (m.breaks) li.append(el("span", { class: "tag bad", text: `breaks ${m.breaks.property}` }));
    return li;
  }));
  if (!V.actions.length) $("#actions").append(el("p", { class: "quiet", text: "no action is enabled here" }));
}

async function drawTimeline(mine) {
  const fig = await api(`/api/timeline?${query()}`);
  if (mine !== loading) return;
  const box = $("#timeline");
  if (!fig || !window.Plotly) { box.textContent = "no ownership timeline for this model"; return; }
  $("#timeline-note").textContent = fig.data.length ? "" : "nobody owns a partition or task at any step of this path";
  const layout = fig.layout;
  // the current step: a band behind the bars and a vertical line through them
  layout.shapes = (layout.shapes || []).concat([
    { type: "rect", xref: "x", yref: "paper", x0: V.depth - 0.5, x1: V.depth + 0.5, y0: 0, y1: 1, fillcolor: "rgba(255, 200, 0, 0.18)", line: { width: 0 }, layer: "below" },
    { type: "line", xref: "x", yref: "paper", x0: V.depth, x1: V.depth, y0: 0, y1: 1, line: { color: "#b08800", width: 2 } }]);
  await Plotly.react(box, fig.data, layout, { displaylogo: false, responsive: true });
  showMarks(fig.marks || []);
  box.removeAllListeners && box.removeAllListeners("plotly_click");
  box.on("plotly_click", (ev) => {
    const step = ev.points.length ? ev.points[0].customdata : null;
    if (step !== null && step !== undefined && step < whole().length) go(whole().slice(0, step + 1));
  });
}

// the offsets track's marks (records on) in words: a record processed twice or lost, each a link to its step
function showMarks(marks) {
  const list = $("#record-marks");
  list.hidden = !marks.length;
  list.replaceChildren(...marks.map((m) => {
    const text = `step ${m.step}: ${m.text}`;
    const attrs = { class: m.broken ? "bad" : "excused", title: m.broken ? `${text} (breaks ${m.broken})` : text };
    return el("li", {}, linkTo(whole().slice(0, m.step + 1), text, { ...attrs, "aria-label": attrs.title }));
  }));
}

async function runSearch(mode) {
  if (job) return;
  $("#search-result").replaceChildren();
  try {
    const { id } = await api("/api/search", changing("POST", { path: V.path, mode }));
    job = id;
    $("#stop").hidden = false;
    $("#run-bfs").disabled = $("#run-walks").disabled = true;
    for (;;) {
      const s = await api(`/api/search/${id}`);
      $("#search-progress").textContent = `${s.done ? "" : "searching… "}${mode}: ${s.explored.toLocaleString()} ${mode === "bfs" ? "states" : "steps"}, ${s.seconds} s`;
      if (s.done) { showResult(s); break; }
      await new Promise((r) => setTimeout(r, 300));
    }
  } catch (e) {
    showError(e.message);
  }
  job = null;
  $("#stop").hidden = true;
  $("#run-bfs").disabled = $("#run-walks").disabled = false;
}

function showResult(s) {
  const box = $("#search-result");
  if (s.error) { box.textContent = s.error; return; }
  const r = s.result;
  box.replaceChildren(r.text);
  if (r.path) box.append(" ", linkTo(r.path, `go to the ${r.property} violation`, { id: "search-found" }));
}

async function save(what) {
  try {
    const r = await api("/api/export", changing("POST", { path: V.path, what }));
    $("#saved").textContent = `written: ${C.out_dir}/${r.written}`;    // named within --out, never by a path of the machine
  } catch (e) { showError(e.message); }
}

function wire() {
  $("#back").addEventListener("click", () => {
    if (V.depth > 0) go(V.readonly ? V.depth - 1 : V.path.slice(0, -1));
  });
  $("#forward").addEventListener("click", () => {
    if (V.readonly) { if (V.depth < V.length) go(V.depth + 1); }
    else if (V.ahead.length) go(V.path.concat([V.ahead[0]]));
    else history.forward();
  });
  $("#first-violation").addEventListener("click", () => {
    if (V.first_violation) go(whole().slice(0, V.first_violation.step + 1));
    else showError("no property is violated along this path; try “run to a violation from here”");
  });
  $("#run-bfs").addEventListener("click", () => runSearch("bfs"));
  $("#run-walks").addEventListener("click", () => runSearch("walks"));
  $("#stop").addEventListener("click", () => { if (job) fetch(`/api/search/${job}`, changing("DELETE")); });
  $("#save-itf").addEventListener("click", () => save("itf"));
  $("#save-test").addEventListener("click", () => save("test"));
  window.addEventListener("popstate", load);
  document.addEventListener("keydown", (e) => {     // arrow keys: back and forward
    if (e.altKey || e.ctrlKey || e.metaKey || !V || /INPUT|TEXTAREA|SELECT/.test(e.target.tagName)) return;
    if (e.key === "ArrowLeft") $("#back").click();
    else if (e.key === "ArrowRight" && !$("#forward").disabled) $("#forward").click();
  });
}

wire();
load();
