"""WordPiece training over word counts: likelihood-scored merges with a step trace.

WordPiece (Schuster & Nakajima 2012, the vocabulary of BERT) starts from single
characters, the first character of a word as it is and every other character
with the continuation prefix ``##`` (``"hugs"`` -> ``h ##u ##g ##s``), and then
repeatedly merges the adjacent pair with the highest score::

    score(a, b) = count(ab) / (count(a) * count(b))

where ``count(ab)`` is how often the pair occurs side by side and ``count(a)``
how often ``a`` occurs at all (weighted by word counts). BPE merges the most
*frequent* pair; WordPiece prefers pairs whose parts rarely occur apart, which
is why each trace record also names the pair BPE would have merged.

Note: ``tokenizers``' ``WordPieceTrainer`` does not use this score. It trains
BPE (merging by count) and only *encodes* WordPiece-style (greedy longest match
with ``##`` continuations); this module implements the real criterion, as in the
Hugging Face course.

Tie-breaking (deterministic): among pairs with equal scores (compared as
floating point numbers; division is correctly rounded, so equal ratios always
tie) the pair that occurs *first* wins: reading the words in the order of the
mapping (for counts made from text, the order of first appearance) and each
word left to right, in the current segmentation. This is the rule of the Hugging
Face course's reference code ("the first pair is merged"). Pairs occurring
fewer than ``min_frequency`` times are never merged. The vocabulary holds the
special tokens first, then the alphabet sorted by code point, then the merged
tokens in order; a merge whose string already exists keeps the existing id.

Statistics are incremental: only the words containing the merged pair are
rewritten, and only pairs whose count, first occurrence or part counts changed
are re-scored (priority queues with lazy invalidation), so there is no full
recount per step.

>>> result = train_wordpiece({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
...                          vocab_size=10, special_tokens=())
>>> [(m.left, m.right, m.new_token) for m in result.merges]
[('##g', '##s', '##gs'), ('h', '##u', 'hu'), ('hu', '##gs', 'hugs')]
>>> result.merges[0].bpe_choice.left, result.merges[0].bpe_choice.right
('##u', '##g')
>>> result.segment("hugs", step=2)
['hu', '##gs']
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from .errors import TokenizerError
from .symbols import merge_pair
from .types import ProgressCallback, no_progress

#: BERT's special tokens, the default for WordPiece vocabularies.
BERT_SPECIAL_TOKENS: tuple[str, ...] = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

Pair = tuple[int, int]


@dataclass(frozen=True, slots=True)
class ScoredPair:
    """A candidate pair with the statistics both criteria look at (BPE: ``count``; WordPiece: ``score``).

    >>> ScoredPair("##g", "##s", count=5, left_count=20, right_count=5).score
    0.05
    """

    left: str
    right: str
    count: int
    left_count: int
    right_count: int

    @property
    def score(self) -> float:
        """``count / (left_count * right_count)``, exactly as the trainer compared it."""
        return self.count / (self.left_count * self.right_count)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON view."""
        return {"pair": [self.left, self.right], "count": self.count, "left_count": self.left_count,
                "right_count": self.right_count, "score": self.score}


