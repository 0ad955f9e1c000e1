"""BoundlessBPE's second state: runs of adjacent pretokens, and the pairs of whole pretokens in them.

A *run* is a stretch of the corpus where pretokens that may join a superword stand side by side
(:mod:`tokenizer_core.boundless.runs` says which may). Each run is a list of *units*: a pretoken
not yet joined to anything (``~p`` for pretoken ``p``: a negative number) or a superword made by an
earlier merge across pretokens (its token id). A pair of units counts as a superword candidate only
while both are *complete*: a superword always is, a pretoken while the first state has merged it into
one token (``live[p]`` is that token's id, else -1). So the first state unlocks a pretoken when a
merge makes it whole, and locks it again should a removal split it (the authors' code never locks
again; see the manual). As in the first state, every count is exact after each operation.

>>> from tokenizer_core.removals.pairs import pair
>>> s = SuperState([[0, 1, 0, 1]], [3], n_pieces=2)
>>> s.unlock(0, 7); s.pairs.best() is None      # one side complete is not enough
True
>>> s.unlock(1, 8); k, count = s.pairs.best(); pair(k), count
((7, 8), 6)
>>> s.merge(7, 8, 9), s.units, s.absorbed
(6, [[9, 9]], [6, 6])
>>> k, count = s.pairs.best(); pair(k), count
((9, 9), 3)
"""

from __future__ import annotations

from collections.abc import Sequence

from tokenizer_core.removals.pairs import SHIFT, PairQueue, add_pairs, around


class SuperState:
    """The runs (``units[r]``, occurring ``counts[r]`` times), edited in place.

    ``absorbed[p]`` counts the occurrences of pretoken ``p`` that are part of a superword now.
    """

    def __init__(self, runs: Sequence[Sequence[int]], counts: list[int], *, n_pieces: int) -> None:
        self.units: list[list[int]] = [[~p for p in run] for run in runs]
        self.counts = counts
        self.live = [-1] * n_pieces
        self.absorbed = [0] * n_pieces
        self.pairs = PairQueue()
        self._runs_of: dict[int, list[int]] = {}
        for r, run in enumerate(runs):
            for p in run:
                lst = self._runs_of.get(p)
                if lst is None:
                    self._runs_of[p] = [r]
                elif lst[-1] != r:
                    lst.append(r)

    def ids(self, units: Sequence[int]) -> list[int]:
        """The token id of each unit, -1 for a pretoken that is not one token now."""
        live = self.live
        return [u if u >= 0 else live[~u] for u in units]

    def unlock(self, p: int, token: int) -> None:
        """Pretoken ``p`` is now the single token ``token``: its pairs with complete neighbours count."""
        if self.live[p] >= 0:
            return
        self.live[p] = token
        self._touch(p, +1)

    def lock(self, p: int) -> None:
        """Pretoken ``p`` is no longer one token: its pairs stop counting."""
        if self.live[p] < 0:
            return
        self._touch(p, -1)
        self.live[p] = -1

    def _touch(self, p: int, sign: int) -> None:
        """Add (``sign`` +1) or take away (-1) the pairs pretoken ``p`` forms with complete neighbours."""
        delta: dict[int, int] = {}
        unit, live, note = ~p, self.live, self.pairs.note
        me = live[p]
        for r in self._runs_of.get(p, ()):
            units = self.units[r]
            c = sign * self.counts[r]
            last = len(units) - 1
            j = -1
            while True:
                try:
                    j = units.index(unit, j + 1)
                except ValueError:
                    break
                # The pair on the left, unless it is p too (then it was the right pair of that one).
                if j > 0 and units[j - 1] != unit:
                    u = units[j - 1]
                    x = u if u >= 0 else live[~u]
                    if x >= 0:
                        k = x << SHIFT | me
                        delta[k] = delta.get(k, 0) + c
                        if sign > 0:
                            note(k, r)
                if j < last:
                    u = units[j + 1]
                    x = u if u >= 0 else live[~u]
                    if x >= 0:
                        k = me << SHIFT | x
                        delta[k] = delta.get(k, 0) + c
                        if sign > 0:
                            note(k, r)
        self.pairs.apply(delta)

    def merge(self, a: int, b: int, new: int) -> int:
        """Join every pair of complete units ``a b`` into the superword ``new`` (left to right,
        without overlap); returns how many were joined, counting each run's occurrences."""
        pairs, counts, absorbed = self.pairs, self.counts, self.absorbed
        delta: dict[int, int] = {}
        merged = 0
        for r in pairs.take_holders(a << SHIFT | b):
            units = self.units[r]
            ids = self.ids(units)
            out: list[int] = []
            out_ids: list[int] = []
            starts: list[int] = []
            sites: list[int] = []
            last = len(units) - 1
            c = counts[r]
            j = 0
            while j <= last:
                if j < last and ids[j] == a and ids[j + 1] == b:
                    for u in (units[j], units[j + 1]):
                        if u < 0:
                            absorbed[~u] += c
                    starts.append(j)
                    sites.append(len(out))
                    out.append(new)
                    out_ids.append(new)
                    j += 2
                else:
                    out.append(units[j])
                    out_ids.append(ids[j])
                    j += 1
            if not sites:
                continue
            merged += len(sites) * c
            add_pairs(delta, ids, around(starts, (-1, 0, 1), last), -c)
            taken = around(sites, (-1, 0), len(out) - 1)
            add_pairs(delta, out_ids, taken, c)
            for k in taken:
                if out_ids[k] >= 0 and out_ids[k + 1] >= 0:
                    pairs.note(out_ids[k] << SHIFT | out_ids[k + 1], r)
            self.units[r] = out
        pairs.apply(delta)
        return merged
