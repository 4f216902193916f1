"""The record layer's rules (``model/delivery/app.py``): start positions, poll and process
bounds, assignment changes on cursors, excuses and commits, on hand-made states."""
from __future__ import annotations

from groupcheck.model import delivery as d
from groupcheck.model.delivery import NO_OFFSET, App, Cursor, Log, OffsetCommitReq


def _log(end=0, committed=NO_OFFSET, base=0, fetcher=0, done=0, excused=0) -> Log:
    return Log(end=end, committed=committed, base=base, fetcher=fetcher, done=done, excused=excused)


def _cur(p=0, position=NO_OFFSET, processed=None, unfetchable=False, revoking=False) -> Cursor:
    return Cursor(partition=p, position=position, processed=position if processed is None else processed,
                  unfetchable=unfetchable, revoking=revoking)


def _app(*cursors: Cursor) -> App:
    return d.new_app()._replace(cursors=tuple(cursors))


def test_new_logs_and_app_are_empty():
    assert d.new_logs(2) == (_log(), _log())
    assert d.new_app() == App(cursors=(), commit=None, reply=None, waiting="")
    assert d.new_app().meta_generation == -2


def test_produce_appends_one_record_to_one_partition():
    assert d.produce(d.new_logs(2), 1) == (_log(), _log(end=1))


def test_start_at_the_committed_offset_keeps_base():
    position, log = d.start(_log(end=3, committed=2, base=1), member=7, reset=d.LATEST)
    assert (position, log) == (2, _log(end=3, committed=2, base=1, fetcher=7))


def test_start_without_committed_offset_resets_earliest_or_latest_and_sets_base():
    assert d.start(_log(end=3, base=1), member=4, reset=d.EARLIEST) == (0, _log(end=3, base=0, fetcher=4))
    assert d.start(_log(end=3), member=4, reset=d.LATEST) == (3, _log(end=3, base=3, fetcher=4))


def test_poll_initialises_then_returns_one_record():
    app, logs = d.poll(_app(_cur()), (_log(end=2, committed=1),), 0, member=3, reset=d.EARLIEST)
    assert app.cursors == (_cur(position=2, processed=1),)       # OffsetFetch -> 1, then record 1 returned
    assert logs == (_log(end=2, committed=1, fetcher=3),)
    app, logs = d.poll(_app(_cur(position=0)), (_log(end=2),), 0, member=3, reset=d.EARLIEST)
    assert app.cursors == (_cur(position=1, processed=0),) and logs == (_log(end=2),)   # no OffsetFetch


def test_poll_of_an_empty_log_only_initialises():
    app, logs = d.poll(_app(_cur()), (_log(end=0),), 0, member=3, reset=d.LATEST)
    assert app.cursors == (_cur(position=0),) and logs == (_log(fetcher=3),)


def test_can_poll_bounds():
    logs = (_log(end=1),)
    assert d.can_poll(_app(_cur()), logs, 0)                                   # awaits its position
    assert d.can_poll(_app(_cur(position=0)), logs, 0)
    assert not d.can_poll(_app(_cur(position=1)), logs, 0)                     # at the log end
    assert not d.can_poll(_app(_cur(position=0, unfetchable=True)), logs, 0)   # pending revocation
    assert not d.can_poll(_app(_cur(position=1, processed=0)), (_log(end=2),), 0)   # not inside poll
    assert not d.can_poll(_app(_cur(p=1)), (_log(end=1), _log(end=1)), 0)      # no cursor on p 0
    assert not d.can_poll(None, logs, 0)


def test_in_poll_and_held():
    assert d.in_poll(_app(_cur(position=2), _cur(p=1)))
    assert not d.in_poll(_app(_cur(position=2, processed=1)))
    assert not d.in_poll(None)
    assert not d.in_poll(_app(_cur(position=2))._replace(waiting=d.COMMITTING))    # owes its commitSync
    assert d.in_poll(_app(_cur(position=2))._replace(waiting=d.PREPARE))
    assert d.held(_app(_cur(position=3, processed=1)), 0) == 0b110
    assert d.held(_app(_cur(position=2)), 0) == 0 and d.held(None, 0) == 0 and d.held(_app(), 0) == 0


def test_process_bounds_and_effect():
    assert not d.can_process(_app(_cur(position=1)), 0)
    assert not d.can_process(_app(_cur()), 0)
    assert d.can_process(_app(_cur(position=2, processed=1)), 0)
    app, logs, offset = d.process(_app(_cur(position=2, processed=1)), (_log(end=2, done=0b1),), 0)
    assert offset == 1 and app.cursors == (_cur(position=2),) and logs == (_log(end=2, done=0b11),)


