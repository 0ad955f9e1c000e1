"""A ``tiktoken``-like fast path for byte-level BPE: text to ids (and back) without offsets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import chain
from typing import TYPE_CHECKING, Optional

import regex

from tokenizer_core.bpe.kernel import kernel_encoder
from tokenizer_core.errors import UnknownIdError
from tokenizer_core.text.byte_level import ByteLevel
from tokenizer_core.text.surrogates import replace_lone_surrogates
from tokenizer_core.types import CACHE_LIMIT

if TYPE_CHECKING:
    from tokenizer_core.bpe.model import BPE


class ByteLevelBPEEncoder:
    """A ``tiktoken``-like fast path: text -> ids with a split regex, byte symbols and a BPE model.

    It skips offsets and :class:`Token` objects (the pipeline's :class:`~tokenizer_core.pipeline.Tokenizer`
    gives those); pieces are cached, so common words cost one dictionary lookup.

    >>> from tokenizer_core.bpe.model import BPE
    >>> from tokenizer_core.text.pre_tokenizers import GPT2_PATTERN, bytes_to_unicode
    >>> syms = sorted(bytes_to_unicode().values())
    >>> vocab = {s: i for i, s in enumerate(syms)}
    >>> vocab.update({"Ġ" + "w": 256})
    >>> enc = ByteLevelBPEEncoder(BPE(vocab, [("Ġ", "w")]), pattern=GPT2_PATTERN)
    >>> ids = enc.encode_ordinary("a w")
    >>> len(ids), enc.decode(ids)
    (2, 'a w')
    """

    def __init__(self, model: "BPE", *, pattern: str, special_tokens: Optional[Mapping[str, int]] = None) -> None:
        from tokenizer_core.text.pre_tokenizers import bytes_to_unicode, unicode_to_bytes

        self.model = model
        self.pattern = pattern
        self._re = regex.compile(pattern)
        self.special_tokens = dict(special_tokens or {})
        self._special_re = (
            regex.compile("|".join(regex.escape(t) for t in sorted(self.special_tokens, key=len, reverse=True)))
            if self.special_tokens else None
        )
        table = dict(bytes_to_unicode())
        byte_of = unicode_to_bytes()
        self._sym_bytes = {tid: bytes(byte_of[c] for c in tok) for tok, tid in model.get_vocab().items()
                           if all(c in byte_of for c in tok)}
        for tok, tid in self.special_tokens.items():
            self._sym_bytes[tid] = tok.encode("utf-8")
        model_tokenize = model.tokenize

        class _PieceCache(dict):
            def __missing__(self, piece: str) -> list[int]:
                mapped = (piece if piece.isascii() else piece.encode("utf-8").decode("latin-1")).translate(table)
                ids = [t.id for t in model_tokenize(mapped)]
                if len(self) < CACHE_LIMIT:
                    self[piece] = ids
                return ids

        self._cache = _PieceCache()
        #: The compiled kernel for this pattern and model (same ids), or None: then the code below. (The
        #: references' patterns cover any text, so the kernel's pieces are findall's.)
        self.kernel = kernel_encoder(ByteLevel(pattern=pattern), model)

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text``, treating special-token strings as plain text (a lone surrogate reads as
        U+FFFD, as in tiktoken)."""
        try:
            return self._ids(text)
        except UnicodeEncodeError:
            return self._ids(replace_lone_surrogates(text))

    def _ids(self, text: str) -> list[int]:
        if self.kernel is not None:
            return self.kernel.encode_ids(text)
        return list(chain.from_iterable(map(self._cache.__getitem__, self._re.findall(text))))

    def encode(self, text: str, *, allowed_special: Iterable[str] | str = "all") -> list[int]:
        """Ids of ``text``; special-token strings in ``allowed_special`` become their ids."""
        if self._special_re is None:
            return self.encode_ordinary(text)
        allowed = set(self.special_tokens) if allowed_special == "all" else set(allowed_special)
        out: list[int] = []
        pos = 0
        for m in self._special_re.finditer(text):
            if m.group() not in allowed:
                continue
            out.extend(self.encode_ordinary(text[pos:m.start()]))
            out.append(self.special_tokens[m.group()])
            pos = m.end()
        out.extend(self.encode_ordinary(text[pos:]))
        return out

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        try:
            return b"".join(self._sym_bytes[i] for i in ids)
        except KeyError as err:
            raise UnknownIdError(f"id {err.args[0]} is not in the vocabulary") from None

    def decode(self, ids: Iterable[int], *, errors: str = "replace") -> str:
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

