"""SuperBPE training (Liu et al., 2025, arXiv 2503.13423): BPE in two stages, subwords then superwords.

Stage 1 is byte-level BPE with whitespace pre-tokenization (:func:`~tokenizer_core.superbpe.stages.stage1_pre_tokenizer`)
up to the *transition*, a vocabulary size. Stage 2 keeps those merges and goes on over whole lines
(:func:`~tokenizer_core.superbpe.stages.stage2_pre_tokenizer`), so the merges it learns may cross
spaces: ``Ġof`` + ``Ġthe``. As in the authors' code (a fork of ``tokenizers``' trainer), the pair of
highest count wins and ties go to the smallest ids; stage 2 starts from its words as stage 1's merges,
replayed in order, leave them (:mod:`tokenizer_core.superbpe.inherit`).

One corpus pass counts stage 2's pieces; stage 1's are read off them, since every stage-2 piece is a
run of whole stage-1 pieces.

>>> lines = ["of the cat and of the dog\\n"] * 3 + ["the end of the day\\n"]
>>> r = train_superbpe(lines, vocab_size=263, transition=260)
>>> r.merges[:r.transition_step]
[('h', 'e'), ('t', 'he'), ('o', 'f')]
>>> r.merges[r.transition_step:], r.superwords()
([('the', 'Ġ'), ('Ġ', 'theĠ'), ('of', 'ĠtheĠ')], ['the ', ' the ', 'of the '])
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from tokenizer_core.bpe.merge_loop import MergeRun, run_merges
from tokenizer_core.bpe.symbols import SymbolTable, symbolize
from tokenizer_core.bpe.trace import BpeTrace
from tokenizer_core.errors import TokenizerError
from tokenizer_core.gc_pause import paused_gc
from tokenizer_core.superbpe.inherit import Assembler
from tokenizer_core.superbpe.stages import RawStage2, crosses_space, stage1_pieces
from tokenizer_core.text.byte_level import byte_level_alphabet, bytes_to_symbols
from tokenizer_core.text.decoders import ByteLevelDecoder
from tokenizer_core.text.surrogates import utf8_of
from tokenizer_core.types import ProgressCallback, no_progress

if TYPE_CHECKING:
    from tokenizer_core.bpe.model import BPE
    from tokenizer_core.options import TrainOptions
    from tokenizer_core.parts import TokenizerParts


@dataclass
class SuperBpeResult:
    """What :func:`train_superbpe` learned.

    ``merges`` in rank order (stage 1's first ``transition_step``, then stage 2's); ``trace`` one
    record per merge, both stages; ``stage2_tokens`` the corpus length in tokens when stage 2 began;
    ``clusters`` how many distinct runs of pieces were replayed across a border at the hand-over.
    """

    vocab: dict[str, int]
    merges: list[tuple[str, str]]
    model: "BPE"
    trace: BpeTrace
    special_tokens: tuple[str, ...]
    transition: int
    transition_step: int
    stage2_tokens: int
    clusters: int

    @property
    def stop_reason(self) -> str:
        return self.trace.stop_reason

    def superwords(self) -> list[str]:
        """The learned tokens that bridge whitespace (decoded text), in merge order."""
        decode = ByteLevelDecoder().decode_chain
        out = []
        for left, right in self.merges[self.transition_step:]:
            text = "".join(decode([left + right]))
            if crosses_space(text):
                out.append(text)
        return out


def count_stage2(lines: Iterable[str], *, normalizer: Any = None, workers: Optional[int] = None,
                 progress: ProgressCallback = no_progress) -> Counter[str]:
    """Stage 2's pieces of ``lines`` (raw text, after ``normalizer``) with their counts: the one pass
    over the corpus.

    >>> sorted(count_stage2(["of the\\n", "of the\\n", "in 2024\\n"]).items())
    [('\\n', 1), ('024', 1), ('2', 1), ('in ', 1), ('of the\\n', 2)]
    """
    from tokenizer_core.text.counting import count_words

    return count_words(lines, normalizer=normalizer, pre_tokenizer=RawStage2(), workers=workers, progress=progress)


def train_superbpe(
    lines: Iterable[str],
    *,
    vocab_size: int,
    transition: int,
    special_tokens: Iterable[str] = ("<|endoftext|>",),
    top_k: int = 10,
    keep_words: int = 1000,
    progress: ProgressCallback = no_progress,
) -> SuperBpeResult:
    """Train SuperBPE on text ``lines`` (each keeps its newline) to ``vocab_size`` tokens, stage 2 from
    vocabulary size ``transition`` on (special tokens counted in both)."""
    progress(0, 0, "counting pieces")
    return train_superbpe_counts(count_stage2(lines), vocab_size=vocab_size, transition=transition,
                                 special_tokens=special_tokens, top_k=top_k, keep_words=keep_words,
                                 progress=progress)


def train_superbpe_counts(
    stage2_counts: Mapping[str, int],
    *,
    vocab_size: int,
    transition: int,
    special_tokens: Iterable[str] = ("<|endoftext|>",),
    top_k: int = 10,
    keep_words: int = 1000,
    progress: ProgressCallback = no_progress,
) -> SuperBpeResult:
    """:func:`train_superbpe` from :func:`count_stage2`'s counts."""
    for name, value in (("vocab_size", vocab_size), ("transition", transition)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise TokenizerError(f"{name} must be a positive whole number, got {value!r}")
    if not any(stage2_counts.values()):
        raise TokenizerError("the training text has no words; give a corpus with some text in it")
    with paused_gc():
        return _train(stage2_counts, vocab_size=vocab_size, transition=min(transition, vocab_size),
                      special_tokens=tuple(dict.fromkeys(special_tokens)), top_k=top_k, keep_words=keep_words,
                      progress=progress)


def _train(stage2_counts: Mapping[str, int], *, vocab_size: int, transition: int, special_tokens: tuple[str, ...],
           top_k: int, keep_words: int, progress: ProgressCallback) -> SuperBpeResult:
    # Stage 1's pieces (byte-level) of each stage-2 piece, and their counts.
    split = {p: [bytes_to_symbols(utf8_of(q)) for q in stage1_pieces(p)] for p in stage2_counts}
    stage1_counts: Counter[str] = Counter()
    for p, c in stage2_counts.items():
        for q in split[p]:
            stage1_counts[q] += c

    table = SymbolTable(special_tokens)
    alphabet = byte_level_alphabet()
    for ch in alphabet:
        table.add(ch)
    upper = len(table) + vocab_size + 1
    shift = max(upper.bit_length(), 16)

    def stage(done_before: int, total: int) -> ProgressCallback:
        return lambda d, t, m: progress(done_before + d, total, m)

    plan = max(vocab_size - len(table), 0)
    words, counts = symbolize(stage1_counts, table, prefix=None, suffix=None, suffix_as_symbol=False)
    first = run_merges(words, counts, table, shift=shift, vocab_size=transition, top_k=top_k,
                       progress=stage(0, plan), final_words=True)
    step = len(first.merges)
    assert first.words is not None
    segmented = dict(zip(stage1_counts, first.words))

    # The hand-over: stage 2's words from stage 1's segmentations (see inherit.py).
    progress(step, plan, "stage 2: joining the pieces into lines")
    ranks = {m: r for r, m in reversed(list(enumerate(first.merges)))}  # a pair listed twice keeps its first rank
    assembler = Assembler(segmented=segmented, ranks=ranks, merges=first.merges, ids=table.tok_to_id)
    words2 = [assembler.word(split[p]) for p in stage2_counts]
    counts2 = list(stage2_counts.values())
    # A transition at the vocabulary size is plain BPE, even when stage 1 ran out of pairs first.
    second = run_merges(words2, counts2, table, shift=shift, vocab_size=vocab_size, top_k=top_k,
                        num_merges=0 if transition >= vocab_size else None, progress=stage(step, plan))
    return _result(first, second, table, alphabet, shift, stage1_counts, special_tokens=special_tokens,
                   transition=transition, keep_words=keep_words, clusters=assembler.clusters, top_k=top_k)


def _result(first: MergeRun, second: MergeRun, table: SymbolTable, alphabet: list[str], shift: int,
            stage1_counts: Mapping[str, int], *, special_tokens: tuple[str, ...], transition: int, keep_words: int,
            clusters: int, top_k: int) -> SuperBpeResult:
    from tokenizer_core.bpe.model import BPE

    merges = first.merges + second.merges
    vocab = dict(table.tok_to_id)
    model = BPE(vocab, merges)
    top_words = heapq.nsmallest(keep_words, stage1_counts.items(), key=lambda wc: (-wc[1], wc[0]))
    trace = BpeTrace(first.steps + second.steps, table.id_to_tok, shift, initial_tokens=first.initial_tokens,
                     alphabet=alphabet, stop_reason=second.stop_reason, word_counts=top_words, model=model,
                     tie_break="ids", top_k=top_k)
    model.training_trace = trace
    return SuperBpeResult(vocab, merges, model, trace, special_tokens, transition=transition,
                          transition_step=len(first.merges), stage2_tokens=second.initial_tokens, clusters=clusters)


def train_superbpe_parts(lines: Iterable[str], *, options: "TrainOptions",
                         progress: ProgressCallback = no_progress) -> "TokenizerParts":
    """The ``superbpe`` trainer for the CLI and the app: byte-level, stage 2's pre-tokenizer, GPT-2's
    decoder; ``options.vocab_size`` (30,000 when unset) and ``options.superbpe``'s transition.

    >>> from tokenizer_core.options import SuperBpeOptions, TrainOptions
    >>> from tokenizer_core.pipeline import Tokenizer
    >>> lines = ["of the cat and of the dog\\n"] * 3
    >>> opts = TrainOptions(vocab_size=263, special_tokens=(), superbpe=SuperBpeOptions(transition=260))
    >>> Tokenizer.from_parts(train_superbpe_parts(lines, options=opts)).encode("of the dog").tokens
    ['ofĠtheĠ', 'd', 'o', 'g']
    """
    progress(0, 0, "counting pieces")
    counts = count_stage2(lines, normalizer=superbpe_normalizer(options), progress=progress)
    return train_superbpe_from_counts(counts, options=options, progress=progress)[0]


def superbpe_normalizer(options: "TrainOptions") -> Any:
    """The normalizer ``options`` train with (lowercase or none), which :func:`count_stage2` counts after."""
    from tokenizer_core.text.normalizers import Lowercase

    return Lowercase() if options.lowercase else None


def train_superbpe_from_counts(stage2_counts: Mapping[str, int], *, options: "TrainOptions",
                               progress: ProgressCallback = no_progress) -> tuple["TokenizerParts", SuperBpeResult]:
    """:func:`train_superbpe_parts` from :func:`count_stage2`'s counts (made with
    :func:`superbpe_normalizer`), and the training's result with its trace (what the BPE page steps
    through).

    >>> from tokenizer_core.options import SuperBpeOptions, TrainOptions
    >>> opts = TrainOptions(vocab_size=258, special_tokens=(), superbpe=SuperBpeOptions(transition=257))
    >>> parts, result = train_superbpe_from_counts({"of the\\n": 3, "the ": 2}, options=opts)
    >>> result.merges, result.transition_step
    ([('h', 'e'), ('t', 'he')], 1)
    """
    from tokenizer_core.parts import TokenizerParts
    from tokenizer_core.superbpe.stages import stage2_pre_tokenizer

    if options.num_merges is not None:
        raise TokenizerError("SuperBPE trains to a vocabulary size; give vocab_size, not num_merges")
    vocab_size = options.vocab_size or 30_000
    transition = options.superbpe.transition_for(vocab_size)
    result = train_superbpe_counts(stage2_counts, vocab_size=vocab_size, transition=transition,
                                   special_tokens=options.special_tokens, top_k=options.top_k,
                                   keep_words=options.bpe.keep_words, progress=progress)
    parts = TokenizerParts(
        model=result.model, normalizer=superbpe_normalizer(options), pre_tokenizer=stage2_pre_tokenizer(),
        decoder=ByteLevelDecoder(), special_tokens=result.special_tokens,
        metadata={"trainer": "superbpe", "byte_level": True, "num_merges": len(result.merges),
                  "stop_reason": result.stop_reason, "transition": result.transition,
                  "transition_step": result.transition_step, "superwords": len(result.superwords())},
    )
    return parts, result
