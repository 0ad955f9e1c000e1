"""Fewer tokens against likelier tokens, measured on a corpus: each counted piece segmented by
Viterbi and by the fewest-token path (:mod:`tokenizer_core.min_tokens.paths`) of the same lattice.

PathPiece's authors found that the segmentation with the fewest tokens does not make better
language models (Schmidt et al., 2024). A corpus shows why one may expect that: the fewest-token
path saves few tokens over Viterbi's, and pays in likelihood, the model's own judgement of how
the text is built.

>>> model = Unigram([("a", -1.0), ("b", -1.0), ("c", -1.0), ("ab", -5.0), ("bc", -5.0)])
>>> report = compare_on_pieces(model, [("abc", 3), ("ab", 1)])
>>> report.viterbi_tokens, report.fewest_tokens, report.pieces_differing
(11, 7, 2)
>>> d = report.examples[0]
>>> d.piece, d.viterbi, d.fewest, d.viterbi_log_prob, d.fewest_log_prob
('abc', ('a', 'b', 'c'), ('a', 'bc'), -3.0, -6.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tokenizer_core.errors import TokenizerError
from tokenizer_core.min_tokens.paths import fewest_tokens
from tokenizer_core.text.counting import count_pieces
from tokenizer_core.unigram.model import Unigram


@dataclass(frozen=True)
class Difference:
    """A piece whose two segmentations differ, with how often the corpus has it."""

    piece: str
    count: int
    viterbi: tuple[str, ...]
    fewest: tuple[str, ...]
    viterbi_log_prob: float
    fewest_log_prob: float


@dataclass(frozen=True)
class FewestReport:
    """Totals over the counted pieces (each weighted by its count) and the commonest differences."""

    pieces: int  # distinct pieces measured
    occurrences: int  # their total count
    viterbi_tokens: int
    fewest_tokens: int
    viterbi_log_prob: float
    fewest_log_prob: float
    pieces_differing: int  # distinct pieces whose segmentations differ
    occurrences_differing: int
    examples: tuple[Difference, ...]

    @property
    def tokens_saved(self) -> float:
        """The share of Viterbi's tokens the fewest-token paths save (0.02: 2 % fewer)."""
        return 1 - self.fewest_tokens / self.viterbi_tokens if self.viterbi_tokens else 0.0

    @property
    def nats_per_token_saved(self) -> float:
        """Log-likelihood given up per token saved (inf when none is saved but likelihood is lost)."""
        lost = self.viterbi_log_prob - self.fewest_log_prob
        saved = self.viterbi_tokens - self.fewest_tokens
        return lost / saved if saved else (math.inf if lost > 0 else 0.0)


def compare_on_pieces(model: Unigram, counted: Iterable[tuple[str, int]], *, examples: int = 10) -> FewestReport:
    """Viterbi against the fewest-token path (longest last token on ties) for each ``(piece, count)``;
    ``examples``: how many differing pieces to keep, commonest first (then by piece)."""
    if examples < 0:
        raise TokenizerError(f"examples must be 0 or more, got {examples}")
    pieces = occurrences = v_tokens = f_tokens = differing = occ_differing = 0
    v_lp = f_lp = 0.0
    found: list[Difference] = []
    for piece, count in counted:
        if not piece or count <= 0:
            continue
        lattice = model.lattice(piece)
        best, fewest = lattice.viterbi(), fewest_tokens(lattice)
        pieces += 1
        occurrences += count
        v_tokens += count * len(best.edges)
        f_tokens += count * len(fewest.edges)
        v_lp += count * best.log_prob
        f_lp += count * fewest.log_prob
        if best.pieces != fewest.pieces:
            differing += 1
            occ_differing += count
            found.append(Difference(piece, count, tuple(best.pieces), tuple(fewest.pieces), best.log_prob, fewest.log_prob))
    found.sort(key=lambda d: (-d.count, d.piece))
    return FewestReport(pieces, occurrences, v_tokens, f_tokens, v_lp, f_lp, differing, occ_differing, tuple(found[:examples]))


def first_chars(lines: Iterable[str], *, max_chars: int) -> Iterator[str]:
    """The lines holding the first ``max_chars`` characters, the last one cut at the limit (a corpus of
    one 50 MB line gives its first ``max_chars``).

    >>> list(first_chars(["a b a", "c a", "b b"], max_chars=7))
    ['a b a', 'c ']
    """
    if max_chars < 1:
        raise TokenizerError(f"max_chars must be 1 or more, got {max_chars}")
    read = 0
    for line in lines:
        line = line[:max_chars - read]
        read += len(line)
        yield line
        if read >= max_chars:
            return


def corpus_pieces(lines: Iterable[str], *, normalizer: Any, pre_tokenizer: Any, max_chars: int = 200_000,
                  top: int = 3000) -> list[tuple[str, int]]:
    """The ``top`` commonest pieces of the first ``max_chars`` characters of ``lines``, counted as the
    trainers count them (:func:`tokenizer_core.text.counting.count_pieces`), commonest first.

    >>> from tokenizer_core.text.pre_tokenizers import WhitespaceSplit
    >>> corpus_pieces(["a b a", "c a", "b b"], normalizer=None, pre_tokenizer=WhitespaceSplit(), max_chars=8, top=2)
    [('a', 3), ('b', 1)]
    """
    if top < 1:
        raise TokenizerError(f"top must be 1 or more, got {top}")
    counted = count_pieces(first_chars(lines, max_chars=max_chars), normalizer=normalizer, pre_tokenizer=pre_tokenizer)
    return counted.most_common(top)
