"""The checked lookup tables of a BPE model: vocabulary, merge ranks, and each token's producing merge.

>>> table = MergeTable([("l", "o"), ("lo", "w")], vocab={"l": 0, "o": 1, "w": 2, "lo": 3, "low": 4}, prefix=None)
>>> table.ranks[("lo", "w")], table.producers["lo"]
((1, 'low'), (0, 'l', 'o'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.types import MAX_TOKEN_ID


def check_vocab(vocab: Mapping[str, int]) -> dict[str, int]:
    """A copy of ``vocab`` after checking that tokens are non-empty strings with unique ids >= 0."""
    if not isinstance(vocab, Mapping):
        raise TokenizerError(f"a BPE vocabulary must map token strings to ids, got {type(vocab).__name__}")
    out: dict[str, int] = {}
    seen: dict[int, str] = {}
    for tok, tid in vocab.items():
        if not isinstance(tok, str) or not tok:
            raise TokenizerError(f"vocabulary tokens must be non-empty strings, got {tok!r}")
        if not isinstance(tid, int) or isinstance(tid, bool) or tid < 0:
            raise TokenizerError(f"token ids must be whole numbers >= 0, got {tid!r} for {tok!r}")
        if tid > MAX_TOKEN_ID:
            raise TokenizerError(f"token id {tid} of {tok!r:.40} is past the largest id a tokenizer may use "
                                 f"({MAX_TOKEN_ID:,})")
        if tid in seen:
            raise TokenizerError(f"tokens {seen[tid]!r} and {tok!r} share id {tid}; ids must be unique")
        seen[tid] = tok
        out[tok] = tid
    return out


class MergeTable:
    """A checked merge list: ``merges`` in rank order, ``ranks`` for encoding, ``producers`` for merge trees.

    Every merge must join two vocabulary tokens into a vocabulary token; with a
    ``prefix`` (``##``) the right part loses it when glued on, as in training.
    """

    __slots__ = ("merges", "ranks", "producers")

    def __init__(self, merges: Sequence[tuple[str, str]], *, vocab: Mapping[str, int],
                 prefix: Optional[str]) -> None:
        self.merges: list[tuple[str, str]] = []
        # (left, right) -> (rank, merged token). A pair listed twice keeps its last rank, as tokenizers.
        self.ranks: dict[tuple[str, str], tuple[int, str]] = {}
        # merged token -> (rank, left, right) of the first merge that made it (for merge trees).
        self.producers: dict[str, tuple[int, str, str]] = {}
        for rank, pair in enumerate(merges):
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
                raise TokenizerError(f"merge {rank} must be a pair of token strings, got {pair!r}")
            left, right = pair
            for part in (left, right):
                if part not in vocab:
                    raise TokenizerError(f"merge {rank} ({left!r}, {right!r}) uses {part!r}, which is not in the vocabulary")
            tail = right[len(prefix):] if prefix is not None and right.startswith(prefix) else right
            new = left + tail
            if new not in vocab:
                raise TokenizerError(f"merge {rank} ({left!r}, {right!r}) makes {new!r}, which is not in the vocabulary")
            self.merges.append((left, right))
            self.ranks[(left, right)] = (rank, new)
            self.producers.setdefault(new, (rank, left, right))
