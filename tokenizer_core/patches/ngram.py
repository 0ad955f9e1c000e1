"""A byte n-gram model with Witten-Bell interpolation: each byte's next-byte distribution and entropy.

The Byte Latent Transformer (Pagnoni et al., 2024) cuts bytes into patches where a small byte
language model is unsure of the next byte. Ours is an n-gram model counted on the active corpus,
so the playground can train it in seconds and show every number: the probability of byte ``v``
after the context ``c`` (the ``order - 1`` bytes before it) mixes the counts seen after ``c`` with
the model one byte shorter, weighted by how many different bytes followed ``c`` (Witten and Bell,
1991)::

    P(v | c) = (N(c v) + T(c) * P(v | c')) / (N(c) + T(c))      (c' is c without its oldest byte)

where ``N(c)`` is how often ``c`` was followed by any byte and ``T(c)`` by how many distinct ones; a
context never seen falls back to ``c'``, and below the empty context every byte has 1/256. Every
distribution sums to 1, so its entropy is exact.

>>> model = ByteNgramModel.train(b"abababab", order=2)
>>> p = model.distributions(b"ab")
>>> round(float(p[1, ord("b")]), 3), round(float(p.sum(axis=1)[1]), 6)  # (4 + 1 * 0.4008) / (4 + 1)
(0.88, 1.0)
>>> [round(h, 2) for h in model.entropies(b"ab").tolist()]   # no context yet, then after "a"
[3.11, 0.96]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import ProgressCallback, no_progress

#: The longest order counted: a context of up to 7 bytes and its next byte fit one 64-bit key.
MAX_ORDER = 8
#: Bytes counted at most (the start of a longer corpus): counting sorts every window of each order.
MAX_TRAIN_BYTES = 64 * 1024 * 1024


def joined_bytes(texts: Iterable[str], *, limit: int = MAX_TRAIN_BYTES) -> bytes:
    """``texts`` as UTF-8 joined by newlines, at most ``limit`` bytes (a big corpus is never joined whole).

    >>> joined_bytes(["ab", "cd"], limit=4)
    b'ab\\nc'
    """
    parts, size = [], 0
    for text in texts:
        data = text.encode("utf-8")
        parts.append(data)
        size += len(data) + 1
        if size >= limit:
            break
    return b"\n".join(parts)[:limit]


@dataclass(frozen=True)
class _Counts:
    """One context length: ``keys`` (context << 8 | next byte, sorted) with their ``counts``; and per
    distinct context (sorted) its total ``totals`` (N) and distinct followers ``kinds`` (T)."""

    keys: np.ndarray
    counts: np.ndarray
    contexts: np.ndarray
    totals: np.ndarray
    kinds: np.ndarray


def _windows(data: np.ndarray, length: int) -> np.ndarray:
    """The big-endian integer of every window of ``length`` bytes of ``data``."""
    n = len(data) - length + 1
    keys = np.zeros(max(n, 0), dtype=np.uint64)
    for j in range(length):
        keys = (keys << np.uint64(8)) | data[j:j + n].astype(np.uint64)
    return keys


def _grouped(keys: np.ndarray, counts: np.ndarray) -> _Counts:
    """The table of sorted distinct window ``keys`` (context << 8 | next byte) and their ``counts``."""
    ctx = keys >> np.uint64(8)
    if len(ctx) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return _Counts(keys, empty, ctx, empty, empty)
    starts = np.flatnonzero(np.r_[True, ctx[1:] != ctx[:-1]])
    totals = np.add.reduceat(counts, starts)
    kinds = np.diff(np.r_[starts, len(ctx)])
    return _Counts(keys, counts.astype(np.int64), ctx[starts], totals.astype(np.int64), kinds.astype(np.int64))


def _count_all(data: np.ndarray, order: int, progress: ProgressCallback) -> list[_Counts]:
    """Every window of 1 to ``order`` bytes counted, with one sort: the longest windows are sorted
    once, and each shorter window is a prefix of a longest one (prefixes of sorted keys are sorted, so
    they are grouped in one pass), except the last few windows of ``data``, added on their own."""
    progress(0, order, f"sorting the {order}-byte windows")
    keys, counts = np.unique(_windows(data, order), return_counts=True)
    counts = counts.astype(np.int64)
    tables = {order - 1: _grouped(keys, counts)}  # by context length
    for k in range(order - 2, -1, -1):  # windows of k + 1 bytes
        progress(order - 1 - k, order, f"counting {k + 1}-byte windows")
        shift = np.uint64(8 * (order - 1 - k))
        prefix = keys >> shift
        if len(prefix):
            edge = np.flatnonzero(np.r_[True, prefix[1:] != prefix[:-1]])
            p_keys, p_counts = prefix[edge], np.add.reduceat(counts, edge)
        else:
            p_keys, p_counts = prefix, counts
        tail = _windows(data[max(len(data) - (order - 1), 0):], k + 1)  # windows too near the end to be a prefix
        if len(tail):
            merged, where = np.unique(np.concatenate([p_keys, tail]), return_inverse=True)
            p_counts = np.bincount(where, weights=np.concatenate([p_counts, np.ones(len(tail))]),
                                   minlength=len(merged)).astype(np.int64)
            p_keys = merged
        tables[k] = _grouped(p_keys, p_counts)
    return [tables[k] for k in range(order)]


class ByteNgramModel:
    """Byte n-gram counts of one corpus; see the module docstring. Build with :meth:`train`."""

    def __init__(self, order: int, tables: list[_Counts], trained_bytes: int) -> None:
        self.order = order
        self._tables = tables  # tables[k]: contexts of k bytes
        self.trained_bytes = trained_bytes

    @classmethod
    def train(cls, data: bytes, *, order: int = 4, progress: ProgressCallback = no_progress) -> "ByteNgramModel":
        """Count every window of 1 to ``order`` bytes of ``data`` (its first :data:`MAX_TRAIN_BYTES`).

        >>> ByteNgramModel.train(b"hello", order=3).order
        3
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TokenizerError(f"the n-gram model trains on bytes, not {type(data).__name__}")
        if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= MAX_ORDER:
            raise TokenizerError(f"the n-gram order must be a whole number from 1 to {MAX_ORDER}, not {order!r}")
        if len(data) == 0:
            raise TokenizerError("the corpus is empty: there is nothing to count the bytes of")
        arr = np.frombuffer(bytes(data[:MAX_TRAIN_BYTES]), dtype=np.uint8)
        tables = _count_all(arr, order, progress)
        progress(order, order, "counted")
        return cls(order, tables, len(arr))

    def distributions(self, text: bytes) -> np.ndarray:
        """A ``(len(text), 256)`` array: row ``i`` is P(next byte | the bytes of ``text`` before ``i``)."""
        arr = np.frombuffer(bytes(text), dtype=np.uint8)
        n = len(arr)
        probs = np.full((n, 256), 1.0 / 256.0)
        for k in range(self.order):  # context length k, from the shortest up: each mixes in the one below
            probs = self._mix(arr, k, probs)
        return probs

    def _mix(self, arr: np.ndarray, k: int, below: np.ndarray) -> np.ndarray:
        n, table = len(arr), self._tables[k]
        if n == 0 or len(table.contexts) == 0:
            return below
        at = np.arange(n)
        ctx = np.zeros(n, dtype=np.uint64)
        for j in range(k, 0, -1):  # the k bytes before each position, oldest first
            back = np.zeros(n, dtype=np.uint64)
            back[j:] = arr[:n - j]
            ctx = (ctx << np.uint64(8)) | back
        has = at >= k  # the first k positions have a shorter context: they keep the model below
        where = np.searchsorted(table.contexts, ctx)
        where = np.minimum(where, len(table.contexts) - 1)
        seen = has & (table.contexts[where] == ctx)
        if not seen.any():
            return below
        rows = np.flatnonzero(seen)
        totals = table.totals[where[rows]].astype(np.float64)
        kinds = table.kinds[where[rows]].astype(np.float64)
        followers = np.zeros((len(rows), 256))
        lo = np.searchsorted(table.keys, ctx[rows] << np.uint64(8))
        hi = lo + table.kinds[where[rows]]
        span = hi - lo
        owner = np.repeat(np.arange(len(rows)), span)
        index = np.repeat(lo - np.cumsum(np.r_[0, span[:-1]]), span) + np.arange(span.sum())
        followers[owner, (table.keys[index] & np.uint64(255)).astype(np.int64)] = table.counts[index]
        out = below.copy()
        out[rows] = (followers + kinds[:, None] * below[rows]) / (totals + kinds)[:, None]
        return out

    def entropies(self, text: bytes) -> np.ndarray:
        """Each byte's next-byte entropy in bits: H(P(. | the bytes before it)), 0 to 8."""
        p = self.distributions(text)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(p > 0, -p * np.log2(p), 0.0)
        return terms.sum(axis=1)

    def surprisals(self, text: bytes) -> np.ndarray:
        """Each byte's own surprise in bits: -log2 P(the byte | the bytes before it)."""
        arr = np.frombuffer(bytes(text), dtype=np.uint8)
        p = self.distributions(text)
        return -np.log2(p[np.arange(len(arr)), arr]) if len(arr) else np.zeros(0)