@dataclass(frozen=True, slots=True)
class WordPieceMerge:
    """One training step: the pair merged, why, and what BPE would have done instead.

    ``step`` counts from 1; ``count`` is the pair's count, ``left_count`` and
    ``right_count`` the counts of its parts, all just before the merge.
    ``runner_ups`` are the next best pairs by score (best first); ``bpe_choice``
    is the most frequent pair at this step (ties broken the same way);
    ``tie_break`` explains the choice when runner-ups had the same score;
    ``corpus_tokens`` is the corpus length in tokens after the merge.

    >>> m = WordPieceMerge(step=1, left="##g", right="##s", new_token="##gs", new_id=7, count=5,
    ...                    left_count=20, right_count=5, score=0.05, runner_ups=(), bpe_choice=None,
    ...                    tie_break=None, corpus_tokens=100)
    >>> m.pair, m.agrees_with_bpe
    (('##g', '##s'), False)
    """

    step: int
    left: str
    right: str
    new_token: str
    new_id: int
    count: int
    left_count: int
    right_count: int
    score: float
    runner_ups: tuple[ScoredPair, ...]
    bpe_choice: Optional[ScoredPair]
    tie_break: Optional[str]
    corpus_tokens: int

    @property
    def pair(self) -> tuple[str, str]:
        return (self.left, self.right)

    @property
    def agrees_with_bpe(self) -> bool:
        """Whether BPE's most-frequent-pair rule would have picked the same pair."""
        return self.bpe_choice is not None and (self.bpe_choice.left, self.bpe_choice.right) == self.pair

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON view (for the CLI and tables)."""
        return {
            "step": self.step, "pair": [self.left, self.right], "token": self.new_token, "token_id": self.new_id,
            "count": self.count, "left_count": self.left_count, "right_count": self.right_count,
            "score": self.score, "runner_ups": [r.to_dict() for r in self.runner_ups],
            "bpe_choice": None if self.bpe_choice is None else self.bpe_choice.to_dict(),
            "tie_break": self.tie_break, "corpus_tokens": self.corpus_tokens,
        }


@dataclass
class WordPieceTraining:
    """The outcome of :func:`train_wordpiece`: vocabulary, merge trace and why training stopped.

    ``skipped_long_words`` counts the distinct words left out for being longer
    than ``max_word_length``.

    >>> r = train_wordpiece({"ab": 3}, vocab_size=10, special_tokens=("[UNK]",))
    >>> r.vocab, r.stop_reason
    ({'[UNK]': 0, '##b': 1, 'a': 2, 'ab': 3}, 'no pair left to merge')
    """

    vocab: dict[str, int]
    merges: list[WordPieceMerge]
    alphabet: list[str]
    special_tokens: tuple[str, ...]
    continuing_subword_prefix: str
    stop_reason: str
    initial_corpus_tokens: int
    skipped_long_words: int = 0
    _ranks: Optional[dict[tuple[str, str], list[int]]] = field(default=None, repr=False, compare=False)

    def compression_curve(self) -> list[int]:
        """Corpus length in tokens before training and after each merge.

        >>> train_wordpiece({"hug": 10, "hugs": 5}, vocab_size=6, special_tokens=()).compression_curve()
        [50, 35, 20]
        """
        return [self.initial_corpus_tokens] + [m.corpus_tokens for m in self.merges]

    def initial_split(self, word: str) -> list[str]:
        """A word as training starts it: first character, then prefixed continuation characters.

        >>> train_wordpiece({}, vocab_size=5, special_tokens=()).initial_split("hug")
        ['h', '##u', '##g']
        """
        prefix = self.continuing_subword_prefix
        return [ch if i == 0 else prefix + ch for i, ch in enumerate(word)]

    def segment(self, word: str, step: Optional[int] = None) -> list[str]:
        """How training had split ``word`` after ``step`` merges (all merges when ``None``).

        This replays the training merges, which is not always what the greedy
        longest-match encoder produces from the final vocabulary.

        >>> r = train_wordpiece({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
        ...                     vocab_size=10, special_tokens=())
        >>> r.segment("hugs", 0), r.segment("hugs", 1), r.segment("hugs")
        (['h', '##u', '##g', '##s'], ['h', '##u', '##gs'], ['hugs'])
        """
        last = len(self.merges) if step is None else step
        if not 0 <= last <= len(self.merges):
            raise TokenizerError(f"step must be between 0 and {len(self.merges)}, got {step}")
        ranks = self._merge_ranks()
        prefix_len = len(self.continuing_subword_prefix)
        symbols = self.initial_split(word)
        done = 0
        while len(symbols) > 1:
            # The next merge that can change this word is the earliest step after `done`
            # whose pair occurs in it; every step in between leaves the word alone.
            best: Optional[int] = None
            for pair in zip(symbols, symbols[1:]):
                steps = ranks.get(pair)
                if steps:
                    i = bisect.bisect_right(steps, done)
                    if i < len(steps) and (best is None or steps[i] < best):
                        best = steps[i]
            if best is None or best > last:
                break
            merge = self.merges[best - 1]
            symbols = merge_pair(symbols, merge.left, merge.right, merge.left + merge.right[prefix_len:])
            done = best
        return symbols

    def _merge_ranks(self) -> dict[tuple[str, str], list[int]]:
        if self._ranks is None:
            ranks: dict[tuple[str, str], list[int]] = {}
            for m in self.merges:
                ranks.setdefault((m.left, m.right), []).append(m.step)
            self._ranks = ranks
        return self._ranks


def train_wordpiece(
    word_counts: Mapping[str, int],
    *,
    vocab_size: int,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
    continuing_subword_prefix: str = "##",
    limit_alphabet: Optional[int] = None,
    num_merges: Optional[int] = None,
    top_k: int = 5,
    max_word_length: Optional[int] = 100,
    progress: ProgressCallback = no_progress,
) -> WordPieceTraining:
    """Learn a WordPiece vocabulary of at most ``vocab_size`` entries (specials included).

    ``word_counts`` maps pre-tokenized words to how often they occur. The whole
    alphabet is always kept, even when it alone exceeds ``vocab_size``.
    ``limit_alphabet`` keeps only the most frequent characters (others are
    dropped from the words, which split there); ``num_merges`` caps the number
    of steps; ``top_k`` is the number of runner-ups kept per trace record.
    Words longer than ``max_word_length`` characters are left out (``None``
    keeps all): the encoder turns them into the unknown token whatever the
    vocabulary (its ``max_input_chars_per_word``, 100 in BERT), and leaving them
    out keeps every merge's cost bounded.

    >>> r = train_wordpiece({"aab": 4, "ab": 2}, vocab_size=6, special_tokens=())
    >>> [(m.new_token, round(m.score, 3)) for m in r.merges]
    [('aa', 0.167), ('aab', 0.167), ('ab', 0.5)]
    >>> r.merges[0].tie_break
    '1 runner-up(s) had the same score; this pair occurs first in the corpus'
    """
    if vocab_size is None or vocab_size <= 0:
        raise TokenizerError(f"vocab_size must be a positive number, got {vocab_size}")
    if min_frequency < 0:
        raise TokenizerError(f"min_frequency must be 0 or more, got {min_frequency}")
    if num_merges is not None and num_merges < 0:
        raise TokenizerError(f"num_merges must be 0 or more, got {num_merges}")
    if top_k < 0:
        raise TokenizerError(f"top_k must be 0 or more, got {top_k}")
    if max_word_length is not None and max_word_length < 1:
        raise TokenizerError(f"max_word_length must be 1 or more (or None), got {max_word_length}")
    if limit_alphabet is not None and limit_alphabet < 0:
        raise TokenizerError(f"limit_alphabet must be 0 or more, got {limit_alphabet}")
    if len(set(special_tokens)) != len(special_tokens):
        raise TokenizerError(f"special tokens must be distinct, got {list(special_tokens)}")
    state = _TrainState(word_counts, prefix=continuing_subword_prefix, limit_alphabet=limit_alphabet,
                        min_frequency=min_frequency, max_word_length=max_word_length)
    vocab: dict[str, int] = {}
    for tok in special_tokens:
        vocab[tok] = len(vocab)
    alphabet = sorted(state.sym_str)
    for sym in alphabet:
        vocab.setdefault(sym, len(vocab))
    initial_tokens = state.corpus_tokens
    merges: list[WordPieceMerge] = []
    total = max(0, vocab_size - len(vocab))
    if num_merges is not None:
        total = min(total, num_merges)
    every = max(1, total // 200)
    progress(0, total, "merging pairs")
    stop_reason = "reached vocab_size"
    while True:
        if len(vocab) >= vocab_size:
            break
        if num_merges is not None and len(merges) >= num_merges:
            stop_reason = "reached num_merges"
            break
        top = state.top_by_score(top_k + 1)
        if not top:
            stop_reason = ("no pair left to merge" if min_frequency <= 1 or not state.has_pairs
                           else f"no pair left occurring at least {min_frequency} times")
            break
        best, runner_ups = top[0], top[1:]
        bpe = state.top_by_count()
        left, right = state.sym_str[best[0]], state.sym_str[best[1]]
        new_token = left + right[len(continuing_subword_prefix):]
        # Trace views are taken before the merge moves the counts.
        record_best = state.scored(best)
        record_runner_ups = tuple(state.scored(p) for p in runner_ups)
        record_bpe = state.scored(bpe) if bpe is not None else None
        ties = sum(1 for r in record_runner_ups if r.score == record_best.score)
        state.scored_cache.clear()
        state.merge(best, new_token)
        new_id = vocab.setdefault(new_token, len(vocab))
        merges.append(WordPieceMerge(
            step=len(merges) + 1, left=left, right=right, new_token=new_token, new_id=new_id,
            count=record_best.count, left_count=record_best.left_count,
            right_count=record_best.right_count, score=record_best.score,
            runner_ups=record_runner_ups, bpe_choice=record_bpe,
            tie_break=(f"{ties} runner-up(s) had the same score; this pair occurs first in the corpus"
                       if ties else None),
            corpus_tokens=state.corpus_tokens,
        ))
        if len(merges) % every == 0:
            progress(min(len(merges), total), total, f"merged {new_token!r}")
    progress(total, total, stop_reason)
    return WordPieceTraining(
        vocab=vocab, merges=merges, alphabet=alphabet, special_tokens=tuple(special_tokens),
        continuing_subword_prefix=continuing_subword_prefix, stop_reason=stop_reason,
        initial_corpus_tokens=initial_tokens, skipped_long_words=state.skipped_long_words,
    )


# Fields of a pair's record in _TrainState.info (a list, so one dict lookup reaches all of them).
_COUNT, _SCORE_STAMP, _COUNT_STAMP, _FIRST_WORD, _FIRST_OFFSET, _WHERE = range(6)
_NOWHERE = 1 << 62  # "first word" of a pair that is being created


class _TrainState:
    """Symbols, pair statistics and two lazily invalidated heaps (by score, by count).

    ``info[pair]`` holds the pair's count, the stamps of its current heap entries,
    its first occurrence (word index, character offset) and the set of words
    containing it. Score-heap entries are ``(-score, first_word, first_offset,
    stamp, pair, epoch_left, epoch_right)``; stamps are unique, so an entry is
    current only while the pair's record holds its stamp and both symbols are
    still at the recorded epochs. The character offset of a symbol never moves
    when other symbols of its word merge, so cached first occurrences stay
    comparable.

    A merge changes the counts of its two parts, which changes the score of every
    pair containing them: for a common symbol such as ``##e`` that is thousands
    of pairs, most of which will never come near the top. So instead of
    re-scoring them, the symbol's epoch is bumped (voiding all their entries at
    once) and one *marker* is pushed whose key, ``1 / count(symbol)``, bounds the
    score of every pair containing it (``count(ab) <= count(b)``). Only when a
    marker reaches the top are that symbol's pairs re-scored. Markers sort before
    pairs of equal score, so ties are still decided among exact scores.
    """

    def __init__(self, word_counts: Mapping[str, int], *, prefix: str, limit_alphabet: Optional[int],
                 min_frequency: int, max_word_length: Optional[int]) -> None:
        self.prefix = prefix
        self.min_frequency = max(1, min_frequency)
        self.sym_id: dict[str, int] = {}
        self.sym_str: list[str] = []
        self.sym_len: list[int] = []  # characters covered, without the prefix
        self.sym_count: list[int] = []
        self.words: list[list[int]] = []
        self.freqs: list[int] = []
        self.info: dict[Pair, list] = {}
        self.pairs_of: list[set[Pair]] = []
        self.score_heap: list[tuple] = []
        self.count_heap: list[tuple] = []
        self.scored_cache: dict[Pair, ScoredPair] = {}
        self.corpus_tokens = 0
        self.skipped_long_words = 0
        self._stamps = itertools.count(1)
        self.epoch: list[int] = []
        self.marker_stamp: dict[int, int] = {}
        self._load(word_counts, limit_alphabet, max_word_length)

    @property
    def has_pairs(self) -> bool:
        return bool(self.info)

    # -- setup ---------------------------------------------------------------------------------
    def _symbol(self, text: str, length: int) -> int:
        sid = self.sym_id.get(text)
        if sid is None:
            sid = len(self.sym_str)
            self.sym_id[text] = sid
            self.sym_str.append(text)
            self.sym_len.append(length)
            self.sym_count.append(0)
            self.pairs_of.append(set())
            self.epoch.append(0)
        return sid

    def _load(self, word_counts: Mapping[str, int], limit_alphabet: Optional[int],
              max_word_length: Optional[int]) -> None:
        items = []
        for word, count in word_counts.items():
            if not isinstance(word, str):
                raise TokenizerError(f"word counts must map strings to counts, got key {word!r:.40}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise TokenizerError(f"word counts must be whole numbers >= 0, got {count!r} for {word!r:.40}")
            if max_word_length is not None and len(word) > max_word_length:
                self.skipped_long_words += 1
            elif word and count:
                items.append((word, count))
        keep: Optional[set[str]] = None
        if limit_alphabet is not None:
            chars: Counter[str] = Counter()
            for word, count in items:
                for ch in word:
                    chars[ch] += count
            ranked = sorted(chars.items(), key=lambda kv: (-kv[1], kv[0]))
            keep = {ch for ch, _ in ranked[:limit_alphabet]}
        prefix = self.prefix
        for word, count in items:
            # Characters outside a limited alphabet are dropped; the word splits there
            # into fragments, and a fragment after the first starts with a continuation.
            fragments: list[list[int]] = [[]]
            for pos, ch in enumerate(word):
                if keep is not None and ch not in keep:
                    if fragments[-1]:
                        fragments.append([])
                    continue
                text = ch if pos == 0 else prefix + ch
                fragments[-1].append(self._symbol(text, 1))
            for symbols in fragments:
                if symbols:
                    self.words.append(symbols)
                    self.freqs.append(count)
        info = self.info
        for w, (symbols, count) in enumerate(zip(self.words, self.freqs)):
            self.corpus_tokens += len(symbols) * count
            offset = 0
            for i, sym in enumerate(symbols):
                self.sym_count[sym] += count
                if i + 1 < len(symbols):
                    pair = (sym, symbols[i + 1])
                    rec = info.get(pair)
                    if rec is not None:
                        rec[_COUNT] += count
                        rec[_WHERE].add(w)
                    else:
                        # words are read in order, so this is the first occurrence
                        info[pair] = [count, 0, 0, w, offset, {w}]
                        self.pairs_of[sym].add(pair)
                        self.pairs_of[pair[1]].add(pair)
                offset += self.sym_len[sym]
        for pair in info:
            self._push(pair)

    # -- scores and heaps ----------------------------------------------------------------------
    def score(self, pair: Pair) -> float:
        # Same expression as ScoredPair.score, so trace scores equal the compared ones bit for bit.
        return self.info[pair][_COUNT] / (self.sym_count[pair[0]] * self.sym_count[pair[1]])

    def scored(self, pair: Pair) -> ScoredPair:
        """The trace view of a pair (cached until the next merge, when counts change)."""
        rec = self.scored_cache.get(pair)
        if rec is None:
            rec = ScoredPair(self.sym_str[pair[0]], self.sym_str[pair[1]], self.info[pair][_COUNT],
                             self.sym_count[pair[0]], self.sym_count[pair[1]])
            self.scored_cache[pair] = rec
        return rec

    def _push(self, pair: Pair) -> None:
        """Push fresh entries on both heaps (older entries of the pair die with their stamps)."""
        rec = self.info[pair]
        stamp = next(self._stamps)
        rec[_SCORE_STAMP] = rec[_COUNT_STAMP] = stamp
        count = rec[_COUNT]
        if count >= self.min_frequency:
            a, b = pair
            fw, fo = rec[_FIRST_WORD], rec[_FIRST_OFFSET]
            score = count / (self.sym_count[a] * self.sym_count[b])
            heapq.heappush(self.score_heap, (-score, fw, fo, stamp, pair, self.epoch[a], self.epoch[b]))
            heapq.heappush(self.count_heap, (-count, fw, fo, stamp, pair))

    def _symbol_changed(self, sym: int) -> None:
        """Void the score entries of every pair containing ``sym`` and push one marker bounding them."""
        self.epoch[sym] += 1
        count = self.sym_count[sym]
        if count > 0 and self.pairs_of[sym]:
            stamp = self.marker_stamp[sym] = next(self._stamps)
            # first_word -1: a marker comes out before any pair of equal score
            heapq.heappush(self.score_heap, (-(1 / count), -1, 0, stamp, (sym, -1), 0, 0))
        else:
            self.marker_stamp.pop(sym, None)

    def _rescore(self, sym: int, want: int, taken: set[Pair]) -> None:
        """A marker reached the top: score the pairs of ``sym`` (except those in ``taken``) for real.

        Only the ``want`` best get heap entries; a new marker placed just before
        the best of the others (same score, same first occurrence, half an offset
        earlier) covers the rest exactly. Late in training the best pairs are
        often ``(stem, ##e)``, right at the bound ``1 / count(##e)``, so this
        saves thousands of pushes per merge.
        """
        info, sym_count, epoch, heap, stamps = self.info, self.sym_count, self.epoch, self.score_heap, self._stamps
        minf, push = self.min_frequency, heapq.heappush
        cands = []
        for pair in self.pairs_of[sym]:
            rec = info[pair]
            count = rec[_COUNT]
            if count >= minf and pair not in taken:
                cands.append((-(count / (sym_count[pair[0]] * sym_count[pair[1]])), rec[_FIRST_WORD],
                              rec[_FIRST_OFFSET], pair))
        if len(cands) > want:
            cands = heapq.nsmallest(want + 1, cands)
            rest = cands.pop()
            stamp = self.marker_stamp[sym] = next(stamps)
            push(heap, (rest[0], rest[1], rest[2] - 0.5, stamp, (sym, -1), 0, 0))
        for key, fw, fo, pair in cands:
            a, b = pair
            stamp = info[pair][_SCORE_STAMP] = next(stamps)
            push(heap, (key, fw, fo, stamp, pair, epoch[a], epoch[b]))

    def _current(self, entry: tuple) -> bool:
        a, b = entry[4]
        rec = self.info.get(entry[4])
        return (rec is not None and rec[_SCORE_STAMP] == entry[3]
                and self.epoch[a] == entry[5] and self.epoch[b] == entry[6])

    def top_by_score(self, k: int) -> list[Pair]:
        """The ``k`` best pairs by score, best first (the heap is left as it was)."""
        heap = self.score_heap
        taken: list[tuple] = []
        seen: set[Pair] = set()
        while heap and len(taken) < k:
            entry = heapq.heappop(heap)
            pair = entry[4]
            if pair[1] < 0:  # a marker
                if self.marker_stamp.get(pair[0]) == entry[3]:
                    del self.marker_stamp[pair[0]]
                    self._rescore(pair[0], k, seen)
            elif pair not in seen and self._current(entry):
                # (a pair taken here may be pushed again by a later marker: hence `seen`)
                taken.append(entry)
                seen.add(pair)
        for entry in taken:
            heapq.heappush(heap, entry)
        return [e[4] for e in taken]

    def top_by_count(self) -> Optional[Pair]:
        heap, info = self.count_heap, self.info
        while heap:
            entry = heap[0]
            rec = info.get(entry[4])
            if rec is not None and rec[_COUNT_STAMP] == entry[3]:
                return entry[4]
            heapq.heappop(heap)
        return None

    def _compact(self) -> None:
        # Stale entries pile up because scores of pairs sharing a symbol change on every
        # merge of that symbol; rebuilding keeps memory proportional to the live pairs.
        info = self.info
        limit = 4 * len(info) + 200_000
        if len(self.score_heap) > limit:
            markers, epoch = self.marker_stamp, self.epoch
            keep = []
            for e in self.score_heap:
                a, b = e[4]
                if b < 0:
                    if markers.get(a) == e[3]:
                        keep.append(e)
                elif (r := info.get(e[4])) is not None and r[_SCORE_STAMP] == e[3] \
                        and epoch[a] == e[5] and epoch[b] == e[6]:
                    keep.append(e)
            heapq.heapify(keep)
            self.score_heap = keep
        if len(self.count_heap) > limit:
            self.count_heap = [e for e in self.count_heap
                               if (r := info.get(e[4])) is not None and r[_COUNT_STAMP] == e[3]]
            heapq.heapify(self.count_heap)

    # -- merging -------------------------------------------------------------------------------
    def merge(self, pair: Pair, new_text: str) -> None:
        """Merge every occurrence of ``pair`` and update all statistics touched by it."""
        a, b = pair
        c = self._symbol(new_text, self.sym_len[a] + self.sym_len[b])
        words, freqs, sym_count = self.words, self.freqs, self.sym_count
        info, pairs_of = self.info, self.pairs_of
        changed: set[Pair] = set()  # count or first occurrence may have moved
        first_dirty: dict[Pair, int] = {}  # pair -> smallest modified word now containing it (or -1)
        for w in sorted(info[pair][_WHERE]):
            old = words[w]
            f = freqs[w]
            new: list[int] = []
            i, n, k = 0, len(old), 0
            while i < n:
                if i + 1 < n and old[i] == a and old[i + 1] == b:
                    new.append(c)
                    i += 2
                    k += 1
                else:
                    new.append(old[i])
                    i += 1
            words[w] = new
            sym_count[a] -= k * f
            sym_count[b] -= k * f
            sym_count[c] += k * f
            self.corpus_tokens -= k * f
            old_pairs = Counter(zip(old, old[1:]))
            new_pairs = Counter(zip(new, new[1:]))
            for p, n_old in old_pairs.items():
                rec = info[p]
                n_new = new_pairs.get(p, 0)
                if n_new != n_old:
                    rec[_COUNT] += (n_new - n_old) * f
                    changed.add(p)
                if n_new == 0:
                    rec[_WHERE].discard(w)
                if w <= rec[_FIRST_WORD] and p not in first_dirty:
                    first_dirty[p] = -1
            for p, n_new in new_pairs.items():
                if p in old_pairs:
                    if w <= info[p][_FIRST_WORD]:
                        prev = first_dirty.get(p, -1)
                        first_dirty[p] = w if prev < 0 else min(prev, w)
                    continue
                changed.add(p)
                rec = info.get(p)
                if rec is None:
                    info[p] = [n_new * f, 0, 0, _NOWHERE, 0, {w}]
                    pairs_of[p[0]].add(p)
                    pairs_of[p[1]].add(p)
                else:  # possibly emptied earlier in this merge and not yet dropped
                    rec[_COUNT] += n_new * f
                    rec[_WHERE].add(w)
                prev = first_dirty.get(p, -1)
                first_dirty[p] = w if prev < 0 else min(prev, w)
        # Settle first occurrences, dropping pairs that vanished.
        for p, seen_in in first_dirty.items():
            rec = info[p]
            where = rec[_WHERE]
            if not where:
                self._drop(p)
                continue
            fw = rec[_FIRST_WORD]
            if fw in where:
                fw = fw if seen_in < 0 else min(fw, seen_in)
            else:
                fw = min(where)
            rec[_FIRST_WORD] = fw
            rec[_FIRST_OFFSET] = self._offset_in(words[fw], p)
            changed.add(p)
        # Scores of every pair sharing a symbol whose count moved have changed too.
        for sym in {a, b, c}:
            self._symbol_changed(sym)
        for p in changed:
            if p in info:
                self._push(p)
        self._compact()

    def _drop(self, p: Pair) -> None:
        del self.info[p]  # its heap entries are skipped from now on: no record holds their stamps
        self.pairs_of[p[0]].discard(p)
        self.pairs_of[p[1]].discard(p)

    def _offset_in(self, symbols: list[int], p: Pair) -> int:
        offset = 0
        sym_len = self.sym_len
        for i in range(len(symbols) - 1):
            if symbols[i] == p[0] and symbols[i + 1] == p[1]:
                return offset
            offset += sym_len[symbols[i]]
        raise TokenizerError(f"internal: pair {p} not found in word")
