"""The JSON form of the model's requests and responses (schema/group-coordinator.schema.json).

Member ids on the wire are strings (Kafka's); the driver maps the model's ints to the
target's strings by first appearance. A member's metadata (ConsumerProtocolSubscription)
and assignment are opaque to a coordinator: they travel as strings it must echo.
"""
from __future__ import annotations

import json

from groupcheck.model.consumer import (DescribeGroups, Heartbeat, JoinGroup, LeaveGroup, OffsetCommit, OffsetFetch,
                                       Subscription, SyncGroup)

__all__ = ["metadata", "request_from_json", "request_json", "response_json", "subscription"]


def metadata(sub) -> str:
    """The model's Subscription as the opaque string a coordinator echoes."""
    return json.dumps(list(sub), separators=(",", ":")) if sub else ""


def subscription(text: str):
    return Subscription._make(json.loads(text)) if text else ()      # the wire's list holds the fields in order


def request_json(req, ids) -> dict:
    """``ids(model id) -> wire id``."""
    if isinstance(req, JoinGroup):
        return {"kind": "JoinGroup", "member_id": ids(req.member_id), "protocols": list(req.protocols),
                "metadata": metadata(req.subscription)}
    if isinstance(req, SyncGroup):
        return {"kind": "SyncGroup", "member_id": ids(req.member_id), "generation": req.generation,
                "assignments": [{"member_id": ids(m), "assignment": str(a)} for m, a in req.assignments]}
    if isinstance(req, Heartbeat):
        return {"kind": "Heartbeat", "member_id": ids(req.member_id), "generation": req.generation}
    if isinstance(req, LeaveGroup):
        return {"kind": "LeaveGroup", "member_id": ids(req.member_id)}
    if isinstance(req, OffsetCommit):
        return {"kind": "OffsetCommit", "member_id": ids(req.member_id), "generation": req.generation,
                "offset": req.offset}
    if isinstance(req, (OffsetFetch, DescribeGroups)):
        return {"kind": req.kind, "member_id": ids(req.member_id)}
    raise ValueError(f"request_json: not a request: {req!r}")


def request_from_json(d: dict, ids):
    """``ids(wire id) -> model id``: the inverse of ``request_json``."""
    kind, mid = d["kind"], ids(d["member_id"])
    if kind == "JoinGroup":
        return JoinGroup(member_id=mid, protocols=tuple(d["protocols"]), subscription=subscription(d["metadata"]))
    if kind == "SyncGroup":
        return SyncGroup(member_id=mid, generation=d["generation"],
                         assignments=tuple((ids(a["member_id"]), int(a["assignment"] or 0)) for a in d["assignments"]))
    if kind == "Heartbeat":
        return Heartbeat(member_id=mid, generation=d["generation"])
    if kind == "OffsetCommit":
        return OffsetCommit(member_id=mid, generation=d["generation"], offset=d["offset"])
    if kind == "OffsetFetch":
        return OffsetFetch(member_id=mid)
    if kind == "DescribeGroups":
        return DescribeGroups(member_id=mid)
    return LeaveGroup(member_id=mid)


def response_json(resp, ids) -> dict:
    """A model response (JoinGroupResponse, SyncGroupResponse, HeartbeatResponse and the
    probes' OffsetCommitResponse, OffsetFetchResponse, DescribeGroupsResponse) as JSON."""
    out = {"kind": resp.kind, "to": ids(resp.to), "error": resp.error}
    if resp.kind == "JoinGroupResponse":
        out.update(generation=resp.generation, member_id=ids(resp.member_id), leader=ids(resp.leader),
                   protocol=resp.protocol,
                   members=[{"member_id": ids(m), "metadata": metadata(s)} for m, s in resp.members])
    elif resp.kind == "SyncGroupResponse":
        out["assignment"] = str(resp.assignment) if resp.error == "NONE" else ""
    elif resp.kind == "OffsetFetchResponse":
        out["offset"] = resp.offset
    elif resp.kind == "DescribeGroupsResponse":
        out.update(state=resp.state, protocol=resp.protocol, member_ids=[ids(m) for m in resp.members])
    return out
