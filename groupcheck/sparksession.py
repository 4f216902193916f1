"""Starting Spark for groupcheck's Spark engines (``check --engine spark``, ``campaign``,
``trace-check``): the master URL checked before the JVM starts, a ``spark://`` master
nobody answers found in seconds (Spark's standalone client would retry for a minute,
printing Java stack traces), Spark's log kept to errors, and every failure a
``BadMaster``: one line for the command to print before it exits 2.

The Python workers run this interpreter and import groupcheck and model from where this
process did (a checkout run without installing it)."""
from __future__ import annotations

import os
import re
import signal
import socket
import sys
import threading
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)      # the folder holding groupcheck/ and model/
MASTER = re.compile(r"local(\[(\*|\d+)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]"
                    r"|spark://[^\s/,:]+:\d+(,[^\s/,:]+:\d+)*|(mesos|k8s)://\S+|yarn")
FORMS = "local, local[N], local[*], spark://HOST:PORT, yarn or k8s://https://HOST:PORT"
CONNECT_SECONDS = 5.0      # for a spark:// master to accept a TCP connection
START_SECONDS = 50.0       # for Spark to start on a spark:// master that accepted one


class BadMaster(ValueError):
    """A --master Spark cannot run on: the message is the one line to print."""


def check_master(master: str) -> None:
    """A ``master`` that is not a Spark master URL groupcheck can run on raises BadMaster."""
    if master.startswith("sc://"):
        raise BadMaster(f"{master!r} is a Spark Connect URL: groupcheck's Spark engines use RDDs, which Spark "
                        f"Connect does not serve; give {FORMS}")
    if not MASTER.fullmatch(master):
        raise BadMaster(f"{master!r} is not a Spark master URL; give {FORMS}")


def _reachable(master: str) -> None:
    """A ``spark://`` master of which no host accepts a connection raises BadMaster."""
    if not master.startswith("spark://"):
        return
    problems = []
    for where in master[len("spark://"):].split(","):
        host, _, port = where.rpartition(":")
        try:
            socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
            return
        except OSError as e:
            problems.append(f"{where}: {e.strerror or type(e).__name__}")
    raise BadMaster(f"cannot reach the Spark master {master} ({'; '.join(problems)}); is it running?")


def _environment(master: str) -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if ROOT not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([ROOT, *paths])


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:300] if text else type(error).__name__


def start(master: str, app: str, conf: dict | None = None):
    """The active SparkSession, or a new one named ``app`` on ``master`` with ``conf``;
    BadMaster (one line) when Spark cannot run there. Spark's own SIGINT handler (cancel
    every job) is undone: the command's handles SIGINT and SIGTERM alike."""
    check_master(master)
    from pyspark.sql import SparkSession
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    _reachable(master)
    _environment(master)
    builder = SparkSession.builder.master(master).appName(app).config("spark.log.level", "ERROR")
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    handler = signal.getsignal(signal.SIGINT)
    try:
        spark = _get_or_create(builder, START_SECONDS if master.startswith("spark://") else None)
    except Exception as e:     # noqa: BLE001 - whatever Spark raises for a master it cannot use
        raise BadMaster(f"Spark cannot start on {master!r}: {_first_line(e)}") from None
    finally:
        if handler is not None and signal.getsignal(signal.SIGINT) is not handler:
            try:
                signal.signal(signal.SIGINT, handler)
            except ValueError:       # not the main thread
                pass
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _get_or_create(builder, deadline: float | None):
    """``builder.getOrCreate()``, given up after ``deadline`` seconds (a thread waits on
    it: Spark's standalone client retries a master that does not register it for a minute)."""
    if deadline is None:
        return builder.getOrCreate()
    result: dict = {}

    def create() -> None:
        try:
            result["spark"] = builder.getOrCreate()
        except Exception as e:     # noqa: BLE001 - handed to the caller
            result["error"] = e

    thread = threading.Thread(target=create, daemon=True)
    thread.start()
    thread.join(deadline)
    if thread.is_alive():
        raise TimeoutError(f"no answer within {deadline:g} s")
    if "error" in result:
        raise result["error"]
    return result["spark"]
