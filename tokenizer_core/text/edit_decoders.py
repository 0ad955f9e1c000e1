"""Decoders that edit each token: Strip (a character at the ends) and Replace (a string or regex).

Llama 2 style files decode with ``Replace("▁", " ")``, ``ByteFallback``, ``Fuse`` and
``Strip(" ", 1, 0)``, which removes the space the normalizer put in front.

>>> StripDecoder(content=" ", start=1).decode([" Hello", " world"])
'Helloworld'
>>> ReplaceDecoder("▁", " ").decode(["▁a▁b"])
' a b'
"""

from __future__ import annotations

from typing import Any

from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import register
from tokenizer_core.text.decoders import Decoder
from tokenizer_core.text.patterns import compile_pattern, find_spans


@register("decoder", "Strip")
class StripDecoder(Decoder):
    """Remove up to ``start`` copies of ``content`` from the front of every token and up to ``stop``
    from its end (a token shorter than both loses everything, where tokenizers would fail)."""

    type_name = "Strip"

    def __init__(self, *, content: str = " ", start: int = 0, stop: int = 0) -> None:
        if not isinstance(content, str) or len(content) != 1:
            raise TokenizerError(f"Strip decoder content must be one character, got {content!r:.20}")
        for name, value in (("start", start), ("stop", stop)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TokenizerError(f"Strip decoder {name} must be a whole number >= 0, got {value!r}")
        self.content, self.start, self.stop = content, start, stop

    def _strip(self, tok: str) -> str:
        i = 0
        while i < self.start and i < len(tok) and tok[i] == self.content:
            i += 1
        j = len(tok)
        while len(tok) - j < self.stop and j > 0 and tok[j - 1] == self.content:
            j -= 1
        return tok[i:j] if j > i else ""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self._strip(t) for t in tokens]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Strip", "content": self.content, "start": self.start, "stop": self.stop}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "StripDecoder":
        return cls(content=data.get("content", " "), start=data.get("start", 0), stop=data.get("stop", 0))


@register("decoder", "Replace")
class ReplaceDecoder(Decoder):
    """Replace every match of a literal string (or an Oniguruma regex) inside each token."""

    type_name = "Replace"

    def __init__(self, pattern: str, content: str, *, is_regex: bool = False) -> None:
        if not isinstance(pattern, str) or not isinstance(content, str):
            raise TokenizerError("Replace decoder needs a string pattern and a string content")
        self.pattern, self.content, self.is_regex = pattern, content, bool(is_regex)
        self._re = compile_pattern(pattern, is_regex=self.is_regex) if (pattern or is_regex) else None

    def _replace(self, tok: str) -> str:
        if self._re is None or not tok:  # no match in empty text, as tokenizers
            return tok
        if not self.is_regex:
            return tok.replace(self.pattern, self.content)
        out, pos = [], 0
        for s, e in find_spans(self._re, tok):
            out.append(tok[pos:s])
            out.append(self.content)
            pos = e
        out.append(tok[pos:])
        return "".join(out)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self._replace(t) for t in tokens]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Replace", "pattern": {"Regex" if self.is_regex else "String": self.pattern},
                "content": self.content}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ReplaceDecoder":
        pattern = data["pattern"]
        if not isinstance(pattern, dict) or len(pattern) != 1 or not ({"String", "Regex"} & set(pattern)):
            raise TokenizerError(f"Replace decoder pattern must be {{\"String\": ...}} or {{\"Regex\": ...}}, got {pattern!r:.60}")
        (kind, value), = pattern.items()
        return cls(value, data["content"], is_regex=kind == "Regex")
