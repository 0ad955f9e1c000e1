"""SentencePiece's ``character_coverage``: the rarest characters are left out of the vocabulary.

Characters are ranked by count (ties by code point) and taken until they cover the share
``character_coverage`` of all character occurrences; the rest become unknown (``<unk>``, or bytes
with ``byte_fallback``). SentencePiece's default for Unigram is 0.9995: a handful of rare
characters give their vocabulary slots to pieces that shorten the text.

Training then treats each rare character as a wall no piece crosses, as SentencePiece's lattice
does with its unknown node: a word is cut into the runs between them.

>>> sorted(required_chars({"a": 9000, "b": 990, "c": 9, "d": 1}, character_coverage=0.9995))
['a', 'b', 'c']
>>> sorted(required_chars({"a": 9000, "b": 995, "c": 4, "d": 1}, character_coverage=1.0))
['a', 'b', 'c', 'd']
>>> counts, final = split_at_rare(Counter({"▁axb": 2, "▁ab": 1}), {"▁axb": 1}, rare={"x"})
>>> sorted(counts.items()), sorted(final.items())
([('b', 2), ('▁a', 2), ('▁ab', 1)], [('b', 1)])
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Optional

import numpy as np

from tokenizer_core.options import DEFAULT_CHARACTER_COVERAGE

__all__ = ["DEFAULT_CHARACTER_COVERAGE", "char_counts", "required_chars", "split_at_rare"]


def char_counts(counts: Mapping[str, int]) -> Counter[str]:
    """How often each character occurs in the corpus the word counts describe."""
    out: Counter[str] = Counter()
    for word, count in counts.items():
        for ch, k in Counter(word).items():
            out[ch] += k * count
    return out


def required_chars(chars: Mapping[str, int], *, character_coverage: float) -> set[str]:
    """The most frequent characters that together reach ``character_coverage`` of all occurrences.

    Like SentencePiece, a character is taken while the share covered *before* it is below the
    target, so 1.0 keeps every character.
    """
    total = sum(chars.values())
    # SentencePiece holds the option as a 32-bit float: 0.9995 is 0.99949997..., which a corpus can
    # reach exactly; compare with that value so both stop at the same character.
    target = float(np.float32(character_coverage))
    kept: set[str] = set()
    covered = 0
    for ch, count in sorted(chars.items(), key=lambda kv: (-kv[1], ord(kv[0]))):
        if covered / total >= target:
            break
        covered += count
        kept.add(ch)
    return kept


def split_at_rare(counts: Mapping[str, int], line_final: Optional[Mapping[str, int]], *,
                  rare: set[str]) -> tuple[Counter[str], Optional[Counter[str]]]:
    """Word counts with every word cut at its rare characters (which are dropped), and the
    line-final counts moved to each such word's last part.
    """
    pattern = re.compile("[" + "".join(re.escape(ch) for ch in sorted(rare)) + "]+")
    out: Counter[str] = Counter()
    final: Optional[Counter[str]] = None if line_final is None else Counter()
    for word, count in counts.items():
        parts = pattern.split(word) if pattern.search(word) else [word]
        parts = [p for p in parts if p]
        for part in parts:
            out[part] += count
        if final is not None and parts and line_final is not None and line_final.get(word):
            final[parts[-1]] += line_final[word]
    return out, final
