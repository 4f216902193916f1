"""A standalone reproduction script for an assignor divergence (role assignor).

``write`` puts ``repro_<stem>.py`` next to the divergence's trace when the target is a
library's own assignor (kafka-python, aiokafka, librdkafka): a script that needs no
groupcheck, only the library. For kafka-python and aiokafka it builds the cluster
metadata (the library's ClusterMetadata from a MetadataResponse) and the subscriptions
with the library's own classes and calls its assignor; for librdkafka it runs one real
rebalance on librdkafka's mock cluster, a confluent-kafka consumer as leader and the
input's members crafted over TCP (kafka-python's protocol classes), as
``librdkafka/leader.py`` does. It prints the input, the rule, an expected answer (the
reference's, where one exists) and the observed one, and exits 1 when the divergence
shows: the same exception (``assignor_answers``), two different answers to one input
(``deterministic``; librdkafka's members joining in reverse order the second time), or
the claim violated by the library's answer (every other per-invocation claim; the
script carries ``claims.py`` verbatim, so it judges by the very rules the run did).

A divergence of a model property over a path (``can_settle``, ``no_double_ownership``)
has no single call to replay: no script (its regression test replays the path).

The script is the Jinja2 template groupcheck/templates/repro_assignor.py.txt; every
value reaches it as ``json.loads(<repr of a JSON string>)`` or as a ``repr`` in a
comment line, never as code (the only code put in is claims.py's own text).
"""
from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from ....outputs import atomic_write_text
from . import claims as C
from ...judgements import judgement
from ...recording import ANSWERS, DETERMINISTIC
from .targets import AIOKAFKA, KAFKA_PYTHON, resolve

# library -> (what the script needs installed, the assignor classes by name)
LIBRARIES = {"kafka-python": ("kafka-python", KAFKA_PYTHON), "aiokafka": ("aiokafka", AIOKAFKA),
             "librdkafka": ("confluent-kafka kafka-python", None)}
REFERENCE = ("range", "roundrobin", "sticky", "cooperative-sticky")


@cache
def _template():
    return Environment(loader=PackageLoader("groupcheck", "templates"), autoescape=False, undefined=StrictUndefined,
                       keep_trailing_newline=True).get_template("repro_assignor.py.txt")


def divergent_call(recorder, claim: str, message: str) -> tuple[object, str] | None:
    """The recorded call (and round mode) whose verdict of ``claim`` is ``message``."""
    for key, call in recorder.calls.items():
        for mode in sorted(call.modes):
            if recorder.verdicts(key, mode).get(claim) == message:
                return call, mode
    return None


def expected(assignor: str, argument: dict) -> dict | None:
    """The reference assignor's answer to ``argument`` (one correct answer), or None."""
    if assignor not in REFERENCE:
        return None
    adapter = resolve(f"reference:{assignor}").make()
    out = adapter.invoke("assignor", "assign", argument)
    return out.value["assignment"] if out.ok else None


def source(target, claim: str, message: str, signature: str, call, mode: str) -> str | None:
    """The script's text, or None when the target or the claim has no standalone form."""
    library, _, which = target.name.partition(":")
    if library not in LIBRARIES or claim not in (ANSWERS, DETERMINISTIC, *C.CLAIMS):
        return None
    needs, classes = LIBRARIES[library]
    if classes is not None and which not in classes:
        return None
    check = {ANSWERS: "raises", DETERMINISTIC: "differs"}.get(claim, "same")
    observed = call.outcome.error if check == "raises" else call.answer
    raised = re.search(r"raised (\w+)", observed) if check == "raises" else None
    verdict = judgement(target.key, claim, signature)
    doc = C.DOCS[claim]
    data = {"library": library, "assignor": target.assignor, "assignor_class": classes[which][0] if classes else "",
            "exception": raised.group(1) if raised else "", "claim": claim, "mode": mode, "message": message,
            "rule": " ".join(doc.split()), "check": check, "contract": target.balanced, "argument": call.argument,
            "observed": observed, "expected": expected(target.assignor, call.argument)}
    return _template().render(
        needs=needs, library=library, assignor_repr=repr(target.assignor), target_repr=repr(target.key),
        claim_repr=repr(claim), mode_repr=repr(mode), message_repr=repr(message),
        judgement_repr=repr(verdict["judgement"]), decided_by_repr=repr(verdict["decided_by"]),
        claim_doc=[repr(line.strip()) for line in doc.splitlines() if line.strip()],
        data_literal=repr(json.dumps(data)), claims_source=_claims_source())


@cache
def _claims_source() -> str:
    """claims.py's text without its ``__future__`` import (which must open a file): the
    script judges the library's answer by the very functions the run judged it by."""
    text = Path(C.__file__).read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if line != "from __future__ import annotations")


def write(where: Path, stem: str, run, d) -> Path | None:
    """The script of divergence ``d`` (a driver.Divergence) of ``run`` (a TargetRun), or
    None (see the module)."""
    found = divergent_call(run.recorder, d.property, d.message) if run.recorder else None
    if found is None:
        return None
    text = source(run.target, d.property, d.message, d.signature, *found)
    if text is None:
        return None
    path = where / f"repro_{stem}.py"
    atomic_write_text(path, text, force=True)
    return path
