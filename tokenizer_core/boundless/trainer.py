"""BoundlessBPE training (Schmidt et al., COLM 2025, arXiv 2504.00178): BPE that may also merge two
complete pretokens side by side into a superword, with PickyBPE-style removals.

Two states learn side by side, as in the authors' code. The first (:mod:`~tokenizer_core.removals.words`)
is byte-level BPE over the pretokens (GPT-2's regex, as our BPE). The second
(:mod:`~tokenizer_core.boundless.superwords`) holds the runs of pretokens that may join (letters, spaces,
apostrophes: :mod:`~tokenizer_core.boundless.runs`); a pair of them counts once both are complete, one
token each (a pretoken becomes complete when a merge of the first state makes it whole). Each step
takes the best pair of each state (highest count, ties to the smallest ids) and merges the first
state's if its count is higher, else the superword (a tie goes to the superword, as their code has it).
After a merge inside pretokens of ``(x1, x2)``, ``x1`` then ``x2`` (once when they are one token) goes
from the vocabulary when its Intersection over Self, ``merged / f(x)`` with ``f(x)`` counted before the
merge, is at or above the threshold; its remaining occurrences split into bytes (the paper's choice).
Superwords are never removed (their code's second state has no removals). The vocabulary size counts
present tokens.

>>> r = train_boundless_counts({"ofĠthe": 5, "Ġthe": 1}, vocab_size=263, threshold=None, special_tokens=())
>>> [(e.kind, e.left + e.right, e.count) for e in r.trace]
[('within', 'he', 6), ('within', 'the', 6), ('within', 'Ġthe', 6), ('within', 'of', 5), ('across', 'ofĠthe', 5)]
>>> r.superwords(), r.segmentations()["ofĠthe"]
(['of the'], ['ofĠthe'])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from tokenizer_core.boundless.events import BoundlessTrace, Event, MergeEvent, RemovalEvent
from tokenizer_core.boundless.layout import Layout
from tokenizer_core.boundless.model import BoundlessBPE
from tokenizer_core.boundless.runs import checked_pattern
from tokenizer_core.boundless.superwords import SuperState
from tokenizer_core.errors import TokenizerError
from tokenizer_core.gc_pause import paused_gc
from tokenizer_core.options import removal_threshold
from tokenizer_core.removals.checks import check_vocab_size, checked_byte_counts
from tokenizer_core.removals.events import EventsResult
from tokenizer_core.removals.pairs import pair
from tokenizer_core.removals.training import MAX_MERGES_PER_SLOT, byte_table, merged_token, present_vocab, stop_reason
from tokenizer_core.removals.words import Change, WordState
from tokenizer_core.text.byte_level import GPT2_PATTERN
from tokenizer_core.text.decoders import ByteLevelDecoder
from tokenizer_core.types import ProgressCallback, no_progress

#: ``vocab_size`` of the registered trainer when the options give none (as our BPE).
DEFAULT_VOCAB_SIZE = 30_000


@dataclass
class BoundlessResult(EventsResult):
    """What :func:`train_boundless` learned.

    ``vocab`` maps the present tokens to ids (special tokens, the 256 byte symbols, then merged tokens
    in the order they were first made); ``merges`` every merge in order and ``kinds`` whether each was
    ``"within"`` a pretoken or ``"across"`` two (a superword); ``trace`` every event; ``model`` the model.
    """

    vocab: dict[str, int]
    merges: list[tuple[str, str]]
    kinds: list[str]
    model: BoundlessBPE
    trace: BoundlessTrace
    special_tokens: tuple[str, ...]
    threshold: Optional[float]
    allow_superwords: bool
    _layout: Layout = field(repr=False)

    def superwords(self) -> list[str]:
        """The text of each superword merge's token, in merge order."""
        decode = ByteLevelDecoder().decode
        return [decode([a + b]) for (a, b), k in zip(self.merges, self.kinds) if k == "across"]

    def segmentations(self) -> dict[str, list[str]]:
        """Each counted run (byte symbols) as training left it: superwords, and pretokens as the
        first state split them."""
        return self._layout.segmentations()


