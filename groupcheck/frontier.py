"""The BFS frontier: the states still to expand, first in first out, kept compact once
many wait.

A search cut while its frontier is wide holds hundreds of thousands of states waiting
to be expanded (230,000 of the first million on the large consumer example), and a
whole state costs several hundred bytes of Python objects. Once more than ``loose`` states
wait, the frontier packs newly queued states in blocks of ``block``: each block is one
pickle (whose memo stores once the parts its states share, as states built by
``_replace`` share most of theirs), compressed by zlib at its fastest level. On that
example a packed state costs about 17 bytes, and packing and unpacking about 8 us of
CPU. A block is unpacked when the search reaches it, so the frontier holds at most
about ``loose + 2 * block`` whole states. States come out in exactly the order they went
in; a search whose frontier never passes ``loose`` (the benchmark scope's peaks at 787)
packs nothing and pays nothing.
"""
from __future__ import annotations

import pickle
import zlib
from collections import deque

LOOSE = 32_768      # states kept whole before the frontier starts packing (4,096 cost
                    # KAFKA-13406's 160,394-state search 25% more CPU; this, 3%)
BLOCK = 1_024       # states per packed block


class Frontier:
    """A FIFO queue of states: ``head`` (whole, next out), then the packed blocks, then
    ``tail`` (whole, last in)."""

    def __init__(self, loose: int = LOOSE, block: int = BLOCK):
        self.loose, self.block = loose, block
        self.head: deque = deque()
        self.packed: deque[bytes] = deque()
        self.in_packed = 0          # states in the packed blocks
        self.tail: list = []

    def __len__(self) -> int:
        return len(self.head) + self.in_packed + len(self.tail)

    def append(self, state) -> None:
        tail = self.tail
        tail.append(state)
        if len(tail) >= self.block and len(self) > self.loose:
            self.packed.append(zlib.compress(pickle.dumps(tail, protocol=5), 1))
            self.in_packed += len(tail)
            self.tail = []

    def popleft(self):
        if not self.head:
            if self.packed:
                self.head = deque(pickle.loads(zlib.decompress(self.packed.popleft())))
                self.in_packed -= len(self.head)
            else:
                self.head, self.tail = deque(self.tail), []
        return self.head.popleft()
