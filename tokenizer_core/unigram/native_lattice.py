"""Unigram training's heavy passes in the compiled kernel: seeds, E-step, Viterbi counts and the best
splits of pieces, over one word's lattice at a time (``tokenizer_kernel.UnigramCorpus``,
kernels/src/unigram*.c) instead of every lattice of the corpus as numpy arrays.

The numpy path (:mod:`.seed`, :mod:`.batched_lattice`) stays the reference and runs wherever the kernel
is missing or switched off (``TOKENIZER_CORE_PURE=1``). Seeds, Viterbi counts and splits come out
exactly equal to it; expected counts differ in the last bits at most (the kernel adds the corpus up
word by word, numpy level by level, with its own ``exp``), which tests/kernel/test_unigram_kernel.py bounds.

>>> from tokenizer_core.unigram.words import WordTable
>>> w = WordTable(["▁hug", "▁hug", "▁pug"], np.ones(3))
>>> corpus = native_corpus(w, w.runs(split_by_script=True, split_digits=False))
>>> if corpus is not None:   # the kernel is built
...     pieces, lp = native_seed(corpus, counts=w.counts, max_len=4, seed_size=10)
...     assert sorted(pieces[5:]) == ['hug', 'ug', '▁hug']
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tokenizer_core.errors import TokenizerError
from tokenizer_core.kernel import native
from tokenizer_core.unigram.words import WordTable


def native_corpus(words: WordTable, runs: np.ndarray) -> Optional[Any]:
    """The kernel's copy of ``words`` (code points, counts, where each run starts), or None without
    the kernel. ``runs`` is :meth:`WordTable.runs`: no piece crosses from one run into the next.
    """
    if not native.available() or not hasattr(native.kernel(), "UnigramCorpus"):
        return None
    breaks = np.ones(len(runs), dtype=np.uint8)
    np.not_equal(runs[1:], runs[:-1], out=breaks[1:].view(bool))
    return native.kernel().UnigramCorpus(words.text, words.offsets.astype(np.int64, copy=False),
                                         np.ascontiguousarray(words.counts, dtype=np.float64), breaks)


def native_seed(corpus: Any, *, counts: np.ndarray, max_len: int, seed_size: int,
                line_final: Optional[np.ndarray] = None,
                corpus_last: Optional[int] = None) -> tuple[list[str], np.ndarray]:
    """:func:`~tokenizer_core.unigram.seed.seed_pieces` by the kernel: the same pieces in the same order,
    the same log-probabilities (``counts`` and ``line_final`` per word, as there).
    """
    if line_final is None:
        flags = bytes([3]) * len(counts)  # every word end is followed by a word and ends a line
    else:
        flags = ((counts > line_final).astype(np.uint8) | ((line_final > 0).astype(np.uint8) << 1)).tobytes()
    pieces, score_bytes, num_chars = corpus.seed(max_len, flags, -1 if corpus_last is None else corpus_last)
    if not num_chars:
        raise TokenizerError("the corpus has no characters to learn from; give it some text")
    scores = np.frombuffer(score_bytes, dtype=np.float64)
    char_freq, score = scores[:num_chars], scores[num_chars:]
    if len(score) > seed_size:  # numpy's own partition, so the same seeds win as on the numpy path
        top = np.argpartition(-score, seed_size - 1)[:seed_size]
        found = pieces[num_chars:]
        pieces = pieces[:num_chars] + [found[i] for i in top.tolist()]
        score = score[top]
    all_scores = np.concatenate([char_freq, score])
    return pieces, np.log(all_scores) - np.log(all_scores.sum())


class NativeLattices:
    """What :class:`~tokenizer_core.unigram.batched_lattice.Lattices` offers EM and pruning, each pass
    a kernel call over lattices built word by word; it keeps only the current pieces.
    """

    def __init__(self, corpus: Any, pieces: list[str]) -> None:
        self.corpus = corpus
        self.pieces = list(pieces)

    def keep(self, keep_piece: np.ndarray, new_id: np.ndarray) -> None:
        """Drop the pieces where ``keep_piece`` is false (``new_id``: the numpy path's renumbering)."""
        self.pieces = [p for p, k in zip(self.pieces, keep_piece.tolist()) if k]

    def expected_counts(self, lp: np.ndarray, num_pieces: int) -> tuple[np.ndarray, float]:
        """E-step: expected count of every piece, and the corpus log-likelihood."""
        out = np.zeros(num_pieces)
        loglik = self.corpus.expected(self.pieces, np.ascontiguousarray(lp, dtype=np.float64), out)
        return out, float(loglik)

    def piece_freq(self, lp: np.ndarray) -> np.ndarray:
        """How often each piece occurs in the Viterbi segmentation of the corpus."""
        out = np.zeros(len(self.pieces))
        self.corpus.viterbi(self.pieces, np.ascontiguousarray(lp, dtype=np.float64), out)
        return out

    def best_splits(self, lp: np.ndarray, is_char: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`~tokenizer_core.unigram.pruning.best_splits`: ``(alt_score, owner, alt_piece)``, each
        owner's pieces from its last to its first as there (only their order across owners differs).
        """
        alt_score = np.empty(len(self.pieces))
        multi = np.ascontiguousarray(~is_char, dtype=np.uint8)
        owners, alts = self.corpus.splits(self.pieces, np.ascontiguousarray(lp, dtype=np.float64), multi, alt_score)
        return alt_score, np.frombuffer(owners, dtype=np.int64), np.frombuffer(alts, dtype=np.int64)
