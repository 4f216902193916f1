"""Every assignor divergence is reported so that a maintainer can act on it: a judgement
kept as data (``judgements.json``) and a standalone reproduction script written next
to the verdict, which needs no groupcheck and exits 1 while the divergence shows."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from groupcheck.console import Limits
from groupcheck.conform import driver, judgements, verdict
from groupcheck.conform.roles.assignor import repro as assignor_repro, targets


def run(name, scope):
    return driver.run_target(targets.resolve(name), driver.Settings(walks=0, progress_every=1e9, only=(scope,)),
                             Limits(100_000, 300, "4GiB"))


@pytest.fixture(scope="module")
def roundrobin(tmp_path_factory):
    """kafka-python 3.0.12's roundrobin KeyError, found, judged and written."""
    r = run("kafka-python:roundrobin", "metadata")
    out = tmp_path_factory.mktemp("rr")
    path, _ = verdict.write(r, out)
    return r, json.loads(path.read_text())


def script_run(path: Path, cwd: Path) -> subprocess.CompletedProcess:
    """The script under ``python -I`` from a folder without groupcheck: it cannot import it."""
    return subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_the_judgement_table_is_data_and_matches_by_pattern():
    records = judgements.load()
    assert all(r["judgement"] in judgements.KINDS for r in records)
    found = judgements.judgement("kafka-python:roundrobin", "assignor_answers",
                                 "kafka-python roundrobin failed on a valid input assign raised KeyError None at x")
    assert found["judgement"] == "bug in the target" and "roundrobin.py" in found["decided_by"]
    assert judgements.judgement("aiokafka:roundrobin", "assignor_answers", "raised KeyError") == judgements.NOT_JUDGED
    assert judgements.judgement("tansu", "same_held", "JoinGroup: anything")["judgement"] == "bug in the target"


def test_a_record_of_an_unknown_kind_is_refused(tmp_path):
    bad = tmp_path / "j.json"
    bad.write_text(json.dumps({"judgements": [{"target": "*", "claim": "x", "signature": "*",
                                               "judgement": "probably fine", "decided_by": ""}]}))
    with pytest.raises(ValueError, match="probably fine"):
        judgements.load(bad)


def test_the_verdict_shows_each_divergence_with_its_judgement(roundrobin):
    r, data = roundrobin
    by_claim = {d["property"]: d for d in data["divergences"]}
    assert by_claim["assignor_answers"]["judgement"] == "bug in the target"
    assert "roundrobin.py" in by_claim["assignor_answers"]["decided_by"]
    assert "judgement: bug in the target" in verdict.text(r, data)


def test_a_new_divergence_is_not_yet_judged():
    r = driver.run_target(targets.python_assignor("groupcheck.conform.targets.broken.assignors:WithholdsEveryClaim"),
                          driver.Settings(walks=0, progress_every=1e9, only=("kip-792-zombies",)),
                          Limits(100_000, 120, "4GiB"))
    listed = verdict.summary(r)["divergences"]
    assert listed and {d["judgement"] for d in listed} == {"not yet judged"}


