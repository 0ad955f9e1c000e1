"""The full pair-count table of a small corpus at any step (the page's teaching mode).

The trainers keep only the top candidates per step; for the classic samples the
page shows *every* adjacent pair, counted afresh from the words as they are
segmented after ``step`` merges, and sorted the way the trainer chooses: by
count (BPE) or score (WordPiece), ties broken by the trainer's rule. The first
row is therefore the pair that merge ``step + 1`` takes, which the tests check
against the engine.

>>> from tokenizer_core.corpus.loading import load_sample
>>> from ui.merges.training import train_run
>>> from ui.merges.settings import MergeSettings
>>> run = train_run(load_sample("hf-course-hug-pug"), MergeSettings(budget=3))
>>> [(r.left, r.right, r.count) for r in pair_table(run, 0)][:3]
[('u', 'g', 20), ('p', 'u', 17), ('u', 'n', 16)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import pandas as pd

from tokenizer_core.errors import TokenizerError
from ui.merges.picky_run import PickyRun
from ui.merges.run import BpeRun, MergeRun, WordPieceRun
from ui.widgets.tokens import Scheme, shown_text

# The trainers leave out longer words (WordPiece's max_input_chars_per_word default).
_WORDPIECE_MAX_WORD = 100


@dataclass(frozen=True)
class PairRow:
    """One adjacent pair of the corpus at a step.

    ``first`` is where it occurs first: (word index, position), the tie-break key
    of "first seen". ``eligible`` is False for WordPiece pairs below the minimum frequency.
    """

    left: str
    right: str
    count: int
    first: tuple[int, int]
    score: Optional[float] = None
    left_count: Optional[int] = None
    right_count: Optional[int] = None
    eligible: bool = True


def pair_table(run: MergeRun, step: int) -> list[PairRow]:
    """Every adjacent pair after ``step`` merges, best first (the next merge takes row 0 when eligible)."""
    run.check_step(step)
    if run.words is None:
        raise TokenizerError(
            "the full pair table needs a small corpus (the classic samples); this one has too many distinct words"
        )
    if isinstance(run, WordPieceRun):
        return _wordpiece_table(run, step)
    if isinstance(run, (BpeRun, PickyRun)):  # PickyBPE chooses as BPE does, among the tokens present
        return _bpe_table(run, step)
    raise TokenizerError(f"no pair table for {type(run).__name__}")


def _bpe_table(run: BpeRun | PickyRun, step: int) -> list[PairRow]:
    counts: dict[tuple[str, str], int] = {}
    first: dict[tuple[str, str], tuple[int, int]] = {}
    for wi, (word, freq) in enumerate(run.table_words(step) or []):
        if not freq:
            continue
        syms = run.segment(word, step)
        for i in range(len(syms) - 1):
            pair = (syms[i], syms[i + 1])
            counts[pair] = counts.get(pair, 0) + freq
            first.setdefault(pair, (wi, i))
    rows = [PairRow(a, b, c, first[(a, b)]) for (a, b), c in counts.items()]
    if run.settings.tie_break == "first":
        rows.sort(key=lambda r: (-r.count, r.first))
    else:
        big = len(run.vocab) + 1
        rows.sort(key=lambda r: (-r.count, run.vocab.get(r.left, big), run.vocab.get(r.right, big)))
    return rows


def _wordpiece_table(run: WordPieceRun, step: int) -> list[PairRow]:
    plen = len(run.prefix)
    sym_counts: dict[str, int] = {}
    counts: dict[tuple[str, str], int] = {}
    first: dict[tuple[str, str], tuple[int, int]] = {}
    index = 0
    for word, freq in run.words or []:
        if not word or not freq or len(word) > _WORDPIECE_MAX_WORD:
            continue  # the trainer skips these, and numbers only the words it keeps
        syms = run.segment(word, step)
        offset = 0  # in characters of the word, as the trainer's first-occurrence key
        for i, sym in enumerate(syms):
            sym_counts[sym] = sym_counts.get(sym, 0) + freq
            if i + 1 < len(syms):
                pair = (sym, syms[i + 1])
                counts[pair] = counts.get(pair, 0) + freq
                first.setdefault(pair, (index, offset))
            offset += len(sym) - (plen if i else 0)
        index += 1
    least = max(1, run.settings.min_frequency)
    rows = [
        PairRow(a, b, c, first[(a, b)], score=c / (sym_counts[a] * sym_counts[b]),
                left_count=sym_counts[a], right_count=sym_counts[b], eligible=c >= least)
        for (a, b), c in counts.items()
    ]
    rows.sort(key=lambda r: (not r.eligible, -(r.score or 0.0), r.first))
    return rows


def pair_frame(rows: list[PairRow], *, scheme: Scheme, translate: bool, wordpiece: bool) -> pd.DataFrame:
    """The table as shown: rank, the pair (whitespace visible), its count (and WordPiece's score),
    and a mark on the row the next merge takes."""
    chosen = next((i for i, r in enumerate(rows) if r.eligible), None)
    data: dict[str, list] = {
        "rank": list(range(1, len(rows) + 1)),
        "left": [shown_text(r.left, scheme=scheme, translate=translate) for r in rows],
        "right": [shown_text(r.right, scheme=scheme, translate=translate) for r in rows],
        "count": [r.count for r in rows],
    }
    if wordpiece:
        data["count(left)"] = [r.left_count for r in rows]
        data["count(right)"] = [r.right_count for r in rows]
        data["score"] = [r.score for r in rows]
    data["merged next"] = ["✔" if i == chosen else ("below min. frequency" if not r.eligible else "")
                           for i, r in enumerate(rows)]
    return pd.DataFrame(data)
