"""Train a tokenizer by algorithm name: the one table of trainers that the CLI and the app read.

Each algorithm package offers a function ``train(lines, *, options, progress)`` returning the
:class:`~tokenizer_core.parts.TokenizerParts` of a tokenizer set up the way that algorithm is
normally used; :func:`train` looks it up here and assembles the :class:`Tokenizer`. Adding an
algorithm is one line in :data:`TRAINERS`; the CLI and the app need no other change.

>>> tok = train("word", ["low lower low\\n"], options=TrainOptions())
>>> tok.encode("low lowest").tokens
['low', '[UNK]']
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.line_blocks import LineBlocks
from tokenizer_core.options import DEFAULT_SPECIAL_TOKENS, BpeOptions, TrainOptions, UnigramOptions, WordPieceOptions
from tokenizer_core.parts import TokenizerParts
from tokenizer_core.types import ProgressCallback, no_progress

if TYPE_CHECKING:
    from tokenizer_core.pipeline import Tokenizer

# Each trainer (and the pipeline, the counter) is imported when it is first used: training one
# model loads that model's code only, and a Unigram run reaches its memory peak without the
# modules of the others (several MB of resident memory that would add to its peak).

__all__ = ["DEFAULT_SPECIAL_TOKENS", "MAX_DISTINCT_WORDS", "TRAINERS", "within_word_limit", "BpeOptions", "TrainOptions", "UnigramOptions",
           "WordCounting", "WordPieceOptions", "train", "trainer_names", "word_counting"]

Trainer = Callable[..., TokenizerParts]


def _word(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress) -> TokenizerParts:
    from tokenizer_core.classic.word import train_word_level

    return train_word_level(lines, options=options, progress=progress)


def _char(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress) -> TokenizerParts:
    from tokenizer_core.classic.char import train_char_level

    return train_char_level(lines, options=options, progress=progress)


def _byte(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress) -> TokenizerParts:
    from tokenizer_core.classic.byte import train_byte_level

    return train_byte_level(lines, options=options, progress=progress)


def _bpe(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress) -> TokenizerParts:
    from tokenizer_core.bpe.trainer import train_bpe_parts

    return train_bpe_parts(lines, options=options, progress=progress)


def _superbpe(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress) -> TokenizerParts:
    from tokenizer_core.superbpe.trainer import train_superbpe_parts

    return train_superbpe_parts(lines, options=options, progress=progress)


def _pickybpe(lines: Iterable[str], *, options: TrainOptions,
              progress: ProgressCallback = no_progress) -> TokenizerParts:
    from tokenizer_core.pickybpe.trainer import train_pickybpe_parts

    return train_pickybpe_parts(lines, options=options, progress=progress)


def _boundless(lines: Iterable[str], *, options: TrainOptions,
               progress: ProgressCallback = no_progress) -> TokenizerParts:
    from tokenizer_core.boundless.recipe import train_boundless_parts

    return train_boundless_parts(lines, options=options, progress=progress)


def _unigram(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress) -> TokenizerParts:
    from tokenizer_core.unigram.trainer import train_unigram_parts  # numpy: only when it trains

    return train_unigram_parts(lines, options=options, progress=progress)


def _wordpiece(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress) -> TokenizerParts:
    from tokenizer_core.wordpiece.bert import train_bert_wordpiece

    return train_bert_wordpiece(lines, options=options, progress=progress)[0]


TRAINERS: dict[str, Trainer] = {
    "word": _word,
    "char": _char,
    "byte": _byte,
    "bpe": _bpe,
    "superbpe": _superbpe,
    "pickybpe": _pickybpe,
    "boundless": _boundless,
    "wordpiece": _wordpiece,
    "unigram": _unigram,
}


#: The most distinct words (split at whitespace) each trainer takes. Their memory grows with the
#: distinct words, not the corpus size (measured on random words: BPE about 0.7 kB, PickyBPE about
#: 0.9 kB (its words and pair index are Python lists), BoundlessBPE about 2 kB (its runs of words as
#: well, on lines of eight random words) and Unigram about 2 kB per distinct word), so these keep one
#: training job near 2 GB; word/char/byte need no limit.
MAX_DISTINCT_WORDS: dict[str, int] = {"bpe": 3_000_000, "superbpe": 3_000_000, "pickybpe": 2_000_000,
                                      "boundless": 1_000_000, "wordpiece": 3_000_000, "unigram": 1_000_000}


def within_word_limit(lines: Iterable[str], model: str) -> Iterable[str]:
    """``lines``, passed on while the distinct words seen stay within ``MAX_DISTINCT_WORDS[model]``
    (a TokenizerError after); every trainer's input goes through it, the BPE page's too.

    Trainers count the words of every line before their memory-hungry phase starts, so a corpus
    over the limit is refused before that phase. Only the words' hashes are kept here.
    :class:`~tokenizer_core.line_blocks.LineBlocks` stay blocks (each block is checked as it passes).

    >>> list(within_word_limit(["a b\\n", "b a\\n"], "bpe"))
    ['a b\\n', 'b a\\n']
    """
    from tokenizer_core.kernel.native import available as native_available

    limit = MAX_DISTINCT_WORDS[model]
    distinct = _distinct_words()

    def check(text: str) -> None:
        if distinct(text) > limit:
            raise TokenizerError(
                f"the corpus has more than {limit:,} distinct words, more than {model} training takes "
                f"(its memory grows with the distinct words); train on a smaller corpus"
            )

    if isinstance(lines, LineBlocks) and native_available():  # (the set of hashes wants ~64 kB at a time)
        return lines.checked(check)
    return _checked_lines(lines, check)


def _checked_lines(lines: Iterable[str], check: Callable[[str], None]) -> Iterator[str]:
    pending: list[str] = []
    size = 0
    for line in lines:
        yield line
        if isinstance(line, str):  # (a trainer refuses anything else with its own message)
            pending.append(line)
            size += len(line)
            if size >= _LIMIT_CHECK_CHARS:
                # One join per ~64 kB: a set update per line cost a third of BPE training.
                check(" ".join(pending))
                pending.clear()
                size = 0
    check(" ".join(pending))  # the last lines: still before the trainer's memory-hungry phase, which waits for them all


_LIMIT_CHECK_CHARS = 1 << 16


def _distinct_words() -> Callable[[str], int]:
    """A function taking in text and giving the number of distinct whitespace-separated words seen
    so far: the compiled kernel's WordSet (kernels/src/wordset.c: hashes only, 16 bytes per word, without the GIL; 50 MB in
    0.2 s) when it is there, else a set of the words' hashes (a split of ~64 kB at a time: a split of
    ~1 MB made a list of all its words, +14 MB at the Unigram trainer's start).

    >>> add = _distinct_words()
    >>> add("a b a"), add("c b")
    (2, 3)
    """
    from tokenizer_core.kernel.native import available, class_table, kernel

    if available():
        return kernel().WordSet(class_table()).add
    seen: set[int] = set()

    def add(text: str) -> int:
        seen.update(map(hash, text.split()))
        return len(seen)

    return add


#: The trainers that can learn from counts made once (see :func:`word_counting`): the stages each counts with.
def _bpe_stages(options: TrainOptions) -> tuple[Any, Any]:
    from tokenizer_core.bpe.trainer import bpe_stages

    return bpe_stages(options)


def _bert_stages(options: TrainOptions) -> tuple[Any, Any]:
    from tokenizer_core.wordpiece.bert import bert_stages

    return bert_stages(options)


_COUNTING_STAGES: dict[str, Callable[[TrainOptions], tuple[Any, Any]]] = {"bpe": _bpe_stages, "wordpiece": _bert_stages}


@dataclass(frozen=True)
class WordCounting:
    """How the ``model`` trainer counts a corpus' words, so that a caller counts once and trains from
    the counts (``train_bpe_from_counts``, ``train_bert_wordpiece_from_counts``), getting exactly
    what training on the lines gives.

    >>> from tokenizer_core.bpe.trainer import train_bpe_from_counts
    >>> options = TrainOptions(num_merges=2)
    >>> counts = word_counting("bpe", options=options).count(["low lower newest widest\\n"])
    >>> counts["lower"], train_bpe_from_counts(counts, options=options)[1].merges
    (1, [('e', 's'), ('l', 'o')])
    """

    model: str
    normalizer: Any
    pre_tokenizer: Any

    @property
    def key(self) -> str:
        """What the counts depend on besides the corpus, as canonical JSON: the two stages' settings and
        the distinct-word limit. Equal keys (and equal corpora) give equal counts, whatever the model.

        >>> word_counting("bpe", options=TrainOptions(lowercase=True)).key
        '{"normalizer": {"type": "Lowercase"}, "pre_tokenizer": {"type": "Whitespace"}, "word_limit": 3000000}'
        """
        return json.dumps({
            "normalizer": None if self.normalizer is None else self.normalizer.to_dict(),
            "pre_tokenizer": None if self.pre_tokenizer is None else self.pre_tokenizer.to_dict(),
            "word_limit": MAX_DISTINCT_WORDS[self.model],
        }, sort_keys=True)

    def count(self, lines: Iterable[str], *, workers: Optional[int] = None,
              progress: ProgressCallback = no_progress) -> Counter[str]:
        """The word counts of ``lines``, as the trainer counts them; a corpus over the trainer's
        distinct-word limit is refused (TokenizerError) as in training (:func:`within_word_limit`)."""
        from tokenizer_core.text.counting import count_words

        progress(0, 0, "counting words")
        return count_words(within_word_limit(lines, self.model), normalizer=self.normalizer,
                           pre_tokenizer=self.pre_tokenizer, workers=workers, progress=progress)


def word_counting(model: str, *, options: TrainOptions) -> WordCounting:
    """How ``model`` ("bpe" or "wordpiece") counts words with ``options`` (a TokenizerError for others,
    which count inside their trainers)."""
    stages = _COUNTING_STAGES.get(model)
    if stages is None:
        raise TokenizerError(f"counting once is offered for {' and '.join(sorted(_COUNTING_STAGES))}, not {model!r}")
    normalizer, pre_tokenizer = stages(options)
    return WordCounting(model, normalizer, pre_tokenizer)


def trainer_names() -> list[str]:
    """Names of the trainers, e.g. ``['bpe', 'byte', 'char', ...]``."""
    return sorted(TRAINERS)


def train(
    model: str,
    lines: Iterable[str],
    *,
    options: TrainOptions,
    progress: ProgressCallback = no_progress,
) -> Tokenizer:
    """Train a tokenizer of kind ``model`` on ``lines`` (each line keeps its newline)."""
    if model not in TRAINERS:
        raise TokenizerError(f"unknown model {model!r}; choose one of: {', '.join(trainer_names())}")
    if model in MAX_DISTINCT_WORDS:
        lines = within_word_limit(lines, model)
    parts = TRAINERS[model](lines, options=options, progress=progress)
    from tokenizer_core.pipeline import Tokenizer  # after the trainer's peak, not under it

    return Tokenizer.from_parts(parts)
