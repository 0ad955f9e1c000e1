"""Byte-level model: 256 byte tokens after the special tokens; lossless for any string.

Bytes are written with GPT-2's printable byte symbols (a space is "Ġ"), the same
alphabet the byte-level BPE starts from; the app shows invalid UTF-8 pieces as
``<0xNN>``.

>>> m = ByteModel(special_tokens=("[PAD]", "[UNK]"))
>>> [t.id for t in m.tokenize("Ġa")], m.vocab_size
([34, 99], 258)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tokenizer_core.errors import TokenizerError
from tokenizer_core.model_base import VocabLookup
from tokenizer_core.options import TrainOptions
from tokenizer_core.parts import TokenizerParts
from tokenizer_core.registry import register
from tokenizer_core.text.decoders import ByteLevelDecoder
from tokenizer_core.text.pre_tokenizers import ByteLevel, bytes_to_unicode, unicode_to_bytes
from tokenizer_core.types import ProgressCallback, Token, no_progress


@register("model", "Byte")
class ByteModel(VocabLookup):
    """Maps each byte symbol to ``len(special_tokens) + byte value``."""

    type_name = "Byte"

    def __init__(self, *, special_tokens: Iterable[str] = ("[PAD]", "[UNK]", "[BOS]", "[EOS]")) -> None:
        self.special_tokens = tuple(special_tokens)
        symbols = bytes_to_unicode()
        clash = set(self.special_tokens) & set(symbols.values())
        if clash:
            raise TokenizerError(f"special tokens {sorted(clash)} clash with byte symbols")
        n = len(self.special_tokens)
        self._vocab = {t: i for i, t in enumerate(self.special_tokens)}
        self._vocab.update({symbols[b]: n + b for b in range(256)})
        self._inv = {i: t for t, i in self._vocab.items()}
        self._byte_of = unicode_to_bytes()

    def tokenize(self, piece: str) -> list[Token]:
        n = len(self.special_tokens)
        out = []
        for k, c in enumerate(piece):
            b = self._byte_of.get(c)
            if b is None:
                raise TokenizerError(f"{c!r} is not a byte symbol; use the ByteLevel pre-tokenizer before this model")
            out.append(Token(n + b, c, (k, k + 1)))
        return out


    def to_dict(self) -> dict[str, Any]:
        return {"type": "Byte", "special_tokens": list(self.special_tokens)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ByteModel":
        return cls(special_tokens=data.get("special_tokens", ()))

    def to_hf(self) -> dict[str, Any]:
        # A byte alphabet with no merges is exactly this model in tokenizers' BPE.
        return {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                "vocab": self.get_vocab(), "merges": []}


def train_byte_level(lines: Iterable[str], *, options: TrainOptions, progress: ProgressCallback = no_progress):  # noqa: ARG001
    """The byte model needs no training: its vocabulary is fixed. ``lines`` is ignored."""

    specials = tuple(t for t in options.special_tokens)
    return TokenizerParts(model=ByteModel(special_tokens=specials), pre_tokenizer=ByteLevel(use_regex=False),
                     decoder=ByteLevelDecoder(), special_tokens=specials)
