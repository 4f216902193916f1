"""The record layer of the KIP-848 consumer-group model (issue 30; ``model/consumer_group/
delivery_steps.py`` over the shared ``model/delivery``): the scope fields, counts unchanged with
records off, a pinned records scope, the two-phase reconcile, and the known-bug rules each
caught by BFS with the reference passing the same scope.

(Named ``_delivery``: ``test_consumer_group_records.py`` is about __consumer_offsets records.)"""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.model.consumer_group.scope import ConsumerGroupScope as S
from groupcheck.model.consumer_group.scope import from_dict, to_dict
from groupcheck.model.scopes import ScopeError


# ---- the scope ----

def test_to_dict_leaves_the_record_fields_out_while_records_is_off():
    d = to_dict(S())
    assert not {"records", "max_records", "commit_policy", "offset_reset"} & set(d)
    assert from_dict(d) == S()


def test_to_dict_keeps_the_record_fields_when_records_is_on():
    scope = S(records=True, max_records=1, commit_policy="sync-on-revoke", offset_reset="latest")
    d = to_dict(scope)
    assert (d["records"], d["max_records"], d["commit_policy"], d["offset_reset"]) == (True, 1, "sync-on-revoke", "latest")
    assert from_dict(d) == scope


@pytest.mark.parametrize("fields, message", [
    ({"commit_policy": "none"}, "scope.commit_policy: needs records: true"),
    ({"max_records": 3}, "scope.max_records: needs records: true"),
    ({"offset_reset": "latest"}, "scope.offset_reset: needs records: true"),
    ({"records": True, "max_records": 4}, "scope.max_records: 4 is outside 1..3"),
    ({"records": True, "max_records": 0}, "scope.max_records: 0 is outside 1..3"),
    ({"records": True, "commit_policy": "sometimes"}, "scope.commit_policy: unknown commit policy 'sometimes'"),
    ({"records": True, "offset_reset": "none"}, "scope.offset_reset: unknown offset reset 'none'"),
    ({"records": True, "classic": 1, "partitions": [1]}, "scope.records: the record layer runs without classic members"),
])
def test_bad_record_fields_name_the_field(fields, message):
    with pytest.raises(ScopeError) as e:
        from_dict(fields)
    assert str(e.value).startswith(message)
