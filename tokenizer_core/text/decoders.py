"""Decoders: turn a list of token strings back into text.

They follow Hugging Face ``tokenizers``' decode chain: each decoder maps a list
of token strings to a new list, and the final text is their concatenation.
With no decoder at all, tokens are joined with single spaces (as ``tokenizers``).

>>> ByteLevelDecoder().decode(["Ġhello", "Ġw", "orld"])
' hello world'
>>> WordPieceDecoder().decode(["hug", "##s", "are", "fun", "!"])
'hugs are fun!'
"""

from __future__ import annotations

import re
from typing import Any

from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import Component, build, register
from tokenizer_core.text.pre_tokenizers import unicode_to_bytes


class Decoder(Component):
    """Base class: ``decode_chain`` maps tokens to strings; ``decode`` joins them."""

    type_name = "Decoder"

    def decode_chain(self, tokens: list[str]) -> list[str]:
        raise NotImplementedError

    def decode(self, tokens: list[str]) -> str:
        return "".join(self.decode_chain(list(tokens)))


@register("decoder", "ByteLevel")
class ByteLevelDecoder(Decoder):
    """Map byte symbols back to bytes and decode UTF-8 (invalid sequences become U+FFFD)."""

    type_name = "ByteLevel"

    def decode_chain(self, tokens: list[str]) -> list[str]:
        table = unicode_to_bytes()
        data = bytearray()
        for tok in tokens:
            try:
                data.extend([table[ch] for ch in tok])
            except KeyError:
                # Not made of byte symbols (e.g. an added token "<|im_start|>" or "中"): like
                # tokenizers, the whole token goes in as its own UTF-8.
                data.extend(tok.encode("utf-8"))
        return [data.decode("utf-8", errors="replace")]

    def to_hf(self) -> dict[str, Any]:
        return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}


@register("decoder", "Metaspace")
class MetaspaceDecoder(Decoder):
    """Turn "▁" back into spaces and drop the space the pre-tokenizer put in front."""

    type_name = "Metaspace"

    def __init__(self, *, replacement: str = "▁", prepend_scheme: str = "always", split: bool = True) -> None:
        self.replacement, self.prepend_scheme, self.split = replacement, prepend_scheme, split

    def decode_chain(self, tokens: list[str]) -> list[str]:
        # As tokenizers does: in the first token every "▁" is dropped (not only a leading one),
        # unless nothing was prepended.
        first = "" if self.prepend_scheme != "never" else " "
        return [tok.replace(self.replacement, first if i == 0 else " ") for i, tok in enumerate(tokens)]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Metaspace", "replacement": self.replacement, "prepend_scheme": self.prepend_scheme, "split": self.split}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MetaspaceDecoder":
        return cls(replacement=data.get("replacement", "▁"), prepend_scheme=data.get("prepend_scheme", "always"), split=data.get("split", True))


_CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
            (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def cleanup_spaces(text: str) -> str:
    """Remove the spaces a word-by-word join puts before punctuation and English contractions."""
    for a, b in _CLEANUP:
        text = text.replace(a, b)
    return text


@register("decoder", "WordPiece")
class WordPieceDecoder(Decoder):
    """Rejoin ``##`` continuations to the previous piece and put spaces between words."""

    type_name = "WordPiece"

    def __init__(self, *, prefix: str = "##", cleanup: bool = True) -> None:
        self.prefix, self.cleanup = prefix, cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for i, tok in enumerate(tokens):
            if i > 0:
                tok = tok[len(self.prefix):] if tok.startswith(self.prefix) else " " + tok
            out.append(cleanup_spaces(tok) if self.cleanup else tok)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "WordPieceDecoder":
        return cls(prefix=data.get("prefix", "##"), cleanup=data.get("cleanup", True))


@register("decoder", "BPEDecoder")
class BPESuffixDecoder(Decoder):
    """End-of-word suffix BPE (Sennrich): the suffix marks where a space goes.

    >>> BPESuffixDecoder().decode(["lo", "w</w>", "est</w>"])
    'low est'
    """

    type_name = "BPEDecoder"

    def __init__(self, *, suffix: str = "</w>") -> None:
        self.suffix = suffix

    def decode_chain(self, tokens: list[str]) -> list[str]:
        n = len(tokens)
        return [t.replace(self.suffix, "" if i == n - 1 else " ") for i, t in enumerate(tokens)]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "BPEDecoder", "suffix": self.suffix}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BPESuffixDecoder":
        return cls(suffix=data.get("suffix", "</w>"))


@register("decoder", "Join")
class JoinDecoder(Decoder):
    """Join tokens with a separator: " " for word-level models, "" for character-level.

    >>> JoinDecoder("").decode(["h", "i"]), JoinDecoder(" ").decode(["hi", "there"])
    ('hi', 'hi there')
    """

    type_name = "Join"

    def __init__(self, separator: str = " ") -> None:
        self.separator = separator

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self.separator.join(tokens)]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Join", "separator": self.separator}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "JoinDecoder":
        return cls(data.get("separator", " "))

    def to_hf(self) -> dict[str, Any]:
        if self.separator == "":
            return {"type": "Fuse"}
        if self.separator == " ":
            # tokenizers joins with spaces when the chain ends in separate tokens.
            return {"type": "Sequence", "decoders": []}
        raise TokenizerError(f"a join with {self.separator!r} has no tokenizers equivalent")


_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")


@register("decoder", "ByteFallback")
class ByteFallbackDecoder(Decoder):
    """Turn runs of ``<0xNN>`` byte tokens back into text (invalid bytes become U+FFFD each).

    >>> ByteFallbackDecoder().decode(["a", "<0xE2>", "<0x82>", "<0xAC>"])
    'a€'
    """

    type_name = "ByteFallback"

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        run = bytearray()
        count = 0

        def flush() -> None:
            nonlocal run, count
            if count:
                try:
                    out.append(run.decode("utf-8"))
                except UnicodeDecodeError:
                    out.extend(["\ufffd"] * count)
                run, count = bytearray(), 0

        for tok in tokens:
            m = _BYTE_TOKEN.fullmatch(tok)
            if m:
                run.append(int(m.group(1), 16))
                count += 1
            else:
                flush()
                out.append(tok)
        flush()
        return out


@register("decoder", "Sequence")
class SequenceDecoder(Decoder):
    """Apply decoders in turn (e.g. ByteFallback then Metaspace)."""

    type_name = "Sequence"

    def __init__(self, decoders: list[Decoder]) -> None:
        self.decoders = list(decoders)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for d in self.decoders:
            tokens = d.decode_chain(tokens)
        return tokens

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Sequence", "decoders": [d.to_dict() for d in self.decoders]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SequenceDecoder":
        return cls([build("decoder", d) for d in data["decoders"]])

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Sequence", "decoders": [d.to_hf() for d in self.decoders]}
