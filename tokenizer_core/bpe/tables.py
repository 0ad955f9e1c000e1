"""The checked lookup tables of a BPE model: vocabulary, merge ranks, and each token's producing merge.

>>> table = MergeTable([("l", "o"), ("lo", "w")], vocab={"l": 0, "o": 1, "w": 2, "lo": 3, "low": 4}, prefix=None)
>>> table.ranks[("lo", "w")], table.producers["lo"]
((1, 'low'), (0, 'l', 'o'))

Loading a real model (a tokenizer.json of 200,000 tokens and 450,000 merges) checks its tables in
the compiled kernel when it is there (``merge_ids.c``): the merge list's ids come out packed for the
kernel's encoder, and the Python dicts of ranks and producers are built only when something asks
for them (the step-through pages, merge trees). The pure-Python encoder asks :attr:`MergeTable.rank_of`,
which for such a list is the kernel's ``PairRanks`` (``pair_ranks.c``) over the packed ids: for
Gemma 3's 514,906 merges 0.1 s instead of 0.45 s, and the loaded model holds 270 MB, not 376 MB.
Any file the kernel does not pass (a malformed merge, a missing token, a pair listed twice) is
checked again here, in Python, which raises the precise message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.kernel import native
from tokenizer_core.model_base import checked_vocab
from tokenizer_core.types import MAX_TOKEN_ID


def check_vocab(vocab: Mapping[str, int]) -> dict[str, int]:
    """A copy of ``vocab`` after checking that tokens are non-empty strings with unique ids >= 0."""
    if isinstance(vocab, dict) and native.available() and native.kernel().plain_vocab(vocab, MAX_TOKEN_ID):
        return dict(vocab)  # the plain case, checked in one C pass
    return checked_vocab(vocab, model="BPE")


class MergeTable:
    """A checked merge list: ``merges`` in rank order, ``ranks`` for encoding, ``producers`` for merge trees.

    Every merge must join two vocabulary tokens into a vocabulary token; with a
    ``prefix`` (``##``) the right part loses it when glued on, as in training.
    ``id_triples`` holds each merge's (left, right, merged) ids as int32 when the kernel checked
    the list (None otherwise): the kernel's encoder is built from it directly.
    """

    __slots__ = ("merges", "id_triples", "_prefix", "_ranks", "_producers", "_vocab", "_rank_of")

    def __init__(self, merges: Sequence[tuple[str, str]], *, vocab: Mapping[str, int],
                 prefix: Optional[str]) -> None:
        self._prefix = prefix
        self._vocab = vocab
        self._rank_of: Optional[Callable[[tuple[str, str]], Optional[tuple[int, str]]]] = None
        self.id_triples: Optional[bytes] = None
        # (left, right) -> (rank, merged token). A pair listed twice keeps its last rank, as tokenizers.
        self._ranks: Optional[dict[tuple[str, str], tuple[int, str]]] = None
        # merged token -> (rank, left, right) of the first merge that made it (for merge trees).
        self._producers: Optional[dict[str, tuple[int, str, str]]] = None
        if isinstance(merges, list) and isinstance(vocab, dict) and native.available():
            self.id_triples = native.kernel().merge_ids(vocab, merges, prefix)
        if self.id_triples is not None:
            self.merges: list[tuple[str, str]] = list(merges)
        else:
            self.merges = []
            self._check(merges, vocab=vocab)

    def _check(self, merges: Sequence[tuple[str, str]], *, vocab: Mapping[str, int]) -> None:
        """The reference: check every merge in Python and fill ``merges``, ``ranks`` and ``producers``."""
        prefix = self._prefix
        self._ranks, self._producers = {}, {}
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
            self._ranks[(left, right)] = (rank, new)
            self._producers.setdefault(new, (rank, left, right))

    def _fill(self) -> None:
        """Build the dicts from a list the kernel checked (no pair twice, every token known)."""
        prefix = self._prefix
        if native.available() and isinstance(self.merges, list):  # 0.6 s in Python for Gemma 3
            ranks, producers = native.kernel().merge_dicts(self.merges, prefix)
        else:
            ranks, producers = {}, {}
            for rank, (left, right) in enumerate(self.merges):
                new = left + (right[len(prefix):] if prefix is not None and right.startswith(prefix) else right)
                ranks[(left, right)] = (rank, new)
                producers.setdefault(new, (rank, left, right))
        # Producers first: a reader that sees ranks filled finds producers filled too.
        self._producers, self._ranks = producers, ranks

    @property
    def ranks(self) -> dict[tuple[str, str], tuple[int, str]]:
        """(left, right) -> (rank, merged token), built on first use."""
        if self._ranks is None:
            self._fill()
        return self._ranks  # type: ignore[return-value]

    @property
    def rank_of(self) -> Callable[[tuple[str, str]], Optional[tuple[int, str]]]:
        """``ranks.get``, answered without building the dicts when the kernel checked the list.

        >>> table = MergeTable([("l", "o"), ("lo", "w")], vocab={"l": 0, "o": 1, "w": 2, "lo": 3, "low": 4}, prefix=None)
        >>> table.rank_of(("lo", "w")), table.rank_of(("o", "w"))
        ((1, 'low'), None)
        """
        if self._rank_of is None:
            pair_ranks: Any = getattr(native.kernel(), "PairRanks", None) if native.available() else None
            if self.id_triples is not None and pair_ranks is not None and isinstance(self._vocab, dict):
                self._rank_of = pair_ranks(self._vocab, self.id_triples).get
            else:
                self._rank_of = self.ranks.get
        return self._rank_of

    @property
    def producers(self) -> dict[str, tuple[int, str, str]]:
        """Merged token -> (rank, left, right) of the first merge that made it, built on first use."""
        if self._producers is None:
            self._fill()
        return self._producers  # type: ignore[return-value]
