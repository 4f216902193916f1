"""librdkafka's in-process mock cluster, through ctypes.

confluent-kafka has no Python API for the mock cluster, but the librdkafka it bundles
exports the whole ``rd_kafka_mock_*`` C API (src/rdkafka_mock.h). This module wraps the
few calls the consumer role needs, with argtypes and restypes set and every return
code checked. The mock is owned by a producer handle created here (the handle only
does the mock's bookkeeping); ``MockCluster.close`` destroys the cluster, then the
handle.

Request errors and broker faults are the mock's own: ``push_request_errors`` makes
the next N requests of one ApiKey fail with the given Kafka error codes, in order.
"""
from __future__ import annotations

import ctypes
import glob
import os

import confluent_kafka

# Kafka protocol ApiKeys the consumer group uses.
API_KEYS = {"OffsetCommit": 8, "FindCoordinator": 10, "JoinGroup": 11, "Heartbeat": 12,
            "LeaveGroup": 13, "SyncGroup": 14}
# Kafka error codes a broker answers group requests with (and librdkafka's local
# _TRANSPORT, -195, which makes the mock broker disconnect the client).
ERROR_CODES = {"NONE": 0, "COORDINATOR_LOAD_IN_PROGRESS": 14, "COORDINATOR_NOT_AVAILABLE": 15,
               "NOT_COORDINATOR": 16, "ILLEGAL_GENERATION": 22, "UNKNOWN_MEMBER_ID": 25,
               "REBALANCE_IN_PROGRESS": 27, "_TRANSPORT": -195}


class MockError(RuntimeError):
    """The mock API refused a call, or librdkafka could not be loaded."""


def _library_path() -> str:
    libs = os.path.dirname(confluent_kafka.__file__) + ".libs"
    found = sorted(glob.glob(os.path.join(libs, "librdkafka*.so*")))
    if not found:
        raise MockError(f"no librdkafka shared library next to confluent_kafka ({libs})")
    return found[0]


_LIB = None


def library() -> ctypes.CDLL:
    """The librdkafka bundled with confluent-kafka, with the mock API's signatures set."""
    global _LIB
    if _LIB is not None:
        return _LIB
    lib = ctypes.CDLL(_library_path())
    vp, cp, i32, i16 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32, ctypes.c_int16
    sigs = {
        "rd_kafka_conf_new": ([], vp),
        "rd_kafka_conf_set": ([vp, cp, cp, cp, ctypes.c_size_t], ctypes.c_int),
        "rd_kafka_new": ([ctypes.c_int, vp, cp, ctypes.c_size_t], vp),
        "rd_kafka_destroy": ([vp], None),
        "rd_kafka_mock_cluster_new": ([vp, ctypes.c_int], vp),
        "rd_kafka_mock_cluster_destroy": ([vp], None),
        "rd_kafka_mock_cluster_bootstraps": ([vp], cp),
        "rd_kafka_mock_topic_create": ([vp, cp, ctypes.c_int, ctypes.c_int], ctypes.c_int),
        "rd_kafka_mock_group_initial_rebalance_delay_ms": ([vp, i32], None),
        "rd_kafka_mock_broker_set_down": ([vp, i32], ctypes.c_int),
        "rd_kafka_mock_broker_set_up": ([vp, i32], ctypes.c_int),
        "rd_kafka_mock_broker_set_rtt": ([vp, i32, ctypes.c_int], ctypes.c_int),
        "rd_kafka_mock_coordinator_set": ([vp, cp, cp, i32], ctypes.c_int),
        "rd_kafka_mock_push_request_errors_array": ([vp, i16, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int)], None),
        "rd_kafka_err2name": ([ctypes.c_int], cp),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    _LIB = lib
    return lib


def _check(err: int, what: str) -> None:
    if err != 0:
        name = library().rd_kafka_err2name(err)
        raise MockError(f"{what}: {name.decode() if name else err}")


class MockCluster:
    """A mock Kafka cluster of ``brokers`` brokers (ids 1..brokers) in this process."""

    def __init__(self, brokers: int = 1, initial_rebalance_delay_ms: int = 0):
        if not 1 <= brokers <= 16:
            raise MockError(f"brokers must be 1..16, not {brokers}")
        lib = library()
        self._lib = lib
        errbuf = ctypes.create_string_buffer(512)
        conf = lib.rd_kafka_conf_new()
        # The handle only owns the mock: quiet (no "no bootstrap.servers" notice).
        lib.rd_kafka_conf_set(conf, b"log_level", b"3", errbuf, len(errbuf))
        # 0 = RD_KAFKA_PRODUCER: a handle that only owns the mock cluster.
        self._rk = lib.rd_kafka_new(0, conf, errbuf, len(errbuf))
        if not self._rk:
            raise MockError(f"rd_kafka_new: {errbuf.value.decode(errors='replace')}")
        self._mc = lib.rd_kafka_mock_cluster_new(self._rk, brokers)
        if not self._mc:
            lib.rd_kafka_destroy(self._rk)
            raise MockError("rd_kafka_mock_cluster_new returned NULL")
        self.brokers = brokers
        self.bootstraps = lib.rd_kafka_mock_cluster_bootstraps(self._mc).decode()
        lib.rd_kafka_mock_group_initial_rebalance_delay_ms(self._mc, initial_rebalance_delay_ms)

    def _live(self):
        if self._mc is None:
            raise MockError("the mock cluster is closed")
        return self._mc

    def topic_create(self, topic: str, partitions: int, replication: int = 1) -> None:
        _check(self._lib.rd_kafka_mock_topic_create(self._live(), topic.encode(), partitions, replication),
               f"topic_create({topic!r}, {partitions})")

    def coordinator_set(self, group: str, broker: int) -> None:
        """Pin ``group``'s coordinator to ``broker`` (so broker faults hit it knowingly)."""
        _check(self._lib.rd_kafka_mock_coordinator_set(self._live(), b"group", group.encode(), broker),
               f"coordinator_set({group!r}, {broker})")

    def broker_down(self, broker: int) -> None:
        """Disconnect the broker and refuse new connections (-1: every broker)."""
        _check(self._lib.rd_kafka_mock_broker_set_down(self._live(), broker), f"broker_set_down({broker})")

    def broker_up(self, broker: int) -> None:
        _check(self._lib.rd_kafka_mock_broker_set_up(self._live(), broker), f"broker_set_up({broker})")

    def broker_rtt(self, broker: int, ms: int) -> None:
        _check(self._lib.rd_kafka_mock_broker_set_rtt(self._live(), broker, ms), f"broker_set_rtt({broker}, {ms})")

    def push_request_errors(self, api: str, errors: list[str]) -> None:
        """The next ``len(errors)`` requests of ``api`` (e.g. "Heartbeat") fail with
        these error names (e.g. "REBALANCE_IN_PROGRESS"), in order."""
        if api not in API_KEYS:
            raise MockError(f"unknown ApiKey {api!r}; known: {', '.join(API_KEYS)}")
        for e in errors:
            if e not in ERROR_CODES:
                raise MockError(f"unknown error {e!r}; known: {', '.join(ERROR_CODES)}")
        arr = (ctypes.c_int * len(errors))(*(ERROR_CODES[e] for e in errors))
        self._lib.rd_kafka_mock_push_request_errors_array(self._live(), API_KEYS[api], len(errors), arr)

    def close(self) -> None:
        """Destroy the cluster, then its handle. Idempotent."""
        if self._mc is not None:
            self._lib.rd_kafka_mock_cluster_destroy(self._mc)
            self._mc = None
        if self._rk is not None:
            self._lib.rd_kafka_destroy(self._rk)
            self._rk = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
