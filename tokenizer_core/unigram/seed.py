"""Seed pieces for Unigram training: frequent maximal substrings (what a suffix array finds) plus every character.

>>> w = _Words(["▁hug", "▁hug", "▁pug"], np.ones(3))
>>> pieces, lp = _seed(w, w.runs(split_by_script=True, split_digits=False), max_len=4, seed_size=10)
>>> pieces[:5], sorted(pieces[5:])   # characters first, then repeated substrings
(['g', 'h', 'p', 'u', '▁'], ['hug', 'ug', '▁hug'])
>>> bool(np.isclose(np.exp(lp).sum(), 1.0))
True
"""

from __future__ import annotations

import numpy as np

from tokenizer_core.errors import TokenizerError
from tokenizer_core.unigram.words import _Words


def _seed(words: _Words, runs: np.ndarray, *, max_len: int, seed_size: int) -> tuple[list[str], np.ndarray]:
    """Seed pieces and their initial log-probabilities (characters first)."""
    n = len(words.cps)
    cand_pos, cand_len, cand_score = [], [], []
    char_counts = None
    for length, h in words.window_hashes(max_len):
        ok = words.rem >= length
        if length > 1:
            ok[: n - length + 1] &= runs[: n - length + 1] == runs[length - 1:]
        idx = np.flatnonzero(ok)
        del ok
        if not len(idx):
            break
        first, inv = _first_and_inverse(h[idx])
        num_uniq = len(first)
        freq = np.bincount(inv, weights=words.counts[words.word_of[idx]], minlength=num_uniq)
        if length == 1:
            char_counts = (idx[first], freq)
            continue
        # Maximal repeats only: drop substrings always followed by the same character
        # inside a word, as a suffix array's internal nodes would. A substring ending a
        # word is followed by varying next words, so it counts as maximal.
        at_end = words.rem[idx] == length
        follower = words.cps[np.minimum(idx + length, n - 1)].astype(np.int64)
        follower += 1
        follower[at_end] = 0
        pairs = inv.astype(np.int64)
        pairs <<= 22
        pairs += follower
        del follower
        pairs.sort()
        distinct = np.ones(len(pairs), dtype=bool)
        distinct[1:] = pairs[1:] != pairs[:-1]
        pairs = pairs[distinct]
        del distinct
        pairs >>= 22
        followers = np.bincount(pairs, minlength=num_uniq)
        del pairs
        ends_word = np.bincount(inv, weights=at_end, minlength=num_uniq) > 0
        del inv, at_end
        keep = (freq >= 2) & ((followers >= 2) | ends_word)
        cand_pos.append(idx[first[keep]])
        cand_len.append(np.full(int(keep.sum()), length, dtype=np.int16))
        cand_score.append(freq[keep] * length)
    if char_counts is None:  # only when there are no characters at all
        raise TokenizerError("the corpus has no characters to learn from; give it some text")
    char_pos, char_freq = char_counts
    pos = np.concatenate(cand_pos) if cand_pos else np.zeros(0, dtype=np.int64)
    lens = np.concatenate(cand_len) if cand_len else np.zeros(0, dtype=np.int16)
    score = np.concatenate(cand_score) if cand_score else np.zeros(0)
    if len(score) > seed_size:
        top = np.argpartition(-score, seed_size - 1)[:seed_size]
        pos, lens, score = pos[top], lens[top], score[top]
    text = words.text
    pieces = [text[p] for p in char_pos.tolist()] + [text[p:p + k] for p, k in zip(pos.tolist(), lens.tolist())]
    all_scores = np.concatenate([char_freq, score])
    return pieces, np.log(all_scores) - np.log(all_scores.sum())


def _first_and_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_index=True, return_inverse=True)[1:]`` with fewer temporaries:
    the first index of each distinct value (in sorted order) and each value's rank among them.
    """
    order = np.argsort(values, kind="stable")
    ranked = values[order]
    new = np.ones(len(ranked), dtype=bool)
    new[1:] = ranked[1:] != ranked[:-1]
    del ranked
    inv = np.empty(len(values), dtype=np.int32 if len(values) < 2**31 else np.int64)
    inv[order] = np.cumsum(new, dtype=inv.dtype) - 1
    return order[new], inv
