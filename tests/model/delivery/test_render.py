"""The record layer shown (``model/delivery/render.py``): ITF values, lines, the offsets track."""
from __future__ import annotations

import json

from groupcheck.model import delivery as d
from groupcheck.model.delivery import Log, OffsetCommitReq


def _app():
    app = d.assigned(d.new_app(), 0b10)
    app, _ = d.poll(app, (d.new_logs(1)[0], Log(end=2, committed=-1, base=0, fetcher=0, done=0, excused=0)),
                    1, member=4, reset=d.EARLIEST)
    return app._replace(commit=OffsetCommitReq(member=4, generation=2, offsets=((1, 1),), purpose=d.INTERVAL))


def test_itf_values_are_json_with_sets_and_maps():
    logs = (Log(end=2, committed=1, base=0, fetcher=4, done=0b11, excused=0b1),)
    assert d.log_itf(logs[0]) == {"end": 2, "committed": 1, "base": 0, "fetcher": 4,
                                  "done": {"#set": [0, 1]}, "excused": {"#set": [0]}}
    assert d.logs_itf(None, 1) is None and d.app_itf(None, 1) is None
    assert d.logs_itf(logs + logs, 1, present=0b10) == {"#map": [["t1-0", d.log_itf(logs[0])]]}
    itf = d.app_itf(_app(), 2)
    json.dumps(itf)
    assert itf["cursors"] == {"#map": [["t0-1", {"position": 1, "processed": 0, "unfetchable": False,
                                                "revoking": False}]]}
    assert itf["commit"] == {"member": 4, "generation": 2, "purpose": "interval", "offsets": {"#map": [["t0-1", 1]]}}


def test_lines():
    assert d.describe_app(_app(), 2) == "t0-1@0/1; committing t0-1=1 (interval, gen 2)"
    assert d.describe_app(None, 2) == "no app"
    assert d.describe_app(d.new_app()._replace(reply="", waiting=d.PREPARE), 1) == (
        "no cursors; answer NONE unread; waiting in prepare")
    log = Log(end=2, committed=1, base=0, fetcher=4, done=0b1, excused=0)
    assert d.describe_log(0, log, 1) == "t0-0 end 2 committed 1 base 0 done {0} excused {}"


def test_offsets_track():
    logs = (Log(end=0, committed=-1, base=0, fetcher=0, done=0, excused=0),
            Log(end=2, committed=1, base=0, fetcher=4, done=0b1, excused=0))
    assert d.offsets(logs, [("C1", _app()), ("C2", None)], 2) == {
        "t0-0": {"end": 0, "committed": -1, "base": 0, "done": [], "excused": [], "positions": {}},
        "t0-1": {"end": 2, "committed": 1, "base": 0, "done": [0], "excused": [], "positions": {"C1": [0, 1]}}}
    assert d.offsets(None, [], 2) == {}