def count_runs(lines: Iterable[str], *, normalizer: Any = None, pattern: str = GPT2_PATTERN,
               workers: Optional[int] = None, progress: ProgressCallback = no_progress) -> Any:
    """The runs of ``lines`` (each line on its own, after ``normalizer``) with their counts: the
    pieces of the :class:`~tokenizer_core.boundless.runs.BoundlessRuns` pre-tokenizer.

    >>> sorted(count_runs(["of the cat, of the\\n"]).items())
    [(',', 1), ('ofĠtheĠcat', 1), ('Ċ', 1), ('ĠofĠthe', 1)]
    """
    from tokenizer_core.boundless.runs import BoundlessRuns
    from tokenizer_core.text.counting import count_words

    return count_words(lines, normalizer=normalizer, pre_tokenizer=BoundlessRuns(pattern=pattern), workers=workers,
                       progress=progress)


def train_boundless(
    lines: Iterable[str],
    *,
    vocab_size: int,
    threshold: Optional[float] = 0.9,
    superwords: bool = True,
    special_tokens: Iterable[str] = ("<|endoftext|>",),
    progress: ProgressCallback = no_progress,
) -> BoundlessResult:
    """Train BoundlessBPE on text ``lines`` (each keeps its newline): byte-level, split as our
    byte-level BPE splits (GPT-2's regex), to ``vocab_size`` present tokens (special tokens included)."""
    removal_threshold(threshold)
    progress(0, 0, "counting runs")
    return train_boundless_counts(count_runs(lines, progress=progress), vocab_size=vocab_size, threshold=threshold,
                                  superwords=superwords, special_tokens=special_tokens, progress=progress)


def train_boundless_counts(
    run_counts: Mapping[str, int],
    *,
    vocab_size: int,
    threshold: Optional[float] = 0.9,
    superwords: bool = True,
    special_tokens: Iterable[str] = ("<|endoftext|>",),
    pattern: str = GPT2_PATTERN,
    progress: ProgressCallback = no_progress,
) -> BoundlessResult:
    """:func:`train_boundless` from :func:`count_runs`' counts (byte symbols, e.g. ``"ofĠthe"``)."""
    threshold = removal_threshold(threshold)
    check_vocab_size(vocab_size)
    if not isinstance(superwords, bool):
        raise TokenizerError(f"superwords must be True or False, got {superwords!r}")
    run_counts = checked_byte_counts(run_counts, model="BoundlessBPE")
    with paused_gc():
        return _Training(run_counts, vocab_size=vocab_size, threshold=threshold, allow=superwords,
                         special_tokens=tuple(dict.fromkeys(special_tokens)), pattern=checked_pattern(pattern),
                         progress=progress).run()


