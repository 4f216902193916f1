"""The in-process fast path: a Python assignor called directly, through the adapter interface.

Three shapes of assignor are understood (``style`` detects which):

``kafka-python``  kafka-python's AbstractPartitionAssignor: ``name``,
    ``assign(cluster, members)`` with ``members`` a list of (member_id,
    group_instance_id, metadata: ConsumerProtocolSubscription), answering
    ``{member_id: ConsumerProtocolAssignment}``; ``metadata(topics)``, ``on_assignment``,
    ``supported_protocols()``.
``aiokafka``      aiokafka's: ``assign(cluster, {member_id: ConsumerProtocolMemberMetadata})``
    answering ``{member_id: ConsumerProtocolMemberAssignment}``; EAGER only.
``groupcheck``    ``groupcheck.api.PartitionAssignor``: ``assign(cluster, {member_id:
    Subscription})`` answering ``{member_id: [TopicPartition, ...]}``.

Each invoke gets the JSON ``assign`` argument of ``schema/assignor.schema.json`` and
answers its ``assignResult``, so this path and an external program are judged alike.
An exception from the assignor is a ``fail`` outcome (a definite error), reported
with the line that raised it.
"""
from __future__ import annotations

import logging
import os
import sys
import traceback
from collections import namedtuple
from pathlib import Path
from typing import Any, Callable

from ...adapter import AdapterError, Hello, Outcome
from ....stopping import user_code

EAGER, COOPERATIVE = "EAGER", "COOPERATIVE"
# the libraries warn on every call about claims they drop ("assigned to multiple consumers")
# and topics without metadata: the verdict reports what matters, so keep stderr quiet
for _name in ("kafka", "aiokafka"):
    logging.getLogger(_name).setLevel(logging.ERROR)

JoinGroupMember = namedtuple("JoinGroupMember", "member_id group_instance_id metadata")


class Cluster:
    """The two methods of ClusterMetadata an assignor uses."""

    def __init__(self, topics: dict[str, int]):
        self._topics = dict(topics)

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        n = self._topics.get(topic)
        return set(range(n)) if n else None

    def available_partitions_for_topic(self, topic: str) -> set[int] | None:
        return self.partitions_for_topic(topic)

    def topics(self, exclude_internal_topics: bool = True) -> set[str]:
        return set(self._topics)


def style(obj: Any) -> str:
    """Which kind of assignor ``obj`` is: kafka-python, aiokafka or groupcheck."""
    try:
        from aiokafka.coordinator.assignors.abstract import AbstractPartitionAssignor as Aio
        if isinstance(obj, Aio) or (isinstance(obj, type) and issubclass(obj, Aio)):
            return "aiokafka"
    except ImportError:
        pass
    protocols = getattr(obj, "supported_protocols", None)
    if isinstance(protocols, (tuple, list)):
        return "groupcheck"
    if callable(getattr(obj, "assign", None)) and callable(getattr(obj, "metadata", None)):
        return "kafka-python"
    raise AdapterError(f"{obj!r}: not an assignor: give a kafka-python-style class (name, assign(cluster, members), "
                       "metadata(topics), on_assignment) or a groupcheck.api.PartitionAssignor")


def supported_protocols(obj: Any, kind: str) -> tuple[str, ...]:
    if kind == "groupcheck":
        return tuple(obj.supported_protocols)
    if kind == "aiokafka":
        return (EAGER,)
    method = getattr(obj, "supported_protocols", None)
    if not callable(method):
        return (EAGER,)
    names = []
    for p in method():
        name = getattr(p, "name", p)
        names.append({0: EAGER, 1: COOPERATIVE}.get(name, name))
    return tuple(names)


def _sub_tps(pairs: list) -> dict[str, list[int]]:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in pairs:
        by_topic.setdefault(topic, []).append(partition)
    return {t: sorted(ps) for t, ps in sorted(by_topic.items())}


def _module_path(filename: str) -> str:
    """``filename`` relative to the ``sys.path`` folder it was imported from
    (``kafka/coordinator/assignors/roundrobin.py``): the same on every machine, so the
    divergence's signature (``dedupe.signature``) and its judgement do not depend on where
    the library is installed."""
    roots = [str(Path(p).resolve()) for p in sys.path if p]
    here = str(Path(filename).resolve())
    best = max((r for r in roots if here.startswith(r + os.sep)), key=len, default="")
    return here[len(best) + 1:] if best else filename


def _error(e: BaseException) -> str:
    frames = traceback.extract_tb(e.__traceback__)
    where = f" (at {_module_path(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    return f"assign() raised {type(e).__name__}: {e}{where}"


