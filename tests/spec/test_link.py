"""The name cross-check of a spec folder (groupcheck/spec/link.py) and the manifest
reader (groupcheck/spec/manifest.py), on small folders written here."""
from __future__ import annotations

import json
import sys

import pytest

from groupcheck.protocols import get
from groupcheck.spec import link, manifest

CONSUMER = get("consumer").model


def test_camel_case_names_of_action_kinds():
    assert link.camel("lose_response") == "LoseResponse"
    assert link.camel("join") == "Join"
    assert link.camel("subscription_change") == "SubscriptionChange"


def test_read_cfg_folds_plural_keywords_and_drops_comments(tmp_path):
    cfg = tmp_path / "MC.cfg"
    cfg.write_text("CONSTANTS\n  Clients = {\"C1\"}\n  Max <- MCMax\nINIT Init\nNEXT Next\n"
                   "INVARIANTS\n  no_double_ownership \\* KIP-429\n  converges_within_k\n"
                   "INVARIANT revoke_before_reassign\nCONSTRAINT StateConstraint\n")
    got = link.read_cfg(cfg)
    assert got["INVARIANT"] == ["no_double_ownership", "converges_within_k", "revoke_before_reassign"]
    assert got["CONSTRAINT"] == ["StateConstraint"]
    assert got["NEXT"] == ["Next"]
    assert "Clients" in got["CONSTANT"] and "<-" in got["CONSTANT"]


def test_witnesses_are_the_definitions_after_the_comment():
    source = "a == 1\n\\* Witnesses\nsometimes_settled == TRUE\nsometimes_zombie(x) == x\n===="
    assert link.witnesses(source) == ["sometimes_settled", "sometimes_zombie"]
    assert link.witnesses("a == 1") == []


MAPPING = '''
def constants(scope):
    return {}

def variables(scope, state):
    return {}
'''


def _folder(tmp_path, monkeypatch, *, actions_out=None, properties_out=None, variants_out=None,
            invariants=("no_double_ownership",), witnesses=("sometimes_settled",), extra=None):
    """A consumer spec folder: Consumer.tla, MCConsumer.cfg, a manifest leaving out what
    the arguments say (everything the spec lacks by default)."""
    folder = tmp_path / "consumer"
    folder.mkdir()
    (tmp_path / "toy_mapping.py").write_text(MAPPING)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("toy_mapping", None)
    monkeypatch.setattr(manifest, "MAPPINGS", manifest.MAPPINGS + ("toy_mapping",))   # this test's own, trusted
    body = "\n".join(f"{w} == TRUE" for w in witnesses)
    (folder / "Consumer.tla").write_text(f"---- MODULE Consumer ----\nInit == TRUE\n\\* Witnesses\n{body}\n====\n")
    (folder / "MCConsumer.cfg").write_text("INIT Init\nNEXT Next\nINVARIANTS\n" + "\n".join(invariants) + "\n")
    have = {"join", "receive"}
    props = set(invariants) | set(witnesses)
    data = {
        "protocol": "consumer", "module": "Consumer", "mapping": "toy_mapping",
        "configs": [{"name": "MCConsumer", "scope": {"faults": [], "budget": 0}, "distinct_states": 1}],
        "leaves_out": {
            "actions": actions_out if actions_out is not None else
            {k: "not yet" for k in CONSUMER.action_kinds if k not in have},
            "properties": properties_out if properties_out is not None else
            {p.name: "not yet" for p in CONSUMER.properties if p.name not in props},
            "variants": variants_out if variants_out is not None else
            {v.key: "not yet" for v in get("consumer").variants},
        },
    }
    data.update(extra or {})
    (folder / "manifest.json").write_text(json.dumps(data))
    return manifest.load("consumer", folder)


