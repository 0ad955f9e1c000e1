"""How a model counts a corpus, the counts of part of it, and their sum.

A :class:`CountSpec` (a model name and the training options) gives the normalizer and
pre-tokenizer the trainer counts with, and for Unigram the extras its seed search needs: how many
occurrences of each piece end their line and the corpus' last piece (see
:mod:`tokenizer_core.unigram.line_ends`), with lines over ``max_sentence_length`` skipped.
Counting is additive over lines, so partitions counted anywhere and summed with :func:`combine`
(in corpus order) give the counts of the whole corpus, piece for piece.

>>> spec = CountSpec("bpe", TrainOptions(lowercase=True))
>>> a = spec.count(["The cat\\n"], first=0); b = spec.count(["the dog\\n"], first=1)
>>> sorted(combine(b, a).counts.items())
[('cat', 1), ('dog', 1), ('the', 2)]
>>> spec.facts()["normalizer"]
'{"type": "Lowercase"}'
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import TrainOptions
from tokenizer_core.types import ProgressCallback, no_progress

COUNT_MODELS = ("bpe", "wordpiece", "unigram")
#: The most distinct pieces a count keeps by default: what the trainers take (see
#: :data:`tokenizer_core.training.MAX_DISTINCT_WORDS`), so a count that passes can be trained from.
DEFAULT_MAX_PIECES = 3_000_000


@dataclass
class Partial:
    """Counts of partitions ``first..last`` (corpus order): pieces (in order of first appearance),
    their line-final occurrences and the last piece of the last line with one (Unigram), found in
    partition ``last_at`` (-1: none), and the lines read."""

    counts: dict[str, int]
    line_final: dict[str, int] = field(default_factory=dict)
    last_piece: Optional[str] = None
    lines: int = 0
    first: int = 0
    last: int = 0
    last_at: int = -1


def _add_into(into: dict[str, int], more: dict[str, int]) -> dict[str, int]:
    for piece, n in more.items():
        into[piece] = into.get(piece, 0) + n
    return into


def combine(a: Partial, b: Partial, *, max_pieces: Optional[int] = None) -> Partial:
    """The sum of two partials of neighbouring ranges, whichever order they come in. The later range's
    pieces are added into the earlier's, so the pieces stay in order of first appearance in the
    corpus (what WordPiece's ties go by), and its last piece wins. Over ``max_pieces`` distinct
    pieces is a TokenizerError."""
    if b.first < a.first:
        a, b = b, a
    counts = _add_into(a.counts, b.counts)
    final = _add_into(a.line_final, b.line_final)
    check_size(len(counts), max_pieces)
    later = b if b.last_at >= 0 else a
    return Partial(counts, final, later.last_piece, a.lines + b.lines, a.first, b.last, later.last_at)


def check_size(distinct: int, max_pieces: Optional[int]) -> None:
    if max_pieces is not None and distinct > max_pieces:
        raise TokenizerError(
            f"the corpus has more than {max_pieces:,} distinct pieces, more than the trainers take (their memory "
            f"grows with the distinct pieces, about 1-2 kB each); raise --max-pieces if this machine has the "
            f"memory, or count a smaller corpus")


class _CountedLines:
    """Passes lines through, counting them."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines, self.n = lines, 0

    def __iter__(self):
        for line in self.lines:
            self.n += 1
            yield line


@dataclass(frozen=True)
class CountSpec:
    """What counting depends on: the model (``bpe``, ``wordpiece``, ``unigram``) and the options
    whose counting stages it uses (the rest of the options do not matter here)."""

    model: str
    options: TrainOptions = field(default_factory=TrainOptions)

    def __post_init__(self) -> None:
        if self.model not in COUNT_MODELS:
            raise TokenizerError(f"counting is for {', '.join(COUNT_MODELS)} training, not {self.model!r}")

    def stages(self) -> tuple[Any, Any]:
        """``(normalizer, pre_tokenizer)`` the trainer counts with (the normalizer may be None)."""
        if self.model == "unigram":
            from tokenizer_core.unigram.trainer import unigram_components

            parts = unigram_components(lowercase=self.options.lowercase, byte_fallback=self.options.byte_fallback)
            return parts["normalizer"], parts["pre_tokenizer"]
        from tokenizer_core.training import word_counting

        counting = word_counting(self.model, options=self.options)
        return counting.normalizer, counting.pre_tokenizer

    def facts(self) -> dict[str, str]:
        """The header facts of a counts file made this way (stages as canonical JSON)."""
        normalizer, pre = self.stages()
        facts = {"model": self.model, "normalizer": stage_json(normalizer), "pre_tokenizer": stage_json(pre)}
        if self.model == "unigram":
            facts["max_sentence_length"] = str(self.options.unigram.max_sentence_length)
        return facts

    def count(self, lines: Iterable[str], *, first: int = 0, last: Optional[int] = None,
              threads: Optional[int] = None, progress: ProgressCallback = no_progress) -> Partial:
        """The counts of ``lines`` (the partitions ``first..last``), counted as the trainer counts."""
        from tokenizer_core.text.counting import count_words

        normalizer, pre = self.stages()
        counted = _CountedLines(lines)
        last = first if last is None else last
        if self.model != "unigram":
            counts = count_words(counted, normalizer=normalizer, pre_tokenizer=pre, workers=threads, progress=progress)
            return Partial(dict(counts), lines=counted.n, first=first, last=last)
        from tokenizer_core.unigram.line_ends import LineEnds, short_lines

        ends = LineEnds(short_lines(counted, max_bytes=self.options.unigram.max_sentence_length))
        counts = count_words(ends, normalizer=normalizer, pre_tokenizer=pre, workers=threads, progress=progress)
        final = ends.words(normalizer=normalizer, pre_tokenizer=pre)
        last_piece = ends.last_word(normalizer=normalizer, pre_tokenizer=pre)
        return Partial(dict(counts), dict(final), last_piece, counted.n, first, last,
                       -1 if last_piece is None else last)


def stage_json(stage: Any) -> str:
    """A normalizer or pre-tokenizer as canonical one-line JSON (``null`` for none).

    >>> from tokenizer_core.text.pre_tokenizers import Whitespace
    >>> stage_json(Whitespace()), stage_json(None)
    ('{"type": "Whitespace"}', 'null')
    """
    return json.dumps(None if stage is None else stage.to_dict(), sort_keys=True, ensure_ascii=False)


def same_stage(written: str, wanted: str) -> bool:
    """Whether a header's stage JSON is the stage ``wanted`` (key order and spacing do not matter)."""
    try:
        return json.loads(written) == json.loads(wanted)
    except json.JSONDecodeError:
        return False
