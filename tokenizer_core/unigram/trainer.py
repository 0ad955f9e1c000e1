"""Training a Unigram language model the SentencePiece way (Kudo 2018).

0. **Characters**: the most frequent characters covering ``character_coverage`` of the text are the alphabet.
   SentencePiece's default coverage is 0.9995. The rarest rest become unknown, and words are cut at them
   (see :mod:`~tokenizer_core.unigram.coverage`).
1. **Seed**: every substring of at most ``max_piece_length`` characters that occurs twice or more and branches.
   It branches as a node of SentencePiece's suffix array over the lines' UTF-8 bytes does: the characters after it
   differ in their first byte. A word's end is followed by "▁" mid-line or by the line's end. The seed is the best
   ``seed_size`` of these by ``frequency * length``, plus every character. A piece may hold "▁" only at its start.
   Like SentencePiece's defaults, a piece may not mix Unicode scripts: its letters share one script, and digits and
   punctuation count as "common".
2. **EM**: the E-step runs forward-backward over every distinct word's lattice and collects expected piece counts.
   The M-step turns them into log-probabilities with SentencePiece's Bayesian update
   ``digamma(count) - digamma(total)``. It drops pieces expected fewer than 0.5 times.
3. **Prune**: a piece's loss is the loss of corpus likelihood if it were replaced by its best split into other
   pieces. Keep the ``shrinking_factor`` share with the highest loss, then run EM again. Repeat until at most 1.1
   times the whole vocabulary (special tokens included) remains. Then keep the most probable ``vocab_size`` by the
   last EM step's scores; SentencePiece 0.2 runs no EM after the last pruning. Single characters are never removed,
   so every kept character stays representable.

The steps live in their own modules: :mod:`~tokenizer_core.unigram.words` (the packed corpus),
:mod:`~tokenizer_core.unigram.seed`, :mod:`~tokenizer_core.unigram.batched_lattice` (all lattices of the corpus as
flat numpy arrays), :mod:`~tokenizer_core.unigram.em`, :mod:`~tokenizer_core.unigram.pruning` and
:mod:`~tokenizer_core.unigram.results`. With the compiled kernel, :mod:`~tokenizer_core.unigram.native_lattice`
instead builds each word's lattice when a pass needs it. This module runs the rounds and builds the complete
tokenizer.

>>> res = train_unigram({"▁hug": 10, "▁pug": 5, "▁pun": 12, "▁bun": 4, "▁hugs": 5}, vocab_size=12)
>>> len(res.pieces) <= 12, set("▁hugpnbs") <= {p for p, _ in res.pieces}
(True, True)
>>> res.rounds[-1].vocab_size >= 12
True
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any, Optional, Union

import numpy as np

from tokenizer_core.errors import TokenizerError
from tokenizer_core.options import DEFAULT_MAX_WORD_LENGTH, TrainOptions
from tokenizer_core.parts import TokenizerParts
from tokenizer_core.text.counting import count_pieces
from tokenizer_core.types import ProgressCallback, no_progress
from tokenizer_core.unigram.batched_lattice import Lattices, lattice_edges
from tokenizer_core.unigram.coverage import char_counts, required_chars, split_at_rare
from tokenizer_core.unigram.em import EMState, digamma, numpy_state
from tokenizer_core.unigram.line_ends import LineEnds, short_lines
from tokenizer_core.unigram.memory import keep_large_blocks_returnable, return_free_memory
from tokenizer_core.unigram.native_lattice import native_corpus, native_seed
from tokenizer_core.unigram.pruning import finalize, prune
from tokenizer_core.unigram.results import RemovedPiece, UnigramRound, UnigramTrainResult
from tokenizer_core.unigram.words import BOUNDARY, PieceIndex, WordTable, hash_strings

# Re-exported: tests, the app and benchmarks import these from here (the private ones are
# the numpy internals that tests check directly).
__all__ = [
    "BOUNDARY", "DEFAULT_VOCAB_SIZE", "RemovedPiece", "UnigramRound", "UnigramTrainResult", "count_words",
    "digamma", "train_unigram", "train_unigram_parts", "unigram_components",
    "Lattices", "PieceIndex", "WordTable", "lattice_edges", "hash_strings",
]

DEFAULT_VOCAB_SIZE = 8000


def train_unigram(
    word_counts: Union[Mapping[str, int], Iterable[tuple[str, int]]],
    *,
    vocab_size: int,
    max_piece_length: int = 16,
    shrinking_factor: float = 0.75,
    num_sub_iterations: int = 2,
    seed_size: int = 1_000_000,
    split_by_script: bool = True,
    split_digits: bool = False,
    max_word_length: int = DEFAULT_MAX_WORD_LENGTH,
    character_coverage: float = 1.0,
    split_by_number: bool = True,
    progress: ProgressCallback = no_progress,
) -> UnigramTrainResult:
    """Learn ``vocab_size`` pieces (characters included) from word counts.

    Words are pre-tokenized pieces such as ``"▁hello"``; "▁" may start a piece but
    never appear inside one. Words longer than ``max_word_length`` characters only
    contribute their characters (SentencePiece likewise skips over-long sentences).
    If the corpus has fewer candidate pieces than ``vocab_size``, all are kept. Word counts
    carry no unknown token, so ``character_coverage`` defaults to 1.0 here (every character
    kept); :func:`train_unigram_parts` takes SentencePiece's 0.9995 from its options.
    """
    _check_settings(vocab_size=vocab_size, max_piece_length=max_piece_length, shrinking_factor=shrinking_factor,
                    num_sub_iterations=num_sub_iterations)
    return _train_counts(_merged_counts(word_counts), vocab_size=vocab_size, max_piece_length=max_piece_length,
                         shrinking_factor=shrinking_factor, num_sub_iterations=num_sub_iterations,
                         seed_size=seed_size, split_by_script=split_by_script, split_digits=split_digits,
                         max_word_length=max_word_length, progress=progress,
                         character_coverage=character_coverage, split_by_number=split_by_number)


def _train_counts(counts: Counter[str], *, vocab_size: int, max_piece_length: int, shrinking_factor: float,
                  num_sub_iterations: int, seed_size: int, split_by_script: bool, split_digits: bool,
                  max_word_length: int, progress: ProgressCallback, character_coverage: float = 1.0,
                  num_fixed: int = 0, split_by_number: bool = True,
                  line_final: Optional[MutableMapping[str, int]] = None, last_word: Optional[str] = None,
                  ) -> UnigramTrainResult:
    """:func:`train_unigram` on checked settings and counts (as :func:`_merged_counts` gives them),
    which it empties once the corpus is packed: the words' strings and dictionary go early.
    ``line_final`` counts the words' line-final occurrences (see :mod:`.line_ends`), if known (emptied too);
    characters outside ``character_coverage`` are left out (see :mod:`.coverage`).
    """
    keep_large_blocks_returnable()  # freed arrays leave resident memory at once (glibc)
    if character_coverage < 1.0:
        chars = char_counts(counts)
        rare = set(chars) - required_chars(chars, character_coverage=character_coverage)
        if rare:
            split, split_final = split_at_rare(counts, line_final, rare=rare)
            if last_word is not None:  # its last part ends the corpus now (or nothing does)
                last_word = ([*split_at_rare({last_word: 1}, None, rare=rare)[0]] or [None])[-1]
            counts.clear()  # the caller's copies: ``split`` and ``split_final`` replace them
            if line_final is not None:
                line_final.clear()
            counts, line_final = split, split_final
    alphabet = sorted({ch for w in counts for ch in w})
    if vocab_size < len(alphabet):
        raise TokenizerError(
            f"vocab_size {vocab_size} is smaller than the {len(alphabet)} distinct characters of the corpus, "
            "which Unigram always keeps; raise vocab_size"
        )
    words = _training_words(counts, max_word_length=max_word_length)
    final = None if line_final is None else np.array([line_final.get(w, 0) for w in words.words], dtype=np.float64)
    if line_final is not None:
        line_final.clear()  # its words' strings would stay through EM, where training peaks
    at = bisect.bisect_left(words.words, last_word) if last_word is not None else -1
    corpus_last = at if 0 <= at < len(words.words) and words.words[at] == last_word else None
    num_distinct = len(counts)
    counts.clear()  # ``words`` holds what training needs
    runs = words.runs(split_by_script=split_by_script, split_digits=split_digits, split_by_number=split_by_number)

    progress(0, 0, "seeding pieces")
    # The kernel's copy of the words (a few bytes a character) builds each word's lattice when a pass
    # needs it: the per-character arrays go at once, and no lattice of the whole corpus is ever made.
    corpus = native_corpus(words, runs)
    if corpus is not None:
        del runs
        words.drop_positions()
        return_free_memory()
        pieces, lp = native_seed(corpus, counts=words.counts, max_len=max_piece_length, seed_size=seed_size,
                                 line_final=final, corpus_last=corpus_last)
        del final
        state = EMState.from_native(words, corpus, pieces, lp, num_chars=len(alphabet))
    else:
        state = numpy_state(words, runs, max_len=max_piece_length, seed_size=seed_size, line_final=final,
                             corpus_last=corpus_last, num_chars=len(alphabet))
        del runs, final
    # SentencePiece prunes down to 1.1 times the whole vocabulary, its meta pieces included.
    desired = max(vocab_size, int((vocab_size + num_fixed) * 1.1))
    seed_count = len(state.pieces)
    expected_rounds = 1 + max(0, math.ceil(math.log(max(desired, 1) / max(seed_count, 1)) / math.log(shrinking_factor)))
    total_steps = expected_rounds * (num_sub_iterations + 1)
    rounds = _em_rounds(state, desired=desired, shrinking_factor=shrinking_factor,
                        num_sub_iterations=num_sub_iterations, total_steps=total_steps, progress=progress)
    final, cut = finalize(state, target=vocab_size)
    if cut:
        last = rounds[-1]
        rounds[-1] = UnigramRound(last.round, last.vocab_size, last.log_likelihood, last.loss,
                                  last.em_iterations, last.num_tokens, last.removed + tuple(cut))
    progress(total_steps, total_steps, "EM and pruning")
    return UnigramTrainResult(final, rounds, seed_count, alphabet, int(words.counts.sum()), num_distinct)


def _usable_coverage(options: TrainOptions) -> float:
    """``character_coverage``, or 1.0 where a left-out character could not be written at all (no
    unknown token and no byte fallback): then every character stays.
    """
    if options.unk_token is None and not options.byte_fallback:
        return 1.0
    return options.unigram.character_coverage


def _check_settings(*, vocab_size: int, max_piece_length: int, shrinking_factor: float,
                    num_sub_iterations: int) -> None:
    if not isinstance(vocab_size, int) or vocab_size < 1:
        raise TokenizerError(f"vocab_size must be a positive number, got {vocab_size!r}")
    if not 1 <= max_piece_length <= 256:
        raise TokenizerError(f"max_piece_length must be between 1 and 256, got {max_piece_length}")
    if not 0 < shrinking_factor < 1:
        raise TokenizerError(f"shrinking_factor must be between 0 and 1, got {shrinking_factor}")
    if num_sub_iterations < 1:
        raise TokenizerError(f"num_sub_iterations must be at least 1, got {num_sub_iterations}")


def _merged_counts(word_counts: Union[Mapping[str, int], Iterable[tuple[str, int]]]) -> Counter[str]:
    """Positive counts of non-empty words, summed over repeated words (pairs may repeat a word)."""
    items = word_counts.items() if isinstance(word_counts, Mapping) else word_counts
    counts: Counter[str] = Counter()
    for w, c in items:
        if not isinstance(w, str) or isinstance(c, bool) or not isinstance(c, int):
            raise TokenizerError(f"word counts must be (str, int) pairs, got ({w!r:.30}, {c!r})")
        if w and c > 0:
            counts[w] += c
    if not counts:
        raise TokenizerError("the corpus has no words to learn from; give it some text")
    return counts


def _training_words(counts: Counter[str], *, max_word_length: int) -> WordTable:
    """The distinct words EM works on, sorted; an over-long word only adds its characters."""
    # Long words only feed the alphabet: add each of their characters as a one-letter word.
    trainable = Counter({w: c for w, c in counts.items() if len(w) <= max_word_length})
    for w, c in counts.items():
        if len(w) > max_word_length:
            for ch in w:
                trainable[ch] += c
    word_list = sorted(trainable)
    return WordTable(word_list, np.array([trainable[w] for w in word_list], dtype=np.float64))


def _em_rounds(state: EMState, *, desired: int, shrinking_factor: float, num_sub_iterations: int,
               total_steps: int, progress: ProgressCallback) -> list[UnigramRound]:
    """EM then pruning, round after round, until at most ``desired`` pieces remain (or none can go)."""
    total_words = float(state.words.counts.sum())
    rounds: list[UnigramRound] = []
    step = 0
    while True:
        removed: list[RemovedPiece] = []
        loglik = 0.0
        for _ in range(num_sub_iterations):
            loglik, gone = state.em_step()
            removed.extend(gone)
            step += 1
            progress(min(step, total_steps), total_steps, "EM and pruning")
        size = len(state.pieces)
        loss = -loglik / total_words
        if size <= desired:
            num_tokens = int(round(state.viterbi_freq().sum()))
            rounds.append(UnigramRound(len(rounds), size, loglik, loss, num_sub_iterations, num_tokens,
                                       tuple(removed)))
            return rounds
        num_tokens, pruned = prune(state, target=desired, shrinking_factor=shrinking_factor)
        step += 1
        progress(min(step, total_steps), total_steps, "EM and pruning")
        rounds.append(UnigramRound(len(rounds), size, loglik, loss, num_sub_iterations, num_tokens,
                                   tuple(removed + pruned)))
        # Small enough: SentencePiece stops here, and the final cut ranks the pieces by the scores
        # of the last EM step (no EM step after the last pruning).
        if len(state.pieces) == size or len(state.pieces) <= desired:
            return rounds


# ---------------------------------------------------------------------- pipeline
def unigram_components(*, lowercase: bool = False, byte_fallback: bool = False) -> dict[str, Any]:
    """Normalizer, pre-tokenizer and decoder of a SentencePiece-style Unigram tokenizer.

    NFKC (SentencePiece's default ``nmt_nfkc`` is NFKC plus a few extra mappings), then
    whitespace splitting with "▁" put before every word: the same as SentencePiece's
    defaults ``remove_extra_whitespaces`` and ``add_dummy_prefix`` with whitespace-split
    training.

    >>> c = unigram_components()
    >>> c["pre_tokenizer"].words("Hello  world\\n")
    ['▁Hello', '▁world']
    """
    from tokenizer_core.text.decoders import ByteFallbackDecoder, MetaspaceDecoder, SequenceDecoder
    from tokenizer_core.text.normalizers import NFKC, Lowercase
    from tokenizer_core.text.normalizers import Sequence as NormalizerSequence
    from tokenizer_core.text.pre_tokenizers import Metaspace, WhitespaceSplit
    from tokenizer_core.text.pre_tokenizers import Sequence as PreTokenizerSequence

    normalizer = NormalizerSequence([NFKC(), Lowercase()]) if lowercase else NFKC()
    pre = PreTokenizerSequence([WhitespaceSplit(), Metaspace(replacement=BOUNDARY, prepend_scheme="always")])
    decoder: Any = MetaspaceDecoder(replacement=BOUNDARY, prepend_scheme="always")
    if byte_fallback:
        decoder = SequenceDecoder([ByteFallbackDecoder(), decoder])
    return {"normalizer": normalizer, "pre_tokenizer": pre, "decoder": decoder}


def count_words(lines: Iterable[str], *, normalizer: Any, pre_tokenizer: Any,
                progress: ProgressCallback = no_progress) -> Counter[str]:
    """Pre-tokenized word counts of ``lines`` (each normalized first)."""
    return count_pieces(lines, normalizer=normalizer, pre_tokenizer=pre_tokenizer, progress=progress)


def train_unigram_parts(lines: Iterable[str], *, options: TrainOptions,
                        progress: ProgressCallback = no_progress) -> TokenizerParts:
    """A complete Unigram tokenizer: special tokens first (score 0), then the 256 byte
    tokens if ``byte_fallback``, then the learned pieces, most probable first. Lines longer than
    ``options.unigram.max_sentence_length`` UTF-8 bytes are skipped, as SentencePiece skips them.

    ``options.vocab_size`` (default 8000) counts all of them; ``options.unigram`` holds the
    Unigram-only settings (see :class:`~tokenizer_core.options.UnigramOptions`).
    """
    _check_stages(options)
    parts = unigram_components(lowercase=options.lowercase, byte_fallback=options.byte_fallback)
    ends = LineEnds(short_lines(lines, max_bytes=options.unigram.max_sentence_length))
    counts = count_words(ends, normalizer=parts["normalizer"], pre_tokenizer=parts["pre_tokenizer"],
                         progress=progress)
    line_final = ends.words(normalizer=parts["normalizer"], pre_tokenizer=parts["pre_tokenizer"])
    last_word = ends.last_word(normalizer=parts["normalizer"], pre_tokenizer=parts["pre_tokenizer"])
    del ends  # its raw line-final tokens: not needed while training
    return train_unigram_parts_from_counts(counts, line_final=line_final, last_word=last_word, options=options,
                                           progress=progress, consume=True)


def _check_stages(options: TrainOptions) -> None:
    if options.pre_tokenizer not in (None, "metaspace", "whitespace-split"):
        raise TokenizerError(
            f"the Unigram trainer uses SentencePiece-style pre-tokenization (whitespace split + '▁'); "
            f"pre-tokenizer {options.pre_tokenizer!r} is not supported, leave it unset"
        )
    if options.unk_token is not None and options.unk_token not in options.special_tokens:
        raise TokenizerError(f"unk_token {options.unk_token!r} must be one of the special tokens "
                             f"{list(options.special_tokens)}")


def train_unigram_parts_from_counts(counts: Mapping[str, int], *, line_final: Optional[MutableMapping[str, int]],
                                    last_word: Optional[str], options: TrainOptions,
                                    progress: ProgressCallback = no_progress, consume: bool = False) -> TokenizerParts:
    """:func:`train_unigram_parts` from words counted already (as :class:`~tokenizer_core.counts.spec.CountSpec`
    counts them): ``counts``, how many occurrences of each end their line (``line_final``; None when
    not known: every word end then counts as both a line end and a mid-line end) and the corpus'
    last word. ``line_final`` is emptied as training goes; ``counts`` is copied, and emptied once
    copied when ``consume`` (a caller's throwaway counter then goes before training's peak).

    >>> from tokenizer_core.options import TrainOptions
    >>> tok = train_unigram_parts_from_counts(Counter({"▁hug": 5, "▁pug": 2, "▁hugs": 1}), line_final=None,
    ...                                       last_word=None, options=TrainOptions(vocab_size=12))
    >>> [p for p, _ in tok.model.pieces][4:7]   # after the special tokens
    ['▁hug', '▁pug', 's']
    """
    from tokenizer_core.unigram.model import Unigram, byte_token

    _check_stages(options)
    original = counts
    parts = unigram_components(lowercase=options.lowercase, byte_fallback=options.byte_fallback)
    if options.min_frequency > 1:
        counts = Counter({w: c for w, c in counts.items() if c >= options.min_frequency})
    specials = list(options.special_tokens)
    fixed = specials + ([byte_token(b) for b in range(256)] if options.byte_fallback else [])
    vocab_size = options.vocab_size if options.vocab_size is not None else DEFAULT_VOCAB_SIZE
    if vocab_size <= len(fixed):
        raise TokenizerError(
            f"vocab_size {vocab_size} leaves no room for pieces after {len(fixed)} special/byte tokens; raise it"
        )
    alphabet = {ch for w in counts for ch in w}
    if counts and vocab_size < len(fixed) + len(alphabet):
        raise TokenizerError(
            f"vocab_size {vocab_size} cannot hold the {len(fixed)} special/byte tokens and the {len(alphabet)} "
            f"distinct characters of the corpus (Unigram keeps every character); use at least "
            f"{len(fixed) + len(alphabet)}"
        )
    _check_settings(vocab_size=vocab_size - len(fixed), max_piece_length=options.max_piece_length,
                    shrinking_factor=options.shrinking_factor,
                    num_sub_iterations=options.unigram.num_sub_iterations)
    # Rebound, so the counter's only copy goes to training, which empties it once the words are packed.
    counts = _merged_counts(counts)
    if consume and isinstance(original, MutableMapping):
        original.clear()
    del original
    result = _train_counts(
        counts,
        vocab_size=vocab_size - len(fixed),
        max_piece_length=options.max_piece_length,
        shrinking_factor=options.shrinking_factor,
        progress=progress,
        seed_size=options.unigram.seed_size,
        num_sub_iterations=options.unigram.num_sub_iterations,
        split_by_script=options.unigram.split_by_script,
        split_digits=options.unigram.split_digits,
        max_word_length=options.unigram.max_word_length,
        character_coverage=_usable_coverage(options),
        num_fixed=len(fixed),
        split_by_number=options.unigram.split_by_number,
        line_final=line_final,
        last_word=last_word,
    )
    fixed_set = set(fixed)
    # 15 significant digits: every JSON reader (serde_json's fast path in tokenizers included)
    # reads such a number back exactly, so exported models add up the very same scores and
    # break ties the same way.
    vocab = [(t, 0.0) for t in fixed] + [(p, float(f"{s:.15g}")) for p, s in result.pieces if p not in fixed_set]
    unk_id = specials.index(options.unk_token) if options.unk_token is not None else None
    model = Unigram(vocab, unk_id=unk_id, byte_fallback=options.byte_fallback, special_tokens=specials)
    model.training = result
    return_free_memory()  # training's garbage, before the caller builds the tokenizer on top of it
    return TokenizerParts(model=model, special_tokens=specials, metadata={"trainer": "unigram", **result.to_dict()},
                          **parts)
