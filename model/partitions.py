"""Partition sets as int bitmasks (fast, hashable, immutable).

Topic ``t`` owns bits ``[t * stride, (t + 1) * stride)``; partition ``p`` of it is
bit ``t * stride + p``. ``stride`` is the most partitions a topic can reach in a
scope. Topics themselves are a bitmask over topic indices.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterator


def bits(mask: int) -> Iterator[int]:
    """The set bit positions of ``mask`` in ascending order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: int) -> int:
    return mask.bit_count()


def topic_mask(stride: int, topic: int, partitions: int) -> int:
    """The bits of the first ``partitions`` partitions of ``topic``."""
    return ((1 << partitions) - 1) << (topic * stride)


@lru_cache(maxsize=1 << 12)
def existing(counts: tuple[int, ...], stride: int, topics: int = -1) -> int:
    """Every partition that exists (per ``counts``) of the topics in ``topics``."""
    out = 0
    for t, n in enumerate(counts):
        if topics >> t & 1:
            out |= topic_mask(stride, t, n)
    return out


@lru_cache(maxsize=1 << 12)
def of_topics(topics: int, stride: int, count_topics: int) -> int:
    """Every partition bit a topic in ``topics`` could ever have (exists or not)."""
    return existing(tuple(stride for _ in range(count_topics)), stride, topics)


def name(bit: int, stride: int) -> str:
    """Kafka-style ``topic-partition`` name, topics called t0, t1, ..."""
    return f"t{bit // stride}-{bit % stride}"


def names(mask: int, stride: int) -> list[str]:
    return [name(b, stride) for b in bits(mask)]


def show(mask: int, stride: int) -> str:
    return "{" + ", ".join(names(mask, stride)) + "}"
