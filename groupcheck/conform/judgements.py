"""Judgements of known divergences, kept as data (``judgements.json``), for every role.

A divergence found by ``groupcheck conform`` is a fact about one target; whether it is a
bug in the target, a documented choice, or a fault of the model is a maintainer's
judgement, made once and recorded with the Kafka source or KIP sentence that decides it.
``judgements.json`` holds those records, keyed by target, claim and signature
(``dedupe.signature``); the target and the signature may be ``fnmatch`` patterns
("kafka-python:*", "*KeyError*"). It is read with ``json`` and never runs code.

``judgement(target, claim, signature)`` is the first matching record, or ``NOT_JUDGED``;
the verdict writers of every role put it next to each divergence (``judged`` adds the
signature for a campaign that has only the message).
"""
from __future__ import annotations

import fnmatch
import functools
import json
from pathlib import Path

TABLE = Path(__file__).with_name("judgements.json")
KINDS = ("bug in the target", "documented choice", "the model")
NOT_JUDGED = {"judgement": "not yet judged", "decided_by": "", "note": ""}


@functools.lru_cache(maxsize=None)
def load(path: Path = TABLE) -> tuple[dict, ...]:
    """The records of ``path``, each checked for its fields and its kind of judgement."""
    records = json.loads(path.read_text(encoding="utf-8"))["judgements"]
    for r in records:
        missing = {"target", "claim", "signature", "judgement", "decided_by"} - set(r)
        if missing or r["judgement"] not in KINDS:
            raise ValueError(f"{path.name}: a judgement lacks {sorted(missing)} or has a kind not in {KINDS}: {r}")
    return tuple(records)


def judgement(target: str, claim: str, signature: str, records: tuple[dict, ...] | None = None) -> dict:
    """The recorded judgement of (target, claim, signature): {"judgement", "decided_by",
    "note"}; ``NOT_JUDGED`` when no record matches."""
    for r in load() if records is None else records:
        if (r["claim"] == claim and fnmatch.fnmatchcase(target, r["target"])
                and fnmatch.fnmatchcase(signature, r["signature"])):
            return {"judgement": r["judgement"], "decided_by": r["decided_by"], "note": r.get("note", "")}
    return dict(NOT_JUDGED)


def judged(target: str, claim: str, message: str) -> dict:
    """A divergence's signature (``dedupe.signature`` of its message) and its judgement:
    for campaigns that keep a message per divergence (the consumer-client role)."""
    from .dedupe import signature
    sig = signature(message)
    return {"signature": sig, **judgement(target, claim, sig)}
