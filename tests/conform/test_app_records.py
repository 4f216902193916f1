"""The worker application's record steps (targets/clients/app_records.py), no broker: what
it does with one returned record under each policy, a hold, the broken self-test
application, and what the revoke callback commits."""
from __future__ import annotations

import pytest

from groupcheck.conform.targets.clients.app_records import POLICIES, Records


def _records(policy: str, broken=None):
    lines = []
    r = Records(policy, broken, lambda: (3, "m-1"), lambda kind, **f: lines.append((kind, f)))
    return r, lines


@pytest.mark.parametrize("policy, steps", [
    ("auto", [("process",)]), ("sync-on-revoke", [("process",)]), ("none", [("process",)]),
    ("after-processing", [("process",), ("commit", {0: 6})])])
def test_each_policy_processes_then_commits_only_after_processing(policy, steps):
    r, _ = _records(policy)
    assert r.steps(0, 5) == steps


def test_a_hold_processes_and_stops_before_committing():
    r, lines = _records("after-processing")
    r.ask_hold()
    assert r.steps(1, 7) == [("process",), ("hold",)]
    commits = []
    assert r.record(1, 7, lambda offsets: commits.append(offsets)) is True
    assert commits == [] and r.held and not r.hold_asked
    assert [k for k, _ in lines] == ["hold_asked", "processed", "held"]
    assert lines[1][1] == {"partition": 1, "offset": 7, "member_id": "m-1", "generation": 3}


def test_the_broken_application_commits_first_and_holds_before_processing():
    r, lines = _records("after-processing", "commits-before-processing")
    assert r.steps(0, 2) == [("commit", {0: 3}), ("process",)]
    r.ask_hold()
    assert r.record(0, 2, lambda offsets: None) is True
    assert [k for k, _ in lines] == ["hold_asked", "commit_sent", "commit", "held"]     # never processed
    assert lines[2][1]["offsets"] == {"0": 3} and lines[2][1]["error"] is None


def test_the_revoke_callback_commits_what_was_processed_only_under_sync_on_revoke():
    for policy in POLICIES:
        r, _ = _records(policy)
        r.record(0, 4, lambda offsets: None)
        r.record(1, 0, lambda offsets: None)
        assert r.revoked({0}) == ({0: 5} if policy == "sync-on-revoke" else {})
        assert r.processed == {1: 1}            # the revoked partition is forgotten


def test_a_failed_commit_is_its_error_line():
    r, lines = _records("after-processing")
    assert r.sync_commit(lambda offsets: "CommitFailedError", {2: 9}) == "CommitFailedError"
    assert lines[-1] == ("commit", {"generation": 3, "member_id": "m-1", "offsets": {"2": 9},
                                    "error": "CommitFailedError", "auto": False})
    assert r.sync_commit(lambda offsets: 1 / 0, {}) is None      # nothing to commit: no request


def test_the_harness_commit_command_commits_what_was_processed_not_offset_zero():
    r, lines = _records("auto")
    r.record(1, 4, lambda offsets: None)
    r.record(0, 2, lambda offsets: None)
    sent = []
    r.commit_processed(lambda offsets: sent.append(offsets))
    assert sent == [{0: 3, 1: 5}]
    assert lines[-1][1]["offsets"] == {"0": 3, "1": 5}


@pytest.mark.parametrize("broken", [None, "commits-before-processing"])
def test_a_grab_stops_before_processing_the_returned_record(broken):
    """``grab``: poll returned the record, the application is stuck before processing it
    (nothing processed, nothing committed, a held line)."""
    r, lines = _records("after-processing", broken)
    r.ask_hold(grab=True)
    assert r.steps(1, 7) == [("hold",)]
    commits = []
    assert r.record(1, 7, lambda offsets: commits.append(offsets)) is True
    assert commits == [] and r.processed == {} and r.held
    assert [k for k, _ in lines] == ["hold_asked", "held"]
