"""Training a Unigram language model the SentencePiece way (Kudo 2018).

1. **Seed**: every substring of at most ``max_piece_length`` characters that occurs
   twice or more and is not always followed by the same character inside a word
   (a maximal repeat, as a suffix array finds them), ranked by ``frequency * length``; the
   best ``seed_size`` plus every single character. A piece may hold "▁" only at
   its start and, like SentencePiece's defaults, may not mix Unicode scripts
   (letters of one script; digits and punctuation count as "common").
2. **EM**: the E-step runs forward-backward over every distinct word's lattice and
   collects expected piece counts; the M-step turns them into log-probabilities
   with SentencePiece's Bayesian update ``digamma(count) - digamma(total)`` and
   drops pieces expected fewer than 0.5 times.
3. **Prune**: for each piece, the loss of corpus likelihood if it were replaced by
   its best split into other pieces; keep the ``shrinking_factor`` share with the
   highest loss, then EM again, until at most ``1.1 * vocab_size`` pieces remain,
   then keep the most probable ``vocab_size``. Single characters are never removed,
   so every training character stays representable.

All lattices of the corpus are processed at once as flat numpy arrays (one node
per position of each distinct word, one edge per piece occurrence), so an E-step
is a few vectorised passes per word position rather than a Python loop per word.

>>> res = train_unigram({"▁hug": 10, "▁pug": 5, "▁pun": 12, "▁bun": 4, "▁hugs": 5}, vocab_size=12)
>>> len(res.pieces) <= 12, set("▁hugpnbs") <= {p for p, _ in res.pieces}
(True, True)
>>> res.rounds[-1].vocab_size >= 12
True
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from .errors import TokenizerError
from .training import TrainOptions, count_pieces
from .types import ProgressCallback, no_progress

if TYPE_CHECKING:
    from .pipeline import Tokenizer

BOUNDARY = "▁"
DEFAULT_VOCAB_SIZE = 8000
_HASH_BASE = np.uint64(0x100000001B3)  # odd multiplier of the polynomial window hash (mod 2**64)
_MIN_EXPECTED = 0.5  # SentencePiece's M-step threshold on expected counts


# ---------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class RemovedPiece:
    """A piece dropped during training.

    ``reason``: ``"rare"`` (expected fewer than 0.5 times in an M-step), ``"unused"``
    (on no Viterbi path, or its own best split beats it), ``"pruned"`` (lowest loss
    of likelihood; ``loss`` is that estimated loss) or ``"final"`` (cut to the exact
    vocabulary size by probability).
    """

    piece: str
    reason: str
    log_prob: float
    loss: Optional[float] = None


@dataclass(frozen=True)
class UnigramRound:
    """One round of EM (and the pruning after it) as the app charts it.

    ``log_likelihood`` is ``sum(count(w) * log P(w))`` over distinct words after the
    round's last EM iteration; ``loss`` is minus that per word occurrence (what
    SentencePiece logs as ``obj``); ``num_tokens`` counts Viterbi tokens over the corpus.
    """

    round: int
    vocab_size: int
    log_likelihood: float
    loss: float
    em_iterations: int
    num_tokens: int
    removed: tuple[RemovedPiece, ...]


@dataclass(frozen=True)
class UnigramTrainResult:
    """Final pieces (most probable first, with log-probabilities) and the training trace."""

    pieces: list[tuple[str, float]]
    rounds: list[UnigramRound]
    seed_size: int
    alphabet: list[str]
    num_words: int
    num_distinct_words: int

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (pieces removed per round are summarised by count per reason)."""
        return {
            "seed_size": self.seed_size,
            "alphabet_size": len(self.alphabet),
            "num_words": self.num_words,
            "num_distinct_words": self.num_distinct_words,
            "rounds": [
                {"round": r.round, "vocab_size": r.vocab_size, "log_likelihood": r.log_likelihood, "loss": r.loss,
                 "em_iterations": r.em_iterations, "num_tokens": r.num_tokens,
                 "removed": dict(Counter(x.reason for x in r.removed))}
                for r in self.rounds
            ],
        }


# ---------------------------------------------------------------------- numerics
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


