"""Scoring tokenizers on held-out text, fast: the text is pre-tokenized once and each distinct piece
is tokenized once per tokenizer.

A vocabulary-size sweep scores many tokenizers that share their normalizer, pre-tokenizer and
special tokens and differ only in their model. :class:`Heldout` counts the pieces of the text as
the pipeline cuts them (:func:`tokenizer_core.text.counting.count_words`, the trainers' counter);
a score is then the sum over distinct pieces of ``count × tokens of the piece``, the same numbers
as encoding every line. Special tokens written in the text are cut out first, as the pipeline
does, and each counts as one token (a typed special token is part of the text, as in
``tokenizers``; only tokens a post-processor adds are left out of the metrics).

For BPE, :meth:`Heldout.score_bpe_prefixes` scores the models made of the first *k* merges of one
model for several *k* at once. The encoder applies merges in increasing rank order (a merge only
creates pairs whose merges were learnt later), so the segmentation under the first *k* merges is
the state of the full encoding just before its first merge of rank ≥ *k*: one encoding per piece,
with a snapshot at each cut, serves every *k*.

>>> from tokenizer_core.training import train
>>> from tokenizer_core.options import TrainOptions
>>> tok = train("bpe", ["low lower lowest\\n"], options=TrainOptions(num_merges=3))
>>> held = Heldout(["lowest low\\n", "[UNK] low\\n"], tok)
>>> held.score(tok)
HeldoutScore(tokens=6, unk_tokens=0, distinct_ids=5)
>>> [s.tokens for s in held.score_bpe_prefixes(tok, [0, 1, 3])]
[13, 10, 6]
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tokenizer_core.analysis.compare import unk_id
from tokenizer_core.bpe.model import BPE
from tokenizer_core.bpe.options import MergeRanks
from tokenizer_core.corpus.stats import word_count
from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.text.counting import count_words

__all__ = ["Heldout", "HeldoutScore"]

#: Pieces longer than this are segmented by the model once per prefix (its heap-based merging),
#: as the scan below is quadratic in the piece's length.
_SCAN_MAX_CHARS = 200
_INF = float("inf")


@dataclass(frozen=True)
class HeldoutScore:
    """Tokens spent on the held-out text, how many are unknown, and how many distinct ids occur."""

    tokens: int
    unk_tokens: int
    distinct_ids: int


class Heldout:
    """Held-out lines pre-tokenized for tokenizers built like ``tok`` (same normalizer,
    pre-tokenizer and special tokens); ``chars``, ``bytes`` and ``words`` describe the text."""

    def __init__(self, lines: Iterable[str], tok: Tokenizer) -> None:
        self.lines = list(lines)
        self.chars = sum(len(line) for line in self.lines)
        self.bytes = sum(len(line.encode("utf-8", "surrogatepass")) for line in self.lines)
        self.words = sum(word_count(line) for line in self.lines)
        texts = self.lines
        #: Special tokens typed in the text: one token each, counted as tokenizers does (mask 0).
        self.specials: Counter[int] = Counter()
        if tok.special_tokens:
            # The pipeline matches special tokens before normalizing, longest first.
            pattern = re.compile("|".join(re.escape(t) for t in sorted(tok.special_tokens, key=len, reverse=True)))
            texts = [part for line in self.lines for part in pattern.split(line) if part]
            for line in self.lines:
                self.specials.update(tok.token_to_id(t) for t in pattern.findall(line))
        self.pieces: Counter[str] = count_words(texts, normalizer=tok.normalizer, pre_tokenizer=tok.pre_tokenizer)

    def score(self, tok: Tokenizer) -> HeldoutScore:
        """Score ``tok`` (whose stages must be those the text was pre-tokenized for)."""
        model = tok.model
        unk = unk_id(tok)
        tokens, unknown = sum(self.specials.values()), 0
        used: set[int] = set(self.specials)
        for piece, count in self.pieces.items():
            ids = [t.id for t in model.tokenize(piece)]
            tokens += count * len(ids)
            used.update(ids)
            if unk is not None:
                unknown += count * ids.count(unk)
        return HeldoutScore(tokens, unknown, len(used))

    def score_bpe_prefixes(self, tok: Tokenizer, merges_kept: Sequence[int]) -> list[HeldoutScore]:
        """Scores of the BPE models made of the first ``k`` merges of ``tok``'s model, for each ``k``
        (their vocabularies being prefixes of ``tok``'s, ids are ``tok``'s ids)."""
        vocab = tok.get_vocab()
        unk = unk_id(tok)
        if not isinstance(tok.model, BPE):
            raise TokenizerError(f"only a BPE model has merges to keep a prefix of, not {type(tok.model).__name__}")
        segment = _PrefixSegmenter(tok.model, merges_kept)
        tokens = [sum(self.specials.values())] * len(merges_kept)
        unknown = [0] * len(merges_kept)
        used: list[set[int]] = [set(self.specials) for _ in merges_kept]
        for piece, count in self.pieces.items():
            previous: Any = None
            for i, symbols in enumerate(segment(piece)):
                if symbols is not previous:  # consecutive sizes often share a segmentation
                    previous = symbols
                    ids = [vocab[s] for s in symbols]
                    unknowns = 0 if unk is None else ids.count(unk)
                tokens[i] += count * len(ids)
                unknown[i] += count * unknowns
                used[i].update(ids)
        return [HeldoutScore(t, u, len(d)) for t, u, d in zip(tokens, unknown, used)]


class _PrefixSegmenter:
    """The symbols of a piece under the first ``k`` merges of a BPE model, for several ``k`` in one
    pass: the encoder's loop (lowest rank first, the leftmost on ties) with a snapshot each time the
    next merge's rank reaches a cut."""

    def __init__(self, model: BPE, merges_kept: Sequence[int]) -> None:
        self.model = model
        self.cuts = sorted(merges_kept)
        self.order = [self.cuts.index(k) for k in merges_kept]
        prefix = model.continuing_subword_prefix
        # A pair merges into left + right, the right losing its continuing-subword prefix.
        self.rank: dict[tuple[str, str], tuple[int, str]] = {}
        for r, (a, b) in enumerate(model.merges):
            merged = a + (b[len(prefix):] if prefix and b.startswith(prefix) and b != prefix else b)
            self.rank.setdefault((a, b), (r, merged))
        # The scan below knows the merge-list rule only; other rules ask the model itself.
        self.exact = model.merge_ranks is MergeRanks.MERGES and not model.ignore_merges
        self.plain = prefix is None and model.end_of_word_suffix is None
        self.vocab = model.get_vocab()

    def __call__(self, piece: str) -> list[Sequence[str]]:
        if not self.exact or len(piece) > _SCAN_MAX_CHARS:
            return [self.model.segment(piece, max_rank=k) for k in (self.cuts[i] for i in self.order)]
        vocab = self.vocab
        if self.plain and all(c in vocab for c in piece):
            syms = list(piece)
        else:  # prefixes, suffixes and unknown characters: the model's own initial symbols
            syms = self.model.segment(piece, max_rank=0)
        get = self.rank.get
        pairs = [get((syms[i], syms[i + 1])) for i in range(len(syms) - 1)]
        ranks = [_INF if p is None else p[0] for p in pairs]
        cuts, out, snapshot = self.cuts, [], None
        while True:
            best = min(ranks) if ranks else _INF
            while len(out) < len(cuts) and best >= cuts[len(out)]:
                snapshot = snapshot or tuple(syms)
                out.append(snapshot)
            if len(out) == len(cuts):
                return [out[i] for i in self.order]
            i = ranks.index(best)
            new = pairs[i][1]  # type: ignore[index]
            syms[i] = new
            del syms[i + 1], pairs[i], ranks[i]
            if i > 0:
                p = pairs[i - 1] = get((syms[i - 1], new))
                ranks[i - 1] = _INF if p is None else p[0]
            if i < len(syms) - 1:
                p = pairs[i] = get((new, syms[i + 1]))
                ranks[i] = _INF if p is None else p[0]
            snapshot = None
