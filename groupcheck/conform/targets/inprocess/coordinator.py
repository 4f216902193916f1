"""The model's coordinator behind the adapter interface, in process (target ``reference``).

It speaks the role's JSON (``wire``), keeps one group per ``setup``, hands out member
ids ``"member-<n>"`` and answers a request only on the connection it came on: after
``disconnect`` a slot's earlier requests are forgotten (their answers are dropped, as a
closed TCP connection drops them). Subclasses change one rule through ``handle``,
``advance`` or ``after`` (``groupcheck/conform/targets/broken/coordinators.py``).
"""
from __future__ import annotations

from groupcheck.model import consumer as gc
from groupcheck.model.consumer import NO_MEMBER, NO_OFFSET, NONE
from groupcheck.model.wire import group_coordinator_json as wire

from ...adapter import Hello, Outcome, validate

ROLE = "group-coordinator"


def handle(group, slot, req, stored: int = NO_OFFSET) -> gc.Outcome:
    """One request to the model's coordinator (``groupcheck.model.consumer``'s handlers); a
    probe's answer moves nothing (``stored``: the committed offset an OffsetFetch reads).
    What this target answers, and what role group-coordinator expects."""
    if req.kind == "OffsetCommit":
        return gc.Outcome(group, ((slot, gc.offset_commit(group, req)),), ())
    if req.kind == "OffsetFetch":
        return gc.Outcome(group, ((slot, gc.offset_fetch(stored, req)),), ())
    if req.kind == "DescribeGroups":
        return gc.Outcome(group, ((slot, gc.describe_group(group, req)),), ())
    return gc.handle_request(group, slot, req)


class ReferenceCoordinator:
    name = "reference"
    @property
    def note(self) -> str:
        if type(self) is ReferenceCoordinator:
            return "the model's coordinator (model/consumer/coordinator.py), in process"
        lines = (type(self).__doc__ or "").strip().splitlines()
        return lines[0] if lines else f"{type(self).__module__}.{type(self).__qualname__}"

    def open(self) -> Hello:
        return Hello(self.name, "1", (ROLE,), extra={"kip394": True})

    def setup(self, role: str, config: dict) -> Outcome:
        validate("group-coordinator.setup", config, "groupcheck (driver)")
        self.group = gc.new_group()
        self.waiting: dict[int, list[tuple[str, int]]] = {}     # slot -> [(response kind, member id)]
        self.stored = NO_OFFSET       # the committed offset (OffsetCommit accepted, OffsetFetch reads it)
        return Outcome("ok", {})

    # ---- ids: "member-<n>" <-> n ----
    @staticmethod
    def wire_id(mid: int) -> str:
        return "" if mid == NO_MEMBER else f"member-{mid}"

    @staticmethod
    def model_id(text: str) -> int:
        return int(text.removeprefix("member-")) if text.startswith("member-") and text[7:].isdigit() else (
            NO_MEMBER if text == "" else -1)

    # ---- hooks a broken coordinator overrides ----
    def handle(self, group, slot, req):
        return handle(group, slot, req, self.stored)

    def advance(self, group, reason: str, members: tuple):
        if reason == "session_timeout":
            out = gc.Outcome(group, (), ())
            for mid in members:
                out = gc.chain(out, gc.remove_member(out.group, mid, "session timeout"))
            return out
        if reason == "rebalance_timeout":
            return gc.rebalance_timeout(group, members)
        return gc.Outcome(group, (), ())

    def after(self, before, outcome):
        return outcome

    # ---- the adapter interface ----
    def invoke(self, role: str, f: str, value) -> Outcome:
        if f == "request":
            slot, req = value["member"], wire.request_from_json(value["request"], self.model_id)
            self.waiting.setdefault(slot, []).append((req.kind + "Response", req.member_id))
            outcome = self.after(self.group, self.handle(self.group, slot, req))
            if req.kind == "OffsetCommit" and any(r.kind == "OffsetCommitResponse" and r.error == NONE
                                                  for _, r in outcome.out):
                self.stored = req.offset
        elif f == "advance":
            members = tuple(self.model_id(m) for m in value.get("members", ()))
            outcome = self.after(self.group, self.advance(self.group, value["reason"], members))
        elif f == "disconnect":
            slot = value["member"]
            self.waiting.pop(slot, None)
            mid = self.model_id(value.get("member_id", ""))
            group = self.group
            if mid in group.pending:        # a pending id expires with its process (step._crash)
                group = group._replace(pending=tuple(p for p in group.pending if p != mid))
            outcome = gc.Outcome(group, (), ())
        else:
            return Outcome("fail", error=f"unknown function {f!r}")
        self.group = outcome.group
        return Outcome("ok", {"responses": self._answers(outcome.out)})

    def _answers(self, out) -> list[dict]:
        answers = []
        for slot, resp in out:
            waiting = self.waiting.get(slot, [])
            # the request this answers: same kind, sent by this member (or by "" for a first join)
            match = next((w for w in waiting if w[0] == resp.kind and w[1] in (resp.to, NO_MEMBER)), None)
            if match is None:
                continue
            waiting.remove(match)
            answers.append({"member": slot, "response": wire.response_json(resp, self.wire_id)})
        return answers

    def teardown(self) -> None:
        pass

    def close(self) -> None:
        pass