def _grouped_logsumexp(values: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    m = np.maximum.reduceat(values, starts)
    s = np.add.reduceat(np.exp(values - np.repeat(m, sizes)), starts)
    return m + np.log(s)


# ---------------------------------------------------------------------- words
def _script_of(ch: str) -> str:
    """SentencePiece-like script class: letters by script, marks "inherited", the rest "common"."""
    cat = unicodedata.category(ch)
    if cat[0] == "L":
        name = unicodedata.name(ch, "")
        first = name.split(" ", 1)[0] if name else "UNKNOWN"
        # SentencePiece merges Hiragana and Katakana into Han.
        return "HAN" if first in ("CJK", "HIRAGANA", "KATAKANA") else first
    if cat[0] == "M":
        return "INHERITED"
    return "COMMON"


class _Words:
    """Distinct words packed end to end: code points, word offsets and per-position facts.

    Node ``i + word_of[i]`` is the position before character ``i`` (each word adds
    one extra node at its end), so word ``w`` has nodes ``first[w] .. last[w]``.
    """

    def __init__(self, words: list[str], counts: np.ndarray) -> None:
        self.words = words
        self.counts = counts
        self.text = "".join(words)
        lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=len(words))
        self.offsets = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum(lengths, out=self.offsets[1:])
        n = int(self.offsets[-1])
        self.cps = np.frombuffer(self.text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        self.word_of = np.repeat(np.arange(len(words), dtype=np.int64), lengths)
        self.rem = self.offsets[1:][self.word_of] - np.arange(n, dtype=np.int64)  # chars left from i, incl. i
        self.first = self.offsets[:-1] + np.arange(len(words), dtype=np.int64)
        self.last = self.first + lengths
        self.num_nodes = n + len(words)
        self.max_length = int(lengths.max()) if len(words) else 0

    def runs(self, *, split_by_script: bool, split_digits: bool) -> np.ndarray:
        """Run id per character: a valid piece lies inside one run (so ``run[i] == run[i+L-1]``).

        A run starts at each word start and each "▁", and (unless after a "▁") where the script
        changes; with ``split_digits`` every digit is a run of its own.
        """
        n = len(self.cps)
        new = np.zeros(n, dtype=bool)
        new[self.offsets[:-1]] = True
        uniq, inv = np.unique(self.cps, return_inverse=True)
        chars = [chr(int(c)) for c in uniq]
        is_ws = (np.array([c == BOUNDARY for c in chars], dtype=bool))[inv]
        new |= is_ws
        prev_ws = np.zeros(n, dtype=bool)
        prev_ws[1:] = is_ws[:-1]
        if split_by_script:
            names: dict[str, int] = {}
            script = np.array([names.setdefault(_script_of(c), len(names)) for c in chars], dtype=np.int64)[inv]
            change = np.zeros(n, dtype=bool)
            change[1:] = script[1:] != script[:-1]
            new |= change & ~prev_ws
        if split_digits:
            is_digit = np.array([unicodedata.category(c) == "Nd" for c in chars], dtype=bool)[inv]
            new |= is_digit
            new[1:] |= is_digit[:-1]
        return np.cumsum(new)

    def window_hashes(self, max_len: int) -> Iterable[tuple[int, np.ndarray]]:
        """``(L, h)`` for ``L = 1..max_len``: ``h[i]`` hashes ``cps[i:i+L]`` wherever ``rem[i] >= L``."""
        n = len(self.cps)
        h = np.zeros(n, dtype=np.uint64)
        cu = self.cps.astype(np.uint64)
        for length in range(1, max_len + 1):
            if length > n:
                return
            h[: n - length + 1] = h[: n - length + 1] * _HASH_BASE + cu[length - 1:]
            yield length, h


def _hash_strings(pieces: list[str]) -> np.ndarray:
    """The window hash of each whole string (same function as :meth:`_Words.window_hashes`)."""
    w = _Words(pieces, np.ones(len(pieces)))
    lengths = w.offsets[1:] - w.offsets[:-1]
    out = np.zeros(len(pieces), dtype=np.uint64)
    for length, h in w.window_hashes(w.max_length):
        sel = lengths == length
        out[sel] = h[w.offsets[:-1][sel]]
    return out


class _PieceIndex:
    """Find piece ids by (length, hash) with one binary search per window."""

    def __init__(self, hashes: np.ndarray, lengths: np.ndarray) -> None:
        self.max_len = int(lengths.max()) if len(lengths) else 0
        self._by_len: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for length in np.unique(lengths):
            ids = np.flatnonzero(lengths == length)
            order = np.argsort(hashes[ids], kind="stable")
            self._by_len[int(length)] = (hashes[ids][order], ids[order])

    def find(self, length: int, hashes: np.ndarray) -> np.ndarray:
        table = self._by_len.get(length)
        if table is None or not len(hashes):
            return np.full(len(hashes), -1, dtype=np.int64)
        keys, ids = table
        pos = np.minimum(np.searchsorted(keys, hashes), len(keys) - 1)
        return np.where(keys[pos] == hashes, ids[pos], -1)


# ---------------------------------------------------------------------- lattices
class _Lattices:
    """The lattices of many words at once: flat edge arrays sorted by (end position, end node)."""

    def __init__(self, words: _Words, start: np.ndarray, end: np.ndarray, piece: np.ndarray,
                 word: np.ndarray) -> None:
        self.w = words
        level = end - words.first[word]
        order = np.lexsort((start, end, level))
        self.start, self.end, self.piece, self.word = start[order], end[order], piece[order], word[order]
        b_level = self.start - words.first[self.word]
        self.b_order = np.lexsort((self.end, self.start, b_level))
        self._index()

    def keep(self, keep_piece: np.ndarray, new_id: np.ndarray) -> None:
        """Drop edges of removed pieces and renumber the rest; both sort orders survive filtering."""
        k = keep_piece[self.piece]
        position = np.cumsum(k) - 1
        self.b_order = position[self.b_order[k[self.b_order]]]
        self.start, self.end, self.word = self.start[k], self.end[k], self.word[k]
        self.piece = new_id[self.piece[k]]
        self._index()

    def _index(self) -> None:
        w = self.w
        # Forward: edges grouped by end node, levels = end position inside the word.
        self.f_level = self.end - w.first[self.word]
        self.f_bounds = np.searchsorted(self.f_level, np.arange(w.max_length + 2))
        new_group = np.ones(len(self.end), dtype=bool)
        new_group[1:] = self.end[1:] != self.end[:-1]
        self.f_gstart = np.flatnonzero(new_group)
        self.f_gnode = self.end[self.f_gstart]
        self.f_gsize = np.diff(np.append(self.f_gstart, len(self.end)))
        self.f_gbounds = np.searchsorted(self.f_gstart, self.f_bounds)
        # Backward: the same edges grouped by start node (order ``b_order``), levels = start position.
        self.b_start, self.b_end = self.start[self.b_order], self.end[self.b_order]
        b_level = self.b_start - w.first[self.word[self.b_order]]
        self.b_bounds = np.searchsorted(b_level, np.arange(w.max_length + 2))
        new_group = np.ones(len(self.b_start), dtype=bool)
        new_group[1:] = self.b_start[1:] != self.b_start[:-1]
        self.b_gstart = np.flatnonzero(new_group)
        self.b_gnode = self.b_start[self.b_gstart]
        self.b_gsize = np.diff(np.append(self.b_gstart, len(self.b_start)))
        self.b_gbounds = np.searchsorted(self.b_gstart, self.b_bounds)

    def _levels(self, bounds: np.ndarray, gbounds: np.ndarray, gstart: np.ndarray):
        for lev in range(len(bounds) - 1):
            lo, hi = int(bounds[lev]), int(bounds[lev + 1])
            if lo == hi:
                continue
            glo, ghi = int(gbounds[lev]), int(gbounds[lev + 1])
            yield lo, hi, glo, ghi, gstart[glo:ghi] - lo

    def forward(self, lpe: np.ndarray) -> np.ndarray:
        alpha = np.full(self.w.num_nodes, -np.inf)
        alpha[self.w.first] = 0.0
        for lo, hi, glo, ghi, gs in self._levels(self.f_bounds, self.f_gbounds, self.f_gstart):
            v = alpha[self.start[lo:hi]] + lpe[lo:hi]
            alpha[self.f_gnode[glo:ghi]] = _grouped_logsumexp(v, gs, self.f_gsize[glo:ghi])
        return alpha

    def backward(self, lpe: np.ndarray) -> np.ndarray:
        beta = np.full(self.w.num_nodes, -np.inf)
        beta[self.w.last] = 0.0
        lpb = lpe[self.b_order]
        levels = list(self._levels(self.b_bounds, self.b_gbounds, self.b_gstart))
        for lo, hi, glo, ghi, gs in reversed(levels):
            v = beta[self.b_end[lo:hi]] + lpb[lo:hi]
            beta[self.b_gnode[glo:ghi]] = _grouped_logsumexp(v, gs, self.b_gsize[glo:ghi])
        return beta

    def expected_counts(self, lp: np.ndarray, num_pieces: int) -> tuple[np.ndarray, float]:
        """E-step: expected count of every piece, and the corpus log-likelihood."""
        lpe = lp[self.piece]
        alpha, beta = self.forward(lpe), self.backward(lpe)
        z = alpha[self.w.last]
        post = np.exp(alpha[self.start] + lpe + beta[self.end] - z[self.word]) * self.w.counts[self.word]
        return np.bincount(self.piece, weights=post, minlength=num_pieces), float(np.dot(self.w.counts, z))

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

    def viterbi_paths(self, back: np.ndarray):
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


def _edges(words: _Words, index: _PieceIndex, runs: Optional[np.ndarray]) -> tuple[np.ndarray, ...]:
    """All (start node, end node, piece, word) edges of the words' lattices."""
    parts = []
    for length, h in words.window_hashes(min(index.max_len, words.max_length)):
        ok = words.rem >= length
        if runs is not None and length > 1:
            n = len(runs)
            ok[: n - length + 1] &= runs[: n - length + 1] == runs[length - 1:]
        idx = np.flatnonzero(ok)
        pid = index.find(length, h[idx])
        hit = pid >= 0
        idx = idx[hit]
        wid = words.word_of[idx]
        start = idx + wid
        parts.append((start, start + length, pid[hit], wid))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


# ---------------------------------------------------------------------- seeding
def _seed(words: _Words, runs: np.ndarray, *, max_len: int, seed_size: int) -> tuple[list[str], np.ndarray]:
    """Seed pieces and their initial log-probabilities (characters first)."""
    n = len(words.cps)
    wc = words.counts[words.word_of]
    cand_pos, cand_len, cand_score = [], [], []
    char_counts = None
    for length, h in words.window_hashes(max_len):
        ok = words.rem >= length
        if length > 1:
            ok[: n - length + 1] &= runs[: n - length + 1] == runs[length - 1:]
        idx = np.flatnonzero(ok)
        if not len(idx):
            break
        uniq, first, inv = np.unique(h[idx], return_index=True, return_inverse=True)
        freq = np.bincount(inv, weights=wc[idx], minlength=len(uniq))
        if length == 1:
            char_counts = (idx[first], freq)
            continue
        # Maximal repeats only: drop substrings always followed by the same character
        # inside a word, as a suffix array's internal nodes would. A substring ending a
        # word is followed by varying next words, so it counts as maximal.
        at_end = words.rem[idx] == length
        follower = np.where(at_end, 0, words.cps[np.minimum(idx + length, n - 1)] + 1)
        pairs = np.unique(inv.astype(np.int64) * (1 << 22) + follower)
        followers = np.bincount(pairs >> 22, minlength=len(uniq))
        ends_word = np.bincount(inv, weights=at_end, minlength=len(uniq)) > 0
        keep = (freq >= 2) & ((followers >= 2) | ends_word)
        cand_pos.append(idx[first[keep]])
        cand_len.append(np.full(int(keep.sum()), length, dtype=np.int64))
        cand_score.append(freq[keep] * length)
    if char_counts is None:  # only when there are no characters at all
        raise TokenizerError("the corpus has no characters to learn from; give it some text")
    char_pos, char_freq = char_counts
    pos = np.concatenate(cand_pos) if cand_pos else np.zeros(0, dtype=np.int64)
    lens = np.concatenate(cand_len) if cand_len else np.zeros(0, dtype=np.int64)
    score = np.concatenate(cand_score) if cand_score else np.zeros(0)
    if len(score) > seed_size:
        top = np.argpartition(-score, seed_size - 1)[:seed_size]
        pos, lens, score = pos[top], lens[top], score[top]
    text = words.text
    pieces = [text[p] for p in char_pos.tolist()] + [text[p:p + k] for p, k in zip(pos.tolist(), lens.tolist())]
    all_scores = np.concatenate([char_freq, score])
    return pieces, np.log(all_scores) - np.log(all_scores.sum())


# ---------------------------------------------------------------------- training
class _Trainer:
    def __init__(self, words: _Words, runs: np.ndarray, pieces: list[str], lp: np.ndarray,
                 num_chars: int) -> None:
        self.words = words
        self.pieces = pieces
        self.lp = lp
        self.is_char = np.zeros(len(pieces), dtype=bool)
        self.is_char[:num_chars] = True
        self.hashes = _hash_strings(pieces)
        self.lengths = np.fromiter((len(p) for p in pieces), dtype=np.int64, count=len(pieces))
        start, end, piece, word = _edges(words, _PieceIndex(self.hashes, self.lengths), runs)
        self.lattices = _Lattices(words, start, end, piece, word)

    def _remove(self, keep: np.ndarray) -> None:
        new_id = np.cumsum(keep) - 1
        self.lattices.keep(keep, new_id)
        self.pieces = [p for p, k in zip(self.pieces, keep.tolist()) if k]
        self.lp, self.is_char = self.lp[keep], self.is_char[keep]
        self.hashes, self.lengths = self.hashes[keep], self.lengths[keep]

    def _removed(self, mask: np.ndarray, reason: str, loss: Optional[np.ndarray] = None) -> list[RemovedPiece]:
        idx = np.flatnonzero(mask)
        return [RemovedPiece(self.pieces[i], reason, float(self.lp[i]), None if loss is None else float(loss[i]))
                for i in idx.tolist()]

    def em_step(self) -> tuple[float, list[RemovedPiece]]:
        expected, loglik = self.lattices.expected_counts(self.lp, len(self.pieces))
        # Characters are never dropped; an unused one keeps the smallest count a kept piece can have.
        expected = np.where(self.is_char, np.maximum(expected, _MIN_EXPECTED), expected)
        keep = expected >= _MIN_EXPECTED
        removed = self._removed(~keep, "rare")
        # SentencePiece's Bayesian M-step: digamma instead of log damps rare pieces.
        self.lp = digamma(np.maximum(expected, _MIN_EXPECTED)) - digamma(np.array([expected[keep].sum()]))[0]
        if not keep.all():
            self._remove(keep)
        return loglik, removed

    def viterbi_freq(self) -> np.ndarray:
        freq = np.zeros(len(self.pieces))
        back, _ = self.lattices.viterbi(self.lp)
        for wid, piece in self.lattices.viterbi_paths(back):
            freq += np.bincount(piece, weights=self.words.counts[wid], minlength=len(self.pieces))
        return freq

    def _alternatives(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For every multi-character piece: the score of its best split into other pieces
        and that split, as ``(alt_score, owner, alt_piece)`` (the split as CSR-like pairs).
        """
        multi = np.flatnonzero(~self.is_char)
        alt_score = np.full(len(self.pieces), -np.inf)
        if not len(multi):
            return alt_score, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        pw = _Words([self.pieces[i] for i in multi.tolist()], np.ones(len(multi)))
        start, end, piece, word = _edges(pw, _PieceIndex(self.hashes, self.lengths), None)
        whole = (start == pw.first[word]) & (end == pw.last[word])  # the piece itself: excluded
        lat = _Lattices(pw, start[~whole], end[~whole], piece[~whole], word[~whole])
        owners, alts = [], []
        back, best = lat.viterbi(self.lp)
        alt_score[multi] = best[pw.last]
        for wid, p in lat.viterbi_paths(back):
            owners.append(multi[wid])
            alts.append(p)
        return alt_score, np.concatenate(owners), np.concatenate(alts)

    def prune(self, target: int, shrinking_factor: float) -> tuple[int, list[RemovedPiece]]:
        """SentencePiece's pruning step; returns the Viterbi token count and the removed pieces."""
        alt_score, owner, alt = self._alternatives()
        freq = self.viterbi_freq()
        num_tokens = int(round(freq.sum()))
        total_words = float(self.words.counts.sum())
        total = freq.sum()
        usable = ~self.is_char & (freq > 0) & (self.lp >= alt_score)
        unused = ~self.is_char & ~usable
        # Likelihood lost if every occurrence of piece i were replaced by its split.
        n_alt = np.bincount(owner, minlength=len(self.pieces)).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            logsum_alt = np.log(total + freq * (n_alt - 1))
            alt_lp = np.bincount(owner, weights=np.log(freq[alt] + freq[owner]), minlength=len(self.pieces))
            alt_lp -= n_alt * logsum_alt
            loss = freq / total_words * (np.log(freq) - np.log(total) - alt_lp)
        keep = self.is_char.copy()
        size = max(target, int(shrinking_factor * len(self.pieces)))
        cand = np.flatnonzero(usable)
        room = max(0, size - int(keep.sum()))
        order = cand[np.lexsort((cand, -loss[cand]))][:room]
        keep[order] = True
        pruned = ~keep & usable
        removed = self._removed(unused, "unused") + self._removed(pruned, "pruned", loss)
        self._remove(keep)
        return num_tokens, removed

    def finalize(self, target: int) -> tuple[list[tuple[str, float]], list[RemovedPiece]]:
        keep = self.is_char.copy()
        others = np.flatnonzero(~self.is_char)
        room = max(0, target - int(keep.sum()))
        ranked = others[np.lexsort((others, -self.lp[others]))]
        keep[ranked[:room]] = True
        removed = self._removed(~keep, "final")
        idx = np.flatnonzero(keep)
        final = sorted(((self.pieces[i], float(self.lp[i])) for i in idx.tolist()), key=lambda x: (-x[1], x[0]))
        return final, removed


def train_unigram(
    word_counts: Union[Mapping[str, int], Iterable[tuple[str, int]]],
    *,
    vocab_size: int,
    max_piece_length: int = 16,
    shrinking_factor: float = 0.75,
    num_sub_iterations: int = 2,
    seed_size: int = 1_000_000,
    split_by_script: bool = True,
    split_digits: bool = False,
    max_word_length: int = 256,
    progress: ProgressCallback = no_progress,
) -> UnigramTrainResult:
    """Learn ``vocab_size`` pieces (characters included) from word counts.

    Words are pre-tokenized pieces such as ``"▁hello"``; "▁" may start a piece but
    never appear inside one. Words longer than ``max_word_length`` characters only
    contribute their characters (SentencePiece likewise skips over-long sentences).
    If the corpus has fewer candidate pieces than ``vocab_size``, all are kept.
    """
    if not isinstance(vocab_size, int) or vocab_size < 1:
        raise TokenizerError(f"vocab_size must be a positive number, got {vocab_size!r}")
    if not 1 <= max_piece_length <= 256:
        raise TokenizerError(f"max_piece_length must be between 1 and 256, got {max_piece_length}")
    if not 0 < shrinking_factor < 1:
        raise TokenizerError(f"shrinking_factor must be between 0 and 1, got {shrinking_factor}")
    if num_sub_iterations < 1:
        raise TokenizerError(f"num_sub_iterations must be at least 1, got {num_sub_iterations}")
    items = word_counts.items() if isinstance(word_counts, Mapping) else word_counts
    counts: Counter[str] = Counter()
    for w, c in items:
        if not isinstance(w, str) or isinstance(c, bool) or not isinstance(c, int):
            raise TokenizerError(f"word counts must be (str, int) pairs, got ({w!r:.30}, {c!r})")
        if w and c > 0:
            counts[w] += c
    if not counts:
        raise TokenizerError("the corpus has no words to learn from; give it some text")
    alphabet = sorted({ch for w in counts for ch in w})
    if vocab_size < len(alphabet):
        raise TokenizerError(
            f"vocab_size {vocab_size} is smaller than the {len(alphabet)} distinct characters of the corpus, "
            "which Unigram always keeps; raise vocab_size"
        )
    # Long words only feed the alphabet: add each of their characters as a one-letter word.
    trainable = Counter({w: c for w, c in counts.items() if len(w) <= max_word_length})
    for w, c in counts.items():
        if len(w) > max_word_length:
            for ch in w:
                trainable[ch] += c
    word_list = sorted(trainable)
    words = _Words(word_list, np.array([trainable[w] for w in word_list], dtype=np.float64))
    runs = words.runs(split_by_script=split_by_script, split_digits=split_digits)

    progress(0, 0, "seeding pieces")
    pieces, lp = _seed(words, runs, max_len=max_piece_length, seed_size=seed_size)
    trainer = _Trainer(words, runs, pieces, lp, len(alphabet))
    desired = max(vocab_size, int(vocab_size * 1.1))
    seed_count = len(pieces)
    expected_rounds = 1 + max(0, math.ceil(math.log(max(desired, 1) / max(seed_count, 1)) / math.log(shrinking_factor)))
    total_steps = expected_rounds * (num_sub_iterations + 1)
    rounds: list[UnigramRound] = []
    step = 0
    while True:
        removed: list[RemovedPiece] = []
        loglik = 0.0
        for _ in range(num_sub_iterations):
            loglik, gone = trainer.em_step()
            removed.extend(gone)
            step += 1
            progress(min(step, total_steps), total_steps, "EM and pruning")
        size = len(trainer.pieces)
        loss = -loglik / float(words.counts.sum())
        if size <= desired:
            num_tokens = int(round(trainer.viterbi_freq().sum()))
            rounds.append(UnigramRound(len(rounds), size, loglik, loss, num_sub_iterations, num_tokens,
                                       tuple(removed)))
            break
        num_tokens, pruned = trainer.prune(desired, shrinking_factor)
        step += 1
        progress(min(step, total_steps), total_steps, "EM and pruning")
        rounds.append(UnigramRound(len(rounds), size, loglik, loss, num_sub_iterations, num_tokens,
                                   tuple(removed + pruned)))
        if len(trainer.pieces) == size:  # nothing left to prune (tiny corpus): stop here
            break
    final, cut = trainer.finalize(vocab_size)
    if cut:
        last = rounds[-1]
        rounds[-1] = UnigramRound(last.round, last.vocab_size, last.log_likelihood, last.loss,
                                  last.em_iterations, last.num_tokens, last.removed + tuple(cut))
    progress(total_steps, total_steps, "EM and pruning")
    return UnigramTrainResult(final, rounds, seed_count, alphabet, int(words.counts.sum()), len(counts))


# ---------------------------------------------------------------------- pipeline
def unigram_components(*, lowercase: bool = False, byte_fallback: bool = False) -> dict[str, Any]:
    """Normalizer, pre-tokenizer and decoder of a SentencePiece-style Unigram tokenizer.

    NFKC (SentencePiece's default ``nmt_nfkc`` is NFKC plus a few extra mappings), then
    whitespace splitting with "▁" put before every word: the same as SentencePiece's
    defaults ``remove_extra_whitespaces`` and ``add_dummy_prefix`` with whitespace-split
    training.

    >>> c = unigram_components()
    >>> c["pre_tokenizer"].words("Hello  world\\n")
    ['▁Hello', '▁world']
    """
    from .decoders import ByteFallbackDecoder, MetaspaceDecoder, SequenceDecoder
    from .normalizers import NFKC, Lowercase
    from .normalizers import Sequence as NormalizerSequence
    from .pre_tokenizers import Metaspace, WhitespaceSplit
    from .pre_tokenizers import Sequence as PreTokenizerSequence

    normalizer = NormalizerSequence([NFKC(), Lowercase()]) if lowercase else NFKC()
    pre = PreTokenizerSequence([WhitespaceSplit(), Metaspace(replacement=BOUNDARY, prepend_scheme="always")])
    decoder: Any = MetaspaceDecoder(replacement=BOUNDARY, prepend_scheme="always")
    if byte_fallback:
        decoder = SequenceDecoder([ByteFallbackDecoder(), decoder])
    return {"normalizer": normalizer, "pre_tokenizer": pre, "decoder": decoder}


def count_words(lines: Iterable[str], *, normalizer: Any, pre_tokenizer: Any,
                progress: ProgressCallback = no_progress) -> Counter[str]:
    """Pre-tokenized word counts of ``lines`` (each normalized first)."""
    return count_pieces(lines, normalizer=normalizer, pre_tokenizer=pre_tokenizer, progress=progress)


def train_tokenizer(lines: Iterable[str], *, options: TrainOptions,
                    progress: ProgressCallback = no_progress) -> "Tokenizer":
    """A complete Unigram tokenizer: special tokens first (score 0), then the 256 byte
    tokens if ``byte_fallback``, then the learned pieces, most probable first.

    ``options.vocab_size`` (default 8000) counts all of them. Options understood in
    ``options.extra``: ``seed_size``, ``num_sub_iterations``, ``split_by_script``,
    ``split_digits``, ``max_word_length``.
    """
    from .models.unigram import Unigram, byte_token
    from .pipeline import Tokenizer

    if options.pre_tokenizer not in (None, "metaspace", "whitespace-split"):
        raise TokenizerError(
            f"the Unigram trainer uses SentencePiece-style pre-tokenization (whitespace split + '▁'); "
            f"pre-tokenizer {options.pre_tokenizer!r} is not supported, leave it unset"
        )
    if options.unk_token is not None and options.unk_token not in options.special_tokens:
        raise TokenizerError(f"unk_token {options.unk_token!r} must be one of the special tokens "
                             f"{list(options.special_tokens)}")
    known = {"seed_size", "num_sub_iterations", "split_by_script", "split_digits", "max_word_length"}
    unknown = set(options.extra) - known
    if unknown:
        raise TokenizerError(f"unknown Unigram option(s) {sorted(unknown)}; known: {sorted(known)}")
    parts = unigram_components(lowercase=options.lowercase, byte_fallback=options.byte_fallback)
    counts = count_words(lines, normalizer=parts["normalizer"], pre_tokenizer=parts["pre_tokenizer"],
                         progress=progress)
    if options.min_frequency > 1:
        counts = Counter({w: c for w, c in counts.items() if c >= options.min_frequency})
    specials = list(options.special_tokens)
    fixed = specials + ([byte_token(b) for b in range(256)] if options.byte_fallback else [])
    vocab_size = options.vocab_size if options.vocab_size is not None else DEFAULT_VOCAB_SIZE
    if vocab_size <= len(fixed):
        raise TokenizerError(
            f"vocab_size {vocab_size} leaves no room for pieces after {len(fixed)} special/byte tokens; raise it"
        )
    alphabet = {ch for w in counts for ch in w}
    if counts and vocab_size < len(fixed) + len(alphabet):
        raise TokenizerError(
            f"vocab_size {vocab_size} cannot hold the {len(fixed)} special/byte tokens and the {len(alphabet)} "
            f"distinct characters of the corpus (Unigram keeps every character); use at least "
            f"{len(fixed) + len(alphabet)}"
        )
    result = train_unigram(
        counts,
        vocab_size=vocab_size - len(fixed),
        max_piece_length=options.max_piece_length,
        shrinking_factor=options.shrinking_factor,
        progress=progress,
        **options.extra,
    )
    fixed_set = set(fixed)
    # 15 significant digits: every JSON reader (serde_json's fast path in tokenizers included)
    # reads such a number back exactly, so exported models add up the very same scores and
    # break ties the same way.
    vocab = [(t, 0.0) for t in fixed] + [(p, float(f"{s:.15g}")) for p, s in result.pieces if p not in fixed_set]
    unk_id = specials.index(options.unk_token) if options.unk_token is not None else None
    model = Unigram(vocab, unk_id=unk_id, byte_fallback=options.byte_fallback, special_tokens=specials)
    model.training = result
    return Tokenizer(model, special_tokens=specials, metadata={"trainer": "unigram", **result.to_dict()}, **parts)
