"""SentencePiece's decoding: control pieces vanish, ``<unk>`` reads " ⁇ ", bytes become text.

The rules, as ``sentencepiece``'s ``decode`` behaves:

* control pieces (``<s>``, ``</s>``) decode to nothing;
* the unknown piece decodes to the model's ``unk_surface`` (" ⁇ " unless the file says
  otherwise);
* a run of byte pieces (``<0xE2><0x96><0x81>``) decodes as UTF-8, each byte that is not
  part of a valid character becoming U+FFFD; a "▁" spelt in bytes stays "▁";
* every other piece has its "▁" turned into spaces, except that at the beginning of the
  text, when the model adds a dummy prefix or removes extra whitespace, one leading "▁" of
  the piece is dropped. The beginning lasts for the first piece; with
  ``remove_extra_whitespaces`` it lasts until some text has been written (so "▁", "▁a"
  decodes to "a").

>>> dec = SentencePieceDecoder(control_tokens=["<s>"], unk_token="<unk>")
>>> dec.decode(["<s>", "▁Hello", "▁world", "<unk>", "<0xE2>", "<0x98>", "<0x83>"])
'Hello world ⁇ ☃'
>>> dec.decode(["<0xE2>", "<0x98>", "x"])
'��x'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Optional

from tokenizer_core.registry import register
from tokenizer_core.text.decoders import Decoder

SPACE_SYMBOL = "\u2581"
DEFAULT_UNK_SURFACE = " \u2047 "
_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")


def byte_of(piece: str) -> Optional[int]:
    """The byte a ``<0xXX>`` piece stands for (``None`` for other pieces).

    >>> byte_of("<0x0A>"), byte_of("<0x0a>"), byte_of("a")
    (10, None, None)
    """
    m = _BYTE_PIECE.fullmatch(piece)
    return int(m.group(1), 16) if m else None


def decode_bytes_strictly(data: bytes) -> str:
    """UTF-8 text of ``data`` where every byte outside a valid character becomes U+FFFD.

    (Python's ``errors="replace"`` writes one U+FFFD for a cut-off character; SentencePiece
    writes one per byte.)

    >>> decode_bytes_strictly(b"\\xe2\\x98 ok \\xe2\\x98\\x83")
    '\\ufffd\\ufffd ok ☃'
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out: list[str] = []
    i, n = 0, len(data)
    while i < n:
        lead = data[i]
        size = 1 if lead < 0x80 else 2 if 0xC2 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else \
            4 if 0xF0 <= lead < 0xF5 else 0
        if size:
            try:
                out.append(data[i:i + size].decode("utf-8"))
                i += size
                continue
            except UnicodeDecodeError:
                pass
        out.append("\ufffd")
        i += 1
    return "".join(out)


@register("decoder", "SentencePiece")
class SentencePieceDecoder(Decoder):
    """Pieces of a SentencePiece model back to text (see the module docstring)."""

    type_name = "SentencePiece"

    def __init__(
        self,
        *,
        control_tokens: Iterable[str] = (),
        unk_token: Optional[str] = None,
        unk_surface: str = DEFAULT_UNK_SURFACE,
        byte_tokens: Optional[Iterable[str]] = None,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True,
    ) -> None:
        self.control_tokens = sorted(set(control_tokens))
        self.unk_token = unk_token
        self.unk_surface = unk_surface
        # None: every <0xXX> piece is a byte piece (the model decides which exist)
        self.byte_tokens = None if byte_tokens is None else sorted(set(byte_tokens))
        self.add_dummy_prefix = bool(add_dummy_prefix)
        self.remove_extra_whitespaces = bool(remove_extra_whitespaces)
        self.escape_whitespaces = bool(escape_whitespaces)
        self._control = frozenset(self.control_tokens)
        self._bytes = None if self.byte_tokens is None else frozenset(self.byte_tokens)

    def _byte(self, piece: str) -> Optional[int]:
        if self._bytes is not None and piece not in self._bytes:
            return None
        return byte_of(piece)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        at_start = True
        strip_first = self.add_dummy_prefix or self.remove_extra_whitespaces
        pending = bytearray()
        for tok in tokens:
            b = self._byte(tok) if tok.startswith("<0x") else None
            if b is not None:
                pending.append(b)
                continue
            if pending:
                out.append(decode_bytes_strictly(bytes(pending)))
                pending.clear()
                at_start = False
            if tok in self._control:
                continue
            if tok == self.unk_token:
                text = self.unk_surface
            else:
                text = tok
                if at_start and strip_first and text.startswith(SPACE_SYMBOL):
                    text = text[1:]
                if self.escape_whitespaces:
                    text = text.replace(SPACE_SYMBOL, " ")
            out.append(text)
            if text or not self.remove_extra_whitespaces:
                at_start = False
        if pending:
            out.append(decode_bytes_strictly(bytes(pending)))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type_name, "control_tokens": list(self.control_tokens), "unk_token": self.unk_token,
                "unk_surface": self.unk_surface, "byte_tokens": self.byte_tokens,
                "add_dummy_prefix": self.add_dummy_prefix, "remove_extra_whitespaces": self.remove_extra_whitespaces,
                "escape_whitespaces": self.escape_whitespaces}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SentencePieceDecoder":
        return cls(control_tokens=data.get("control_tokens", ()), unk_token=data.get("unk_token"),
                   unk_surface=data.get("unk_surface", DEFAULT_UNK_SURFACE), byte_tokens=data.get("byte_tokens"),
                   add_dummy_prefix=data.get("add_dummy_prefix", True),
                   remove_extra_whitespaces=data.get("remove_extra_whitespaces", True),
                   escape_whitespaces=data.get("escape_whitespaces", True))

    def to_hf(self) -> dict[str, Any]:
        """The nearest ``tokenizers`` chain: control pieces to nothing, the unknown piece to its
        surface, ByteFallback, "▁" to " ", then one leading space stripped."""
        steps: list[dict[str, Any]] = [{"type": "Replace", "pattern": {"String": t}, "content": ""}
                                       for t in self.control_tokens]
        if self.unk_token:
            steps.append({"type": "Replace", "pattern": {"String": self.unk_token}, "content": self.unk_surface})
        steps.append({"type": "ByteFallback"})
        if self.escape_whitespaces:
            steps.append({"type": "Replace", "pattern": {"String": SPACE_SYMBOL}, "content": " "})
        steps.append({"type": "Fuse"})
        if self.add_dummy_prefix or self.remove_extra_whitespaces:
            steps.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
        return {"type": "Sequence", "decoders": steps}

    def __repr__(self) -> str:
        return f"SentencePieceDecoder(unk_token={self.unk_token!r}, control_tokens={self.control_tokens!r})"
