"""``groupcheck spec``: its exits and messages on bad input, and a trace judged."""
from __future__ import annotations

import json
import shutil

from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.spec import manifest

runner = CliRunner()


def _run(*args):
    result = runner.invoke(app, ["spec", *args])
    return result.exit_code, " ".join((result.stdout + (result.stderr or "")).split())


def test_unknown_protocol_is_named_and_exits_2():
    code, text = _run("check", "kafka-magic")
    assert code == 2
    assert "unknown protocol 'kafka-magic'" in text or "no TLA+ spec for protocol 'kafka-magic'" in text


def test_a_trace_file_that_is_missing_or_not_ours_exits_2(tmp_path):
    code, text = _run("trace", str(tmp_path / "nope.itf.json"))
    assert code == 2 and "cannot read" in text
    quint = tmp_path / "q.itf.json"
    quint.write_text(json.dumps({"#meta": {"source": "quint"}, "vars": ["x"], "states": [{"x": 1}]}))
    code, text = _run("trace", str(quint))
    assert code == 2 and "not groupcheck" in text


def test_a_spec_with_unsupported_tla_exits_2_naming_the_construct(tmp_path, monkeypatch):
    """A spec the evaluator cannot read is bad input: one line naming the construct and
    its line, no traceback."""
    folder = manifest.folders()["consumer-group"]
    copy = tmp_path / folder.name
    shutil.copytree(folder, copy)
    module = copy / "ConsumerGroup.tla"
    lines = module.read_text().replace("\nInit ==", "\nInit0 ==", 1).splitlines()
    end = max(i for i, line in enumerate(lines) if line.startswith("===="))
    lines.insert(end, "Init == Init0 /\\ ENABLED Next")
    module.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(manifest, "SPECS", tmp_path)
    code, text = _run("check", "consumer-group", "--walks", "0")
    assert code == 2, text
    assert f"ConsumerGroup.tla:{end + 1}: unsupported TLA+ construct: ENABLED" in text
    assert "Traceback" not in text


def _trimmed(tmp_path, monkeypatch, protocol: str, config: str, variant: str):
    """The spec folder of ``protocol`` with one pinned config, one walk scope and one variant
    (the whole folder is tests/spec/test_specs.py's): what ``spec check`` runs, made cheap."""
    folder = manifest.folders()[protocol]
    copy = tmp_path / "specs" / folder.name
    shutil.copytree(folder, copy)
    data = json.loads((copy / "manifest.json").read_text())
    data["configs"] = [c for c in data["configs"] if c["name"] == config]
    data["walk_scopes"] = data["walk_scopes"][:1]
    keep = [v for v in data["variants"] if v["variant"] == variant]
    for v in data["variants"]:
        if v not in keep:
            data["leaves_out"]["variants"][v["variant"]] = "left out of this test's copy"
    data["variants"] = keep
    named = {c["name"] for c in data["configs"]} | {v.get("mc") for v in keep}
    for cfg in copy.glob("MC*Liveness.cfg"):         # a liveness config must be named (fairness.configs)
        if cfg.stem not in named:
            cfg.unlink()
    (copy / "manifest.json").write_text(json.dumps(data))
    monkeypatch.setattr(manifest, "SPECS", tmp_path / "specs")


def test_spec_check_agrees_and_a_changed_rule_exits_1(tmp_path, monkeypatch):
    _trimmed(tmp_path, monkeypatch, "consumer-group", "one-member", "KAFKA-16375")
    code, text = _run("check", "consumer-group", "--walks", "2", "--length", "20")
    assert code == 0, text
    for check in ("consumer-group names", "consumer-group one-member", "consumer-group walks", "consumer-group KAFKA-16375"):
        assert f"{check}: agrees" in text, check
    assert "differs" not in text
    module = tmp_path / "specs" / "consumer_group" / "ConsumerGroup.tla"
    rule = "!.epoch = IF old = None THEN @ + 1 ELSE @]"       # a joining member bumps the group epoch
    assert module.read_text().count(rule) == 1
    module.write_text(module.read_text().replace(rule, "!.epoch = @]"))
    code, text = _run("check", "consumer-group", "--walks", "0")
    assert code == 1, text
    assert "consumer-group one-member: differs" in text


def test_a_trace_outside_what_the_spec_states_exits_2_naming_why(tmp_path):
    """A trace of a scope the spec leaves out (here the classic consumer on its default
    cooperative-sticky config) is not judged: one line saying what the spec does not state."""
    from groupcheck import traces
    from groupcheck.checker import walk
    from groupcheck.protocols import get
    model = get("consumer").model
    scope = model.view.scope_from_dict({**model.view.scope_to_dict(model.view.default_scope()), "partitions": [1, 1]})
    path, _, _ = walk(model, scope, 1, 12)
    trace = tmp_path / "outside.itf.json"
    trace.write_text(json.dumps(traces.build(model, scope, path, {})))
    code, text = _run("trace", str(trace))
    assert code == 2, text
    assert "cannot be judged by Consumer" in text and "one topic" in text
    assert "Traceback" not in text


