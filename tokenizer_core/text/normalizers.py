"""Normalizers: Unicode forms, lowercasing, accent stripping, BERT cleaning, sequences.

Each normalizer has a fast ``normalize_str(text) -> str`` (used when counting
words for training) and ``normalize(text) -> NormalizedString`` that keeps the
alignment to the original text (used when encoding for display). Behaviour
matches the same-named normalizers of Hugging Face ``tokenizers``.

>>> Sequence([NFKC(), Lowercase()]).normalize_str("ＡＢＣ ﬁ")
'abc fi'
>>> StripAccents().normalize_str(NFD().normalize_str("café"))
'cafe'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any, Optional, Union

from tokenizer_core.registry import build, register
from tokenizer_core.text.edit_normalizers import Prepend, Replace, Strip
from tokenizer_core.text.normalized import NormalizedString
from tokenizer_core.text.normalizer_base import Normalizer
from tokenizer_core.text.unicode_forms import NFC, NFD, NFKC, NFKD

# Re-exported: callers import every normalizer from here.
__all__ = ["NFC", "NFD", "NFKC", "NFKD", "PRESETS", "BertNormalizer", "Lowercase", "Normalizer", "Prepend",
           "Replace", "Sequence", "StripAccents", "Strip", "is_cjk"]


def _lower_char(c: str) -> str:
    # Character by character, like tokenizers: no context-dependent final sigma.
    return c.lower()


@register("normalizer", "Lowercase")
class Lowercase(Normalizer):
    """Lowercase every character on its own. ``Lowercase().normalize_str("ΟΔΟΣ") == "οδοσ"``."""

    type_name = "Lowercase"

    def normalize_str(self, text: str) -> str:
        if "Σ" in text:  # str.lower() turns a final capital sigma into "ς"; we must not
            return "".join(map(_lower_char, text))
        return text.lower()

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        ns = NormalizedString.from_str(text) if isinstance(text, str) else text
        lowered = self.normalize_str(ns.text)
        # No character lowercases to nothing, so equal lengths mean one character for one.
        if len(lowered) == len(ns.text):
            return NormalizedString(lowered, ns.align, ns.original_length)
        return ns.transform(self._units(ns.text))

    def _units(self, text: str) -> Iterator[tuple[str, int, int]]:
        for i, c in enumerate(text):
            yield _lower_char(c), i, i + 1


def _is_mark(c: str) -> bool:
    return unicodedata.category(c)[0] == "M"


class _StripNonspacing(Normalizer):
    """BERT's accent stripping: only non-spacing marks (Mn) go; internal to BertNormalizer."""

    def _units(self, text: str) -> Iterator[tuple[str, int, int]]:
        for i, c in enumerate(text):
            if unicodedata.category(c) != "Mn":
                yield c, i, i + 1


@register("normalizer", "StripAccents")
class StripAccents(Normalizer):
    """Remove combining marks (categories Mn, Mc, Me); use after NFD/NFKD to strip accents."""

    type_name = "StripAccents"

    def normalize_str(self, text: str) -> str:
        if text.isascii():
            return text
        return "".join(c for c in text if not _is_mark(c))

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        ns = NormalizedString.from_str(text) if isinstance(text, str) else text
        if ns.text.isascii():  # ASCII has no marks
            return ns
        return ns.transform(self._units(ns.text))

    def _units(self, text: str) -> Iterator[tuple[str, int, int]]:
        for i, c in enumerate(text):
            if not _is_mark(c):
                yield c, i, i + 1


_CJK_RANGES = (
    (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
)


_CJK = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_RANGES) + "]")
def is_cjk(c: str) -> bool:
    """True for CJK Unified Ideographs (the ranges BERT puts spaces around)."""
    cp = ord(c)
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def _is_bert_whitespace(c: str) -> bool:
    # Rust's char::is_whitespace, as tokenizers uses it: separators Zl/Zp (U+2028, U+2029) too.
    return c in "\t\n\r " or unicodedata.category(c) in ("Zs", "Zl", "Zp")


def _is_bert_control(c: str) -> bool:
    if c in "\t\n\r":
        return False
    # Unassigned code points (Cn) stay, as in tokenizers.
    return unicodedata.category(c) in ("Cc", "Cf", "Co")


