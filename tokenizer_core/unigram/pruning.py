"""Unigram pruning: drop the pieces whose loss would cost the corpus likelihood least, then cut to size.

>>> from tokenizer_core.unigram.words import WordTable
>>> w = WordTable(["ab"] * 3 + ["abc"], np.ones(4))
>>> state = EMState(w, w.runs(split_by_script=True, split_digits=False), ["a", "b", "c", "ab", "abc"],
...                 np.log(np.array([0.1, 0.1, 0.1, 0.5, 0.2])), num_chars=3)
>>> num_tokens, removed = prune(state, target=4, shrinking_factor=0.75)
>>> state.pieces, [(r.piece, r.reason) for r in removed]
(['a', 'b', 'c', 'ab'], [('abc', 'pruned')])
"""

from __future__ import annotations

import numpy as np

from tokenizer_core.unigram.batched_lattice import Lattices, edge_parts
from tokenizer_core.unigram.em import EMState
from tokenizer_core.unigram.native_lattice import NativeLattices
from tokenizer_core.unigram.results import RemovedPiece
from tokenizer_core.unigram.words import PieceIndex, WordTable


def best_splits(state: EMState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every multi-character piece: the score of its best split into other pieces
    and that split, as ``(alt_score, owner, alt_piece)`` (the split as CSR-like pairs).
    """
    if isinstance(state.lattices, NativeLattices):
        return state.lattices.best_splits(state.lp, state.is_char)
    multi = np.flatnonzero(~state.is_char)
    alt_score = np.full(len(state.pieces), -np.inf)
    if not len(multi):
        return alt_score, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    pw = WordTable([state.pieces[i] for i in multi.tolist()], np.ones(len(multi)))
    parts = []
    for length, start, piece in edge_parts(pw, PieceIndex(state.hashes, state.lengths), None):
        # The piece itself (an edge over its whole word) is excluded: a split has two tokens or more.
        word = np.searchsorted(pw.first, start, side="right") - 1
        split = (start != pw.first[word]) | (start + length != pw.last[word])
        parts.append((length, start[split], piece[split]))
    pw.drop_positions()  # the lattices need only the node numbers
    lat = Lattices.from_parts(pw, parts)
    owners, alts = [], []
    back, best = lat.viterbi(state.lp)
    alt_score[multi] = best[pw.last]
    for wid, p in lat.viterbi_paths(back):
        owners.append(multi[wid])
        alts.append(p)
    return alt_score, np.concatenate(owners), np.concatenate(alts)


def prune(state: EMState, *, target: int, shrinking_factor: float) -> tuple[int, list[RemovedPiece]]:
    """SentencePiece's pruning step; returns the Viterbi token count and the removed pieces."""
    alt_score, owner, alt = best_splits(state)
    freq = state.viterbi_freq()
    num_tokens = int(round(freq.sum()))
    total_words = float(state.words.counts.sum())
    total = freq.sum()
    usable = ~state.is_char & (freq > 0) & (state.lp >= alt_score)
    unused = ~state.is_char & ~usable
    # Likelihood lost if every occurrence of piece i were replaced by its split.
    n_alt = np.bincount(owner, minlength=len(state.pieces)).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        logsum_alt = np.log(total + freq * (n_alt - 1))
        alt_lp = np.bincount(owner, weights=np.log(freq[alt] + freq[owner]), minlength=len(state.pieces))
        alt_lp -= n_alt * logsum_alt
        loss = freq / total_words * (np.log(freq) - np.log(total) - alt_lp)
    keep = state.is_char.copy()
    size = max(target, int(shrinking_factor * len(state.pieces)))
    cand = np.flatnonzero(usable)
    room = max(0, size - int(keep.sum()))
    order = cand[np.lexsort((cand, -loss[cand]))][:room]
    keep[order] = True
    pruned = ~keep & usable
    removed = state.removed_pieces(unused, "unused") + state.removed_pieces(pruned, "pruned", loss)
    state.keep_only(keep)
    return num_tokens, removed


def finalize(state: EMState, *, target: int) -> tuple[list[tuple[str, float]], list[RemovedPiece]]:
    """Every character plus the most probable other pieces up to ``target`` in all, most probable
    first (ties by piece), and the pieces cut; ``state`` itself is left as it was.
    """
    keep = state.is_char.copy()
    others = np.flatnonzero(~state.is_char)
    room = max(0, target - int(keep.sum()))
    ranked = others[np.lexsort((others, -state.lp[others]))]
    keep[ranked[:room]] = True
    removed = state.removed_pieces(~keep, "final")
    idx = np.flatnonzero(keep)
    final = sorted(((state.pieces[i], float(state.lp[i])) for i in idx.tolist()), key=lambda x: (-x[1], x[0]))
    return final, removed
