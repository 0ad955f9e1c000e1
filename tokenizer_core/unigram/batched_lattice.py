"""The lattices of every distinct training word at once, as flat numpy arrays: the E-step and Viterbi.

One node per position of each word (plus one at its end), one edge per piece occurrence,
so forward-backward is a few vectorised passes per word position rather than a Python
loop per word.

>>> from tokenizer_core.unigram.words import _hash_strings
>>> w = _Words(["ab"], np.ones(1))
>>> hashes = _hash_strings(["a", "b", "ab"])
>>> lat = _Lattices(w, *_edges(w, _PieceIndex(hashes, np.array([1, 1, 2])), None))
>>> counts, loglik = lat.expected_counts(np.log(np.array([0.25, 0.25, 0.5])), 3)
>>> [round(float(c), 3) for c in counts], round(loglik, 3)   # P("a b") = 1/16, P("ab") = 1/2
([0.111, 0.111, 0.889], -0.575)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Optional

import numpy as np

from tokenizer_core.unigram.words import _PieceIndex, _Words

_CHUNK = 1 << 20  # edges per step of the E-step's per-edge arithmetic


def _grouped_logsumexp(values: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``log(sum(exp(v)))`` of each run ``values[starts[k]:starts[k] + sizes[k]]`` (runs are contiguous)."""
    m = np.maximum.reduceat(values, starts)
    s = np.add.reduceat(np.exp(values - np.repeat(m, sizes)), starts)
    return m + np.log(s)


