"""The EM state of Unigram training: current pieces, their log-probabilities and lattices, and one EM step.

>>> from tokenizer_core.unigram.words import WordTable
>>> w = WordTable(["ab", "ab", "b"], np.ones(3))
>>> state = EMState(w, w.runs(split_by_script=True, split_digits=False), ["a", "b", "ab"],
...                 np.log(np.array([0.25, 0.25, 0.5])), num_chars=2)
>>> loglik, removed = state.em_step()
>>> state.pieces, [r.piece for r in removed]   # "a" alone is never expected: kept, as a character
(['a', 'b', 'ab'], [])
"""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from tokenizer_core.unigram.batched_lattice import Lattices, edge_parts
from tokenizer_core.unigram.edge_order import Part
from tokenizer_core.unigram.memory import return_free_memory
from tokenizer_core.unigram.native_lattice import NativeLattices
from tokenizer_core.unigram.results import RemovedPiece
from tokenizer_core.unigram.seed import seed_pieces
from tokenizer_core.unigram.words import PieceIndex, WordTable, hash_strings

_MIN_EXPECTED = 0.5  # SentencePiece's M-step threshold on expected counts


def digamma(x: np.ndarray) -> np.ndarray:
    """The digamma function for positive arrays (recurrence up to 6, then the asymptotic series).

    >>> [round(float(v), 6) for v in digamma(np.array([1.0, 0.5, 10.0]))]
    [-0.577216, -1.96351, 2.251753]
    """
    x = np.asarray(x, dtype=np.float64).copy()
    acc = np.zeros_like(x)
    small = x < 6.0
    while small.any():
        acc[small] -= 1.0 / x[small]
        x[small] += 1.0
        small = x < 6.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = np.log(x) - 0.5 * inv - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return acc + series


