"""Train the run a page shows: the engine's trainer on the active corpus, wrapped with what the views need."""

from __future__ import annotations

import time
from collections import Counter

from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.training import within_word_limit
from tokenizer_core.types import ProgressCallback, no_progress
from ui.merges.run import _BPE_KEPT_WORDS, TEACHING_MAX_WORDS, BpeRun, MergeRun, WordPieceRun
from ui.merges.settings import MergeSettings


def _sorted_top(counts: Counter[str], n: int) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))[:n]


def train_run(corpus: Corpus, settings: MergeSettings, *, progress: ProgressCallback = no_progress) -> MergeRun:
    """Train on ``corpus`` with ``settings`` and wrap the result (raises TokenizerError on bad input).

    ``progress(done, total, message)`` is the engine's callback (``total`` is 0 while counting words).
    """
    s = settings.effective()
    options = s.options()
    start = time.perf_counter()
    if s.algorithm == "wordpiece":
        from tokenizer_core.pipeline import Tokenizer
        from tokenizer_core.text.counting import count_words as count_bert_words
        from tokenizer_core.wordpiece.bert import train_bert_wordpiece

        lines = within_word_limit(corpus.lines(), "wordpiece")
        parts, training = train_bert_wordpiece(lines, options=options, progress=progress)
        tok = Tokenizer.from_parts(parts)
        seconds = time.perf_counter() - start
        # The same counting as the trainer's, to list the corpus' words (the trace keeps none).
        counts = count_bert_words(corpus.lines(), normalizer=tok.normalizer, pre_tokenizer=tok.pre_tokenizer)
        words = list(counts.items()) if len(counts) <= TEACHING_MAX_WORDS else None
        return WordPieceRun(training=training, settings=s, tokenizer=tok, words=words,
                            top_words=_sorted_top(counts, _BPE_KEPT_WORDS), corpus_name=corpus.name,
                            seconds=seconds)
    from tokenizer_core.bpe.trainer import train_bpe
    from tokenizer_core.pipeline import Tokenizer
    from tokenizer_core.text.counting import count_words

    parts, result = train_bpe(within_word_limit(corpus.lines(), "bpe"), options=options, progress=progress)
    tok = Tokenizer.from_parts(parts)
    seconds = time.perf_counter() - start
    top = result.trace.top_words(_BPE_KEPT_WORDS)
    words = None
    if len(top) <= TEACHING_MAX_WORDS:
        # A small corpus: count again, to have the words in the trainer's order (for ties "first seen").
        counts = count_words(corpus.lines(), normalizer=tok.normalizer, pre_tokenizer=tok.pre_tokenizer)
        words = list(counts.items())
    return BpeRun(result=result, settings=s, tokenizer=tok, words=words, top_words=top,
                  corpus_name=corpus.name, seconds=seconds)
