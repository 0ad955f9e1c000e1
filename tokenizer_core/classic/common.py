"""Pieces shared by the vocabulary-based models (word, char, byte) and their trainers.

>>> from tokenizer_core.text.pre_tokenizers import Whitespace
>>> sorted(count_pieces(["a b a\\n"], normalizer=None, pre_tokenizer=Whitespace()).items())
[('a', 2), ('b', 1)]
"""

from __future__ import annotations

from typing import Any, Optional

from tokenizer_core.classic.vocabulary import Vocabulary
from tokenizer_core.errors import TokenizerError, UnknownTokenError
from tokenizer_core.model_base import VocabLookup
from tokenizer_core.options import TrainOptions
from tokenizer_core.text.counting import count_pieces  # noqa: F401  (re-exported for the models)
from tokenizer_core.text.normalizers import Lowercase, Normalizer
from tokenizer_core.types import Token


def normalizer_for(options: TrainOptions) -> Optional[Normalizer]:
    """The normalizer the classic trainers use: lowercase or nothing."""
    return Lowercase() if options.lowercase else None


class VocabModel(VocabLookup):
    """A model over a fixed :class:`Vocabulary` (shared by word and character models)."""

    type_name = "VocabModel"

    def __init__(self, vocab: dict[str, int], *, unk_token: Optional[str] = "[UNK]") -> None:
        if unk_token is not None and unk_token not in vocab:
            raise TokenizerError(f"unknown-token {unk_token!r} is missing from the vocabulary")
        ids = sorted(vocab.values())
        if ids != list(range(len(ids))):
            raise TokenizerError("vocabulary ids must be 0..N-1 without gaps or repeats")
        self._vocab = dict(vocab)
        self._inv = {i: t for t, i in vocab.items()}
        self.unk_token = unk_token

    @classmethod
    def from_vocabulary(cls, vocab: Vocabulary) -> "VocabModel":
        return cls(vocab.get_vocab(), unk_token=vocab.unk_token)

    def _unk(self, text: str, start: int, end: int) -> Token:
        if self.unk_token is None:
            raise UnknownTokenError(f"{text!r} is not in the vocabulary and the model has no unknown token")
        return Token(self._vocab[self.unk_token], self.unk_token, (start, end))


    def to_dict(self) -> dict[str, Any]:
        tokens = [self._inv[i] for i in range(len(self._inv))]
        return {"type": self.type_name, "tokens": tokens, "unk_token": self.unk_token}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "VocabModel":
        return cls({t: i for i, t in enumerate(data["tokens"])}, unk_token=data.get("unk_token"))
