"""The timeline's offsets track (issue 30): the data it is drawn from is what each state's
logs and applications hold, its marks fall on the steps where a record is processed twice
(red only where ``no_duplicate_without_failure`` breaks, grey when a fault excuses it) or
first lost (``no_record_lost``), known record counterexamples of both consumer models show
them, and with records off there is no track at all."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.helpers.explorer_variants import at_violation as _at_violation, states as _states
from groupcheck.explorer import Session, open_scope, open_trace, open_variant
from groupcheck.explorer import track
from groupcheck.explorer.server import create_app
from groupcheck.explorer.timeline import timeline
from groupcheck.model.delivery.render import processed_again

DUP, LOST = "no_duplicate_without_failure", "no_record_lost"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "tools" / "explore.md"




def _walk(s: Session, plan: list[str]) -> Session:
    """Take, for each text of ``plan``, the first enabled action whose text has it."""
    for want in plan:
        texts = [m.text for m in s.actions()]
        s.take(next(i for i, t in enumerate(texts) if want in t))
    return s


# a KIP-848 reference walk: C1 processes record 0, crashes before committing, and its next
# incarnation processes record 0 again: a redelivery the crash excuses
CRASH_SCOPE = {"members": 1, "partitions": [1], "records": True, "max_records": 1, "faults": ["crash"], "budget": 1}
CRASH_WALK = ["sends ConsumerGroupHeartbeat", "handles C1's heartbeat", "reads the response", "reconciles",
              "producer appends", "polls t0-0", "processes", "crash", "restarts", "times out",
              "sends ConsumerGroupHeartbeat", "handles C1's heartbeat", "reads the response", "reconciles",
              "polls t0-0", "processes"]


def _track(positions: dict, done=(), excused=(), end=2, committed=-1) -> dict:
    return {"t0-0": {"end": end, "committed": committed, "base": 0, "done": list(done), "excused": list(excused),
                     "positions": positions}}


# ---------------------------------------------------------------- the data the track is built from
def test_processed_again_reads_moves_over_done_offsets():
    before = _track({"C1": [0, 2], "C2": [-1, -1]}, done=[0, 1], excused=[1])
    # C1 processes 0 (done, not excused) and 1 (done, excused); C2's OffsetFetch starts it at the committed
    # offset 2, from -1 (awaiting OffsetFetch): nothing processed
    after = _track({"C1": [2, 2], "C2": [2, 2]}, done=[0, 1], committed=2)
    assert processed_again(before, after) == [("t0-0", 0, "C1", False), ("t0-0", 1, "C1", True)]
    assert processed_again(_track({"C1": [0, 1]}), _track({"C1": [1, 1]}, done=[0])) == []   # first time: no mark
    assert processed_again(_track({"C1": [1, 1]}, done=[0]), _track({"C3": [1, 1]}, done=[0])) == []   # a new holder
    assert processed_again({}, _track({"C1": [1, 1]})) == []


def test_marks_follow_the_claims_broken_at_each_step():
    tracks = (_track({"C1": [0, 1]}, done=[0]), _track({"C1": [1, 1]}, done=[0]),
              _track({"C1": [0, 1]}, done=[0], excused=[0], committed=1), _track({"C1": [1, 1]}, done=[0], excused=[0]))
    twice = ({}, {DUP: "t0-0 offset 0 processed again by member 1 with no fault since it was first processed"}, {}, {})
    m, = track.marks(tracks[:2], twice[:2])
    assert m == track.Mark(step=1, item="t0-0", offset=0, broken=DUP,
                           text="t0-0 offset 0 processed twice (no fault), by C1")
    m, = track.marks(tracks[:2], ({}, {}))          # the model does not judge it (a zombie, policy none)
    assert m.broken is None and m.text == f"t0-0 offset 0 processed twice (not judged by {DUP}), by C1"
    m, = track.marks(tracks[2:], ({}, {}))
    assert m.broken is None and m.text == "t0-0 offset 0 processed twice (excused by a fault), by C1"
    lost = "t0-0 offset 0 is below the committed offset 1 but no owner processed it"
    found = track.marks(tracks[2:], ({}, {LOST: lost}))
    assert [(x.step, x.item, x.text, x.broken) for x in found] == [(1, "t0-0", lost, LOST),
                                                                   (1, "t0-0", found[1].text, None)]
    assert len(track.marks(tracks[2:] * 2, ({LOST: lost},) * 4)) == 2 + 1      # lost: its first step only


def test_summary_says_each_value_in_words():
    assert track.summary("t0-0", _track({"C2": [1, 2], "C1": [-1, -1]}, committed=-1)["t0-0"]) == (
        "t0-0 log end 2, committed none; C1 processed none (awaiting OffsetFetch), position none (awaiting "
        "OffsetFetch); C2 processed 1, position 2")


@pytest.mark.parametrize("key,clients", [("KAFKA-14196", "consumers"), ("KAFKA-18641", "clients")])
def test_the_track_is_what_each_state_holds(key, clients):
    """Along a record counterexample of each consumer model: per partition, the log's end and
    committed offset, and per client with an application its cursor's processed/position."""
    s = _at_violation(key)
    tl = s.timeline()
    assert len(tl.offsets) == len(_states(s)) and tl.tracked == ("t0-0",)
    moved = set()
    for at, state in zip(tl.offsets, _states(s)):
        itf = s.itf_state(state)
        logs = dict(itf["logs"]["#map"])
        assert {p: (t["end"], t["committed"], t["base"], t["done"], t["excused"]) for p, t in at.items()} == {
            p: (log["end"], log["committed"], log["base"], log["done"]["#set"], log["excused"]["#set"])
            for p, log in logs.items()}
        for p, t in at.items():
            held = {f"C{i + 1}": [cur["processed"], cur["position"]] for i, c in enumerate(itf[clients])
                    if c.get("app") for name, cur in c["app"]["cursors"]["#map"] if name == p}
            assert t["positions"] == held
            moved |= {tuple(v) for v in held.values()}
    assert len(moved) >= 2                          # the positions change along the path