def test_redelivered_is_done_and_not_excused():
    assert d.redelivered(_log(done=0b1), 0)
    assert not d.redelivered(_log(done=0b1, excused=0b1), 0)
    assert not d.redelivered(_log(done=0b1), 1)


def test_assigned_adds_awaiting_cursors_sorted_and_keeps_owned_ones():
    app = d.assigned(_app(_cur(p=1, position=1)), 0b111)
    assert app.cursors == (_cur(p=0), _cur(p=1, position=1), _cur(p=2))


def test_revoked_drops_cursors_without_touching_logs():
    assert d.revoked(_app(_cur(p=0), _cur(p=1)), 0b01).cursors == (_cur(p=1),)


def test_lost_drops_and_excuses_only_owned_partitions():
    logs = (_log(end=2, done=0b11), _log(end=1, done=0b1))
    app, after = d.lost(_app(_cur(p=0, position=2)), logs, 0b11)
    assert app.cursors == ()
    assert after == (_log(end=2, done=0b11, excused=0b11), _log(end=1, done=0b1))


def test_excuse_marks_every_done_offset_of_the_mask():
    logs = (_log(done=0b101, excused=0b010), _log(done=0b1))
    assert d.excuse(logs, 0b01) == (_log(done=0b101, excused=0b111), _log(done=0b1))


def test_excuse_offset_marks_one_offset():
    assert d.excuse_offset((_log(done=0b11), _log()), 0, 1) == (_log(done=0b11, excused=0b10), _log())


def test_mark_revoking_with_and_without_the_pause():
    app = _app(_cur(p=0, position=1), _cur(p=1, position=1))
    assert d.mark_revoking(app, 0b01, pause=True).cursors == (
        _cur(p=0, position=1, revoking=True, unfetchable=True), _cur(p=1, position=1))
    assert d.mark_revoking(app, 0b01, pause=False).cursors == (
        _cur(p=0, position=1, revoking=True), _cur(p=1, position=1))


def test_commit_request_of_positions_or_processed_offsets():
    app = _app(_cur(p=0, position=2, processed=1), _cur(p=1), _cur(p=2, position=1))
    assert d.commit_request(app, 5, 3, d.INTERVAL, processed=False) == OffsetCommitReq(
        member=5, generation=3, offsets=((0, 2), (2, 1)), purpose=d.INTERVAL)
    assert d.commit_request(app, 5, 3, d.CALLBACK, processed=True, mask=0b001).offsets == ((0, 1),)
    assert d.commit_request(app, 5, 3, d.CALLBACK, processed=True, mask=0b010) is None   # awaits its position


def test_revoke_commit_marks_sends_and_waits():
    app = _app(_cur(p=0, position=1))
    req = d.commit_request(app, 5, 3, d.REVOKE, processed=False)
    out = d.revoke_commit(app, 0b1, req, d.PREPARE, pause=True)
    assert out.commit == req and out.waiting == d.PREPARE and out.cursors[0].unfetchable
    assert d.revoke_commit(app, 0, None, d.PREPARE, pause=True) == app   # nothing to commit: no wait


def test_apply_commit_stores_only_accepted_offsets():
    req = OffsetCommitReq(member=1, generation=1, offsets=((1, 2),), purpose=d.MANUAL)
    logs = d.new_logs(2)
    assert d.apply_commit(logs, req, d.ACCEPTED) == (_log(), _log(committed=2))
    assert d.apply_commit(logs, req, "ILLEGAL_GENERATION") == logs


def test_deliver_applies_and_leaves_the_answer_to_read():
    req = OffsetCommitReq(member=1, generation=1, offsets=((0, 1),), purpose=d.INTERVAL)
    app, logs = d.deliver(_app()._replace(commit=req), d.new_logs(1), "REBALANCE_IN_PROGRESS")
    assert (app.commit, app.reply, logs) == (None, "REBALANCE_IN_PROGRESS", d.new_logs(1))
    app, logs = d.deliver(_app()._replace(commit=req), d.new_logs(1), d.ACCEPTED)
    assert (app.reply, logs[0].committed) == (d.ACCEPTED, 1)
    assert d.committed_mask(req) == 0b1 and d.committed_mask(None) == 0


def test_partitions_and_cursor():
    app = _app(_cur(p=0), _cur(p=3))
    assert d.partitions(app) == 0b1001 and d.partitions(None) == 0
    assert d.cursor(app, 3) == _cur(p=3) and d.cursor(app, 1) is None and d.cursor(None, 0) is None
