"""BPE training: word counts in, merges + vocabulary + a step trace out.

The trainer follows Hugging Face ``tokenizers``' ``BpeTrainer``: given the same pre-tokenized word counts and
settings, it learns the same merges. Its rules:

* Ids go to the special tokens first, then to the alphabet sorted by code point, then to merge results in creation
  order. A merge whose string already exists reuses that id, and the vocabulary does not grow.
* Each step merges the pair with the highest count. **Among equal counts the pair with the smallest
  ``(id_left, id_right)`` wins**, and the trace records the tie.
* Pair statistics are incremental: an index from each pair to the words holding it, and a lazily corrected priority
  queue. A merge touches only the words that contain the pair, never the whole corpus.
* Within a word, occurrences are merged left to right without overlap (``aaa`` with ``a a`` gives ``aa a``). Pair
  counts are adjusted exactly as ``tokenizers`` adjusts them, including its bookkeeping for pairs that reappear after
  being merged.

Two choices differ, because ``tokenizers`` leaves them to hash-map order. Tokens decorated with
``continuing_subword_prefix`` or ``end_of_word_suffix`` (e.g. ``w</w>``) get their ids after the alphabet, in sorted
order. ``limit_alphabet`` drops the rarest characters first, the larger code point first among equal counts.

For teaching, ``tie_break="first"`` instead picks, among equal counts, the pair seen first in the corpus: words in
the order given, each read left to right. That is what the Python of Sennrich et al.'s Algorithm 1 does. With
``suffix_as_symbol=True`` the end-of-word marker is a symbol of its own (``l o w </w>``), as in that paper. Otherwise
it is glued to the last character (``l o w</w>``), as in subword-nmt and ``tokenizers``.

>>> r = train_bpe_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3},
...                      num_merges=4, end_of_word_suffix="</w>", special_tokens=())
>>> r.merges
[('e', 's'), ('es', 't</w>'), ('l', 'o'), ('e', 'w')]
>>> r.trace[3].tie_break
'3 pairs occur 6 times; the smallest ids win: (1, 9) before (4, 1)'
>>> r = train_bpe_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=5,
...                      end_of_word_suffix="</w>", suffix_as_symbol=True, tie_break="first")
>>> r.merges
[('e', 's'), ('es', 't'), ('est', '</w>'), ('l', 'o'), ('lo', 'w')]
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from tokenizer_core.bpe.merge_loop import run_merges
from tokenizer_core.bpe.symbols import SymbolTable, check_counts, kept_alphabet, symbolize
from tokenizer_core.bpe.trace import BpeTrace
from tokenizer_core.errors import TokenizerError
from tokenizer_core.gc_pause import paused_gc
from tokenizer_core.options import TrainOptions
from tokenizer_core.parts import TokenizerParts
from tokenizer_core.text.counting import count_gpt2_pieces, count_words, to_byte_symbols  # noqa: F401  (re-exported)
from tokenizer_core.types import ProgressCallback, no_progress

if TYPE_CHECKING:
    from tokenizer_core.bpe.model import BPE

#: ``vocab_size`` used when neither ``vocab_size`` nor ``num_merges`` is given (as ``tokenizers``).
DEFAULT_VOCAB_SIZE = 30_000


@dataclass
class BpeTrainResult:
    """What :func:`train_bpe_counts` learned.

    ``vocab`` maps token -> id; ``merges`` lists the merged pairs in rank order;
    ``model`` is a ready :class:`~tokenizer_core.bpe.model.BPE`; ``trace`` has one
    record per merge.
    """

    vocab: dict[str, int]
    merges: list[tuple[str, str]]
    model: "BPE"
    trace: BpeTrace
    special_tokens: tuple[str, ...]

    @property
    def stop_reason(self) -> str:
        return self.trace.stop_reason


# ----------------------------------------------------------------------------- trainer


def train_bpe_counts(
    word_counts: Mapping[str, int],
    *,
    vocab_size: Optional[int] = None,
    num_merges: Optional[int] = None,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = (),
    unk_token: Optional[str] = None,
    initial_alphabet: Iterable[str] = (),
    limit_alphabet: Optional[int] = None,
    continuing_subword_prefix: Optional[str] = None,
    end_of_word_suffix: Optional[str] = None,
    suffix_as_symbol: bool = False,
    tie_break: str = "ids",
    top_k: int = 10,
    keep_words: int = 1000,
    progress: ProgressCallback = no_progress,
) -> BpeTrainResult:
    """Learn BPE merges from ``{word: count}`` (words already pre-tokenized; byte-mapped for byte-level).

    Training stops at ``vocab_size`` tokens (special tokens included) or after
    ``num_merges`` merges, whichever comes first, or earlier when no pair is left or the
    best pair occurs fewer than ``min_frequency`` times; ``trace.stop_reason`` says which.
    ``top_k`` runner-up pairs are recorded per step (0 to skip). ``tie_break`` is
    ``"ids"`` (as ``tokenizers``) or ``"first"`` (first seen in the corpus; meant for small
    teaching corpora, as it searches the words of tied pairs).

    >>> r = train_bpe_counts({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
    ...                      vocab_size=10, special_tokens=())
    >>> r.merges, len(r.vocab)
    ([('u', 'g'), ('u', 'n'), ('h', 'ug')], 10)
    """
    with paused_gc():  # training builds millions of small acyclic containers
        return _train_counts(
            word_counts, vocab_size=vocab_size, num_merges=num_merges, min_frequency=min_frequency,
            special_tokens=special_tokens, unk_token=unk_token, initial_alphabet=initial_alphabet,
            limit_alphabet=limit_alphabet, continuing_subword_prefix=continuing_subword_prefix,
            end_of_word_suffix=end_of_word_suffix, suffix_as_symbol=suffix_as_symbol, tie_break=tie_break,
            top_k=top_k, keep_words=keep_words, progress=progress,
        )


def _train_counts(
    word_counts: Mapping[str, int],
    *,
    vocab_size: Optional[int],
    num_merges: Optional[int],
    min_frequency: int,
    special_tokens: Sequence[str],
    unk_token: Optional[str],
    initial_alphabet: Iterable[str],
    limit_alphabet: Optional[int],
    continuing_subword_prefix: Optional[str],
    end_of_word_suffix: Optional[str],
    suffix_as_symbol: bool,
    tie_break: str,
    top_k: int,
    keep_words: int,
    progress: ProgressCallback,
) -> BpeTrainResult:
    vocab_size = _checked_settings(
        word_counts, vocab_size=vocab_size, num_merges=num_merges, limit_alphabet=limit_alphabet, top_k=top_k,
        tie_break=tie_break, suffix_as_symbol=suffix_as_symbol,
        continuing_subword_prefix=continuing_subword_prefix, end_of_word_suffix=end_of_word_suffix,
    )
    # 1. ids: special tokens, then the alphabet sorted by code point.
    table = SymbolTable(special_tokens)
    alphabet = kept_alphabet(word_counts, initial_alphabet=initial_alphabet, limit_alphabet=limit_alphabet)
    for ch in alphabet:
        table.add(ch)

    # 2. words as id lists. A pair (a, b) is the int a << shift | b: `shift` leaves room for
    # every id training can create.
    prefix, suffix = continuing_subword_prefix, end_of_word_suffix
    words, counts = symbolize(word_counts, table, prefix=prefix, suffix=suffix, suffix_as_symbol=suffix_as_symbol)
    upper = len(table) + (num_merges if num_merges is not None else (vocab_size or 0)) + 1
    shift = max(upper.bit_length(), 16)

    # 3. merges.
    run = run_merges(
        words, counts, table, shift=shift, vocab_size=vocab_size, num_merges=num_merges,
        min_frequency=min_frequency, prefix=prefix, tie_break=tie_break, top_k=top_k, progress=progress,
    )

    # 4. the model, with the trace of its training.
    from tokenizer_core.bpe.model import BPE
    from tokenizer_core.bpe.options import BpeModelOptions

    vocab = dict(table.tok_to_id)
    unk = unk_token if unk_token is not None and unk_token in vocab else None
    model = BPE(vocab, run.merges, options=BpeModelOptions(
        unk_token=unk, continuing_subword_prefix=prefix, end_of_word_suffix=suffix, suffix_as_symbol=suffix_as_symbol))
    top_words = heapq.nsmallest(keep_words, word_counts.items(), key=lambda wc: (-wc[1], wc[0]))
    trace = BpeTrace(
        run.steps, table.id_to_tok, shift, initial_tokens=run.initial_tokens, alphabet=alphabet,
        stop_reason=run.stop_reason, word_counts=top_words, model=model, tie_break=tie_break, top_k=top_k,
    )
    model.training_trace = trace
    return BpeTrainResult(vocab, run.merges, model, trace, tuple(dict.fromkeys(special_tokens)))


def _checked_settings(
    word_counts: Mapping[str, int],
    *,
    vocab_size: Optional[int],
    num_merges: Optional[int],
    limit_alphabet: Optional[int],
    top_k: int,
    tie_break: str,
    suffix_as_symbol: bool,
    continuing_subword_prefix: Optional[str],
    end_of_word_suffix: Optional[str],
) -> Optional[int]:
    """Check the input and settings (raising :class:`TokenizerError`); return the vocab_size to use."""
    check_counts(word_counts)
    if vocab_size is None and num_merges is None:
        vocab_size = DEFAULT_VOCAB_SIZE
    if vocab_size is not None and (not isinstance(vocab_size, int) or vocab_size <= 0):
        raise TokenizerError(f"vocab_size must be a positive whole number, got {vocab_size!r}")
    if num_merges is not None and (not isinstance(num_merges, int) or num_merges < 0):
        raise TokenizerError(f"num_merges must be a whole number >= 0, got {num_merges!r}")
    if limit_alphabet is not None and limit_alphabet < 0:
        raise TokenizerError(f"limit_alphabet must be >= 0, got {limit_alphabet}")
    if top_k < 0:
        raise TokenizerError(f"top_k must be >= 0, got {top_k}")
    if tie_break not in ("ids", "first"):
        raise TokenizerError(f"tie_break must be 'ids' or 'first', got {tie_break!r}")
    if suffix_as_symbol and not end_of_word_suffix:
        raise TokenizerError("suffix_as_symbol needs an end_of_word_suffix such as '</w>'")
    if continuing_subword_prefix == "" or end_of_word_suffix == "":
        raise TokenizerError("continuing_subword_prefix and end_of_word_suffix must be non-empty when given")
    return vocab_size


# --------------------------------------------------------------------- the registered trainer


def bpe_stages(options: TrainOptions) -> tuple[Any, Any]:
    """The normalizer (or None) and pre-tokenizer :func:`train_bpe` counts words with, for these options.

    Counting once (e.g. :meth:`tokenizer_core.training.WordCounting.count`) with these stages and
    passing the counts to :func:`train_bpe_from_counts` trains what :func:`train_bpe` trains.

    >>> bpe_stages(TrainOptions(lowercase=True, pre_tokenizer="whitespace"))
    (Lowercase(), Whitespace())
    """
    normalizer, pre, _, _ = _components(options)
    return normalizer, pre


def _components(options: TrainOptions) -> tuple[Any, Any, Any, bool]:
    """(normalizer, pre_tokenizer, decoder, byte_level) for the options."""
    from tokenizer_core.text.decoders import BPESuffixDecoder, ByteLevelDecoder, MetaspaceDecoder, WordPieceDecoder
    from tokenizer_core.text.normalizers import Lowercase
    from tokenizer_core.text.pre_tokenizers import CL100K_PATTERN, ByteLevel, preset

    normalizer = Lowercase() if options.lowercase else None
    byte_level = options.byte_level or options.pre_tokenizer == "byte-level"
    if byte_level:
        name = options.pre_tokenizer
        if name in (None, "byte-level", "gpt2-regex"):
            pre = ByteLevel(add_prefix_space=False)
        elif name == "cl100k-regex":
            pre = ByteLevel(add_prefix_space=False, pattern=CL100K_PATTERN)
        else:
            raise TokenizerError(
                f"byte-level BPE splits text with a regex; use pre_tokenizer 'gpt2-regex' or 'cl100k-regex', not {name!r}"
            )
        return normalizer, pre, ByteLevelDecoder(), True
    pre = preset(options.pre_tokenizer or "whitespace")
    if options.end_of_word_suffix:
        decoder: Any = BPESuffixDecoder(suffix=options.end_of_word_suffix)
    elif options.continuing_subword_prefix:
        decoder = WordPieceDecoder(prefix=options.continuing_subword_prefix, cleanup=False)
    elif options.pre_tokenizer == "metaspace":
        decoder = MetaspaceDecoder()
    else:
        decoder = None  # tokens joined by spaces, as tokenizers does without a decoder
    return normalizer, pre, decoder, False


def train_bpe(
    lines: Iterable[str],
    *,
    options: TrainOptions,
    progress: ProgressCallback = no_progress,
    workers: Optional[int] = None,
) -> tuple[TokenizerParts, BpeTrainResult]:
    """Train a BPE tokenizer on text lines; returns its parts and the full result (trace included).

    ``options.byte_level`` selects GPT-2 style (ByteLevel pre-tokenizer, all 256 byte
    symbols in the alphabet, no unknown token); otherwise characters seen in the
    corpus form the alphabet, with ``options.end_of_word_suffix`` (e.g. ``"</w>"``)
    and ``options.pre_tokenizer`` (default ``"whitespace"``). ``options.bpe`` holds
    ``tie_break``, ``suffix_as_symbol`` and ``keep_words`` (see :class:`~tokenizer_core.options.BpeOptions`).

    >>> from tokenizer_core.pipeline import Tokenizer
    >>> parts, result = train_bpe(["low lower newest widest\\n"], options=TrainOptions(num_merges=2))
    >>> result.merges
    [('e', 's'), ('l', 'o')]
    >>> Tokenizer.from_parts(parts).encode("lowest").tokens
    ['lo', 'w', 'es', 't']
    """
    normalizer, pre = bpe_stages(options)
    progress(0, 0, "counting words")
    counts = count_words(lines, normalizer=normalizer, pre_tokenizer=pre, workers=workers, progress=progress)
    return train_bpe_from_counts(counts, options=options, progress=progress)


def train_bpe_from_counts(
    word_counts: Mapping[str, int],
    *,
    options: TrainOptions,
    progress: ProgressCallback = no_progress,
) -> tuple[TokenizerParts, BpeTrainResult]:
    """:func:`train_bpe` from words counted already with :func:`bpe_stages` ``(options)``: the same
    parts and result, without counting the corpus again.

    >>> from tokenizer_core.text.counting import count_words
    >>> options = TrainOptions(num_merges=2)
    >>> normalizer, pre = bpe_stages(options)
    >>> counts = count_words(["low lower newest widest\\n"], normalizer=normalizer, pre_tokenizer=pre)
    >>> train_bpe_from_counts(counts, options=options)[1].merges
    [('e', 's'), ('l', 'o')]
    """
    from tokenizer_core.text.pre_tokenizers import byte_level_alphabet

    normalizer, pre, decoder, byte_level = _components(options)
    if not word_counts:
        raise TokenizerError("the training text has no words; give a corpus with some text in it")
    vocab_size = options.vocab_size
    if vocab_size is None and options.num_merges is None:
        vocab_size = DEFAULT_VOCAB_SIZE
    result = train_bpe_counts(
        word_counts,
        vocab_size=vocab_size,
        num_merges=options.num_merges,
        min_frequency=options.min_frequency,
        special_tokens=options.special_tokens,
        unk_token=None if byte_level else options.unk_token,
        initial_alphabet=byte_level_alphabet() if byte_level else (),
        limit_alphabet=options.limit_alphabet,
        continuing_subword_prefix=options.continuing_subword_prefix,
        end_of_word_suffix=options.end_of_word_suffix,
        suffix_as_symbol=options.bpe.suffix_as_symbol,
        tie_break=options.bpe.tie_break,
        top_k=options.top_k,
        keep_words=options.bpe.keep_words,
        progress=progress,
    )
    parts = TokenizerParts(
        model=result.model,
        normalizer=normalizer,
        pre_tokenizer=pre,
        decoder=decoder,
        special_tokens=result.special_tokens,
        metadata={
            "trainer": "bpe",
            "byte_level": byte_level,
            "num_merges": len(result.merges),
            "stop_reason": result.stop_reason,
        },
    )
    return parts, result


def train_bpe_parts(lines: Iterable[str], *, options: TrainOptions,
                    progress: ProgressCallback = no_progress) -> TokenizerParts:
    """The ``bpe`` trainer for the CLI and the app (the trace stays on the model)."""
    return train_bpe(lines, options=options, progress=progress)[0]
