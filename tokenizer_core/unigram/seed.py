"""Seed pieces for Unigram training: frequent maximal substrings (what a suffix array finds) plus every character.

kernels/src/unigram_seed.c computes the same seeds in C (see native_lattice.py).

>>> w = WordTable(["▁hug", "▁hug", "▁pug"], np.ones(3))
>>> pieces, lp = seed_pieces(w, w.runs(split_by_script=True, split_digits=False), max_len=4, seed_size=10)
>>> pieces[:5], sorted(pieces[5:])   # characters first, then repeated substrings
(['g', 'h', 'p', 'u', '▁'], ['hug', 'ug', '▁hug'])
>>> bool(np.isclose(np.exp(lp).sum(), 1.0))
True
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from tokenizer_core.errors import TokenizerError
from tokenizer_core.unigram.words import BOUNDARY, WordTable


def seed_pieces(words: WordTable, runs: np.ndarray, *, max_len: int, seed_size: int,
          line_final: Optional[np.ndarray] = None,
          corpus_last: Optional[int] = None) -> tuple[list[str], np.ndarray]:
    """Seed pieces and their initial log-probabilities (characters first).

    ``line_final[w]`` is how many of word ``w``'s occurrences end their line. SentencePiece finds
    its seeds in whole lines, where a word is followed by "▁" (the next word) or by the line's end,
    and where the last line ends (word ``corpus_last``) the text ends too: a substring ending words
    branches if it ends a line and a word mid-line, or the corpus. Without ``line_final`` every
    word end counts as both.
    """
    n = len(words.cps)
    # What follows each word's end: the next word's "▁" (a mid-line occurrence) and the ends of
    # the lines it ends (each line's end differs from every other's). Unknown: treat every end
    # as followed by both.
    if line_final is None:
        mid_line, line_ends = np.ones(len(words.counts), dtype=bool), np.ones(len(words.counts))
    else:
        mid_line, line_ends = words.counts > line_final, line_final
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
        # Maximal repeats only: drop substrings always followed by the same byte, as the nodes of
        # SentencePiece's suffix array over the lines' bytes would. After a word comes the next
        # word's "▁" (mid-line) or the line's end, which is a different follower for every line.
        at_end = words.rem[idx] == length
        follower = _first_byte(words.cps[np.minimum(idx + length, n - 1)])
        end_word = words.word_of[idx[at_end]]
        follower[at_end] = np.where(mid_line[end_word], _first_byte(np.array([ord(BOUNDARY)]))[0],
                                    np.where(line_ends[end_word] > 0, 0, -1))
        pairs = inv.astype(np.int64)
        pairs <<= 22
        pairs += follower
        seen = follower >= 0  # a word end only ever followed by line ends adds no byte follower
        del follower
        pairs = pairs[seen]
        pairs.sort()
        distinct = np.ones(len(pairs), dtype=bool)
        distinct[1:] = pairs[1:] != pairs[:-1]
        pairs = pairs[distinct]
        del distinct, seen
        pairs >>= 22
        followers = np.bincount(pairs, minlength=num_uniq).astype(np.float64)
        del pairs
        # Line ends are one follower (the separator), except the corpus' very end: a second one.
        followers += np.bincount(inv[at_end], weights=mid_line[end_word] & (line_ends[end_word] > 0),
                                 minlength=num_uniq) > 0
        if corpus_last is not None:
            followers += np.bincount(inv[at_end], weights=end_word == corpus_last, minlength=num_uniq) > 0
        del inv, at_end, end_word
        keep = (freq >= 2) & (followers >= 2)
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


def _first_byte(cps: np.ndarray) -> np.ndarray:
    """The first UTF-8 byte of each code point (as int64).

    SentencePiece finds seeds with a suffix array over the text's UTF-8 bytes, so a substring
    branches only where the characters after it differ in their first byte: "の" and "は"
    (E3 81 AE, E3 81 AF) do not make what precedes them a seed, "a" and "の" do.

    >>> _first_byte(np.array([0x61, 0xE9, 0x306E, 0x2581, 0x1F600])).tolist()
    [97, 195, 227, 226, 240]
    """
    cp = cps.astype(np.int64)
    return np.select([cp < 0x80, cp < 0x800, cp < 0x10000],
                     [cp, 0xC0 | (cp >> 6), 0xE0 | (cp >> 12)], 0xF0 | (cp >> 18))


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