# ---------------------------------------------------------------- marks on known counterexamples
def test_a_duplicate_is_marked_on_the_step_the_claim_breaks():
    s = _at_violation("KAFKA-9741")                 # classic: the callback's commit is refused, C2 reprocesses
    found = s.first_violation()
    assert found.property == DUP
    tl = s.timeline()
    m, = tl.marks
    assert (m.step, m.item, m.broken, m.offset) == (found.step, "t0-1", DUP, 0)
    assert m.text == "t0-1 offset 0 processed twice (no fault), by C2"
    assert f'"step {m.step}: {m.text}"' in " ".join(DOCS.read_text().split())    # the docs' example, as the page lists it
    assert tl.offsets[m.step - 1]["t0-1"]["done"] == [0] and tl.offsets[m.step - 1]["t0-1"]["excused"] == []
    fig = tl.figure_json()
    assert fig["layout"]["yaxis"]["ticktext"] == ["t0-0", "t0-0 offsets", "t0-1", "t0-1 offsets"]
    marks, = [t for t in fig["data"] if t["name"] == "record marks"]
    assert marks["x"] == [m.step] and marks["customdata"] == [m.step] and marks["marker"]["color"] == [track.RED]
    assert marks["hovertext"] == [f"step {m.step}: {m.text}"] and marks["marker"]["symbol"] == ["x"]
    assert 3 - 0.35 <= marks["y"][0] <= 3 + 0.35          # on t0-1's track (row 3)
    lines = {t["name"] for t in fig["data"] if t.get("mode") == "lines"}
    assert {"log end", "committed", "C1 processed", "C1 position", "C2 processed", "C2 position"} <= lines


def test_a_lost_record_is_marked_where_no_record_lost_first_fails():
    s = _at_violation("KAFKA-18641")                # C1 auto-commits record 0 unprocessed, then crashes
    found = s.first_violation()
    assert found.property == LOST
    m, = s.timeline().marks
    assert (m.step, m.item, m.text, m.broken) == (found.step, "t0-0", found.message, LOST)
    assert m.text.startswith("t0-0 offset 0 ")
    assert s.timeline().offsets[m.step]["t0-0"]["committed"] == 1 and s.timeline().offsets[m.step]["t0-0"]["done"] == []


def test_a_redelivery_after_a_crash_is_marked_excused():
    s = _walk(open_scope("consumer-group", CRASH_SCOPE), CRASH_WALK)
    assert s.first_violation() is None              # the reference: nothing broken
    m, = s.timeline().marks
    assert (m.step, m.item, m.broken) == (s.depth, "t0-0", None)
    assert m.text == "t0-0 offset 0 processed twice (excused by a fault), by C1"
    marks, = [t for t in s.timeline().figure_json()["data"] if t["name"] == "record marks"]
    assert marks["marker"]["color"] == [track.GREY] and marks["marker"]["symbol"] == ["circle-open"]