class InProcessAdapter:
    """A Python assignor object (or a factory making a fresh one per call) as an Adapter.

    ``fresh`` builds the assignor; it is called before every invocation when
    ``per_call`` (aiokafka's sticky keeps its state in class attributes: ``reset``
    clears them first), else once."""

    def __init__(self, name: str, fresh: Callable[[], Any], version: str = "", per_call: bool = False,
                 reset: Callable[[], None] | None = None):
        self.name, self.fresh, self.version, self.per_call, self.reset = name, fresh, version, per_call, reset
        self.obj = fresh()
        self.kind = style(self.obj)
        self.protocols = supported_protocols(self.obj, self.kind)
        self.assignor_name = str(getattr(self.obj, "name", "") or name)

    def open(self) -> Hello:
        return Hello(self.name, self.version, ("assignor",), (self.assignor_name,))

    def setup(self, role: str, config: dict) -> Outcome:
        if role != "assignor":
            return Outcome("fail", error=f"role {role}: only assignor is served in process")
        return Outcome("ok")

    def invoke(self, role: str, f: str, value: Any) -> Outcome:
        if role != "assignor" or f != "assign":
            return Outcome("fail", error=f"{role}.{f}: not served in process")
        if self.reset is not None:
            self.reset()
        obj = self.fresh() if self.per_call else self.obj
        try:
            with user_code(f"assignor {self.name}"):      # --max-seconds and signals reach one that hangs
                result = getattr(self, "_" + self.kind.replace("-", "_"))(obj, value)
        except Exception as e:        # the implementation's own error: a definite failure
            return Outcome("fail", error=_error(e))
        return Outcome("ok", {"assignment": result})

    def teardown(self) -> None:
        pass

    def close(self) -> None:
        pass

    # ---- one call per style: the JSON argument in the library's types, its answer back ----
    @staticmethod
    def _kafka_python(obj: Any, value: dict) -> dict:
        from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData
        from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription as Sub

        members = []
        for m in value["members"]:
            user_data = b""
            if m.get("user_data") is not None:
                prev = list(_sub_tps(m["user_data"]["previous_assignment"]).items())
                gen = m["user_data"]["generation"]
                user_data = StickyAssignorUserData(prev, -1 if gen is None else gen).encode()
            owned = [Sub.TopicPartition(topic=t, partitions=ps) for t, ps in _sub_tps(m["owned_partitions"]).items()]
            metadata = Sub(version=m.get("version", 3), topics=list(m["topics"]), user_data=user_data,
                           owned_partitions=owned, generation_id=m["generation"])
            members.append(JoinGroupMember(m["member_id"], m.get("group_instance_id"), metadata))
        answer = obj.assign(Cluster(value["topics"]), members)
        return {mid: [[tp.topic, tp.partition] for tp in a.partitions()] for mid, a in answer.items()}

    @staticmethod
    def _aiokafka(obj: Any, value: dict) -> dict:
        from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyAssignorUserDataV1
        from aiokafka.coordinator.protocol import ConsumerProtocolMemberMetadata

        members = {}
        for m in value["members"]:
            user_data = b""
            if m.get("user_data") is not None:
                prev = list(_sub_tps(m["user_data"]["previous_assignment"]).items())
                gen = m["user_data"]["generation"]
                user_data = StickyAssignorUserDataV1(prev, -1 if gen is None else gen).encode()
            members[m["member_id"]] = ConsumerProtocolMemberMetadata(0, list(m["topics"]), user_data)
        answer = obj.assign(Cluster(value["topics"]), members)
        return {mid: [[tp.topic, tp.partition] for tp in a.partitions()] for mid, a in answer.items()}

    @staticmethod
    def _groupcheck(obj: Any, value: dict) -> dict:
        from groupcheck.api import StickyUserData, Subscription, TopicPartition

        subs = {}
        for m in value["members"]:
            ud = m.get("user_data")
            user_data = None if ud is None else StickyUserData(
                [TopicPartition(t, p) for t, p in ud["previous_assignment"]],
                -1 if ud["generation"] is None else ud["generation"])
            subs[m["member_id"]] = Subscription(tuple(m["topics"]), [TopicPartition(t, p) for t, p in m["owned_partitions"]],
                                                m["generation"], user_data)
        answer = obj.assign(dict(value["topics"]), subs)
        if not isinstance(answer, dict):
            raise TypeError(f"assign() returned {type(answer).__name__}, not a mapping of member id to partitions")
        out = {}
        for mid, tps in answer.items():
            out[str(mid)] = [[getattr(tp, "topic", None) or tp[0], int(getattr(tp, "partition", None) if hasattr(tp, "partition") else tp[1])]
                             for tp in tps]
        return out


def uses_user_data(adapter: InProcessAdapter) -> bool:
    """Does this kafka-python-style assignor keep its previous assignment in userData
    (KIP-54's StickyAssignor does)? Asked by giving a fresh instance an assignment and
    looking at the metadata it would send next."""
    if adapter.kind == "groupcheck":
        return False
    if adapter.kind == "aiokafka":
        return adapter.assignor_name == "sticky"
    try:
        from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment as A
        obj = adapter.fresh()
        obj.on_assignment(A(version=0, assigned_partitions=[("t0", [0])], user_data=b""), 1)
        return bool(getattr(obj.metadata({"t0"}), "user_data", b""))
    except Exception:
        return False
