"""WordPiece training over word counts: likelihood-scored merges with a step trace.

WordPiece (Schuster & Nakajima 2012, the vocabulary of BERT) starts from single characters. A word's first character
stays as it is; every other one gets the continuation prefix ``##`` (``"hugs"`` -> ``h ##u ##g ##s``). It then
repeatedly merges the adjacent pair with the highest score::

    score(a, b) = count(ab) / (count(a) * count(b))

``count(ab)`` is how often the pair occurs side by side, ``count(a)`` how often ``a`` occurs at all, both weighted by
word counts. BPE merges the most *frequent* pair; WordPiece prefers pairs whose parts rarely occur apart. So each
trace record also names the pair BPE would have merged. ``tokenizers``' ``WordPieceTrainer`` does not use this
score: it trains BPE, merging by count, and only *encodes* WordPiece-style (greedy longest match with ``##``
continuations). This module implements the real criterion, as in the Hugging Face course. Deterministic rules:

* Among pairs with equal scores the pair that occurs *first* wins: words in the order of the mapping (for counts
  made from text, the order of first appearance), each read left to right in its current segmentation. This is the
  rule of the course's reference code ("the first pair is merged"). Scores are compared as floating point numbers;
  division is correctly rounded, so equal ratios always tie.
* Pairs occurring fewer than ``min_frequency`` times are never merged.
* The vocabulary holds the special tokens first, then the alphabet sorted by code point, then the merged tokens in
  order. A merge whose string already exists keeps the existing id.

Statistics are incremental, with no full recount per step. Only the words containing the merged pair are rewritten,
and only pairs whose count, first occurrence or part counts changed are scored again. The counts live in
:mod:`~tokenizer_core.wordpiece.pair_stats`, the lazily invalidated priority queues in
:mod:`~tokenizer_core.wordpiece.ranking`, the records in :mod:`~tokenizer_core.wordpiece.trace`. This module runs
the merge loop.

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

from collections.abc import Mapping, Sequence
from typing import Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import ProgressCallback, no_progress
from tokenizer_core.wordpiece.pair_stats import Pair, PairStats
from tokenizer_core.wordpiece.ranking import PairRanking
from tokenizer_core.wordpiece.trace import ScoredPair, WordPieceMerge, WordPieceTraining

# Re-exported: the BERT pipeline, tests, the app and benchmarks import these from here.
__all__ = ["BERT_SPECIAL_TOKENS", "Pair", "ScoredPair", "WordPieceMerge", "WordPieceTraining", "train_wordpiece"]

#: BERT's special tokens, the default for WordPiece vocabularies.
BERT_SPECIAL_TOKENS: tuple[str, ...] = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


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

    ``word_counts`` maps pre-tokenized words to how often they occur. The whole alphabet is always kept, even when it
    alone exceeds ``vocab_size``. ``limit_alphabet`` keeps only the most frequent characters; the others are dropped
    from the words, which split there. ``num_merges`` caps the number of steps. ``top_k`` is the number of runner-ups
    kept per trace record. Words longer than ``max_word_length`` characters are left out; ``None`` keeps all. The
    encoder turns such words into the unknown token whatever the vocabulary (its ``max_input_chars_per_word``, 100
    in BERT), and leaving them out keeps every merge's cost bounded.

    >>> r = train_wordpiece({"aab": 4, "ab": 2}, vocab_size=6, special_tokens=())
    >>> [(m.new_token, round(m.score, 3)) for m in r.merges]
    [('aa', 0.167), ('aab', 0.167), ('ab', 0.5)]
    >>> r.merges[0].tie_break
    '1 runner-up(s) had the same score; this pair occurs first in the corpus'
    """
    _check_settings(vocab_size=vocab_size, min_frequency=min_frequency, num_merges=num_merges, top_k=top_k,
                    max_word_length=max_word_length, limit_alphabet=limit_alphabet, special_tokens=special_tokens)
    stats = PairStats(word_counts, prefix=continuing_subword_prefix, limit_alphabet=limit_alphabet,
                      min_frequency=min_frequency, max_word_length=max_word_length)
    ranking = PairRanking(stats)
    vocab: dict[str, int] = {}
    for tok in special_tokens:
        vocab[tok] = len(vocab)
    alphabet = sorted(stats.sym_str)
    for sym in alphabet:
        vocab.setdefault(sym, len(vocab))
    initial_tokens = stats.corpus_tokens
    total = max(0, vocab_size - len(vocab))
    if num_merges is not None:
        total = min(total, num_merges)
    progress(0, total, "merging pairs")
    merges: list[WordPieceMerge] = []
    stop_reason = _merge_until_done(stats, ranking, vocab, merges, vocab_size=vocab_size, num_merges=num_merges,
                                    min_frequency=min_frequency, top_k=top_k, total=total, progress=progress)
    progress(total, total, stop_reason)
    return WordPieceTraining(
        vocab=vocab, merges=merges, alphabet=alphabet, special_tokens=tuple(special_tokens),
        continuing_subword_prefix=continuing_subword_prefix, stop_reason=stop_reason,
        initial_corpus_tokens=initial_tokens, skipped_long_words=stats.skipped_long_words,
    )


