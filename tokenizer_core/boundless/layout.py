"""How BoundlessBPE's two training states see a counted corpus: its distinct pretokens, and its runs.

Counted runs (``{"ofĠtheĠcat": 3, ",": 5, ...}``) are split back into pretokens
(:func:`~tokenizer_core.boundless.runs.split_run`). Every distinct pretoken goes to the first state
with the number of times it occurs anywhere; every stretch of two or more joinable pretokens side by
side goes to the second state (identical stretches once, with their counts added up), a pretoken that
may not join cutting a counted piece into stretches. The layout remembers which stretches and
pretokens make up each counted run, so the result can say how training left every run.

>>> from tokenizer_core.text.byte_level import GPT2_PATTERN
>>> lay = Layout({"ofĠtheĠcat": 2, "ofĠthe": 1, ",": 4}, pattern=GPT2_PATTERN)
>>> lay.pieces, lay.piece_counts, lay.runs, lay.run_counts
(['of', 'Ġthe', 'Ġcat', ','], [3, 3, 2, 4], [(0, 1, 2), (0, 1)], [2, 1])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

from tokenizer_core.boundless.runs import joinable_symbols, split_run

if TYPE_CHECKING:
    from tokenizer_core.boundless.superwords import SuperState
    from tokenizer_core.removals.words import WordState


class Layout:
    """``pieces`` (distinct pretokens, byte symbols) with ``piece_counts`` and ``joinable`` flags;
    ``runs`` (stretches of joinable pretokens, as piece indices) with ``run_counts``."""

    def __init__(self, run_counts: Mapping[str, int], *, pattern: str) -> None:
        self.pieces: list[str] = []
        self.piece_counts: list[int] = []
        self.joinable: list[bool] = []
        self.runs: list[tuple[int, ...]] = []
        self.run_counts: list[int] = []
        index: dict[str, int] = {}
        run_index: dict[tuple[int, ...], int] = {}
        # Each counted run as its parts: r >= 0 a stretch of the second state, ~p a pretoken alone.
        self._parts: dict[str, list[int]] = {}
        for text, c in run_counts.items():
            ids = []
            for piece in split_run(text, pattern=pattern):
                p = index.get(piece)
                if p is None:
                    p = index[piece] = len(self.pieces)
                    self.pieces.append(piece)
                    self.piece_counts.append(0)
                    self.joinable.append(joinable_symbols(piece))
                self.piece_counts[p] += c
                ids.append(p)
            parts: list[int] = []
            for stretch in _stretches(ids, self.joinable):
                if len(stretch) == 1:
                    parts.append(~stretch[0])
                    continue
                r = run_index.get(stretch)
                if r is None:
                    r = run_index[stretch] = len(self.runs)
                    self.runs.append(stretch)
                    self.run_counts.append(0)
                self.run_counts[r] += c
                parts.append(r)
            self._parts[text] = parts
        self._states: Optional[tuple["WordState", "SuperState", list[str]]] = None

    def attach(self, words: "WordState", supers: "SuperState", names: list[str]) -> None:
        """The states trained from this layout, and the token names, for :meth:`segmentations`."""
        self._states = (words, supers, names)

    def segmentations(self) -> dict[str, list[str]]:
        """Each counted run as the attached states left it."""
        if self._states is None:
            return {}
        words, supers, names = self._states
        out: dict[str, list[str]] = {}
        for text, parts in self._parts.items():
            toks: list[str] = []
            for x in parts:
                for u in (supers.units[x] if x >= 0 else (x,)):
                    if u >= 0:
                        toks.append(names[u])
                    else:
                        toks.extend(names[t] for t in words.words[~u])
            out[text] = toks
        return out


def _stretches(ids: list[int], joinable: list[bool]) -> list[tuple[int, ...]]:
    """``ids`` cut into maximal stretches of joinable pretokens, each other pretoken alone.

    >>> _stretches([0, 1, 2, 3], [True, True, False, True])
    [(0, 1), (2,), (3,)]
    """
    out: list[tuple[int, ...]] = []
    cur: list[int] = []
    for p in ids:
        if joinable[p]:
            cur.append(p)
            continue
        if cur:
            out.append(tuple(cur))
            cur = []
        out.append((p,))
    if cur:
        out.append(tuple(cur))
    return out
