"""Normalizers that edit the text: Replace (a string or a regex), Prepend, Strip.

Each aligns its output the way ``tokenizers`` does: an output character takes the original
span of one input character, so a run replaced by one character points at the run's last
character, and a prepended ``▁`` at the first character.

>>> Replace(" ", "▁").normalize_str("a b"), Prepend("▁").normalize_str("hi"), Strip().normalize_str("  x ")
('a▁b', '▁hi', 'x')
>>> Replace(r"\\s+", " ", is_regex=True).normalize("a \\t b").align
[(0, 1), (3, 4), (4, 5)]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Union

from tokenizer_core.errors import TokenizerError
from tokenizer_core.registry import register
from tokenizer_core.text.normalized import NormalizedString
from tokenizer_core.text.normalizer_base import Normalizer
from tokenizer_core.text.patterns import WHITE_SPACE, compile_pattern, find_spans
from tokenizer_core.types import Offsets


def _as_ns(text: Union[str, NormalizedString]) -> NormalizedString:
    return NormalizedString.from_str(text) if isinstance(text, str) else text


@register("normalizer", "Replace")
class Replace(Normalizer):
    """Replace every match of a literal string (or, with ``is_regex``, an Oniguruma regex).

    >>> Replace(" ", "▁").normalize_str("a b")
    'a▁b'
    """

    type_name = "Replace"

    def __init__(self, pattern: str, content: str, *, is_regex: bool = False) -> None:
        if not isinstance(pattern, str) or not isinstance(content, str):
            raise TokenizerError("Replace needs a string pattern and a string content")
        if not pattern and not is_regex:
            raise TokenizerError("Replace needs a non-empty pattern")
        self.pattern, self.content, self.is_regex = pattern, content, bool(is_regex)
        self._re = compile_pattern(pattern, is_regex=self.is_regex)

    def _spans(self, text: str) -> Iterator[tuple[int, int]]:
        if self.is_regex:
            return find_spans(self._re, text)
        return (m.span() for m in self._re.finditer(text))

    def normalize_str(self, text: str) -> str:
        if not self.is_regex:
            return text.replace(self.pattern, self.content)
        return self.normalize(text).text

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        ns = _as_ns(text)
        t = ns.text
        if not t:  # tokenizers looks for no match in empty text (not even an empty one)
            return ns
        if not self.is_regex:
            if self.pattern not in t:
                return ns
            if len(self.pattern) == len(self.content) == 1:  # one character for one: same alignment
                return NormalizedString(t.replace(self.pattern, self.content), ns.align, ns.original_length)
        out: list[str] = []
        align: list[Offsets] = []
        old, pos, content = ns.align, 0, self.content
        for s, e in self._spans(t):
            out.append(t[pos:s])
            align.extend(old[pos:s])
            if content:
                # The new text points at the last replaced character or, when the match is
                # empty, at the character before it (the empty span at the very start).
                src = e - 1 if e > s else s - 1
                out.append(content)
                align.extend([old[src] if src >= 0 else (0, 0)] * len(content))
            pos = e
        out.append(t[pos:])
        align.extend(old[pos:])
        return NormalizedString("".join(out), align, ns.original_length)

    def _units(self, text: str) -> Iterator[tuple[str, int, int]]:  # pragma: no cover - normalize() overrides
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        if self.is_regex:
            return self.to_hf()
        return {"type": "Replace", "pattern": self.pattern, "content": self.content}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Replace":
        pattern = data["pattern"]
        if isinstance(pattern, dict):  # tokenizers' form: {"String": s} or {"Regex": r}
            if set(pattern) == {"Regex"}:
                return cls(pattern["Regex"], data["content"], is_regex=True)
            if set(pattern) == {"String"}:
                return cls(pattern["String"], data["content"])
            raise TokenizerError(f"Replace pattern must be {{\"String\": ...}} or {{\"Regex\": ...}}, got {pattern!r:.60}")
        return cls(pattern, data["content"])

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Replace", "pattern": {"Regex" if self.is_regex else "String": self.pattern},
                "content": self.content}

    def __repr__(self) -> str:
        return f"Replace({self.pattern!r}, {self.content!r}, is_regex={self.is_regex})"


@register("normalizer", "Prepend")
class Prepend(Normalizer):
    """Put a string in front of any non-empty text (Llama 2's "▁"); it points at the first character.

    >>> Prepend("▁").normalize("hi").align, Prepend("▁").normalize_str("")
    ([(0, 1), (0, 1), (1, 2)], '')
    """

    type_name = "Prepend"

    def __init__(self, prepend: str) -> None:
        if not isinstance(prepend, str):
            raise TokenizerError(f"Prepend needs a string, got {prepend!r:.40}")
        self.prepend = prepend

    def normalize_str(self, text: str) -> str:
        return self.prepend + text if text else text

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        ns = _as_ns(text)
        if not ns.text or not self.prepend:
            return ns
        return NormalizedString(self.prepend + ns.text, [ns.align[0]] * len(self.prepend) + ns.align,
                                ns.original_length)

    def _units(self, text: str) -> Iterator[tuple[str, int, int]]:  # pragma: no cover - normalize() overrides
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Prepend", "prepend": self.prepend}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Prepend":
        return cls(data["prepend"])


@register("normalizer", "Strip")
class Strip(Normalizer):
    """Remove white space (Unicode White_Space, as Rust counts it) at the left and/or right end.

    >>> Strip(right=False).normalize_str("  a  ")
    'a  '
    """

    type_name = "Strip"

    def __init__(self, *, left: bool = True, right: bool = True) -> None:
        self.left, self.right = bool(left), bool(right)

    def _bounds(self, text: str) -> tuple[int, int]:
        i, j = 0, len(text)
        if self.left:
            while i < j and text[i] in WHITE_SPACE:
                i += 1
        if self.right:
            while j > i and text[j - 1] in WHITE_SPACE:
                j -= 1
        return i, j

    def normalize_str(self, text: str) -> str:
        i, j = self._bounds(text)
        return text[i:j]

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        ns = _as_ns(text)
        i, j = self._bounds(ns.text)
        if (i, j) == (0, len(ns.text)):
            return ns
        return NormalizedString(ns.text[i:j], ns.align[i:j], ns.original_length)

    def _units(self, text: str) -> Iterator[tuple[str, int, int]]:  # pragma: no cover - normalize() overrides
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Strip":
        return cls(left=bool(data.get("strip_left", True)), right=bool(data.get("strip_right", True)))
