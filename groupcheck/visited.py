"""The BFS visited store: the number of each state seen, by its 64-bit fingerprint.

A dict from fingerprint to number costs about 100 bytes a state (the table, a Python
int for the fingerprint, another for the number), the largest share of a long search's
memory. ``Visited`` keeps the recent fingerprints in that dict (``recent``) and, once it
holds more than ``limit`` of them (at least ``merge_after``, and an eighth of all seen,
so merges stay rare), moves them into two arrays sorted by fingerprint, ``fps`` and the
numbers ``nums``: 12 bytes a state, searched by bisection. A search of fewer states never
merges and looks up only the dict. ``exact`` keys (whole states) stay in the dict.
"""
from __future__ import annotations

from array import array
from bisect import bisect_left

MERGE_AFTER = 131_072    # fingerprints kept in the dict before the first merge


class Visited:
    def __init__(self, merge_after: int | None = MERGE_AFTER):
        self.recent: dict = {}
        self.fps = array("q")            # sorted fingerprints moved out of ``recent``
        self.nums = array("i")           # their numbers, in the same order
        self.limit = merge_after         # None: never merge (keys that are not fingerprints)

    def old(self, fp: int) -> int | None:
        """The number of ``fp`` among the merged fingerprints, or None."""
        fps = self.fps
        i = bisect_left(fps, fp)
        if i < len(fps) and fps[i] == fp:
            return self.nums[i]
        return None

    def get(self, key) -> int | None:
        n = self.recent.get(key)
        if n is None and self.fps:
            return self.old(key)
        return n

    def add(self, key, number: int) -> None:
        self.recent[key] = number
        if self.limit is not None and len(self.recent) > self.limit:
            self.merge()

    def merge(self) -> None:
        """Move ``recent`` into the sorted arrays: each recent fingerprint goes in at its
        place, the merged runs between them copied as array slices."""
        fps, nums = self.fps, self.nums
        out_fps, out_nums, start = array("q"), array("i"), 0
        for fp, n in sorted(self.recent.items()):
            i = bisect_left(fps, fp, start)
            out_fps += fps[start:i]
            out_nums += nums[start:i]
            out_fps.append(fp)
            out_nums.append(n)
            start = i
        out_fps += fps[start:]
        out_nums += nums[start:]
        self.fps, self.nums = out_fps, out_nums
        self.recent.clear()
        self.limit = max(self.limit, len(out_fps) // 8)