def _check_settings(*, vocab_size: int, min_frequency: int, num_merges: Optional[int], top_k: int,
                    max_word_length: Optional[int], limit_alphabet: Optional[int],
                    special_tokens: Sequence[str]) -> None:
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


def _merge_until_done(stats: PairStats, ranking: PairRanking, vocab: dict[str, int], merges: list[WordPieceMerge],
                      *, vocab_size: int, num_merges: Optional[int], min_frequency: int, top_k: int, total: int,
                      progress: ProgressCallback) -> str:
    """Merge the best pair, step after step, appending to ``vocab`` and ``merges``; returns why it stopped."""
    every = max(1, total // 200)
    while True:
        if len(vocab) >= vocab_size:
            return "reached vocab_size"
        if num_merges is not None and len(merges) >= num_merges:
            return "reached num_merges"
        top = ranking.top_by_score(top_k + 1)
        if not top:
            return ("no pair left to merge" if min_frequency <= 1 or not stats.has_pairs
                    else f"no pair left occurring at least {min_frequency} times")
        merge = _merge_best(stats, ranking, vocab, top, step=len(merges) + 1)
        merges.append(merge)
        if len(merges) % every == 0:
            progress(min(len(merges), total), total, f"merged {merge.new_token!r}")


def _merge_best(stats: PairStats, ranking: PairRanking, vocab: dict[str, int], top: list[Pair], *,
                step: int) -> WordPieceMerge:
    """Merge ``top[0]`` (the rest are its runner-ups) and return the step's trace record."""
    best, runner_ups = top[0], top[1:]
    bpe = ranking.top_by_count()
    left, right = stats.sym_str[best[0]], stats.sym_str[best[1]]
    new_token = left + right[len(stats.prefix):]
    # Trace views are taken before the merge moves the counts.
    record_best = stats.scored(best)
    record_runner_ups = tuple(stats.scored(p) for p in runner_ups)
    record_bpe = stats.scored(bpe) if bpe is not None else None
    ties = sum(1 for r in record_runner_ups if r.score == record_best.score)
    changed, new_symbol = stats.merge(best, new_token)
    ranking.merged(best, new_symbol, changed)
    new_id = vocab.setdefault(new_token, len(vocab))
    return WordPieceMerge(
        step=step, left=left, right=right, new_token=new_token, new_id=new_id,
        count=record_best.count, left_count=record_best.left_count,
        right_count=record_best.right_count, score=record_best.score,
        runner_ups=record_runner_ups, bpe_choice=record_bpe,
        tie_break=(f"{ties} runner-up(s) had the same score; this pair occurs first in the corpus"
                   if ties else None),
        corpus_tokens=stats.corpus_tokens,
    )
