"""SuperBPE's hand-over: stage 2's words as stage 1's first merges leave them.

The authors' stage 2 replays stage 1's first merges, in order, over its own words (whole lines),
each merge everywhere it occurs, before it learns new ones. Replaying merge after merge over a
10 MB corpus is slow, so the words are put together from what stage 1 already did:

* A stage-2 word is a run of stage-1 pieces (:func:`~tokenizer_core.superbpe.stages.stage1_pieces`),
  and stage 1's training left each piece exactly as the replay leaves it *inside* the piece.
* The replay may also merge across the border of two pieces: ``"Ġ" + "Ġ"`` where a double space
  became the pieces ``Ġ`` and ``Ġx``. A merge ``(x, y)`` can only cross a border whose left
  character ends some ``x`` and whose right character starts the matching ``y``: :class:`Borders`
  lists those character pairs. Pieces joined by such borders form a *cluster*, replayed on its own
  with :func:`replay` (the clusters repeat: indentation, runs of spaces, so they are memoized); every
  other border is never crossed, and the pieces on either side stay as stage 1 left them.

:func:`replay` is the reference: it applies the merges in rank order, each one everywhere at once,
as the authors' trainer does (not BPE encoding's "lowest rank present", which differs when a merge
re-creates a token that already exists).

>>> merges = [("a", "b"), ("b", "c"), ("ab", "c")]
>>> replay("abcbc", {m: r for r, m in enumerate(merges)})
['abc', 'bc']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: A merge's rank (its place in the merge list) by its pair of token strings.
Ranks = Mapping[tuple[str, str], int]


def replay(symbols: str | Sequence[str], ranks: Ranks) -> list[str]:
    """The tokens of ``symbols`` after applying the ranked merges in order, each everywhere (left to
    right, without overlap) before the next.

    The next merge to apply is the lowest-ranked one present whose rank is above the last applied:
    the passes in between would find nothing. A merge of a lower rank that becomes present later is
    never applied (its pass is over).

    >>> replay("aaaa", {("a", "a"): 0, ("aa", "aa"): 1})
    ['aaaa']
    >>> replay("abab", {("b", "a"): 0, ("a", "b"): 1})
    ['a', 'ba', 'b']
    """
    toks = list(symbols)
    last = -1
    while len(toks) > 1:
        best = None
        for i in range(len(toks) - 1):
            r = ranks.get((toks[i], toks[i + 1]))
            if r is not None and r > last and (best is None or r < best):
                best = r
        if best is None:
            break
        out: list[str] = []
        i, n = 0, len(toks)
        while i < n:
            if i + 1 < n and ranks.get((toks[i], toks[i + 1])) == best:
                out.append(toks[i] + toks[i + 1])
                i += 2
            else:
                out.append(toks[i])
                i += 1
        toks, last = out, best
    return toks


class Borders:
    """Which borders between two stage-1 pieces a merge of ``merges`` may cross.

    >>> b = Borders([("Ġ", "Ġ"), ("t", "h")])
    >>> b.crossable("aĠ", "Ġb"), b.crossable("a", "Ġb")
    (True, False)
    """

    def __init__(self, merges: Sequence[tuple[str, str]]) -> None:
        self._pairs = {(x[-1], y[0]) for x, y in merges if x and y}

    def crossable(self, left: str, right: str) -> bool:
        """Whether some merge could join the end of ``left`` with the start of ``right``."""
        return (left[-1], right[0]) in self._pairs


class Assembler:
    """Stage 2's words (as token ids) from stage-1 pieces and their segmentations after stage 1.

    ``segmented`` gives a stage-1 piece's token ids as stage 1 left it; ``ranks`` the inherited
    merges; ``ids`` every token's id. Clusters (pieces joined by crossable borders) are replayed and
    memoized by their text.
    """

    def __init__(self, *, segmented: Mapping[str, list[int]], ranks: Ranks,
                 merges: Sequence[tuple[str, str]], ids: Mapping[str, int]) -> None:
        self._segmented = segmented
        self._ranks = ranks
        self._borders = Borders(merges)
        self._ids = ids
        self._memo: dict[str, list[int]] = {}
        self.clusters = 0

    def word(self, pieces: Sequence[str]) -> list[int]:
        """The ids of a stage-2 word made of these stage-1 pieces (byte-level strings, in order)."""
        out: list[int] = []
        k, n = 0, len(pieces)
        crossable = self._borders.crossable
        while k < n:
            j = k + 1
            while j < n and crossable(pieces[j - 1], pieces[j]):
                j += 1
            if j == k + 1:
                out.extend(self._segmented[pieces[k]])
            else:
                out.extend(self._cluster("".join(pieces[k:j])))
            k = j
        return out

    def _cluster(self, text: str) -> list[int]:
        hit = self._memo.get(text)
        if hit is None:
            self.clusters += 1
            ids = self._ids
            hit = [ids[t] for t in replay(text, self._ranks)]
            self._memo[text] = hit
        return hit