def test_names_agree_when_every_missing_name_is_left_out(tmp_path, monkeypatch):
    bundle = _folder(tmp_path, monkeypatch)
    names = link.check(bundle, ("Join", "Receive"))
    assert names.problems == []
    assert sorted(names.actions) == ["join", "receive"]
    assert sorted(names.properties) == ["no_double_ownership", "sometimes_settled"]


def test_a_model_kind_neither_in_the_spec_nor_left_out_is_named(tmp_path, monkeypatch):
    out = {k: "not yet" for k in CONSUMER.action_kinds if k not in {"join", "receive", "heartbeat"}}
    bundle = _folder(tmp_path, monkeypatch, actions_out=out)
    problems = link.check(bundle, ("Join", "Receive")).problems
    assert problems == ["action Heartbeat of the model is not in the spec and not in leaves_out.actions"]


def test_a_spec_action_the_model_lacks_is_named(tmp_path, monkeypatch):
    bundle = _folder(tmp_path, monkeypatch)
    problems = link.check(bundle, ("Join", "Receive", "Teleport")).problems
    assert problems == ["action Teleport of the spec is not one of the model's"]


def test_a_name_left_out_that_the_spec_has_is_named(tmp_path, monkeypatch):
    out = {k: "not yet" for k in CONSUMER.action_kinds if k != "receive"}
    bundle = _folder(tmp_path, monkeypatch, actions_out=out)
    problems = link.check(bundle, ("Join", "Receive")).problems
    assert problems == ["action Join is in the spec but listed in leaves_out.actions"]


def test_a_missing_property_and_a_wrong_kind_are_named(tmp_path, monkeypatch):
    bundle = _folder(tmp_path, monkeypatch, invariants=("no_double_ownership", "sometimes_zombie"))
    problems = link.check(bundle, ("Join", "Receive")).problems
    assert "invariant sometimes_zombie of MCConsumer.cfg is a sometimes claim of the model (a witness)" in problems
    out = {p.name: "x" for p in CONSUMER.properties if p.name not in {"no_double_ownership", "sometimes_settled",
                                                                        "revoke_before_reassign"}}
    bundle = _folder(tmp_path / "b", monkeypatch, properties_out=out) if (tmp_path / "b").mkdir() is None else None
    problems = link.check(bundle, ("Join", "Receive")).problems
    assert problems == ["property revoke_before_reassign of the model is not in the spec and not in "
                        "leaves_out.properties"]


def test_an_unknown_name_in_leaves_out_is_named(tmp_path, monkeypatch):
    out = {k: "not yet" for k in CONSUMER.action_kinds if k not in {"join", "receive"}}
    out["rebalance_everything"] = "no such kind"
    bundle = _folder(tmp_path, monkeypatch, actions_out=out)
    assert link.check(bundle, ("Join", "Receive")).problems == [
        "leaves_out.actions names 'rebalance_everything', which the model does not have"]


@pytest.mark.parametrize("change, message", [
    ({"protocol": "kafka-magic"}, "unknown protocol 'kafka-magic'"),
    ({"module": "Nope"}, "module 'Nope' has no file Nope.tla"),
    ({"mapping": "no_such_mapping_module"}, "mapping: 'no_such_mapping_module' is not one of groupcheck's mappings"),
    ({"configs": [{"name": "MC", "scope": {"members": "two"}, "distinct_states": 1}]}, "configs[0].scope"),
    ({"configs": [{"name": "MC", "scope": {}}]}, "configs[0]: no 'distinct_states'"),
])
def test_a_bad_manifest_is_named(tmp_path, monkeypatch, change, message):
    with pytest.raises(manifest.ManifestError, match=message.replace("(", r"\(").replace("[", r"\[")):
        _folder(tmp_path, monkeypatch, extra=change)


def test_a_protocol_without_a_spec_folder_is_named(monkeypatch, tmp_path):
    monkeypatch.setattr(manifest, "SPECS", tmp_path)
    with pytest.raises(manifest.ManifestError, match="no TLA\\+ spec for protocol 'consumer'"):
        manifest.load("consumer")
