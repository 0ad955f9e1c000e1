"""PickyBPE's training state: the words as token ids, exact pair counts, token counts, and the two
operations that change them, merging a pair and splitting a removed token back.

Plain BPE never sees a pair again once it is merged, so its bookkeeping may leave a merged pair's
count stale (:mod:`tokenizer_core.bpe.pair_stats` does, as ``tokenizers`` does). PickyBPE does see
them again: a removed ``ab`` splits back into ``a b``. Every count here is therefore exact after
each operation; the words, their pairs and the queue of the best pair are the ones BoundlessBPE's
first state keeps too (:class:`~tokenizer_core.removals.words.WordState`,
:class:`~tokenizer_core.removals.pairs.PairQueue`). This state adds what PickyBPE reads: the pair
each token was first made from, and the corpus length in tokens.

A pair ``(a, b)`` of ids is the int ``a << 32 | b``: smaller keys are smaller ``(a, b)``, which is
the tie-break (as ``tokenizers``' and our BPE's).

>>> s = TrainingState([[0, 1, 0, 1], [0, 1]], [2, 1], n_tokens=2)
>>> s.best(), s.freq
((1, 5), [5, 5])
>>> s.add_token((0, 1)), s.merge(0, 1, 2), s.words, s.freq
(2, 5, [[2, 2], [2]], [0, 0, 5])
>>> s.remove(2, [0, 1]), s.words, s.best()
(5, [[0, 1, 0, 1], [0, 1]], (1, 5))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from tokenizer_core.removals.pairs import pair
from tokenizer_core.removals.words import WordState


class TrainingState:
    """The corpus during PickyBPE training (``words[i]`` occurs ``counts[i]`` times).

    ``freq[t]`` is how often token ``t`` occurs now; ``made_from[t]`` the pair a merged token was
    first made from (None for the first ``n_tokens`` ids: special tokens and the alphabet);
    ``tokens`` the corpus length in tokens. ``words`` is used up (edited in place).
    """

    def __init__(self, words: list[list[int]], counts: list[int], *, n_tokens: int) -> None:
        self._state = state = WordState(words, counts, n_tokens=n_tokens)
        self.words, self.counts, self.freq = state.words, state.counts, state.freq
        self.made_from: list[Optional[tuple[int, int]]] = [None] * n_tokens
        self.tokens = sum(len(w) * c for w, c in zip(words, counts))

    @property
    def pair_counts(self) -> dict[int, int]:
        """Pair key -> how often the pair occurs now (no zero entries)."""
        return self._state.pairs.counts

    def best(self) -> Optional[tuple[int, int]]:
        """The pair to merge now, as ``(key, count)``: the highest count, then the smallest ids;
        None when no pair is left."""
        return self._state.pairs.best()

    #: The ids ``(a, b)`` of a pair key.
    pair = staticmethod(pair)

    def add_token(self, made_from: tuple[int, int]) -> int:
        """Room for a new merged token (the next id), made from the pair ``made_from``."""
        self.freq.append(0)
        self.made_from.append(made_from)
        return len(self.freq) - 1

    def expand(self, token: int, present: Sequence[bool]) -> list[int]:
        """``token`` split into present tokens: the pair it was made from, each part split again while
        it is not present itself (the authors' ``walk``)."""
        out: list[int] = []
        stack = [token]  # a stack, not recursion: a chain of removed parts may be thousands long
        while stack:
            t = stack.pop()
            made = self.made_from[t]
            if made is None or present[t]:
                out.append(t)
            else:
                stack.append(made[1])
                stack.append(made[0])
        return out

    def merge(self, a: int, b: int, new: int) -> int:
        """Merge every ``a b`` (left to right, without overlap: ``a a a`` gives ``aa a``) into ``new``;
        returns how many were merged (the pair frequency of the IoS)."""
        merged, _ = self._state.merge(a, b, new)
        self.tokens -= merged
        return merged

    def remove(self, token: int, split: Sequence[int]) -> int:
        """Replace every occurrence of ``token`` by the tokens ``split``; returns how many there were."""
        found, _ = self._state.split(token, split)
        self.tokens += found * (len(split) - 1)
        return found
