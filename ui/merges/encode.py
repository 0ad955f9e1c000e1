"""Apply a run's learned merges to a typed sentence, one strip per applied merge.

As on the lecture slides, the sentence starts as single symbols; each strip is
the whole sentence after one more merge (in the order the merges were learned),
listing only merges that change something. BPE strips come from the encoder's
own trace (rank order, which is how BPE encodes); WordPiece strips replay the
training merges, and :attr:`EncodeView.final` is what the WordPiece encoder
(greedy longest match over the vocabulary at that step) actually outputs, which
can differ.

>>> from tokenizer_core.corpus.loading import load_sample
>>> from ui.merges.training import train_run
>>> from ui.merges.settings import MergeSettings
>>> run = train_run(load_sample("hf-course-hug-pug"), MergeSettings(budget=3))
>>> view = encode(run, "hugs pun", 3)
>>> [(s.step, s.token) for s in view.strips]
[(1, 'ug'), (2, 'un'), (3, 'hug')]
>>> view.strips[-1].pieces
(('hug', 's'), ('p', 'un'))
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Optional

from tokenizer_core.errors import TokenizerError
from tokenizer_core.text.symbols import merge_pair
from tokenizer_core.wordpiece.model import WordPiece
from ui.merges.picky_run import PickyRun
from ui.merges.run import BpeRun, MergeRun, WordPieceRun

#: At most this many strips are listed (the rest are summed up in ``hidden``).
MAX_STRIPS = 40
#: Sentences are cut at this many characters.
MAX_CHARS = 300

Segmentation = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Strip:
    """The sentence after merge ``step`` (``left + right -> token``) was applied."""

    step: int
    left: str
    right: str
    token: str
    pieces: Segmentation


@dataclass(frozen=True)
class EncodeView:
    """A sentence's pieces, their initial symbols, one strip per applied merge and the encoder's output."""

    text: str
    pieces: tuple[str, ...]
    initial: Segmentation
    strips: tuple[Strip, ...]
    hidden: int
    final: Segmentation
    final_differs: bool

    def tokens(self) -> list[str]:
        """The final tokens, flattened."""
        return [t for piece in self.final for t in piece]


def encode(run: MergeRun, text: str, step: int) -> EncodeView:
    """Apply the first ``step`` merges of ``run`` to ``text`` (cut at :data:`MAX_CHARS` characters)."""
    run.check_step(step)
    text = text[:MAX_CHARS]
    pieces = tuple(run.pieces(text))
    initial = tuple(tuple(run.initial_symbols(p)) for p in pieces)
    if isinstance(run, WordPieceRun):
        strips, final_replay = _wordpiece_strips(run, initial, step)
        model = WordPiece(run.vocab_at(step), unk_token="[UNK]", continuing_subword_prefix=run.prefix)
        final = tuple(tuple(t.text for t in model.tokenize(p)) for p in pieces)
        differs = final != final_replay
    elif isinstance(run, BpeRun):
        strips = _bpe_strips(run, pieces, step)
        final = tuple(tuple(run.segment(p, step)) for p in pieces)
        differs = False
    elif isinstance(run, PickyRun):
        strips = _picky_strips(run, pieces, step)
        final = tuple(tuple(run.segment(p, step)) for p in pieces)
        differs = False
    else:
        raise TokenizerError(f"cannot encode with a {type(run).__name__}")
    hidden = max(0, len(strips) - MAX_STRIPS)
    return EncodeView(text, pieces, initial, tuple(strips[:MAX_STRIPS]), hidden, final, differs)


def _bpe_strips(run: BpeRun, pieces: tuple[str, ...], step: int) -> list[Strip]:
    # BPE applies merges in rank order, so after merge r every piece is its encoding with the merges
    # of rank <= r: the segmentation its own trace reached at its last merge of rank <= r. One trace
    # per piece, walked once (re-encoding every piece for every strip was most of a step's run).
    traces = [run.model.encode_trace(p, max_rank=step) for p in pieces]
    if any(len(t.steps) and t.steps[-1].symbols_after != tuple(run.segment(p, step)) for p, t in zip(pieces, traces)):
        return _bpe_strips_encoding(run, pieces, step)  # a piece the trace spells otherwise (unknown characters)
    current = [tuple(run.initial_symbols(p)) for p in pieces]
    at = [0] * len(traces)
    strips = []
    for rank in sorted({s.rank for t in traces for s in t.steps}):
        for i, t in enumerate(traces):
            while at[i] < len(t.steps) and t.steps[at[i]].rank <= rank:
                current[i] = t.steps[at[i]].symbols_after
                at[i] += 1
        info = run.trace[rank]
        strips.append(Strip(rank + 1, info.left, info.right, info.token, tuple(current)))
    return strips


def _picky_strips(run: PickyRun, pieces: tuple[str, ...], step: int) -> list[Strip]:
    # A step changes the sentence only if its merge's pair is next to each other in it, or a token it
    # removes is in it: those are checked at every step (set lookups), and only they encode it again.
    current = tuple(tuple(run.initial_symbols(p)) for p in pieces)
    strips = []
    for s in range(1, step + 1):
        info = run.step_info(s)
        tokens = {t for piece in current for t in piece}
        touched = (info.left in tokens and info.right in tokens
                   and any((a, b) == (info.left, info.right) for piece in current for a, b in zip(piece, piece[1:])))
        if not touched and not any(r.token in tokens for r in run.removals_at(s)):
            continue
        after = tuple(tuple(run.segment(p, s)) for p in pieces)
        if after != current:
            strips.append(Strip(s, info.left, info.right, info.token, after))
            current = after
    return strips


def _bpe_strips_encoding(run: BpeRun, pieces: tuple[str, ...], step: int) -> list[Strip]:
    """:func:`_bpe_strips` by encoding every piece again for every strip (the reference)."""
    ranks = sorted({s.rank for p in pieces for s in run.model.encode_trace(p, max_rank=step).steps})
    strips = []
    for rank in ranks:
        info = run.trace[rank]
        seg = tuple(tuple(run.segment(p, rank + 1)) for p in pieces)
        strips.append(Strip(rank + 1, info.left, info.right, info.token, seg))
    return strips


def _wordpiece_strips(run: WordPieceRun, initial: Segmentation, step: int) -> tuple[list[Strip], Segmentation]:
    words = [list(w) for w in initial]
    plen = len(run.prefix)
    strips = []
    done = 0
    while True:
        # The next training merge (after `done`, up to `step`) whose pair occurs anywhere in the sentence.
        best: Optional[int] = None
        for syms in words:
            for pair in zip(syms, syms[1:]):
                steps = run.steps_of(pair)
                i = bisect.bisect_right(steps, done)
                if i < len(steps) and steps[i] <= step and (best is None or steps[i] < best):
                    best = steps[i]
        if best is None:
            break
        m = run.merges[best - 1]
        merged = m.left + m.right[plen:]
        words = [merge_pair(syms, m.left, m.right, merged) for syms in words]
        strips.append(Strip(best, m.left, m.right, merged, tuple(tuple(w) for w in words)))
        done = best
    return strips, tuple(tuple(w) for w in words)


def tokens_of(view: EncodeView) -> list[str]:
    """Distinct tokens of the final encoding, longest first (candidates for a merge tree)."""
    seen = dict.fromkeys(view.tokens())
    return sorted(seen, key=lambda t: (-len(t), t))
