"""The KIP-848 part of librdkafka's mock cluster, through ctypes.

``librdkafka.mock.MockCluster`` wraps the cluster, topics, brokers and request errors;
this module adds what a ``consumer`` group needs (src/rdkafka_mock.h, librdkafka 2.16):

* ``rd_kafka_mock_set_group_consumer_session_timeout_ms`` / ``_heartbeat_interval_ms``:
  the broker-side ``group.consumer.*`` settings (the client rejects ``session.timeout.ms``
  and ``heartbeat.interval.ms`` under ``group.protocol=consumer``); the mock reads them
  when a member heartbeats (rdkafka_mock_cgrp.c ``rd_kafka_mock_cgrp_consumer_member_add``);
* ``rd_kafka_mock_cgrp_consumer_target_assignment_new(char **ids, int cnt, list **lists)``
  (2.16's argument order; the older ``(ids, lists, cnt)`` crashes) and
  ``rd_kafka_mock_cgrp_consumer_target_assignment(mc, group, ta)``: a manual target
  (``rd_kafka_mock_cgrp_consumer_target_assignment_set_manual``; NULL returns the group to
  the mock's own range target). Setting a target bumps the group epoch once
  (``rd_kafka_mock_cgrp_consumer_target_assignment_set``: ``mcgrp->group_epoch++``);
* request errors on ConsumerGroupHeartbeat (ApiKey 68) with KIP-848's error codes.
"""
from __future__ import annotations

import ctypes

from .mock import MockCluster, MockError, library

CGH_API_KEY = 68   # ConsumerGroupHeartbeat (ApiKeys.java)
# Error codes a ConsumerGroupHeartbeat may be answered with (Errors.java), and librdkafka's
# local _TRANSPORT (-195): the mock drops the connection instead of answering.
CGH_ERRORS = {"COORDINATOR_LOAD_IN_PROGRESS": 14, "COORDINATOR_NOT_AVAILABLE": 15, "NOT_COORDINATOR": 16,
              "UNKNOWN_MEMBER_ID": 25, "FENCED_MEMBER_EPOCH": 110, "UNRELEASED_INSTANCE_ID": 111,
              "STALE_MEMBER_EPOCH": 113, "GROUP_MAX_SIZE_REACHED": 81, "_TRANSPORT": -195}

_READY = False


def lib848() -> ctypes.CDLL:
    """librdkafka with the KIP-848 mock calls' signatures set (on top of mock.library())."""
    global _READY
    lib = library()
    if _READY:
        return lib
    vp, cp, i32 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32
    sigs = {
        "rd_kafka_mock_set_group_consumer_session_timeout_ms": ([vp, ctypes.c_int], None),
        "rd_kafka_mock_set_group_consumer_heartbeat_interval_ms": ([vp, ctypes.c_int], None),
        "rd_kafka_topic_partition_list_new": ([ctypes.c_int], vp),
        "rd_kafka_topic_partition_list_add": ([vp, cp, i32], vp),
        "rd_kafka_topic_partition_list_destroy": ([vp], None),
        "rd_kafka_mock_cgrp_consumer_target_assignment_new": (
            [ctypes.POINTER(cp), ctypes.c_int, ctypes.POINTER(vp)], vp),
        "rd_kafka_mock_cgrp_consumer_target_assignment_destroy": ([vp], None),
        "rd_kafka_mock_cgrp_consumer_target_assignment": ([vp, cp, vp], None),
        "rd_kafka_mock_push_request_errors_array": (
            [vp, ctypes.c_int16, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int)], None),
        "rd_kafka_err2str": ([ctypes.c_int], cp),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    _READY = True
    return lib


def error_texts() -> dict[str, str]:
    """librdkafka's text of each ConsumerGroupHeartbeat error (``rd_kafka_err2str``), to its
    name: what its log says a heartbeat was answered with."""
    lib = lib848()
    return {lib.rd_kafka_err2str(code).decode(): name for name, code in CGH_ERRORS.items()}


class ConsumerGroupMock:
    """The KIP-848 controls of one ``MockCluster``."""

    def __init__(self, cluster: MockCluster):
        self.cluster = cluster
        self.lib = lib848()

    def _mc(self):
        return self.cluster._live()

    def set_timeouts(self, session_timeout_ms: int, heartbeat_interval_ms: int) -> None:
        if not 0 < heartbeat_interval_ms < session_timeout_ms:
            raise MockError(f"need 0 < heartbeat interval ({heartbeat_interval_ms}) < session timeout "
                            f"({session_timeout_ms})")
        self.lib.rd_kafka_mock_set_group_consumer_session_timeout_ms(self._mc(), session_timeout_ms)
        self.lib.rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(self._mc(), heartbeat_interval_ms)

    def target_assignment(self, group: str, topic: str, assignment: dict[str, list[int]] | None) -> None:
        """Set the group's target: member id -> partitions of ``topic`` (None: the mock's own)."""
        lib = self.lib
        if assignment is None:
            lib.rd_kafka_mock_cgrp_consumer_target_assignment(self._mc(), group.encode(), None)
            return
        ids = list(assignment)
        lists = []
        for mid in ids:
            tl = lib.rd_kafka_topic_partition_list_new(max(1, len(assignment[mid])))
            for p in assignment[mid]:
                lib.rd_kafka_topic_partition_list_add(tl, topic.encode(), int(p))
            lists.append(tl)
        id_arr = (ctypes.c_char_p * len(ids))(*(i.encode() for i in ids))
        list_arr = (ctypes.c_void_p * len(ids))(*lists)
        ta = lib.rd_kafka_mock_cgrp_consumer_target_assignment_new(id_arr, len(ids), list_arr)
        try:
            lib.rd_kafka_mock_cgrp_consumer_target_assignment(self._mc(), group.encode(), ta)
        finally:
            lib.rd_kafka_mock_cgrp_consumer_target_assignment_destroy(ta)
            for tl in lists:
                lib.rd_kafka_topic_partition_list_destroy(tl)

    def push_heartbeat_errors(self, errors: list[str]) -> None:
        """The next ``len(errors)`` ConsumerGroupHeartbeats fail with these errors, in order."""
        unknown = [e for e in errors if e not in CGH_ERRORS]
        if unknown or not errors:
            raise MockError(f"errors must be a non-empty list of {', '.join(CGH_ERRORS)}; not {unknown or errors}")
        arr = (ctypes.c_int * len(errors))(*(CGH_ERRORS[e] for e in errors))
        self.lib.rd_kafka_mock_push_request_errors_array(self._mc(), CGH_API_KEY, len(errors), arr)