class _Lattices:
    """The lattices of many words at once: flat edge arrays sorted by (end position, end node)."""

    def __init__(self, words: _Words, start: np.ndarray, end: np.ndarray, piece: np.ndarray,
                 word: np.ndarray) -> None:
        self._build(words, [start, end, piece, word])

    @classmethod
    def from_edges(cls, words: _Words, edges: list[np.ndarray]) -> _Lattices:
        """Like the constructor, but takes ``[start, end, piece]`` (``word`` may follow, unused) in a
        list that it empties, so each input array is freed as soon as its sorted copy exists (the
        peak memory of training).
        """
        lat = cls.__new__(cls)
        lat._build(words, edges)
        return lat

    def _build(self, words: _Words, edges: list[np.ndarray]) -> None:
        self.w = words
        start, end, piece = (np.asarray(a) for a in edges[:3])
        edges.clear()  # the word of an edge is the word of its end node: not kept per edge
        pos_t = np.int32 if words.num_nodes < 2**31 else np.int64
        # Per node: its word and its position inside it (a few bytes per character).
        sizes = words.last - words.first + 1
        self._node_word = np.repeat(np.arange(len(sizes), dtype=pos_t), sizes)
        self._node_level = np.arange(words.num_nodes, dtype=pos_t)
        self._node_level -= np.repeat(words.first.astype(pos_t), sizes)
        del sizes
        # Edge indices fit in 32 bits: half the memory of the persistent per-edge arrays.
        order = _sort_order(self._node_level[end], end, start, words.num_nodes)
        self.start = start[order].astype(np.int32, copy=False)
        del start
        self.end = end[order].astype(np.int32, copy=False)
        del end
        self.piece = piece[order].astype(np.int32, copy=False)
        del piece, order
        self.b_order = _sort_order(self._node_level[self.start], self.start, self.end,
                                   words.num_nodes).astype(np.int32)
        self._index()

    def keep(self, keep_piece: np.ndarray, new_id: np.ndarray) -> None:
        """Drop edges of removed pieces and renumber the rest; both sort orders survive filtering."""
        k = keep_piece[self.piece]
        position = np.cumsum(k, dtype=np.int32)
        position -= 1
        self.b_order = position[self.b_order[k[self.b_order]]]
        del position
        # One array at a time, so each old one goes before the next new one is made.
        self.start = self.start[k]
        self.end = self.end[k]
        self.piece = new_id[self.piece[k]].astype(np.int32)
        del k
        self._index()

    def _index(self) -> None:
        # Levels (node positions inside their words) looked up per group of edges, one group
        # per node, rather than per edge: the levels' bounds with small temporaries.
        levels = np.arange(self.w.max_length + 2)
        # Forward: edges grouped by end node, levels = end position inside the word.
        self.f_gstart, self.f_gnode, self.f_gsize = _groups(self.end)
        self.f_gbounds = np.searchsorted(self._node_level[self.f_gnode], levels)
        self.f_bounds = np.append(self.f_gstart, len(self.end))[self.f_gbounds]
        # Backward: the same edges grouped by start node (order ``b_order``), levels = start position.
        self.b_gstart, self.b_gnode, self.b_gsize = _groups(self.start[self.b_order])
        self.b_gbounds = np.searchsorted(self._node_level[self.b_gnode], levels)
        self.b_bounds = np.append(self.b_gstart, len(self.end))[self.b_gbounds]

    def _levels(self, bounds: np.ndarray, gbounds: np.ndarray,
                gstart: np.ndarray) -> Iterator[tuple[int, int, int, int, np.ndarray]]:
        for lev in range(len(bounds) - 1):
            lo, hi = int(bounds[lev]), int(bounds[lev + 1])
            if lo == hi:
                continue
            glo, ghi = int(gbounds[lev]), int(gbounds[lev + 1])
            yield lo, hi, glo, ghi, gstart[glo:ghi] - lo

    def forward(self, lpe: np.ndarray) -> np.ndarray:
        return self._forward(lambda lo, hi: lpe[lo:hi])

    def backward(self, lpe: np.ndarray) -> np.ndarray:
        return self._backward(lambda bo: lpe[bo])

    def _forward(self, edge_lp: Callable[[int, int], np.ndarray]) -> np.ndarray:
        """Forward scores, ``edge_lp(lo, hi)`` giving the log-probabilities of edges ``lo:hi``."""
        alpha = np.full(self.w.num_nodes, -np.inf)
        alpha[self.w.first] = 0.0
        for lo, hi, glo, ghi, gs in self._levels(self.f_bounds, self.f_gbounds, self.f_gstart):
            v = alpha[self.start[lo:hi]] + edge_lp(lo, hi)
            alpha[self.f_gnode[glo:ghi]] = _grouped_logsumexp(v, gs, self.f_gsize[glo:ghi])
        return alpha

    def _backward(self, edge_lp: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Backward scores, ``edge_lp(edges)`` giving the log-probabilities of the edges at those indices."""
        beta = np.full(self.w.num_nodes, -np.inf)
        beta[self.w.last] = 0.0
        levels = list(self._levels(self.b_bounds, self.b_gbounds, self.b_gstart))
        for lo, hi, glo, ghi, gs in reversed(levels):
            bo = self.b_order[lo:hi]
            v = beta[self.end[bo]] + edge_lp(bo)
            beta[self.b_gnode[glo:ghi]] = _grouped_logsumexp(v, gs, self.b_gsize[glo:ghi])
        return beta

    def expected_counts(self, lp: np.ndarray, num_pieces: int) -> tuple[np.ndarray, float]:
        """E-step: expected count of every piece, and the corpus log-likelihood."""
        # Edge log-probabilities are gathered where needed, never as one array of all edges.
        alpha = self._forward(lambda lo, hi: lp[self.piece[lo:hi]])
        beta = self._backward(lambda bo: lp[self.piece[bo]])
        z = alpha[self.w.last]
        # ``exp(alpha[s] + lpe + beta[e] - z[w]) * count[w]`` per edge, summed per piece: element by
        # element and then added up in edge order (``np.add.at`` adds in the same order as a single
        # ``np.bincount``), so working in chunks keeps the temporaries small and changes no bit.
        # ``lpe + alpha[s]`` is the same number as ``alpha[s] + lpe``: addition commutes exactly.
        counts = np.zeros(num_pieces)
        for c in range(0, len(self.piece), _CHUNK):
            sl = slice(c, c + _CHUNK)
            end, piece = self.end[sl], self.piece[sl]
            word = self._node_word[end]
            post = lp[piece]
            post += alpha[self.start[sl]]
            post += beta[end]
            post -= z[word]
            np.exp(post, out=post)
            post *= self.w.counts[word]
            np.add.at(counts, piece, post)
        return counts, float(np.dot(self.w.counts, z))

    def viterbi(self, lp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best incoming edge of every node (earliest start on ties) and best scores."""
        lpe = lp[self.piece]
        best = np.full(self.w.num_nodes, -np.inf)
        best[self.w.first] = 0.0
        back = np.full(self.w.num_nodes, -1, dtype=np.int64)
        for lo, hi, glo, ghi, gs in self._levels(self.f_bounds, self.f_gbounds, self.f_gstart):
            v = best[self.start[lo:hi]] + lpe[lo:hi]
            m = np.maximum.reduceat(v, gs)
            hit = np.flatnonzero(v == np.repeat(m, self.f_gsize[glo:ghi]))
            group = np.searchsorted(gs, hit, side="right") - 1
            first = np.ones(len(hit), dtype=bool)
            first[1:] = group[1:] != group[:-1]
            nodes = self.f_gnode[glo:ghi]
            best[nodes] = m
            back[nodes[group[first]]] = lo + hit[first]
        return back, best

    def viterbi_paths(self, back: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(word, piece)`` arrays, one token per word per step, walking the best
        paths (``back`` from :meth:`viterbi`) backwards from the end of every word.
        """
        wid = np.arange(len(self.w.words))
        cur = self.w.last[wid]
        while len(wid):
            e = back[cur]
            yield wid, self.piece[e]
            cur = self.start[e]
            more = cur != self.w.first[wid]
            wid, cur = wid[more], cur[more]


def _groups(nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Runs of equal ``nodes`` (sorted so that equal ones are adjacent): start index, node and size of each."""
    new_group = np.ones(len(nodes), dtype=bool)
    new_group[1:] = nodes[1:] != nodes[:-1]
    gstart = np.flatnonzero(new_group).astype(np.int32)
    del new_group
    gsize = np.diff(np.append(gstart, np.int32(len(nodes)))).astype(np.int32)
    return gstart, nodes[gstart], gsize


def _sort_order(level: np.ndarray, node: np.ndarray, other: np.ndarray, num_nodes: int) -> np.ndarray:
    """``np.lexsort((other, node, level))`` for edges: one argsort of a single int64 key.

    ``node`` fixes ``level`` and ``|other - node| <= span``, and no two edges share ``(node, other)``,
    so the packed key is unique and any sort gives the lexsort order.
    """
    if not len(node):
        return np.zeros(0, dtype=np.int64)
    span = max(int((other - node).max()), int((node - other).max()))
    levels = int(level.max()) + 1
    if levels * num_nodes * (2 * span + 1) >= 2**62:
        return np.lexsort((other, node, level))
    key = level.astype(np.int64)
    key *= num_nodes
    key += node
    key *= 2 * span + 1
    key += other
    key -= node
    key += span
    return np.argsort(key)


def _edges(words: _Words, index: _PieceIndex, runs: Optional[np.ndarray], *,
           with_word: bool = True) -> tuple[np.ndarray, ...]:
    """All (start node, end node, piece, word) edges of the words' lattices (without the word
    if not ``with_word``: :class:`_Lattices` finds it from the end node).
    """
    columns = 4 if with_word else 3
    parts = []
    for length, h in words.window_hashes(min(index.max_len, words.max_length)):
        ok = words.rem >= length
        if runs is not None and length > 1:
            n = len(runs)
            ok[: n - length + 1] &= runs[: n - length + 1] == runs[length - 1:]
        positions = np.flatnonzero(ok)
        del ok
        for c in range(0, len(positions), _CHUNK):  # in chunks: small lookup temporaries
            idx = positions[c:c + _CHUNK]
            pid = index.find(length, h[idx])
            hit = pid >= 0
            idx = idx[hit]
            wid = words.word_of[idx]
            start = (idx + wid).astype(np.int32)
            part = [start, start + np.int32(length), pid[hit].astype(np.int32)]
            if with_word:
                part.append(wid.astype(np.int32))
            parts.append(part)
    if not parts:
        return tuple(np.zeros(0, dtype=np.int32) for _ in range(columns))
    out = []
    for k in range(columns):  # one column at a time, freeing its parts as it goes
        out.append(np.concatenate([p[k] for p in parts]))
        for p in parts:
            p[k] = None
    return tuple(out)
