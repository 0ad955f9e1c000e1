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

import time
from collections.abc import Mapping
from typing import Optional

from tokenizer_core.bpe.trainer import train_bpe_from_counts
from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.training import WordCounting, word_counting
from tokenizer_core.types import ProgressCallback, no_progress
from tokenizer_core.wordpiece.bert import train_bert_wordpiece_from_counts
from ui.merges.run import BPE_KEPT_WORDS, TEACHING_MAX_WORDS, BpeRun, MergeRun, RunFacts, WordPieceRun
from ui.merges.settings import MergeSettings


def counting_for(settings: MergeSettings) -> WordCounting:
    """How the trainer of ``settings`` counts a corpus (its normalizer and pre-tokenizer, and a key
    naming them: settings that differ only in budget, ties or frequency share the counts)."""
    s = settings.effective()
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
    if s.algorithm == "wordpiece":
        parts, training = train_bert_wordpiece_from_counts(counts, options=options, progress=progress)
        facts = RunFacts(settings=s, tokenizer=Tokenizer.from_parts(parts), words=words,
                         top_words=_sorted_top(counts, BPE_KEPT_WORDS), seconds=time.perf_counter() - start)
        return WordPieceRun(facts, training=training)
    parts, result = train_bpe_from_counts(counts, options=options, progress=progress)
    facts = RunFacts(settings=s, tokenizer=Tokenizer.from_parts(parts), words=words,
                     top_words=result.trace.top_words(BPE_KEPT_WORDS), seconds=time.perf_counter() - start)
    return BpeRun(facts, result=result)


def _sorted_top(counts: Mapping[str, int], n: int) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))[:n]
