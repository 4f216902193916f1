"""The known-bug rules (``model/delivery/rules.py``): each switch flips exactly the field it names."""
from __future__ import annotations

import pytest

from groupcheck.model import delivery as d


def test_the_reference_has_every_fix_and_no_candidate_fix():
    assert d.rules() == d.REFERENCE == d.Rules()
    assert all(getattr(d.REFERENCE, f) for f in d.SWITCHES.values())
    assert not any(getattr(d.REFERENCE, f) for f in d.FIXES.values())


@pytest.mark.parametrize("fix", sorted(d.FIXES))
def test_each_candidate_fix_sets_exactly_its_field(fix):
    changed = [f for f in d.Rules._fields if getattr(d.rules((fix,)), f) != getattr(d.REFERENCE, f)]
    assert changed == [d.FIXES[fix]] and getattr(d.rules((fix,)), d.FIXES[fix]) is True


@pytest.mark.parametrize("switch", sorted(d.SWITCHES))
def test_each_switch_flips_exactly_its_field(switch):
    flipped = d.rules((switch,))
    changed = [f for f in d.Rules._fields if getattr(flipped, f) != getattr(d.REFERENCE, f)]
    assert changed == [d.SWITCHES[switch]]
    assert getattr(flipped, d.SWITCHES[switch]) is False


def test_every_field_has_a_switch_and_the_two_pause_bugs_share_one():
    assert set(d.SWITCHES.values()) | set(d.FIXES.values()) == set(d.Rules._fields)
    assert d.NAMES == tuple(d.SWITCHES) + tuple(d.FIXES)
    assert d.rules(("kafka-14196",)) == d.rules(("kafka-16460",))
    assert d.rules(("kafka-18641", "kafka-9741")) == d.Rules(commit_only_in_poll=False, metadata_before_revoke=False)


def test_an_unknown_switch_is_named():
    with pytest.raises(ValueError, match="unknown delivery switch 'kafka-1'"):
        d.rules(("kafka-1",))


def test_the_pause_rule_decides_unfetchable():
    """The one field ``pause_before_revoke_commit`` writes: a revoking cursor's ``unfetchable``."""
    app = d.assigned(d.new_app(), 0b1)
    for switches, unfetchable in (((), True), (("kafka-14196",), False)):
        rule = d.rules(switches)
        out = d.mark_revoking(app, 0b1, pause=rule.pause_before_revoke_commit)
        assert out.cursors[0].unfetchable is unfetchable and out.cursors[0].revoking
