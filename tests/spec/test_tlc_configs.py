"""Every TLC model of specs/ (``MC<Spec>.tla`` + ``.cfg``) run from the spec alone, as a TLC
user would run it (groupcheck/spec/tlc_config.py): the base configs reach exactly the
distinct states their manifest pins and their comments promise, with every invariant and
step-claim property holding; each known-bug config breaks its variant's claim, with the
shortest trace its comment promises."""
from __future__ import annotations

import re
import shutil

import pytest
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.spec import fairness, manifest, tlc_config
from groupcheck.spec.tla_context import SpecError

BUNDLES = {name: manifest.load(name) for name in manifest.folders()}
CFGS = sorted((name, p.name) for name, b in BUNDLES.items() for p in b.folder.glob("MC*.cfg"))


def _expected_count(text: str) -> int | None:
    m = re.search(r"([\d,]+) distinct\s+states", text)
    return int(m.group(1).replace(",", "")) if m else None


def test_every_spec_folder_has_a_tlc_model_of_its_first_config():
    for name, bundle in BUNDLES.items():
        assert (bundle.folder / f"MC{bundle.module}.cfg").is_file(), name
        assert bundle.configs[0].name == f"MC{bundle.module}", name


def _scope_of(bundle, cfg: str):
    """The manifest's pinned config or variant whose TLC model ``cfg`` is, and its scope."""
    variant = next((v for v in bundle.variants if cfg == f"{v.tlc_model}.cfg"), None)
    if variant is not None:
        return variant, bundle.variant_scope(variant)
    pinned = next((c for c in bundle.configs if f"{c.name}.cfg" == cfg), None)
    assert pinned is not None, f"{cfg} is neither a pinned config nor a variant's TLC model in the manifest"
    return pinned, pinned.scope


@pytest.mark.parametrize("name, cfg", CFGS)
def test_the_tlc_model_has_the_constants_of_its_manifest_scope(name, cfg):
    """What a TLC user runs is the scope the cross-checks compared: the config's constants
    (with the MC module's definitions) are exactly the mapping's constants of that scope."""
    bundle = BUNDLES[name]
    _, scope = _scope_of(bundle, cfg)
    assert tlc_config.read(bundle.folder / cfg).constants == bundle.constants(scope)


PINNED = [(n, c) for n, c in CFGS if getattr(_scope_of(BUNDLES[n], c)[0], "distinct_states", None) is not None]


@pytest.mark.slow
@pytest.mark.parametrize("name, cfg", PINNED)
def test_the_tlc_model_reaches_what_its_comments_and_the_manifest_promise(name, cfg):
    """Every TLC model whose states the manifest pins (a known bug beyond CI's budget has its
    counterexample checked by tests/spec/test_specs.py instead): a variant's and a liveness
    config's run by groupcheck's evaluator from the file alone; a base config's promises."""
    bundle = BUNDLES[name]
    config = tlc_config.read(bundle.folder / cfg)
    mc_text = (bundle.folder / cfg.replace(".cfg", ".tla")).read_text()
    variant = next((v for v in bundle.variants if cfg == f"{v.tlc_model}.cfg"), None)
    claim = fairness.fair_claim(bundle.folder / cfg)
    if variant is None and claim is None:
        # A base config. test_specs.py runs groupcheck's evaluator over this spec at these
        # constants (test_the_tlc_model_has_the_constants_of_its_manifest_scope) state for state
        # against the model, and test_tlc_real.py runs TLC on this very file; running the
        # evaluator a second time here only cost CI minutes (MCConsumerGroupRecords: 95 s).
        # What is left to check is what the file promises.
        pinned = _scope_of(bundle, cfg)[0]
        assert pinned.distinct_states == _expected_count(config.expected) \
            == _expected_count(mc_text.replace("\n", " ").replace("(*", " ").replace("*)", " "))
        assert "TypeOK" in config.invariants
        return
    whole = tlc_config.run(config, stop=False)
    assert whole.cut is None
    if claim is not None:   # a liveness config: spec mc checks the rest, names the PROPERTY it leaves to TLC
        assert whole.left_to_tlc == [f"PROPERTY {claim}"] and whole.violated == []
        assert whole.states == _scope_of(bundle, cfg)[0].distinct_states
        return
    assert whole.left_to_tlc == []
    assert variant.property in whole.violated
    assert whole.states == variant.distinct_states
    first = tlc_config.run(config)
    assert first.violation[0] == variant.property
    promised = re.search(r"(\d+) steps", config.expected)
    assert promised, config.expected
    assert len(first.violation[1]) - 1 == int(promised.group(1))