def test_a_broken_duplicate_is_always_marked_and_never_on_a_step_that_holds():
    """Along the whole known counterexample and past it: a red duplicate mark at step i <=> the
    claim breaks at i (the mark restates nothing the claim does not judge)."""
    s = _at_violation("KAFKA-9741")
    each = s._broken_each()
    tl = s.timeline()
    red = {m.step for m in tl.marks if m.broken == DUP}
    assert red == {i for i, claims in enumerate(each) if DUP in claims} and red


# ---------------------------------------------------------------- records off: the page unchanged
@pytest.mark.parametrize("key", ["KAFKA-13419", "KAFKA-16147"])
def test_no_track_with_records_off(key):
    s = _at_violation(key)
    tl = s.timeline()
    assert tl.offsets == () and tl.marks == () and tl.tracked == () and tl.mark_list() == []
    fig = tl.figure_json()
    assert fig["layout"]["yaxis"]["ticktext"] == list(tl.items)
    assert [t["name"] for t in fig["data"]] == list(tl.holders)         # the bars, nothing else
    assert "offsets" not in json.dumps(fig)


def test_the_timeline_route_lists_the_marks_in_words(tmp_path):
    s = _at_violation("KAFKA-9741")
    f = s.export_itf(tmp_path / "kafka-9741.itf.json")
    client = create_app(lambda: open_trace(f)).test_client()
    path = quote(".".join(map(str, s.path)))
    answer = client.get(f"/api/timeline?path={path}").get_json()
    assert answer["marks"] == [{"step": s.depth, "item": "t0-1", "text": "t0-1 offset 0 processed twice (no fault), by C2",
                                "broken": DUP}]
    assert "t0-1 offsets" in answer["layout"]["yaxis"]["ticktext"]
    off = create_app(lambda: open_variant("KAFKA-13419")).test_client().get("/api/timeline?path=0").get_json()
    assert off["marks"] == [] and not any("offsets" in t for t in off["layout"]["yaxis"]["ticktext"])
    page = client.get("/").data
    assert b'id="record-marks"' in page and b"onclick" not in page                 # the list is filled by app.js


def test_data_in_the_track_reaches_plotly_as_text():
    s = open_variant("KAFKA-18641")
    hostile = '<img src=x onerror="window.pwned=1">'
    tracks = [_track({hostile: [0, 1]}, done=[0]), _track({hostile: [1, 1]}, done=[0])]
    view = replace(s.model.view, owners=lambda scope, state: {"t0-0": (hostile,)}, offsets=lambda scope, state: tracks[state])
    tl = timeline(replace(s.model, view=view), s.scope, [0, 1], ["init", "<b>x</b>"], (), ({}, {DUP: "x"}))
    assert tl.marks[0].text == f"t0-0 offset 0 processed twice (no fault), by {hostile}"
    fig = tl.figure_json()
    texts = json.dumps([t.get("name") for t in fig["data"]] + [h for t in fig["data"] for h in t.get("hovertext") or ()])
    assert "<img" not in texts and "&lt;img" in texts and "&lt;b&gt;x&lt;/b&gt;" in texts


def test_the_text_table_has_the_track_and_its_marks():
    from rich.console import Console
    s = _at_violation("KAFKA-18641")
    tl = s.timeline()
    rows = [c for c in tl.rich().columns[0]._cells]
    assert rows == ["t0-0", "t0-0 offsets"]
    cells = [col._cells[1] for col in tl.rich().columns[1:]]
    assert cells[s.depth] == "[bold red]end 1 c 1 lost[/]" and cells[s.depth - 2] == "end 1 c -1 C1 0/1"
    console = Console(record=True, width=400)
    console.print(tl.rich())
    assert "end 1 c 1 lost" in console.export_text()
    assert [c._cells for c in _at_violation("KAFKA-13419").timeline().rich().columns][0] == ["t0-0", "t0-1"]


def test_each_track_lies_under_its_partition_whatever_the_topics():
    """consumer-group, topics of 1 and 2 partitions: the track names each log as the ownership
    rows name the partitions (t1-1, not t2-0)."""
    s = open_scope("consumer-group", {"members": 1, "partitions": [1, 2], "records": True, "max_records": 1})
    assert list(s.model.view.offsets(s.scope, s.state)) == list(s.model.view.owners(s.scope, s.state)) == [
        "t0-0", "t1-0", "t1-1"]
    assert s.timeline().tracked == ("t0-0", "t1-0", "t1-1")
