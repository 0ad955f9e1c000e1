"""Words as token ids with exact pair counts, merged and split back: the state PickyBPE trains on
and BoundlessBPE's first state (its pretokens, whatever superword merges did to the runs they stand in).

Plain BPE never sees a pair again once it is merged, so its bookkeeping may leave a merged pair's
count stale (:mod:`tokenizer_core.bpe.pair_stats` does, as ``tokenizers`` does). With removals a
removed ``ab`` splits back into ``a b``, so counts here stay exact after every operation, and the
token counts a removal's Intersection over Self reads are exact too: each word an operation touches
gives back the pairs around the places it changed and takes the new ones (the other pairs of the
word are the same before and after).

Each operation says which words changed length, so a trainer can tell which words became a single
token or stopped being one (BoundlessBPE's superwords need to know).

>>> s = WordState([[0, 1, 0, 1], [0, 1]], [2, 1], n_tokens=2)
>>> s.pairs.best(), s.freq
((1, 5), [5, 5])
>>> s.grow(3); s.merge(0, 1, 2)
(5, [(0, 4, 2), (1, 2, 1)])
>>> s.words, s.freq
([[2, 2], [2]], [0, 0, 5])
>>> s.split(2, [0, 1]), s.words, s.pairs.best()
((5, [(0, 2, 4), (1, 1, 2)]), [[0, 1, 0, 1], [0, 1]], (1, 5))
"""

from __future__ import annotations

from collections.abc import Sequence

from tokenizer_core.removals.pairs import SHIFT, PairQueue, add_pairs, around

#: A word whose length an operation changed: ``(word index, length before, length after)``.
Change = tuple[int, int, int]


class WordState:
    """Words as token ids (``words[i]`` occurs ``counts[i]`` times), edited in place.

    ``freq[t]`` is how often token ``t`` occurs in the words now (for BoundlessBPE's pretokens every
    occurrence of each: superword merges do not change it, as in the authors' code). The first
    ``n_tokens`` ids (special tokens, bytes) are never removed.
    """

    def __init__(self, words: list[list[int]], counts: list[int], *, n_tokens: int) -> None:
        self.words = words
        self.counts = counts
        self.freq = [0] * n_tokens
        self.pairs = PairQueue()
        self._atomic = n_tokens  # the first ids (special tokens, bytes) are never removed: no holders kept
        # Words that may hold a merged token (a superset, checked when a removal visits them).
        self._holders: dict[int, list[int]] = {}
        freq = self.freq
        totals: dict[int, int] = {}
        where: dict[int, list[int]] = {}
        for wi, w in enumerate(words):
            c = counts[wi]
            for t in w:
                freq[t] += c
            for j in range(len(w) - 1):
                k = w[j] << SHIFT | w[j + 1]
                totals[k] = totals.get(k, 0) + c
                lst = where.get(k)
                if lst is None:
                    where[k] = [wi]
                elif lst[-1] != wi:
                    lst.append(wi)
        self.pairs.load(totals, where)

    def grow(self, n_tokens: int) -> None:
        """Room for token ids below ``n_tokens`` (the symbol table grew: merged tokens, superwords)."""
        self.freq.extend([0] * (n_tokens - len(self.freq)))

    def merge(self, a: int, b: int, new: int) -> tuple[int, list[Change]]:
        """Merge every ``a b`` into ``new`` (left to right, without overlap: ``a a a`` gives ``aa a``).

        Returns how many pairs were merged, counting each word's occurrences, and the words changed."""
        words, counts, pairs = self.words, self.counts, self.pairs
        delta: dict[int, int] = {}
        merged = 0
        changed: list[Change] = []
        for wi in pairs.take_holders(a << SHIFT | b):
            w = words[wi]
            out, starts, sites = merge_in(w, a, b, new)
            if not sites:
                continue
            c = counts[wi]
            merged += len(sites) * c
            add_pairs(delta, w, around(starts, (-1, 0, 1), len(w) - 1), -c)
            taken = around(sites, (-1, 0), len(out) - 1)
            add_pairs(delta, out, taken, c)
            for j in taken:
                pairs.note(out[j] << SHIFT | out[j + 1], wi)
            words[wi] = out
            changed.append((wi, len(w), len(out)))
            self._holders.setdefault(new, []).append(wi)
        freq = self.freq
        freq[new] += merged
        freq[a] -= merged
        freq[b] -= merged  # twice from one token when a == b: each pair of it used two
        pairs.apply(delta)
        return merged, changed

    def split(self, token: int, parts: Sequence[int]) -> tuple[int, list[Change]]:
        """Replace every occurrence of ``token`` by ``parts``; returns how many there were and the
        words changed."""
        words, counts, pairs = self.words, self.counts, self.pairs
        delta: dict[int, int] = {}
        k = len(parts)
        found = 0
        changed: list[Change] = []
        for wi in sorted(set(self._holders.pop(token, ()))):
            w = words[wi]
            places = [j for j, t in enumerate(w) if t == token]
            if not places:
                continue
            c = counts[wi]
            found += len(places) * c
            out: list[int] = []
            firsts = []
            prev = 0
            for j in places:
                out.extend(w[prev:j])
                firsts.append(len(out))
                out.extend(parts)
                prev = j + 1
            out.extend(w[prev:])
            add_pairs(delta, w, around(places, (-1, 0), len(w) - 1), -c)
            taken = around(firsts, range(-1, k), len(out) - 1)
            add_pairs(delta, out, taken, c)
            for j in taken:
                pairs.note(out[j] << SHIFT | out[j + 1], wi)
            words[wi] = out
            changed.append((wi, len(w), len(out)))
            for t in parts:
                if t >= self._atomic:
                    self._holders.setdefault(t, []).append(wi)
        freq = self.freq
        for t in parts:
            freq[t] += found
        freq[token] -= found
        pairs.apply(delta)
        return found, changed


def merge_in(w: Sequence[int], a: int, b: int, new: int) -> tuple[list[int], list[int], list[int]]:
    """``w`` with every ``a b`` merged (left to right, without overlap), where each merge started
    in ``w``, and where each ``new`` stands in the result.

    >>> merge_in([5, 5, 5, 7], 5, 5, 9)
    ([9, 5, 7], [0], [0])
    """
    out: list[int] = []
    starts: list[int] = []
    sites: list[int] = []
    last = len(w) - 1
    i = j = 0  # i: where to look for the next a; j: what is not copied yet
    while True:
        try:
            i = w.index(a, i)  # the scan runs in C: most of a word is not the pair
        except ValueError:
            break
        if i < last and w[i + 1] == b:
            out.extend(w[j:i])
            starts.append(i)
            sites.append(len(out))
            out.append(new)
            i += 2
            j = i
        else:
            i += 1
    out.extend(w[j:])
    return out, starts, sites