def piece_keys(pieces: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The window hash and the length of each piece: what :class:`PieceIndex` finds pieces by.

    >>> [k.tolist() for k in piece_keys(["a", "ab"])][1]
    [1, 2]
    """
    return hash_strings(pieces), np.fromiter((len(p) for p in pieces), dtype=np.int64, count=len(pieces))


class EMState:
    """Pieces (the first ``num_chars`` are the single characters), their log-probabilities
    ``lp`` and the corpus lattices over them, kept in step as pieces are removed.
    """

    def __init__(self, words: WordTable, runs: np.ndarray, pieces: list[str], lp: np.ndarray, *,
                 num_chars: int) -> None:
        keys = piece_keys(pieces)
        parts = edge_parts(words, PieceIndex(*keys), runs)
        self._start(words, parts, pieces, lp, num_chars=num_chars, keys=keys)

    @classmethod
    def from_parts(cls, words: WordTable, parts: list[Part], pieces: list[str], lp: np.ndarray, *,
                   num_chars: int, keys: tuple[np.ndarray, np.ndarray]) -> EMState:
        """Like the constructor, from the lattice edges as :func:`edge_parts` finds them with the
        :func:`piece_keys` ``keys`` of ``pieces`` (the list is emptied as the lattices are built), so
        the caller can free the corpus' per-character arrays first: they are not needed any more.
        """
        state = cls.__new__(cls)
        state._start(words, parts, pieces, lp, num_chars=num_chars, keys=keys)
        return state

    @classmethod
    def from_native(cls, words: WordTable, corpus: Any, pieces: list[str], lp: np.ndarray, *,
                    num_chars: int) -> EMState:
        """Like the constructor, with the kernel's corpus (:func:`.native_lattice.native_corpus`) in
        place of the lattices: each pass builds them word by word.
        """
        state = cls.__new__(cls)
        state._start(words, NativeLattices(corpus, pieces), pieces, lp, num_chars=num_chars, keys=None)
        return state

    def _start(self, words: WordTable, parts: Union[list[Part], NativeLattices], pieces: list[str], lp: np.ndarray, *,
               num_chars: int, keys: Optional[tuple[np.ndarray, np.ndarray]]) -> None:
        self.words = words
        self.pieces = pieces
        self.lp = lp
        self.is_char = np.zeros(len(pieces), dtype=bool)
        self.is_char[:num_chars] = True
        # The pieces' window hashes and lengths (the numpy path finds pieces by them; the kernel hashes
        # the pieces itself: None there).
        self.hashes, self.lengths = keys if keys is not None else (None, None)
        self.lattices = parts if isinstance(parts, NativeLattices) else Lattices.from_parts(words, parts)

    def keep_only(self, keep: np.ndarray) -> None:
        """Drop the pieces where ``keep`` is false (and their lattice edges); the rest are renumbered."""
        new_id = np.cumsum(keep) - 1
        self.lattices.keep(keep, new_id)
        self.pieces = [p for p, k in zip(self.pieces, keep.tolist()) if k]
        self.lp, self.is_char = self.lp[keep], self.is_char[keep]
        if self.hashes is not None:
            self.hashes, self.lengths = self.hashes[keep], self.lengths[keep]

    def removed_pieces(self, mask: np.ndarray, reason: str,
                       loss: Optional[np.ndarray] = None) -> list[RemovedPiece]:
        """Trace records of the pieces selected by ``mask`` (call before :meth:`keep_only` drops them)."""
        idx = np.flatnonzero(mask)
        return [RemovedPiece(self.pieces[i], reason, float(self.lp[i]), None if loss is None else float(loss[i]))
                for i in idx.tolist()]

    def em_step(self) -> tuple[float, list[RemovedPiece]]:
        """One E-step and M-step; returns the corpus log-likelihood before it and the rare pieces dropped."""
        expected, loglik = self.lattices.expected_counts(self.lp, len(self.pieces))
        # Characters are never dropped; an unused one keeps the smallest count a kept piece can have.
        expected = np.where(self.is_char, np.maximum(expected, _MIN_EXPECTED), expected)
        keep = expected >= _MIN_EXPECTED
        removed = self.removed_pieces(~keep, "rare")
        # SentencePiece's Bayesian M-step: digamma instead of log damps rare pieces.
        self.lp = digamma(np.maximum(expected, _MIN_EXPECTED)) - digamma(np.array([expected[keep].sum()]))[0]
        if not keep.all():
            self.keep_only(keep)
        return loglik, removed

    def viterbi_freq(self) -> np.ndarray:
        """How often each piece occurs in the Viterbi segmentation of the corpus."""
        if isinstance(self.lattices, NativeLattices):
            return self.lattices.piece_freq(self.lp)
        freq = np.zeros(len(self.pieces))
        back, _ = self.lattices.viterbi(self.lp)
        for wid, piece in self.lattices.viterbi_paths(back):
            freq += np.bincount(piece, weights=self.words.counts[wid], minlength=len(self.pieces))
        return freq


def numpy_state(words: WordTable, runs: np.ndarray, *, max_len: int, seed_size: int, line_final: Optional[np.ndarray],
                 corpus_last: Optional[int], num_chars: int) -> EMState:
    """Seeds and the lattices of the whole corpus as numpy arrays (the reference, without the kernel);
    the words' per-character arrays are dropped once the lattice edges are found.
    """
    return_free_memory()  # the counting's garbage: each phase starts on a heap without it
    pieces, lp = seed_pieces(words, runs, max_len=max_len, seed_size=seed_size, line_final=line_final,
                       corpus_last=corpus_last)
    del line_final
    return_free_memory()
    keys = piece_keys(pieces)
    parts = edge_parts(words, PieceIndex(*keys), runs)
    # The lattices hold what EM and pruning need: the per-character arrays go before they are built.
    del runs
    words.drop_positions()
    return_free_memory()
    return EMState.from_parts(words, parts, pieces, lp, num_chars=num_chars, keys=keys)
