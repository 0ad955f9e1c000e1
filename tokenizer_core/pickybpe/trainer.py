"""PickyBPE training (Chizhov et al., EMNLP 2024, arXiv 2409.04599): BPE that removes the tokens its
merges used up.

Each step merges the most frequent pair ``(x1, x2)`` (ties to the smallest ids, as our BPE), then
checks ``x1`` and then ``x2`` (once when they are one token) by their Intersection over Self::

    IoS(x | x1, x2) = merged / (merged + remaining)

``merged`` is how many pairs the merge joined and ``remaining`` how many occurrences of ``x`` are
left after it: the paper's ``f(x1, x2) / f(x)`` with ``f(x)`` counted before the merge, computed as
the authors' code computes it (which differs from the formula only when ``x1 = x2``, where each pair
used two, and for ``x2`` when removing ``x1`` gave copies of ``x2`` back). A token of more than one
symbol whose IoS is *above* the threshold is removed: its remaining occurrences are split back into
the pair it was first made from (parts removed since are split again). A later merge may make a
removed token again (it comes back, with its old id). The vocabulary size counts present tokens, so
training goes on until that many are present.

>>> r = train_pickybpe_counts({"abc": 10, "ab": 1}, vocab_size=258, threshold=0.9, special_tokens=())
>>> [(e.kind, e.token) for e in r.trace]
[('merge', 'ab'), ('merge', 'abc'), ('remove', 'ab'), ('merge', 'ab')]
>>> r.trace.removals()[0].ios == 10 / 11, r.trace[3].status, r.model.segment("abc")
(True, 'restored', ['abc'])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from tokenizer_core.bpe.symbols import SymbolTable
from tokenizer_core.errors import TokenizerError
from tokenizer_core.gc_pause import paused_gc
from tokenizer_core.options import ios_threshold
from tokenizer_core.pickybpe.events import Event, MergeEvent, PickyTrace, RemovalEvent
from tokenizer_core.pickybpe.model import PickyBPE
from tokenizer_core.pickybpe.state import TrainingState
from tokenizer_core.removals.checks import check_vocab_size, checked_byte_counts
from tokenizer_core.removals.events import EventsResult
from tokenizer_core.removals.training import MAX_MERGES_PER_SLOT, byte_table, merged_token, present_vocab, stop_reason
from tokenizer_core.types import ProgressCallback, no_progress

if TYPE_CHECKING:
    from tokenizer_core.options import TrainOptions
    from tokenizer_core.parts import TokenizerParts

#: ``vocab_size`` of the registered trainer when the options give none (as our BPE).
DEFAULT_VOCAB_SIZE = 30_000


@dataclass
class PickyBpeResult(EventsResult):
    """What :func:`train_pickybpe` learned.

    ``vocab`` maps the present tokens to ids (special tokens, the 256 byte symbols, then merged
    tokens by the order they were first made); ``merges`` every merge in order, removed tokens'
    included; ``trace`` every event; ``model`` the tokenizer's model.
    """

    vocab: dict[str, int]
    merges: list[tuple[str, str]]
    model: PickyBPE
    trace: PickyTrace
    special_tokens: tuple[str, ...]
    threshold: float
    # The training words and their final ids (for segmentations()), kept out of the repr.
    _words: list[str] = field(repr=False)
    _final: list[list[int]] = field(repr=False)
    _names: list[str] = field(repr=False)

    def segmentations(self) -> dict[str, list[str]]:
        """Each training word (byte-level piece) as training left it."""
        names = self._names
        return {w: [names[t] for t in ids] for w, ids in zip(self._words, self._final)}


def train_pickybpe(
    lines: Iterable[str],
    *,
    vocab_size: int,
    threshold: float,
    special_tokens: Iterable[str] = ("<|endoftext|>",),
    progress: ProgressCallback = no_progress,
) -> PickyBpeResult:
    """Train PickyBPE on text ``lines`` (each keeps its newline): byte-level, split as our byte-level
    BPE splits (GPT-2's regex), to ``vocab_size`` present tokens (special tokens included)."""
    from tokenizer_core.text.counting import count_words
    from tokenizer_core.text.pre_tokenizers import ByteLevel

    ios_threshold(threshold)
    progress(0, 0, "counting words")
    counts = count_words(lines, pre_tokenizer=ByteLevel(add_prefix_space=False), progress=progress)
    return train_pickybpe_counts(counts, vocab_size=vocab_size, threshold=threshold, special_tokens=special_tokens,
                                 progress=progress)


def train_pickybpe_counts(
    word_counts: Mapping[str, int],
    *,
    vocab_size: int,
    threshold: float,
    special_tokens: Iterable[str] = ("<|endoftext|>",),
    progress: ProgressCallback = no_progress,
) -> PickyBpeResult:
    """:func:`train_pickybpe` from ``{piece: count}`` (pieces already byte-mapped, e.g. ``"Ġthe"``)."""
    threshold = ios_threshold(threshold)
    check_vocab_size(vocab_size)
    word_counts = checked_byte_counts(word_counts, model="PickyBPE")
    with paused_gc():
        return _train(word_counts, vocab_size=vocab_size, threshold=threshold,
                      special_tokens=tuple(dict.fromkeys(special_tokens)), progress=progress)


def _train(word_counts: Mapping[str, int], *, vocab_size: int, threshold: float, special_tokens: tuple[str, ...],
           progress: ProgressCallback) -> PickyBpeResult:
    table = byte_table(special_tokens)
    n_initial = len(table)
    ids = table.tok_to_id
    words = [[ids[ch] for ch in w] for w in word_counts]
    state = TrainingState(words, list(word_counts.values()), n_tokens=n_initial)
    names = table.id_to_tok
    present = [True] * n_initial
    events: list[Event] = []
    size = n_initial
    slots = max(vocab_size - n_initial, 0)
    report_every = max(1, slots // 200)
    max_merges = MAX_MERGES_PER_SLOT * slots
    merges: list[tuple[str, str]] = []
    progress(0, slots, "merging pairs")
    while True:
        stop = stop_reason(size=size, vocab_size=vocab_size, n_initial=n_initial, n_merges=len(merges),
                           max_merges=max_merges)
        if stop:
            break
        best = state.best()
        if best is None:
            stop = "no pairs left to merge: every word is a single token"
            break
        key, count = best
        a, b = state.pair(key)
        new, status = _merged_token(table, state, present, a, b)
        if status != "present":
            size += 1
        merged = state.merge(a, b, new)
        merges.append((names[a], names[b]))
        events.append(MergeEvent(len(events), len(merges), names[a], names[b], names[new], count, merged, status,
                                 size, state.tokens))
        for x in (a,) if a == b else (a, b):
            remaining = state.freq[x]
            ios = merged / (merged + remaining)  # the authors' float, compared as they compare it
            if x < n_initial or ios <= threshold:
                continue
            present[x] = False
            split = state.expand(x, present)
            state.remove(x, split)
            size -= 1
            events.append(RemovalEvent(len(events), len(merges), names[x], ios, merged, remaining,
                                       tuple(names[t] for t in split), (names[a], names[b]), size, state.tokens))
        if len(merges) % report_every == 0:
            progress(min(size - n_initial, slots), slots, "merging pairs")
    progress(min(size - n_initial, slots), slots, "done")
    final = present_vocab(names, present)
    trace = PickyTrace(events, stop_reason=stop)
    model = PickyBPE(final, trace.events())
    model.training_trace = trace
    return PickyBpeResult(final, merges, model, trace, special_tokens, threshold, list(word_counts), state.words,
                          names)


def _merged_token(table: SymbolTable, state: TrainingState, present: list[bool], a: int, b: int) -> tuple[int, str]:
    """The id of the token ``a b`` spells and how it stood: "new", "restored" (it was removed: it comes
    back with its id and the pair it was first made from) or "present" (another pair made it)."""
    tid, status = merged_token(table, present, a, b)
    if status == "new":
        state.add_token((a, b))
    return tid, status


def train_pickybpe_parts(lines: Iterable[str], *, options: "TrainOptions",
                         progress: ProgressCallback = no_progress) -> "TokenizerParts":
    """The ``pickybpe`` trainer for the CLI and the app: byte-level (GPT-2's regex, or ``cl100k-regex``),
    GPT-2's decoder; ``options.vocab_size`` (30,000 when unset) and ``options.pickybpe.threshold``.

    >>> from tokenizer_core.options import PickyBpeOptions, TrainOptions
    >>> from tokenizer_core.pipeline import Tokenizer
    >>> lines = ["abc abc abc ab\\n"]
    >>> opts = TrainOptions(vocab_size=258, special_tokens=(), pickybpe=PickyBpeOptions(threshold=0.7))
    >>> tok = Tokenizer.from_parts(train_pickybpe_parts(lines, options=opts))
    >>> tok.encode("abc ab").tokens, tok.model.removed_tokens()
    (['a', 'b', 'c', 'Ġab'], ['ab'])
    """
    from tokenizer_core.bpe.trainer import bpe_stages
    from tokenizer_core.text.counting import count_words

    _no_merge_budget(options)  # before the corpus is read
    normalizer, pre = bpe_stages(replace(options, byte_level=True))
    progress(0, 0, "counting words")
    counts = count_words(lines, normalizer=normalizer, pre_tokenizer=pre, progress=progress)
    return train_pickybpe_from_counts(counts, options=options, progress=progress)[0]


def train_pickybpe_from_counts(word_counts: Mapping[str, int], *, options: "TrainOptions",
                               progress: ProgressCallback = no_progress) -> tuple["TokenizerParts", PickyBpeResult]:
    """:func:`train_pickybpe_parts` from word counts made with its stages (``bpe_stages`` of the options,
    byte-level), and the result with its trace (what the BPE page steps through).

    >>> from tokenizer_core.options import PickyBpeOptions, TrainOptions
    >>> opts = TrainOptions(vocab_size=258, special_tokens=(), pickybpe=PickyBpeOptions(threshold=0.9))
    >>> parts, result = train_pickybpe_from_counts({"abc": 10, "ab": 1}, options=opts)
    >>> [(e.kind, e.token) for e in result.trace][:3]
    [('merge', 'ab'), ('merge', 'abc'), ('remove', 'ab')]
    """
    from tokenizer_core.bpe.trainer import bpe_stages
    from tokenizer_core.parts import TokenizerParts
    from tokenizer_core.text.decoders import ByteLevelDecoder

    _no_merge_budget(options)
    normalizer, pre = bpe_stages(replace(options, byte_level=True))
    result = train_pickybpe_counts(word_counts, vocab_size=options.vocab_size or DEFAULT_VOCAB_SIZE,
                                   threshold=options.pickybpe.threshold, special_tokens=options.special_tokens,
                                   progress=progress)
    parts = TokenizerParts(
        model=result.model, normalizer=normalizer, pre_tokenizer=pre, decoder=ByteLevelDecoder(),
        special_tokens=result.special_tokens,
        metadata={"trainer": "pickybpe", "byte_level": True, "num_merges": len(result.merges),
                  "removals": len(result.trace.removals()), "threshold": result.threshold,
                  "stop_reason": result.stop_reason},
    )
    return parts, result


def _no_merge_budget(options: "TrainOptions") -> None:
    if options.num_merges is not None:
        raise TokenizerError("PickyBPE trains to a vocabulary size (removals free room for more merges); "
                             "give vocab_size, not num_merges")