def test_a_record_type_with_an_integer_field_is_checked_by_membership(tmp_path):
    """TypeOK's ``[epoch : Int]``: TLC checks membership field by field; so does the
    evaluator, and enumerating such a set is a clear error."""
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "R.tla").write_text(
        "---- MODULE R ----\nEXTENDS Integers\nVARIABLE r\nRec == [epoch : Int, name : STRING]\n"
        "Init == r = [epoch |-> -1, name |-> \"m0\"]\nNext == r' = [r EXCEPT !.epoch = @ + 1]\n"
        "TypeOK == r \\in Rec\nBad == \\E x \\in Rec : x.epoch = 0\n"
        "Inv == r.epoch < 2\n====\n")
    (folder / "MCR.tla").write_text("---- MODULE MCR ----\nEXTENDS R\n====\n")
    (folder / "MCR.cfg").write_text("INIT Init\nNEXT Next\nINVARIANTS\n  TypeOK\n  Inv\n")
    run = tlc_config.run(tlc_config.read(folder / "MCR.cfg"))
    assert run.violation[0] == "Inv" and len(run.violation[1]) - 1 == 3
    (folder / "MCR.cfg").write_text("INIT Init\nNEXT Next\nINVARIANT Bad\n")
    with pytest.raises(SpecError, match=r"R.tla:8: .*must be a finite set, got \[epoch : Int, name : STRING\]"):
        tlc_config.run(tlc_config.read(folder / "MCR.cfg"))


def test_a_config_keyword_not_read_and_a_bad_constant_line_are_named(tmp_path):
    folder = manifest.folders()["consumer-group"]
    copy = tmp_path / folder.name
    shutil.copytree(folder, copy)
    cfg = copy / "MCConsumerGroup.cfg"
    text = cfg.read_text()
    cfg.write_text(text + "SYMMETRY Perms\n")
    with pytest.raises(SpecError, match="config keyword SYMMETRY is not read here"):
        tlc_config.read(cfg)
    cfg.write_text(text.replace("Budget = 0", "Budget = 0 K = 5"))
    with pytest.raises(SpecError, match=r"MCConsumerGroup.cfg:\d+: not a TLA\+ value|one 'Name = value'"):
        tlc_config.read(cfg)


def test_spec_mc_prints_the_count_or_the_shortest_trace():
    runner = CliRunner()
    folder = manifest.folders()["consumer-group"]
    ok = runner.invoke(app, ["spec", "mc", str(folder / "MCConsumerGroup.cfg")])
    assert ok.exit_code == 0, ok.stdout
    assert "2,052 distinct states, depth 49," in ok.stdout and "no invariant or property broken" in ok.stdout
    bad = runner.invoke(app, ["spec", "mc", str(folder / "MCConsumerGroup_KAFKA20442.cfg"), "--no-states"])
    assert bad.exit_code == 1, bad.stdout
    assert "empty_epochs_equal is violated after 6 steps" in bad.stdout
    assert bad.stdout.count("HandleKAFKA20442") == 2
    missing = runner.invoke(app, ["spec", "mc", str(folder / "nope.cfg")])
    assert missing.exit_code == 2 and "cannot read" in missing.stdout + (missing.stderr or "")


@pytest.mark.parametrize("name, cfg", CFGS)
def test_the_config_gives_its_tlc_command_and_the_readme_repeats_it(name, cfg):
    """What a TLA+ user runs: the config's first line is the exact TLC command (with
    ``-deadlock`` where deadlock is not checked: TLC 2.15 reads no CHECK_DEADLOCK), its
    second says why deadlock is or is not checked, and the folder's README lists it."""
    bundle = BUNDLES[name]
    lines = (bundle.folder / cfg).read_text().splitlines()
    command = tlc_config.tlc_command(lines[0])
    stem = cfg[:-len(".cfg")]
    assert re.fullmatch(rf"java -cp tla2tools.jar tlc2.TLC -workers 1( -deadlock)?( -fp \d+ -lncheck final)? -config {stem}.cfg {stem}.tla",
                        command), lines[0]
    assert lines[1].startswith("\\* Deadlock: ")
    assert ("-deadlock" in command) == (not tlc_config.read(bundle.folder / cfg).check_deadlock)
    if "a lasso of" in "\n".join(lines[:6]):    # a pinned lasso is TLC's only with both (tlc.pinned_flags)
        assert " -fp 0 -lncheck final " in command, lines[0]
    assert f"    {command}\n" in (bundle.folder / "README.md").read_text()


@pytest.mark.parametrize("name, cfg", [(n, c) for n, c in CFGS if _scope_of(BUNDLES[n], c)[0] in BUNDLES[n].configs])
def test_every_base_config_checks_type_ok(name, cfg):
    assert "TypeOK" in tlc_config.read(BUNDLES[name].folder / cfg).invariants
