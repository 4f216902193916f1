"""The four record claims (``model/delivery/claims.py``): a message naming partition, offset
and member on a hand-made broken state or step, None on the good one next to it."""
from __future__ import annotations

from groupcheck.model import delivery as d
from groupcheck.model.delivery import NO_OFFSET, Cursor, Holder, Log, OffsetCommitReq


def _log(end=2, committed=NO_OFFSET, base=0, fetcher=0, done=0, excused=0) -> Log:
    return Log(end=end, committed=committed, base=base, fetcher=fetcher, done=done, excused=excused)


def _holder(member=1, live=True, position=NO_OFFSET, processed=None, revoking=False, p=0) -> Holder:
    c = Cursor(partition=p, position=position, processed=position if processed is None else processed,
               unfetchable=False, revoking=revoking)
    return Holder(member=member, live=live, app=d.new_app()._replace(cursors=(c,)))


def test_no_record_lost():
    assert d.no_record_lost((_log(committed=2, done=0b01),), [], 1) == (
        "t0-0 offset 1 is below the committed offset 2 but no owner processed it")
    assert d.no_record_lost((_log(committed=2, done=0b11),), [], 1) is None
    held = _holder(position=2, processed=1)
    assert d.no_record_lost((_log(committed=2, done=0b01),), [held], 1) is None          # a live holder has it
    assert d.no_record_lost((_log(committed=2, done=0b01),), [held._replace(live=False)], 1) is not None
    assert d.no_record_lost((_log(committed=2, base=2),), [], 1) is None                  # skipped by reset latest
    assert d.no_record_lost((_log(committed=NO_OFFSET),), [], 1) is None


def test_no_record_lost_names_the_partition_by_stride():
    logs = (_log(), _log(), _log(committed=1))
    assert d.no_record_lost(logs, [], 2).startswith("t1-0 offset 0 ")


def test_the_claims_and_texts_name_partitions_by_the_models_names():
    """Two topics with unequal partition counts (KIP-848's partition index t0-0, t1-0, t1-1): no
    stride names bit 2; the model passes its names."""
    names = ("t0-0", "t1-0", "t1-1")
    logs = (_log(), _log(), _log(committed=1))
    assert d.no_record_lost(logs, [], names).startswith("t1-1 offset 0 ")
    assert d.describe_log(2, logs[2], names).startswith("t1-1 end 2 ")
    assert list(d.logs_itf(logs, names)["#map"])[2][0] == "t1-1"


def test_no_duplicate_without_failure():
    before, after = [_holder(member=2, position=1, processed=0)], [_holder(member=2, position=1)]
    assert d.no_duplicate_without_failure((_log(done=0b1),), before, after, 1) == (
        "t0-0 offset 0 processed again by member 2 with no fault since it was first processed")
    assert d.no_duplicate_without_failure((_log(done=0b1, excused=0b1),), before, after, 1) is None
    assert d.no_duplicate_without_failure((_log(done=0),), before, after, 1) is None


def test_offset_fetch_is_no_processing():
    before, after = [_holder()], [_holder(position=1, processed=0)]    # OffsetFetch -> 0, record 0 returned
    assert d.no_duplicate_without_failure((_log(done=0b1),), before, after, 1) is None
    after = [_holder(position=2, processed=2)]                         # OffsetFetch at committed 2
    assert d.no_duplicate_without_failure((_log(done=0b11),), before, after, 1) is None


def test_a_recreated_cursor_is_no_move():
    before, after = [_holder(position=2, revoking=True)], [_holder()]
    assert d.fetch_stops_at_revocation(before, after, 1) is None


def test_commits_fenced_after_handover():
    req = OffsetCommitReq(member=1, generation=1, offsets=((0, 1),), purpose=d.INTERVAL)
    assert d.commits_fenced_after_handover((_log(fetcher=2),), [(req, d.ACCEPTED)], 1) == (
        "t0-0 commit of offset 1 by member 1 accepted after member 2 fetched it")
    assert d.commits_fenced_after_handover((_log(fetcher=2),), [(req, "UNKNOWN_MEMBER_ID")], 1) is None
    assert d.commits_fenced_after_handover((_log(fetcher=1),), [(req, d.ACCEPTED)], 1) is None
    assert d.commits_fenced_after_handover((_log(fetcher=0),), [(req, d.ACCEPTED)], 1) is None
    assert d.commits_fenced_after_handover((_log(fetcher=2),), [], 1) is None


def test_fetch_stops_at_revocation():
    polled = [_holder(member=3, position=2, processed=1)]
    assert d.fetch_stops_at_revocation([_holder(member=3, position=1, revoking=True)], polled, 1) == (
        "t0-0 was fetched from or processed by member 3 after its revocation started")
    assert d.fetch_stops_at_revocation([_holder(member=3, position=1)], polled, 1) is None
    processed = [_holder(member=3, position=2, revoking=True)]
    assert d.fetch_stops_at_revocation([_holder(member=3, position=2, processed=1, revoking=True)],
                                       processed, 1) is not None
    assert d.fetch_stops_at_revocation([_holder(position=2, revoking=True)],
                                       [_holder(position=2, revoking=True)], 1) is None   # nothing moved


def test_killed_before_commit_witness():
    assert d.killed_before_commit((_log(committed=0),), _holder(position=1).app)
    assert not d.killed_before_commit((_log(committed=1),), _holder(position=1).app)
    assert not d.killed_before_commit((_log(),), None)


def test_each_claim_quotes_kafka():
    assert "results in missing records" in d.no_record_lost.__doc__
    assert "to prevent duplicate data" in d.no_duplicate_without_failure.__doc__
    assert "zombie offset commit may overwrite" in d.commits_fenced_after_handover.__doc__
    assert "stops the Fetcher from sending new fetches" in d.fetch_stops_at_revocation.__doc__
