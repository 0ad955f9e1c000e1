"""Shared training options and the registry of trainers used by the CLI and the app.

Each algorithm module registers a function ``train(lines, *, options, progress)``
that returns a ready :class:`~tokenizer_core.pipeline.Tokenizer` (normalizer,
pre-tokenizer, model, post-processor and decoder set up the way that algorithm
is normally used). The CLI and the app look trainers up by name, so adding an
algorithm needs no change to either.

>>> opts = TrainOptions(vocab_size=300)
>>> opts.special_tokens
('[PAD]', '[UNK]', '[BOS]', '[EOS]')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from .errors import TokenizerError
from .types import ProgressCallback, no_progress

if TYPE_CHECKING:
    from .pipeline import Tokenizer

DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = ("[PAD]", "[UNK]", "[BOS]", "[EOS]")


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
    pre_tokenizer: Optional[str] = None  # name from pre_tokenizers.PRESETS; None = algorithm default
    byte_level: bool = False
    end_of_word_suffix: Optional[str] = None
    continuing_subword_prefix: Optional[str] = None
    limit_alphabet: Optional[int] = None
    max_piece_length: int = 16
    shrinking_factor: float = 0.75
    byte_fallback: bool = False
    top_k: int = 10
    extra: dict = field(default_factory=dict)

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


Trainer = Callable[..., "Tokenizer"]
_TRAINERS: dict[str, Trainer] = {}


def register_trainer(name: str) -> Callable[[Trainer], Trainer]:
    """Decorator: make ``train(lines, *, options, progress)`` available under ``name``."""

    def deco(fn: Trainer) -> Trainer:
        _TRAINERS[name] = fn
        return fn

    return deco


def trainer_names() -> list[str]:
    """Names of the registered trainers, e.g. ``['byte', 'char', 'word', ...]``."""
    from . import models  # noqa: F401  (importing registers the built-in trainers)

    return sorted(_TRAINERS)


def train(
    model: str,
    lines: Iterable[str],
    *,
    options: TrainOptions,
    progress: ProgressCallback = no_progress,
) -> "Tokenizer":
    """Train a tokenizer of kind ``model`` on ``lines`` (each line keeps its newline)."""
    names = trainer_names()
    if model not in _TRAINERS:
        raise TokenizerError(f"unknown model {model!r}; choose one of: {', '.join(names)}")
    return _TRAINERS[model](lines, options=options, progress=progress)


def count_pieces(
    lines: Iterable[str],
    *,
    normalizer: Any,
    pre_tokenizer: Any,
    progress: ProgressCallback = no_progress,
) -> Counter[str]:
    """Count pre-tokenized pieces over ``lines``, each line normalized first (no pre-tokenizer:
    whole lines), in order of first appearance.

    >>> from tokenizer_core.pre_tokenizers import Whitespace
    >>> count_pieces(["a b a\\n", "b\\n"], normalizer=None, pre_tokenizer=Whitespace())
    Counter({'a': 2, 'b': 2})
    """
    counts: Counter[str] = Counter()
    for n, line in enumerate(lines, 1):
        if normalizer is not None:
            line = normalizer.normalize_str(line)
        counts.update(pre_tokenizer.words(line) if pre_tokenizer is not None else [line])
        if n % 5000 == 0:
            progress(n, 0, "counting words")
    return counts