class _Training:
    """One training run: the two states, the symbol table, the events so far."""

    def __init__(self, run_counts: Mapping[str, int], *, vocab_size: int, threshold: Optional[float], allow: bool,
                 special_tokens: tuple[str, ...], pattern: str, progress: ProgressCallback) -> None:
        self.table = table = byte_table(special_tokens)
        self.n_initial = len(table)
        self.layout = layout = Layout(run_counts, pattern=pattern)
        ids = table.tok_to_id
        self.words = WordState([[ids[ch] for ch in p] for p in layout.pieces], list(layout.piece_counts),
                               n_tokens=len(table))
        self.supers = SuperState(layout.runs, list(layout.run_counts), n_pieces=len(layout.pieces))
        layout.attach(self.words, self.supers, table.id_to_tok)
        self.vocab_size, self.threshold, self.allow = vocab_size, threshold, allow
        self.special_tokens, self.pattern, self.progress = special_tokens, pattern, progress
        self.present = [True] * len(table)
        self.size = len(table)
        self.tokens = sum(len(p) * c for p, c in zip(layout.pieces, layout.piece_counts))
        self.events: list[Event] = []
        self.merges: list[tuple[str, str]] = []
        self.kinds: list[str] = []
        if allow:  # a pretoken of one byte is complete from the start (the authors' code forgot these)
            for p, text in enumerate(layout.pieces):
                if len(text) == 1 and layout.joinable[p]:
                    self.supers.unlock(p, ids[text])

    def run(self) -> BoundlessResult:
        slots = max(self.vocab_size - self.n_initial, 0)
        report_every, max_merges = max(1, slots // 200), MAX_MERGES_PER_SLOT * slots
        self.progress(0, slots, "merging pairs")
        while True:
            stop = self._stop_reason(max_merges)
            if stop:
                break
            within = self.words.pairs.best()
            across = self.supers.pairs.best() if self.allow else None
            if within is None and across is None:
                stop = "no pairs left to merge: every pretoken is one token and no two may join"
                break
            if across is None or (within is not None and within[1] > across[1]):
                self._within(*within)  # type: ignore[misc]
            else:
                self._across(*across)
            if len(self.merges) % report_every == 0:
                self.progress(min(self.size - self.n_initial, slots), slots, "merging pairs")
        self.progress(min(self.size - self.n_initial, slots), slots, "done")
        names = self.table.id_to_tok
        final = present_vocab(names, self.present)
        trace = BoundlessTrace(self.events, stop_reason=stop)
        model = BoundlessBPE(final, trace.events(), pattern=self.pattern)
        model.training_trace = trace
        return BoundlessResult(final, self.merges, self.kinds, model, trace, self.special_tokens, self.threshold,
                               self.allow, self.layout)

    def _stop_reason(self, max_merges: int) -> str:
        """Why training stops before the next merge, or "" to go on."""
        return stop_reason(size=self.size, vocab_size=self.vocab_size, n_initial=self.n_initial,
                           n_merges=len(self.merges), max_merges=max_merges)

    def _token(self, a: int, b: int) -> tuple[int, str]:
        """The id of the token ``a b`` spells and how it stood: "new", "restored" (it was removed: it
        comes back with its id) or "present" (another pair made it)."""
        tid, status = merged_token(self.table, self.present, a, b)
        if status == "new":
            self.words.grow(len(self.table))
        if status != "present":
            self.size += 1
        return tid, status

    def _changed(self, changed: list[Change], token: int) -> None:
        """Count the corpus' tokens again where pretokens changed length, and tell the second state
        which became one token (``token``) or stopped being one."""
        counts, absorbed, joinable = self.layout.piece_counts, self.supers.absorbed, self.layout.joinable
        for p, before, after in changed:
            self.tokens += (counts[p] - absorbed[p]) * (after - before)
            if self.allow and joinable[p]:
                if after == 1:
                    self.supers.unlock(p, token)
                elif before == 1:
                    self.supers.lock(p)

    def _record(self, kind: str, a: int, b: int, new: int, count: int, merged: int, status: str) -> None:
        names = self.table.id_to_tok
        self.merges.append((names[a], names[b]))
        self.kinds.append(kind)
        self.events.append(MergeEvent(len(self.events), len(self.merges), kind, names[a], names[b], names[new],
                                      count, merged, status, self.size, self.tokens))

    def _within(self, k: int, count: int) -> None:
        a, b = pair(k)
        freq = self.words.freq
        before = {a: freq[a], b: freq[b]}  # the IoS reads counts from before the merge (the paper's f(x))
        new, status = self._token(a, b)
        merged, changed = self.words.merge(a, b, new)
        self._changed(changed, new)
        self._record("within", a, b, new, count, merged, status)
        if self.threshold is None:
            return
        for x in dict.fromkeys((a, b)):
            ios = merged / before[x]
            if x < self.n_initial or ios < self.threshold:
                continue
            self._remove(x, ios, merged, before[x], (a, b))

    def _remove(self, x: int, ios: float, merged: int, before: int, trigger: tuple[int, int]) -> None:
        names, ids = self.table.id_to_tok, self.table.tok_to_id
        self.present[x] = False
        self.size -= 1
        split = tuple(names[x])  # its bytes, as the paper splits a deleted token
        remaining, changed = self.words.split(x, [ids[ch] for ch in split])
        self._changed(changed, x)
        self.events.append(RemovalEvent(len(self.events), len(self.merges), names[x], ios, merged, before, remaining,
                                        split, (names[trigger[0]], names[trigger[1]]), self.size, self.tokens))

    def _across(self, k: int, count: int) -> None:
        a, b = pair(k)
        new, status = self._token(a, b)
        merged = self.supers.merge(a, b, new)
        self.tokens -= merged
        self._record("across", a, b, new, count, merged, status)
