"""The lattices of every distinct training word at once, as flat numpy arrays: the E-step and Viterbi.

One node per position of each word (plus one at its end), one edge per piece occurrence,
so forward-backward is a few vectorised passes per word position rather than a Python
loop per word.

kernels/src/unigram_core.c follows this module step by step, one word's lattice at a time.

>>> from tokenizer_core.unigram.words import hash_strings
>>> w = WordTable(["ab"], np.ones(1))
>>> hashes = hash_strings(["a", "b", "ab"])
>>> lat = Lattices(w, *lattice_edges(w, PieceIndex(hashes, np.array([1, 1, 2])), None))
>>> counts, loglik = lat.expected_counts(np.log(np.array([0.25, 0.25, 0.5])), 3)
>>> [round(float(c), 3) for c in counts], round(loglik, 3)   # P("a b") = 1/16, P("ab") = 1/2
([0.111, 0.111, 0.889], -0.575)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Optional

import numpy as np

from tokenizer_core.unigram.edge_order import Groups, Part, group_bounds, parts_by_length, sort_edges
from tokenizer_core.unigram.memory import return_free_memory
from tokenizer_core.unigram.words import PieceIndex, WordTable

_CHUNK = 1 << 16  # edges per step of per-edge arithmetic: temporaries of a few MB


def _grouped_logsumexp(values: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``log(sum(exp(v)))`` of each run ``values[starts[k]:starts[k] + sizes[k]]`` (runs are contiguous)."""
    m = np.maximum.reduceat(values, starts)
    s = np.add.reduceat(np.exp(values - np.repeat(m, sizes)), starts)
    return m + np.log(s)