def _history(tmp_path, name, groups):
    """A JSON-lines history file of ``groups``: (group name, protocol, scope, path); each
    path's observations as trace-check's fleet writes them."""
    from groupcheck.protocols import get
    from groupcheck.tracecheck.fleet import observations
    lines = []
    for group, protocol, scope, path in groups:
        model = get(protocol).model
        for seq, o in enumerate(observations(protocol, model, scope, path)):
            lines.append(json.dumps({"group": group, "seq": seq, "protocol": protocol,
                                     "scope": model.view.scope_to_dict(scope), **o}))
    out = tmp_path / name
    out.write_text("\n".join(lines) + "\n")
    return out


def test_recorded_histories_are_explained_by_the_model_then_judged_by_the_spec(tmp_path):
    """A history (what a running system showed) inside the spec's scope is a behaviour of
    the spec; one with an event no interleaving explains is not (exit 1); one whose scope the
    spec leaves out is named as such."""
    from groupcheck.checker import walk
    from groupcheck.spec import histories
    from groupcheck.tracecheck.fleet import observations
    bundle = manifest.load("consumer-group")
    lost = next(c for c in bundle.configs if c.name == "lost-response").scope
    walked = [p for p in (walk(bundle.model, lost, seed, 40)[0] for seed in range(40))
              if len(observations("consumer-group", bundle.model, lost, p)) >= 4][:2]
    assert len(walked) == 2
    good = _history(tmp_path, "good.jsonl", [("g1", "consumer-group", lost, walked[0]),
                                             ("g2", "consumer-group", lost, walked[1])])
    verdicts = histories.judge_files([good])
    assert [v.verdict for v in verdicts] == [histories.BEHAVIOUR] * 2, [v.detail for v in verdicts]
    assert all(v.steps > 0 for v in verdicts)
    code, text = _run("trace", str(good))
    assert code == 0, text
    assert text.count("behaviour") >= 2

    # the same history with its last two events swapped: the model explains no such order
    rows = good.read_text().splitlines()
    g1 = [r for r in rows if '"g1"' in r]
    a, b = json.loads(g1[-2]), json.loads(g1[-1])
    a["seq"], b["seq"] = b["seq"], a["seq"]
    if {k: v for k, v in a.items() if k != "seq"} == {k: v for k, v in b.items() if k != "seq"}:
        a["partitions"] = ["t0-9"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(g1[:-2] + [json.dumps(a), json.dumps(b)]) + "\n")
    code, text = _run("trace", str(bad))
    assert code == 1, text
    assert "not explained" in text

    consumer = get_consumer_scope()
    outside = _history(tmp_path, "outside.jsonl", [("g3", "consumer", consumer, walk(
        manifest.load("consumer").model, consumer, 3, 30)[0])])
    [v] = histories.judge_files([outside])
    assert v.verdict == histories.OUTSIDE and "one topic" in v.detail
    code, text = _run("trace", str(outside))
    assert code == 3, text


def get_consumer_scope():
    """The classic consumer's default scope (cooperative-sticky, two topics): outside Consumer.tla."""
    from groupcheck.protocols import get
    model = get("consumer").model
    return model.view.scope_from_dict({**model.view.scope_to_dict(model.view.default_scope()), "partitions": [1, 1]})


def test_a_history_the_model_explains_but_a_changed_spec_rejects_is_not_a_behaviour(tmp_path, monkeypatch):
    """The spec judges the path that explains the history: with a spec in which a joining
    member does not bump the group epoch, the same history is explained by the model but
    is not a behaviour of the spec (exit 1)."""
    from groupcheck.checker import walk
    from groupcheck.spec import histories
    bundle = manifest.load("consumer-group")
    scope = next(c for c in bundle.configs if c.name == "one-partition").scope
    path = walk(bundle.model, scope, 0, 40)[0]
    recorded = _history(tmp_path, "h.jsonl", [("g1", "consumer-group", scope, path)])
    assert [v.verdict for v in histories.judge_files([recorded])] == [histories.BEHAVIOUR]
    copy = tmp_path / "specs" / bundle.folder.name
    shutil.copytree(bundle.folder, copy)
    module = copy / "ConsumerGroup.tla"
    text = module.read_text()
    assert text.count("!.epoch = IF old = None THEN @ + 1 ELSE @]") == 1
    module.write_text(text.replace("!.epoch = IF old = None THEN @ + 1 ELSE @]", "!.epoch = @]"))
    monkeypatch.setattr(manifest, "SPECS", tmp_path / "specs")
    [v] = histories.judge_files([recorded])
    assert v.verdict == histories.NOT_BEHAVIOUR, v.detail
    assert "not a step of Handle" in v.detail
    code, text = _run("trace", str(recorded))
    assert code == 1 and "not a behaviour" in text, text


def test_a_trace_through_a_step_the_spec_leaves_out_exits_2_naming_the_step(tmp_path):
    """unreconciled-assignment-released's counterexample grows the topic (topic_change, left
    out of the consumer-group spec): the trace is not judged past it, and says so."""
    from groupcheck import traces
    from groupcheck.checker import bfs
    from groupcheck.protocols import get
    protocol = get("consumer-group")
    bug = next(v for v in protocol.variants if v.key == "unreconciled-assignment-released")
    found = bfs(protocol.model, bug.buggy_scope())
    trace = tmp_path / "cx.itf.json"
    trace.write_text(json.dumps(traces.build(protocol.model, bug.buggy_scope(), found.violation.path, {})))
    code, text = _run("trace", str(trace))
    assert code == 2, text
    assert "is a topic_change, which the spec leaves out: one topic of a fixed size only" in text