@register("normalizer", "BertNormalizer")
class BertNormalizer(Normalizer):
    """BERT's cleaning: drop control characters, map whitespace to spaces, space out CJK
    characters, optionally strip accents (default: when lowercasing) and lowercase.

    >>> BertNormalizer().normalize_str("Héllo\\tWorld中文")
    'hello world 中  文 '
    """

    type_name = "BertNormalizer"

    def __init__(
        self,
        *,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        strip_accents: Optional[bool] = None,
        lowercase: bool = True,
    ) -> None:
        self.clean_text = clean_text
        self.handle_chinese_chars = handle_chinese_chars
        self.strip_accents = strip_accents
        self.lowercase = lowercase

    def _strip(self) -> bool:
        return self.lowercase if self.strip_accents is None else self.strip_accents

    def normalize_str(self, text: str) -> str:
        return self.normalize(text).text

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        ns = NormalizedString.from_str(text) if isinstance(text, str) else text
        # Each step is skipped when a quick test shows it would change nothing: most text needs
        # only some of them, and the aligned transform is the slow part of encoding. Cleaning
        # changes only non-printable characters (str.isprintable: categories C*, Z* but " ")
        # and U+FFFD.
        if self.clean_text and (not ns.text.isprintable() or "\ufffd" in ns.text):
            ns = ns.transform(self._clean_units(ns.text))
        if self.handle_chinese_chars and not ns.text.isascii() and _CJK.search(ns.text):
            ns = ns.transform(self._cjk_units(ns.text))
        if self._strip() and not ns.text.isascii():
            ns = NFD().normalize(ns)
            ns = _StripNonspacing().normalize(ns)
        if self.lowercase:
            ns = Lowercase().normalize(ns)
        return ns

    def _units(self, text: str) -> Iterator[tuple[str, int, int]]:  # pragma: no cover - normalize() overrides
        raise NotImplementedError

    @staticmethod
    def _clean_units(text: str) -> Iterator[tuple[str, int, int]]:
        for i, c in enumerate(text):
            if c == "\x00" or c == "\ufffd" or _is_bert_control(c):
                continue
            yield (" " if _is_bert_whitespace(c) else c), i, i + 1

    @staticmethod
    def _cjk_units(text: str) -> Iterator[tuple[str, int, int]]:
        for i, c in enumerate(text):
            if is_cjk(c):
                yield " ", i, i  # inserted spaces map to an empty span at the character
                yield c, i, i + 1
                yield " ", i + 1, i + 1
            else:
                yield c, i, i + 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "BertNormalizer",
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "strip_accents": self.strip_accents,
            "lowercase": self.lowercase,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BertNormalizer":
        return cls(
            clean_text=data.get("clean_text", True),
            handle_chinese_chars=data.get("handle_chinese_chars", True),
            strip_accents=data.get("strip_accents"),
            lowercase=data.get("lowercase", True),
        )

    def to_hf(self) -> dict[str, Any]:
        return self.to_dict()


@register("normalizer", "Sequence")
class Sequence(Normalizer):
    """Apply normalizers one after another."""

    type_name = "Sequence"

    def __init__(self, normalizers: list[Normalizer]) -> None:
        self.normalizers = list(normalizers)

    def normalize_str(self, text: str) -> str:
        for n in self.normalizers:
            text = n.normalize_str(text)
        return text

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        ns = NormalizedString.from_str(text) if isinstance(text, str) else text
        for n in self.normalizers:
            ns = n.normalize(ns)
        return ns

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Sequence", "normalizers": [n.to_dict() for n in self.normalizers]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Sequence":
        return cls([build("normalizer", d) for d in data["normalizers"]])

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Sequence", "normalizers": [n.to_hf() for n in self.normalizers]}

    def __repr__(self) -> str:
        return f"Sequence({self.normalizers!r})"


#: Names the CLI and the app offer, mapped to factories.
PRESETS: dict[str, Any] = {
    "none": lambda: None,
    "nfc": NFC,
    "nfkc": NFKC,
    "lowercase": Lowercase,
    "nfkc+lowercase": lambda: Sequence([NFKC(), Lowercase()]),
    "nfd+strip-accents+lowercase": lambda: Sequence([NFD(), StripAccents(), Lowercase()]),
    "bert": BertNormalizer,
}
