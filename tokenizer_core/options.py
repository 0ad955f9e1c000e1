"""Training options: the settings every trainer shares, and one typed group per algorithm.

Common settings live on :class:`TrainOptions`; what only one algorithm understands lives in
its own frozen dataclass (:class:`BpeOptions`, :class:`SuperBpeOptions`, :class:`PickyBpeOptions`,
:class:`BoundlessOptions`, :class:`WordPieceOptions`, :class:`UnigramOptions`), held by ``TrainOptions``
under the algorithm's name. A typo in an option name is a ``TypeError`` at construction, not a silently
ignored key.

>>> opts = TrainOptions(vocab_size=300, bpe=BpeOptions(tie_break="first"))
>>> opts.special_tokens, opts.bpe.tie_break, opts.unigram.max_word_length
(('[PAD]', '[UNK]', '[BOS]', '[EOS]'), 'first', 4192)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from tokenizer_core.errors import TokenizerError

DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = ("[PAD]", "[UNK]", "[BOS]", "[EOS]")
TIE_BREAKS = ("ids", "first")
#: Unigram: words longer than this many characters only contribute their characters. SentencePiece
#: skips sentences over ``max_sentence_length`` (4192 bytes) and has no limit per word, so no word
#: it learns from is longer than 4192 characters; a lower limit drops the long space-free lines of
#: Chinese and Japanese text (256 cost 10% more held-out tokens on Japanese).
DEFAULT_MAX_WORD_LENGTH = 4192
#: Unigram: SentencePiece's default ``character_coverage`` (the share of character occurrences kept).
DEFAULT_CHARACTER_COVERAGE = 0.9995
#: Unigram: SentencePiece's default ``max_sentence_length``: longer training lines (in UTF-8 bytes,
#: without their newline) are skipped.
DEFAULT_MAX_SENTENCE_LENGTH = 4192


def _positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TokenizerError(f"{name} must be a positive whole number, got {value!r}")


@dataclass(frozen=True, kw_only=True)
class BpeOptions:
    """BPE-only settings.

    ``tie_break``: among pairs of equal count, ``"ids"`` picks the pair whose token ids are
    smallest (as ``tokenizers``), ``"first"`` the pair seen first in the corpus.
    ``suffix_as_symbol``: the end-of-word suffix is its own symbol (Sennrich's ``</w>``)
    instead of being glued to the last character. ``keep_words``: how many of the most
    frequent words the training trace keeps for the step-through view.
    """

    tie_break: str = "ids"
    suffix_as_symbol: bool = False
    keep_words: int = 1000

    def __post_init__(self) -> None:
        if self.tie_break not in TIE_BREAKS:
            raise TokenizerError(f"tie_break must be one of {TIE_BREAKS}, got {self.tie_break!r}")
        if isinstance(self.keep_words, bool) or not isinstance(self.keep_words, int) or self.keep_words < 0:
            raise TokenizerError(f"keep_words must be 0 or more, got {self.keep_words!r}")


@dataclass(frozen=True, kw_only=True)
class SuperBpeOptions:
    """SuperBPE-only settings: where the second stage (no whitespace pre-tokenization) begins.

    ``transition`` is the vocabulary size at the switch (the paper's *t*, e.g. 180,000 of
    200,000); ``None`` takes ``transition_share`` of the vocabulary size (the paper's best, 0.9).
    A transition at or above the vocabulary size trains plain BPE; at or below the alphabet,
    every merge is learned without whitespace pre-tokenization.

    >>> SuperBpeOptions().transition_for(8000)
    7200
    >>> SuperBpeOptions(transition=500).transition_for(8000)
    500
    """

    transition: Optional[int] = None
    transition_share: float = 0.9

    def __post_init__(self) -> None:
        if self.transition is not None:
            _positive_int("transition", self.transition)
        share = self.transition_share
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0.0 <= share <= 1.0:
            raise TokenizerError(f"transition_share must be between 0 and 1, got {share!r}")

    def transition_for(self, vocab_size: int) -> int:
        """The vocabulary size at the switch, for a training to ``vocab_size`` tokens."""
        if self.transition is not None:
            return self.transition
        return int(round(vocab_size * self.transition_share))


@dataclass(frozen=True, kw_only=True)
class PickyBpeOptions:
    """PickyBPE-only settings: the Intersection over Self ``threshold`` above which a token a merge used
    goes from the vocabulary (the paper's *T*; 0.9 in its examples). 1 removes nothing: plain BPE.

    >>> PickyBpeOptions().threshold, PickyBpeOptions(threshold=1).threshold
    (0.9, 1)
    """

    threshold: float = 0.9

    def __post_init__(self) -> None:
        ios_threshold(self.threshold)


def ios_threshold(value: object) -> float:
    """PickyBPE's threshold as a float, or a TokenizerError saying which are allowed: IoS is at most
    1 and a token goes when its IoS is *above* the threshold (the authors' rule), so 1 removes nothing.

    >>> ios_threshold(1)
    1.0
    >>> ios_threshold(1.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: the PickyBPE threshold must be above 0 and at most 1 (...), got 1.5
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise TokenizerError("the PickyBPE threshold must be above 0 and at most 1 (a token goes when its IoS is "
                             f"above it: 1 trains plain BPE; the paper's examples use 0.9), got {value!r}")
    return float(value)


@dataclass(frozen=True, kw_only=True)
class BoundlessOptions:
    """BoundlessBPE-only settings. ``superwords``: whether merges may join two complete pretokens side by
    side (False learns within pretokens only). ``threshold``: a token a merge used goes from the
    vocabulary when its Intersection over Self is at or above it (the paper's *tau*, 0.9; its
    deletions), ``None`` for no removals. Both off train our plain byte-level BPE.

    >>> BoundlessOptions().threshold, BoundlessOptions(threshold=None, superwords=False).superwords
    (0.9, False)
    """

    superwords: bool = True
    threshold: Optional[float] = 0.9

    def __post_init__(self) -> None:
        if not isinstance(self.superwords, bool):
            raise TokenizerError(f"superwords must be True or False, got {self.superwords!r}")
        removal_threshold(self.threshold)


def removal_threshold(value: object) -> Optional[float]:
    """BoundlessBPE's removal threshold as a float (None: no removals), or a TokenizerError saying which
    are allowed: IoS is at most 1 and a token goes when its IoS is *at or above* it (the paper's rule).

    >>> removal_threshold(1), removal_threshold(None)
    (1.0, None)
    >>> removal_threshold(0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tokenizer_core.errors.TokenizerError: the BoundlessBPE removal threshold must be above 0 and at most 1 ..., got 0
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise TokenizerError("the BoundlessBPE removal threshold must be above 0 and at most 1 (a token goes when "
                             "its IoS is at or above it; the paper uses 0.9), or None for no removals, "
                             f"got {value!r}")
    return float(value)


@dataclass(frozen=True, kw_only=True)
class WordPieceOptions:
    """WordPiece-only settings: words longer than ``max_input_chars_per_word`` become [UNK]."""

    max_input_chars_per_word: int = 100

    def __post_init__(self) -> None:
        _positive_int("max_input_chars_per_word", self.max_input_chars_per_word)


@dataclass(frozen=True, kw_only=True)
class UnigramOptions:
    """Unigram-only settings, with SentencePiece's trainer defaults.

    ``character_coverage``: the share of character occurrences the vocabulary's characters
    cover; the rarest rest become unknown (SentencePiece's default for Unigram, 0.9995; 1.0 keeps
    every character). ``split_by_number``: digits are a script of their own, so no piece mixes
    them with letters (``False``: "abc123" may be one piece). ``seed_size`` and ``split_by_script``
    are SentencePiece's ``seed_sentencepiece_size`` and ``split_by_unicode_script`` (readable
    under those names too); ``max_word_length``: longer words only contribute their characters
    (see :data:`DEFAULT_MAX_WORD_LENGTH`; ``max_sentencepiece_length`` is
    ``TrainOptions.max_piece_length``). ``max_sentence_length``: training lines longer than this
    many UTF-8 bytes (newline aside) are skipped, as SentencePiece skips them (default 4192).

    >>> UnigramOptions(character_coverage=1.0).split_by_unicode_script
    True
    >>> UnigramOptions().max_sentence_length
    4192
    """

    seed_size: int = 1_000_000
    num_sub_iterations: int = 2
    split_by_script: bool = True
    split_digits: bool = False
    max_word_length: int = DEFAULT_MAX_WORD_LENGTH
    character_coverage: float = DEFAULT_CHARACTER_COVERAGE
    split_by_number: bool = True
    max_sentence_length: int = DEFAULT_MAX_SENTENCE_LENGTH

    def __post_init__(self) -> None:
        _positive_int("seed_size", self.seed_size)
        _positive_int("max_sentence_length", self.max_sentence_length)
        _positive_int("num_sub_iterations", self.num_sub_iterations)
        _positive_int("max_word_length", self.max_word_length)
        cc = self.character_coverage
        # SentencePiece's own range: below 0.98 whole scripts would turn into unknowns.
        if isinstance(cc, bool) or not isinstance(cc, (int, float)) or not 0.98 <= cc <= 1.0:
            raise TokenizerError(f"character_coverage must be between 0.98 and 1.0 (SentencePiece's range), "
                                 f"got {cc!r}")

    @property
    def seed_sentencepiece_size(self) -> int:
        """SentencePiece's name for :attr:`seed_size`."""
        return self.seed_size

    @property
    def split_by_unicode_script(self) -> bool:
        """SentencePiece's name for :attr:`split_by_script`."""
        return self.split_by_script


@dataclass(frozen=True, kw_only=True)
class TrainOptions:
    """Settings understood by the trainers; each trainer uses the ones that apply to it.

    ``vocab_size`` counts special tokens, as in Hugging Face ``tokenizers``.
    """

    vocab_size: Optional[int] = None
    num_merges: Optional[int] = None
    min_frequency: int = 0
    lowercase: bool = False
    special_tokens: tuple[str, ...] = DEFAULT_SPECIAL_TOKENS
    unk_token: Optional[str] = "[UNK]"
    pre_tokenizer: Optional[str] = None  # name from text.pre_tokenizers.PRESETS; None = algorithm default
    byte_level: bool = False
    end_of_word_suffix: Optional[str] = None
    continuing_subword_prefix: Optional[str] = None
    limit_alphabet: Optional[int] = None
    max_piece_length: int = 16
    shrinking_factor: float = 0.75
    byte_fallback: bool = False
    top_k: int = 10
    bpe: BpeOptions = field(default_factory=BpeOptions)
    superbpe: SuperBpeOptions = field(default_factory=SuperBpeOptions)
    pickybpe: PickyBpeOptions = field(default_factory=PickyBpeOptions)
    boundless: BoundlessOptions = field(default_factory=BoundlessOptions)
    wordpiece: WordPieceOptions = field(default_factory=WordPieceOptions)
    unigram: UnigramOptions = field(default_factory=UnigramOptions)

    def __post_init__(self) -> None:
        if self.vocab_size is not None and self.vocab_size <= 0:
            raise TokenizerError(f"vocab_size must be a positive number, got {self.vocab_size}")
        if self.vocab_size is not None and self.vocab_size > 10_000_000:
            raise TokenizerError(f"vocab_size {self.vocab_size} is absurdly large; use at most 10,000,000")
        if self.num_merges is not None and self.num_merges < 0:
            raise TokenizerError(f"num_merges must be 0 or more, got {self.num_merges}")
        if self.min_frequency < 0:
            raise TokenizerError(f"min_frequency must be 0 or more, got {self.min_frequency}")
        if len(set(self.special_tokens)) != len(self.special_tokens):
            raise TokenizerError(f"special tokens must be distinct, got {list(self.special_tokens)}")
        if not 0 < self.shrinking_factor < 1:
            raise TokenizerError(f"shrinking_factor must be between 0 and 1, got {self.shrinking_factor}")