def test_the_keyerror_script_reproduces_without_groupcheck_and_not_once_fixed(roundrobin, tmp_path):
    _, data = roundrobin
    script = Path(next(d for d in data["divergences"] if d["property"] == "assignor_answers")["repro"])
    done = script_run(script, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "observed: raised \"KeyError" in done.stdout and "REPRODUCED" in done.stdout
    # the same input to kafka-python's range (no such bug): not reproduced, exit 0
    fixed = tmp_path / "repro_fixed.py"
    fixed.write_text(script.read_text().replace("kafka.coordinator.assignors.roundrobin:RoundRobinPartitionAssignor",
                                                "kafka.coordinator.assignors.range:RangePartitionAssignor"))
    done = script_run(fixed, tmp_path)
    assert done.returncode == 0 and "not reproduced" in done.stdout, done.stdout + done.stderr


def test_a_path_property_has_no_script(roundrobin):
    _, data = roundrobin
    settle = [d for d in data["divergences"] if d["property"] == "can_settle"]
    assert settle and "repro" not in settle[0]


def test_the_stale_claim_script_judges_the_librarys_answer_by_the_claim(tmp_path):
    """kafka-python's cooperative-sticky answer varies with the hash seed; the script
    judges whichever answer it gets by generation_aware_claims itself."""
    r = run("kafka-python:cooperative-sticky", "stale-claims-old-clients")
    path, _ = verdict.write(r, tmp_path)
    d = json.loads(path.read_text())["divergences"][0]
    assert d["property"] == "generation_aware_claims"
    done = script_run(Path(d["repro"]), tmp_path)
    assert done.returncode == 1 and "violated: t0-" in done.stdout, done.stdout + done.stderr


def test_words_of_the_target_reach_the_script_only_as_data():
    class Call:
        argument = {"topics": {"t0": 1}, "members": [{"member_id": 'x"""\nimport os  # ', "version": 3, "topics": ["t0"],
                                                       "owned_partitions": [], "generation": -1, "user_data": None}]}
        answer = {'x"""\nimport os  # ': []}
    target = targets.resolve("kafka-python:range")
    message = 't0-0 subscribed\n"""; import os; os.system("x")'
    text = assignor_repro.source(target, "no_partition_withheld", message, "sig", Call, "EAGER")
    compile(text, "repro.py", "exec")
    assert "\nimport os" not in text and 'os.system("x")' not in text.replace(repr(message), "")


def _member(i, owned, generation, version=3):
    return {"member_id": f"consumer-00{i}", "version": version, "topics": ["t0"],
            "owned_partitions": [["t0", p] for p in owned], "generation": generation, "user_data": None}


def librdkafka_script(tmp_path, claim, message, argument, answer):
    """A librdkafka script written for ``argument`` as if the run had met it."""
    pytest.importorskip("confluent_kafka")

    class Call:
        pass
    call = Call()
    call.argument, call.answer = argument, answer
    text = assignor_repro.source(targets.resolve("librdkafka:cooperative-sticky"), claim, message, "sig", call,
                                 "COOPERATIVE")
    path = tmp_path / "repro_librdkafka.py"
    path.write_text(text)
    return script_run(path, tmp_path)


def test_the_librdkafka_join_order_script_reproduces_on_the_mock(tmp_path):
    """librdkafka's cooperative-sticky takes the last claimant in join order as the owner
    (the divergence ``deterministic``): one real rebalance per join order, standalone."""
    value = {"topics": {"t0": 3}, "members": [_member(2, [0, 1, 2], 3), _member(3, [0], 5)]}
    done = librdkafka_script(tmp_path, "deterministic", "same input answered differently", value, None)
    assert done.returncode == 1 and "REPRODUCED" in done.stdout, done.stdout + done.stderr
    assert '"consumer-003": []' in done.stdout and '"consumer-003": [["t0", 0]]' in done.stdout


def test_the_librdkafka_stale_claim_script_reproduces_on_the_mock(tmp_path):
    """Two v1 claims (no generation) and consumer-004's at generation 5 on t0-0: joined
    004, 003, 002, librdkafka gives t0-0 to the stale consumer-002 (generation_aware_claims)."""
    value = {"topics": {"t0": 2}, "members": [_member(2, [0], -1, 1), _member(3, [0], -1, 1), _member(4, [0, 1], 5)]}
    done = librdkafka_script(tmp_path, "generation_aware_claims", "t0-0 given to consumer-002", value, {})
    assert done.returncode == 1 and "violated: t0-0 given to consumer-002" in done.stdout, done.stdout + done.stderr


def test_a_written_verdict_follows_the_verdict_schema(roundrobin):
    """schema/verdict.schema.json: every property row, and each divergence's judgement."""
    import jsonschema
    from importlib.resources import files
    _, data = roundrobin
    schema = json.loads(files("groupcheck.conform").joinpath("schema/verdict.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert "no_partition_withheld" in {p["property"] for p in data["properties"]}
    assert "no_partition_withheld" in schema["description"]
    bad = json.loads(json.dumps(data))
    bad["divergences"][0]["judgement"] = "looks fine"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_an_assignor_error_names_its_file_as_the_module_path(roundrobin):
    """The KeyError's place is kafka/coordinator/assignors/roundrobin.py, not an install
    path: the signature (and so the dedupe and the judgement) is the same on every machine."""
    _, data = roundrobin
    d = next(d for d in data["divergences"] if d["property"] == "assignor_answers")
    assert "(at kafka/coordinator/assignors/roundrobin.py:" in d["message"], d["message"]
    assert "site-packages" not in d["signature"] and "kafka coordinator assignors roundrobin py" in d["signature"]


def test_the_copied_claims_mark_not_applicable_as_the_verdicts_read_it():
    """roles/assignor/claims.py is copied into standalone scripts, so it keeps its own
    NOT_APPLICABLE and imports nothing of groupcheck; the verdict writers read recording's."""
    import ast

    from groupcheck.conform import recording
    from groupcheck.conform.roles.assignor import claims
    assert claims.NOT_APPLICABLE == recording.NOT_APPLICABLE
    tree = ast.parse(open(claims.__file__).read())
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.level or "groupcheck" in (n.module or ""))]
