"""Train the run a page shows: the engine's trainer on the active corpus, wrapped with what the views need.

The corpus is counted once per training, by the stages the trainer counts with
(:func:`counting_for`), and the counts are handed down: to the trainer, to the teaching table's word
list and to the most frequent words. A caller that keeps counts (the page, per corpus digest and
:attr:`~tokenizer_core.training.WordCounting.key`) passes them in and the corpus is not read at all.

>>> from tokenizer_core.corpus.loading import corpus_from_text
>>> corpus = corpus_from_text("hug pug hug")
>>> counts = counting_for(MergeSettings(budget=1)).count(corpus.lines())
>>> run = train_run(corpus, MergeSettings(budget=1), counts=counts)
>>> run.words, run.step_info(1).token
([('hug', 2), ('pug', 1)], 'ug')
"""

from __future__ import annotations

import heapq
import re
import time
from collections.abc import Mapping
from typing import Optional

from tokenizer_core.bpe.trainer import bpe_stages, train_bpe_from_counts
from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.pickybpe.trainer import train_pickybpe_from_counts
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.superbpe.stages import RawStage2
from tokenizer_core.superbpe.trainer import superbpe_normalizer, train_superbpe_from_counts
from tokenizer_core.text.byte_level import bytes_to_symbols
from tokenizer_core.text.surrogates import utf8_of
from tokenizer_core.training import WordCounting, word_counting
from tokenizer_core.types import ProgressCallback, no_progress
from tokenizer_core.wordpiece.bert import train_bert_wordpiece_from_counts
from ui.merges.picky_run import PickyRun
from ui.merges.run import BPE_KEPT_WORDS, TEACHING_MAX_WORDS, BpeRun, MergeRun, RunFacts, WordPieceRun
from ui.merges.settings import MergeSettings
from ui.merges.superbpe_run import SuperBpeRun


def counting_for(settings: MergeSettings) -> WordCounting:
    """How the trainer of ``settings`` counts a corpus (its normalizer and pre-tokenizer, and a key
    naming them: settings that differ only in budget, ties or frequency share the counts). SuperBPE
    counts stage 2's pieces (runs of text between newlines and digit groups), stage 1's are read off them."""
    s = settings.effective()
    if s.algorithm == "superbpe":
        return WordCounting("superbpe", superbpe_normalizer(s.options()), RawStage2())
    if s.algorithm == "pickybpe":  # byte-level BPE's words, under PickyBPE's distinct-word limit
        return WordCounting("pickybpe", *bpe_stages(s.options()))
    return word_counting(s.algorithm, options=s.options())


def train_run(corpus: Corpus, settings: MergeSettings, *, counts: Optional[Mapping[str, int]] = None,
              counting_seconds: float = 0.0, progress: ProgressCallback = no_progress) -> MergeRun:
    """Train on ``corpus`` with ``settings`` and wrap the result (raises TokenizerError on bad input).

    ``counts``: the corpus' words as :func:`counting_for` counts them, when the caller has them
    (never changed here: they may be shared); without them the corpus is counted now, once.
    ``counting_seconds``: time the caller spent counting, added to the run's time.
    ``progress(done, total, message)`` is the engine's callback (``total`` is 0 while counting words).
    """
    s = settings.effective()
    options = s.options()
    start = time.perf_counter() - counting_seconds
    if counts is None:
        counts = counting_for(s).count(corpus.lines(), progress=progress)
    # Counted in the trainer's order (first seen), which ties broken by "first seen" rely on.
    words = list(counts.items()) if len(counts) <= TEACHING_MAX_WORDS else None
    if s.algorithm == "superbpe":
        parts, result = train_superbpe_from_counts(counts, options=options, progress=progress)
        facts = RunFacts(settings=s, tokenizer=Tokenizer.from_parts(parts), words=words,
                         top_words=result.trace.top_words(BPE_KEPT_WORDS), seconds=time.perf_counter() - start)
        return SuperBpeRun(facts, result=result, lines=_top_pieces(counts, BPE_KEPT_WORDS))
    if s.algorithm == "pickybpe":
        parts, picky = train_pickybpe_from_counts(counts, options=options, progress=progress)
        facts = RunFacts(settings=s, tokenizer=Tokenizer.from_parts(parts), words=words,
                         top_words=_sorted_top(counts, BPE_KEPT_WORDS), seconds=time.perf_counter() - start)
        return PickyRun(facts, result=picky, initial_tokens=sum(len(w) * c for w, c in counts.items()))
    if s.algorithm == "wordpiece":
        parts, training = train_bert_wordpiece_from_counts(counts, options=options, progress=progress)
        facts = RunFacts(settings=s, tokenizer=Tokenizer.from_parts(parts), words=words,
                         top_words=_sorted_top(counts, BPE_KEPT_WORDS), seconds=time.perf_counter() - start)
        return WordPieceRun(facts, training=training)
    parts, result = train_bpe_from_counts(counts, options=options, progress=progress)
    facts = RunFacts(settings=s, tokenizer=Tokenizer.from_parts(parts), words=words,
                     top_words=result.trace.top_words(BPE_KEPT_WORDS), seconds=time.perf_counter() - start)
    return BpeRun(facts, result=result)


#: A stage-2 piece that joins words across a space (only those can hold a superword token).
_JOINS_WORDS = re.compile(r"\S[ \t]+\S")


def _top_pieces(counts: Mapping[str, int], n: int) -> list[tuple[str, int]]:
    """Stage 2's ``n`` most frequent pieces that join words across a space, in the trainer's byte
    symbols, shorter first among equals (a line seen once is a long one, and a table of them says little)."""
    joining = ((p, c) for p, c in counts.items() if _JOINS_WORDS.search(p))
    top = heapq.nsmallest(n, joining, key=lambda wc: (-wc[1], len(wc[0]), wc[0]))
    return [(bytes_to_symbols(utf8_of(piece)), count) for piece, count in top]


def _sorted_top(counts: Mapping[str, int], n: int) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))[:n]