class Lattices:
    """The lattices of many words at once: flat edge arrays sorted by (end position, end node).

    Per edge only its span, piece and backward place are kept; its end node (forward) or start node
    (backward) is the node of its group, and the other node is ``span`` away: no node per edge.
    """

    def __init__(self, words: WordTable, start: np.ndarray, end: np.ndarray, piece: np.ndarray,
                 word: Optional[np.ndarray] = None) -> None:
        # ``word`` is accepted for the callers that have it; the end node tells it.
        self._build(words, parts_by_length(start, end, piece))

    @classmethod
    def from_parts(cls, words: WordTable, parts: list[Part]) -> Lattices:
        """Like the constructor, but takes the edges as :func:`edge_parts` finds them, in a list that
        it empties, so each part is freed as soon as its edges are placed (the peak memory of training).
        """
        lat = cls.__new__(cls)
        lat._build(words, parts)
        return lat

    def _build(self, words: WordTable, parts: list[Part]) -> None:
        self.w = words
        pos_t = np.int32 if words.num_nodes < 2**31 else np.int64
        # Each node's position inside its word, for the sort only: a few bytes per character.
        sizes = words.last - words.first + 1
        level = np.arange(words.num_nodes, dtype=pos_t)
        level -= np.repeat(words.first.astype(pos_t), sizes)
        del sizes
        edges = sort_edges(parts, level)
        del level
        # Edge indices fit in 32 bits: half the memory of the persistent per-edge arrays.
        self.span, self.piece, self.f, self.b = edges.span, edges.piece, edges.forward, edges.backward
        self.b_order = edges.b_order.astype(np.int32, copy=False)
        del edges
        self._index()

    def keep(self, keep_piece: np.ndarray, new_id: np.ndarray) -> None:
        """Drop edges of removed pieces and renumber the rest; both sort orders survive filtering."""
        return_free_memory()
        k = keep_piece[self.piece]
        # Each group keeps the edges of kept pieces; a group left empty goes (its node has no edge).
        self.f = _kept_groups(self.f, k)
        self.b = _kept_groups(self.b, k[self.b_order])
        position = np.cumsum(k, dtype=np.int32)
        position -= 1
        # ``b_order`` filtered and renumbered in place, chunk by chunk (the write cursor never
        # passes the read one), then copied to its new length once ``position`` is gone: no
        # second full-size order array while ``position`` exists.
        kept = 0
        for lo in range(0, len(self.b_order), _CHUNK):
            bo = self.b_order[lo:lo + _CHUNK]
            new = position[bo[k[bo]]]
            self.b_order[kept:kept + len(new)] = new
            kept += len(new)
        del position
        return_free_memory()  # ``position``'s pages, before the new order array takes its own
        self.b_order = self.b_order[:kept].copy()
        # One array at a time, so each old one goes before the next new one is made.
        self.span = self.span[k]
        self.piece = new_id.astype(np.int32)[self.piece[k]]  # int32 ids: no int64 copy per edge
        del k
        return_free_memory()
        self._index()

    def _index(self) -> None:
        # First edge of each level in both orders (the groups' first of each level is in ``bounds``).
        self.f_bounds = group_bounds(self.f.size, self.f.bounds)
        self.b_bounds = group_bounds(self.b.size, self.b.bounds)

    def _levels(self, bounds: np.ndarray, groups: Groups) -> Iterator[tuple[int, int, int, int, np.ndarray]]:
        """``(lo, hi, glo, ghi, group starts - lo)``: edges ``lo:hi`` of whole groups ``glo:ghi`` of one
        level, at most about ``_CHUNK`` edges at a time (a larger group comes alone). Groups of one
        level do not depend on each other, so any split gives the same numbers, with small temporaries.
        """
        # Group starts found once per pass from the sizes (4 bytes a group while the pass runs),
        # not stored with the lattice.
        starts = _group_starts(groups.size)
        for lev in range(len(bounds) - 1):
            lo, hi = int(bounds[lev]), int(bounds[lev + 1])
            if lo == hi:
                continue
            glo, ghi = int(groups.bounds[lev]), int(groups.bounds[lev + 1])
            gstart = starts[glo:ghi]
            if hi - lo <= _CHUNK:
                yield lo, hi, glo, ghi, gstart - lo
                continue
            cuts = np.searchsorted(gstart, np.arange(lo + _CHUNK, hi, _CHUNK)) + glo
            bounds_g = [glo, *sorted(set(cuts.tolist()) - {glo, ghi}), ghi]
            for ga, gb in zip(bounds_g[:-1], bounds_g[1:]):
                a = int(gstart[ga - glo])
                z = int(gstart[gb - glo]) if gb < ghi else hi
                yield a, z, ga, gb, gstart[ga - glo:gb - glo] - a

    @staticmethod
    def _group_runs(groups: Groups) -> Iterator[tuple[int, int, int, int]]:
        """``(lo, hi, glo, ghi)``: edges ``lo:hi`` of whole groups ``glo:ghi``, about ``_CHUNK`` edges at
        a time across levels (where the levels' order does not matter: few steps on deep lattices).
        """
        ends = np.cumsum(groups.size, dtype=np.int64)  # one past each group's last edge
        total = int(ends[-1]) if len(ends) else 0
        glo = lo = 0
        while lo < total:
            ghi = max(int(np.searchsorted(ends, lo + _CHUNK, side="right")), glo + 1)
            hi = int(ends[ghi - 1])
            yield lo, hi, glo, ghi
            glo, lo = ghi, hi

    @staticmethod
    def _nodes(groups: Groups, glo: int, ghi: int) -> np.ndarray:
        """The node of every edge of groups ``glo:ghi`` (end nodes forward, start nodes backward)."""
        return np.repeat(groups.node[glo:ghi], groups.size[glo:ghi])

    def forward(self, lpe: np.ndarray) -> np.ndarray:
        return self._forward(lambda lo, hi: lpe[lo:hi])

    def backward(self, lpe: np.ndarray) -> np.ndarray:
        return self._backward(lambda bo: lpe[bo])

    def _forward(self, edge_lp: Callable[[int, int], np.ndarray]) -> np.ndarray:
        """Forward scores, ``edge_lp(lo, hi)`` giving the log-probabilities of edges ``lo:hi``."""
        alpha = np.full(self.w.num_nodes, -np.inf)
        alpha[self.w.first] = 0.0
        for lo, hi, glo, ghi, gs in self._levels(self.f_bounds, self.f):
            start = self._nodes(self.f, glo, ghi) - self.span[lo:hi]
            v = alpha[start] + edge_lp(lo, hi)
            alpha[self.f.node[glo:ghi]] = _grouped_logsumexp(v, gs, self.f.size[glo:ghi])
        return alpha

    def _backward(self, edge_lp: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Backward scores, ``edge_lp(edges)`` giving the log-probabilities of the edges at those indices."""
        beta = np.full(self.w.num_nodes, -np.inf)
        beta[self.w.last] = 0.0
        levels = list(self._levels(self.b_bounds, self.b))
        for lo, hi, glo, ghi, gs in reversed(levels):
            bo = self.b_order[lo:hi]
            end = self._nodes(self.b, glo, ghi) + self.span[bo]
            v = beta[end] + edge_lp(bo)
            beta[self.b.node[glo:ghi]] = _grouped_logsumexp(v, gs, self.b.size[glo:ghi])
        return beta

    def expected_counts(self, lp: np.ndarray, num_pieces: int) -> tuple[np.ndarray, float]:
        """E-step: expected count of every piece, and the corpus log-likelihood."""
        return_free_memory()  # the last step's garbage, before this one's scores are made
        # Edge log-probabilities are gathered where needed, never as one array of all edges.
        alpha = self._forward(lambda lo, hi: lp[self.piece[lo:hi]])
        beta = self._backward(lambda bo: lp[self.piece[bo]])
        z = alpha[self.w.last]
        # ``exp(alpha[s] + lpe + beta[e] - z[w]) * count[w]`` per edge, summed per piece: element by
        # element and then added up in edge order (``np.add.at`` adds in the same order as a single
        # ``np.bincount``), so working in chunks keeps the temporaries small and changes no bit.
        # ``lpe + alpha[s]`` is the same number as ``alpha[s] + lpe``: addition commutes exactly.
        counts = np.zeros(num_pieces)
        for lo, hi, glo, ghi in self._group_runs(self.f):
            # The word of each end node, found per group (a node's word: the last word starting at
            # or before it) and repeated per edge, rather than kept for every node.
            group_word = np.searchsorted(self.w.first, self.f.node[glo:ghi], side="right") - 1
            word = np.repeat(group_word, self.f.size[glo:ghi])
            end = self._nodes(self.f, glo, ghi)
            piece = self.piece[lo:hi]
            post = lp[piece]
            post += alpha[end - self.span[lo:hi]]
            post += beta[end]
            post -= z[word]
            np.exp(post, out=post)
            post *= self.w.counts[word]
            np.add.at(counts, piece, post)
        return counts, float(np.dot(self.w.counts, z))

    def viterbi(self, lp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best incoming edge of every node (earliest start on ties) and best scores."""
        best = np.full(self.w.num_nodes, -np.inf)
        best[self.w.first] = 0.0
        back = np.full(self.w.num_nodes, -1, dtype=np.int64)
        for lo, hi, glo, ghi, gs in self._levels(self.f_bounds, self.f):
            start = self._nodes(self.f, glo, ghi) - self.span[lo:hi]
            v = best[start] + lp[self.piece[lo:hi]]  # gathered per level, not per edge
            m = np.maximum.reduceat(v, gs)
            hit = np.flatnonzero(v == np.repeat(m, self.f.size[glo:ghi]))
            group = np.searchsorted(gs, hit, side="right") - 1
            first = np.ones(len(hit), dtype=bool)
            first[1:] = group[1:] != group[:-1]
            nodes = self.f.node[glo:ghi]
            best[nodes] = m
            back[nodes[group[first]]] = lo + hit[first]
        return back, best

    def viterbi_paths(self, back: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(word, piece)`` arrays, one token per word per step, walking the best
        paths (``back`` from :meth:`viterbi`) backwards from the end of every word.
        """
        wid = np.arange(len(self.w.counts))
        cur = self.w.last[wid]
        while len(wid):
            e = back[cur]
            yield wid, self.piece[e]
            cur = cur - self.span[e]  # the edge ends at ``cur``: it starts ``span`` before
            more = cur != self.w.first[wid]
            wid, cur = wid[more], cur[more]


def _group_starts(sizes: np.ndarray) -> np.ndarray:
    """The first edge of each group, from the group sizes (int32 where the edges' count fits).

    >>> _group_starts(np.array([2, 1, 3], dtype=np.uint8)).tolist()
    [0, 2, 3]
    """
    total = int(sizes.sum(dtype=np.int64))
    starts = np.zeros(len(sizes), dtype=np.int32 if total < 2**31 else np.int64)
    np.cumsum(sizes[:-1], dtype=starts.dtype, out=starts[1:])
    return starts


def _kept_groups(groups: Groups, kept: np.ndarray) -> Groups:
    """``groups`` after filtering their edges (in the groups' order) by the boolean ``kept``."""
    if not len(groups.node):
        return groups
    # Summed in the sizes' own type (one byte where groups are small): no cast of every edge.
    size = np.add.reduceat(kept.view(np.uint8), _group_starts(groups.size), dtype=groups.size.dtype)
    alive = size > 0
    alive_before = np.zeros(len(alive) + 1, dtype=np.int64)
    np.cumsum(alive, out=alive_before[1:])
    return Groups(groups.node[alive], size[alive].astype(groups.size.dtype), alive_before[groups.bounds])


def edge_parts(words: WordTable, index: PieceIndex, runs: Optional[np.ndarray]) -> list[Part]:
    """All edges of the words' lattices as parts ``(length, start nodes, pieces)`` (see
    :mod:`~tokenizer_core.unigram.edge_order`), a part per piece length and chunk of positions.
    """
    parts: list[Part] = []
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
            parts.append((length, (idx + words.word_of[idx]).astype(np.int32), pid[hit].astype(np.int32)))
    return parts


def lattice_edges(words: WordTable, index: PieceIndex, runs: Optional[np.ndarray], *,
           with_word: bool = True) -> tuple[np.ndarray, ...]:
    """All (start node, end node, piece, word) edges of the words' lattices (without the word
    if not ``with_word``: :class:`Lattices` finds it from the end node).
    """
    parts = edge_parts(words, index, runs)
    if not parts:
        return tuple(np.zeros(0, dtype=np.int32) for _ in range(4 if with_word else 3))
    start = np.concatenate([s for _, s, _ in parts])
    out = [start, np.concatenate([s + np.int32(n) for n, s, _ in parts]), np.concatenate([p for _, _, p in parts])]
    if with_word:  # node ``first[w] + k`` belongs to word ``w``
        out.append((np.searchsorted(words.first, start, side="right") - 1).astype(np.int32))
    return tuple(out)
