"""Requests to the group coordinator that do not move the group: OffsetCommit, OffsetFetch,
DescribeGroups, as pure rules.

The consumer model's actions never send these (its state machine and its pinned state
counts are untouched); conformance sends them between the model's steps to ask a
coordinator what it would do with a commit from each consumer as the model has it (its
member id and generation), what it has stored, and what state it is in. Each rule quotes
Kafka 3.9's classic coordinator (core/src/main/scala/kafka/coordinator/group/
GroupCoordinator.scala and GroupMetadata.scala, branch 3.9); the Java rewrite
(group-coordinator: GroupMetadataManager.java, classic/ClassicGroup.java) keeps them.

Offsets live outside ``Group`` (the model has no offset store): a committed offset is
what the last accepted commit carried, kept by the caller (``stored``).
"""
from __future__ import annotations

from typing import NamedTuple

from .state import (COMPLETING, DEAD, EMPTY, ILLEGAL_GENERATION, NO_MEMBER, NONE, REBALANCE_IN_PROGRESS, STABLE,
                    UNKNOWN_MEMBER_ID, Group)

COORDINATOR_NOT_AVAILABLE = "COORDINATOR_NOT_AVAILABLE"
NO_OFFSET = -1          # OffsetFetch's answer for a partition with no committed offset (INVALID_OFFSET)


class OffsetCommit(NamedTuple):
    kind: str = "OffsetCommit"
    member_id: int = NO_MEMBER
    generation: int = -1
    offset: int = 0            # for the one partition conformance commits


class OffsetFetch(NamedTuple):
    kind: str = "OffsetFetch"
    member_id: int = NO_MEMBER   # unused by the classic coordinator (KIP-848 fetches carry it)


class DescribeGroups(NamedTuple):
    kind: str = "DescribeGroups"
    member_id: int = NO_MEMBER


class OffsetCommitResponse(NamedTuple):
    kind: str = "OffsetCommitResponse"
    to: int = NO_MEMBER
    error: str = NONE


class OffsetFetchResponse(NamedTuple):
    kind: str = "OffsetFetchResponse"
    to: int = NO_MEMBER
    error: str = NONE
    offset: int = NO_OFFSET


class DescribeGroupsResponse(NamedTuple):
    kind: str = "DescribeGroupsResponse"
    to: int = NO_MEMBER
    error: str = NONE
    state: str = EMPTY
    protocol: str = ""
    members: tuple = ()        # member ids, sorted


def offset_commit_error(group: Group, member_id: int, generation: int) -> str:
    """The error of an OffsetCommit with ``member_id`` and ``generation`` to ``group``.

    Kafka 3.9, GroupCoordinator.validateOffsetCommit::

        if (group.is(Dead)) Some(Errors.COORDINATOR_NOT_AVAILABLE)
        else if (generationId < 0 && group.is(Empty)) None
        else if (generationId >= 0 || memberId != JoinGroupRequest.UNKNOWN_MEMBER_ID || ...)
          validateCurrentMember(group, memberId, ...)          // !group.has(memberId): UNKNOWN_MEMBER_ID
            .orElse { if (generationId != group.generationId) Some(Errors.ILLEGAL_GENERATION) else None }
        else if (!isTransactional && !group.is(Empty)) Some(Errors.UNKNOWN_MEMBER_ID)
        else None

    then doCommitOffsets: ``case Empty`` and ``case Stable | PreparingRebalance`` store the
    offsets ("During PreparingRebalance phase, we still allow a commit request");
    ``case CompletingRebalance`` answers REBALANCE_IN_PROGRESS. A pending member id (KIP-394)
    is not ``group.has``: UNKNOWN_MEMBER_ID."""
    if group.status == DEAD:
        return COORDINATOR_NOT_AVAILABLE
    if generation < 0 and group.status == EMPTY:
        return NONE
    if generation >= 0 or member_id != NO_MEMBER:
        if group.member(member_id) is None:
            return UNKNOWN_MEMBER_ID
        if generation != group.generation:
            return ILLEGAL_GENERATION
    elif group.status != EMPTY:
        return UNKNOWN_MEMBER_ID
    return REBALANCE_IN_PROGRESS if group.status == COMPLETING else NONE


def offset_commit(group: Group, req: OffsetCommit) -> OffsetCommitResponse:
    """handleCommitOffsets on an existing group (``offset_commit_error``)."""
    return OffsetCommitResponse(to=req.member_id, error=offset_commit_error(group, req.member_id, req.generation))


def offset_fetch(stored: int, req: OffsetFetch) -> OffsetFetchResponse:
    """handleFetchOffsets: "return offsets blindly regardless the current group state"
    (GroupCoordinator.handleFetchOffsets): the last accepted commit's offset, else -1."""
    return OffsetFetchResponse(to=req.member_id, offset=stored)


def describe_group(group: Group, req: DescribeGroups) -> DescribeGroupsResponse:
    """handleDescribeGroup -> GroupMetadata.summary: the state's name, and every member;
    the protocol only when Stable (``GroupCoordinator.NoProtocol`` = "" otherwise)."""
    return DescribeGroupsResponse(to=req.member_id, state=group.status,
                                  protocol=group.protocol if group.status == STABLE else "",
                                  members=tuple(sorted(m.member_id for m in group.members)))


def stored_after(stored: int, req: OffsetCommit, resp: OffsetCommitResponse) -> int:
    """The committed offset once ``resp`` answered ``req``: the request's if accepted."""
    return req.offset if resp.error == NONE else stored


__all__ = ["OffsetCommit", "OffsetFetch", "DescribeGroups", "OffsetCommitResponse", "OffsetFetchResponse",
           "DescribeGroupsResponse", "COORDINATOR_NOT_AVAILABLE", "NO_OFFSET", "offset_commit_error",
           "offset_commit", "offset_fetch", "describe_group", "stored_after"]
