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

# Re-exported: callers import every normalizer from here.
__all__ = ["NFC", "NFD", "NFKC", "NFKD", "PRESETS", "BertNormalizer", "Lowercase", "Normalizer", "Prepend",
           "Replace", "Sequence", "StripAccents", "Strip", "is_cjk"]


_LINE_ENDS = re.compile("\n")
#: From this length on, a text's form is checked line by line (:meth:`_UnicodeForm.in_form`).
_LONG_TEXT = 4096


def _chunks_at_starters(text: str, begin: int = 0, end: Optional[int] = None) -> Iterator[tuple[int, int]]:
    """Spans of ``text[begin:end]`` starting at each character of canonical combining class 0 (a 'starter')."""
    end = len(text) if end is None else end
    start = begin
    for i in range(begin + 1, end):
        if unicodedata.combining(text[i]) == 0:
            yield start, i
            start = i
    if end > begin:
        yield start, end


class _UnicodeForm(Normalizer):
    form = "NFC"

    def normalize_str(self, text: str) -> str:
        return unicodedata.normalize(self.form, text)  # type: ignore[arg-type]

    def normalize(self, text: Union[str, NormalizedString]) -> NormalizedString:
        ns = NormalizedString.from_str(text) if isinstance(text, str) else text
        if unicodedata.is_normalized(self.form, ns.text):  # type: ignore[arg-type]
            return ns
        return ns.transform(self._units(ns.text))

    def in_form(self, text: str) -> bool:
        """Whether ``text`` is in this form: ``unicodedata.is_normalized``, asked a line at a time (a
        line feed composes with nothing, so the text is in the form when each line is). Where a quick
        check says "maybe", Python normalizes the whole string it was given to compare: one line, not
        a megabyte.

        >>> NFC().in_form("café\\nok"), NFC().in_form("ok\\ncafe\u0301")
        (True, False)
        """
        is_normalized, form = unicodedata.is_normalized, self.form
        if len(text) < _LONG_TEXT:
            return is_normalized(form, text)  # type: ignore[arg-type]
        return all(is_normalized(form, line) for line in text.split("\n"))  # type: ignore[arg-type]

    def units(self, text: str) -> Iterator[tuple[Optional[str], int, int]]:
        """The ``(output, i, j)`` units (see :meth:`NormalizedString.transform`) taking ``text`` to this
        form: ``None`` outputs for the runs already in it.

        >>> list(NFC().units("ab\\ne\u0301"))
        [(None, 0, 3), ('é', 3, 4)]
        """
        return self._units(text)

    def _units(self, text: str) -> Iterator[tuple[str, int, int]]:
        form = self.form
        # (No check of the whole text first: where its quick check says "maybe", Python normalizes
        # all of it to compare, 25 ms a megabyte, and callers have asked already.)
        # Line by line: a line feed is a starter that nothing composes with, on either side, so no
        # change crosses one. The lines already in the form (most of a big text) are kept in runs as
        # long as they go: one unit, not one a line, for the alignment to walk.
        kept = start = 0  # the run kept so far begins at `kept`; the next line at `start`
        for end in (*(m.end() for m in _LINE_ENDS.finditer(text)), len(text)):
            if end > start and not unicodedata.is_normalized(form, text[start:end]):  # type: ignore[arg-type]
                if start > kept:
                    yield None, kept, start
                yield from self._line_units(text, start, end)
                kept = end
            start = end
        if kept < len(text):
            yield None, kept, len(text)

    def _line_units(self, text: str, start: int, end: int) -> Iterator[tuple[Optional[str], int, int]]:
        form = self.form
        # Normalise starter-led chunks separately, joining neighbours whose result differs when
        # normalised together (Hangul jamo and a few scripts compose across starters).
        chunks: list[tuple[int, int]] = []
        for i, j in _chunks_at_starters(text, start, end):
            if chunks:
                a, b = text[chunks[-1][0]:chunks[-1][1]], text[i:j]
                if unicodedata.normalize(form, a + b) != unicodedata.normalize(form, a) + unicodedata.normalize(form, b):  # type: ignore[arg-type]
                    chunks[-1] = (chunks[-1][0], j)
                    continue
            chunks.append((i, j))
        # Chunks already in the form are kept as runs (one unit, not one a character: most of a line
        # that holds one decomposed accent is unchanged).
        kept = None
        for i, j in chunks:
            chunk = text[i:j]
            if unicodedata.normalize(form, chunk) == chunk:  # type: ignore[arg-type]
                kept = i if kept is None else kept
                continue
            if kept is not None:
                yield None, kept, i
                kept = None
            yield from self._chunk_units(text, i, j)
        if kept is not None:
            yield None, kept, end

    def _chunk_units(self, text: str, i: int, j: int) -> Iterator[tuple[str, int, int]]:
        """Units for one chunk, as fine-grained as the change allows (as tokenizers aligns them)."""
        form = self.form
        chunk = text[i:j]
        out = unicodedata.normalize(form, chunk)  # type: ignore[arg-type]
        if out == chunk:
            yield from ((c, i + k, i + k + 1) for k, c in enumerate(chunk))
            return
        per_char = [unicodedata.normalize(form, c) for c in chunk]  # type: ignore[arg-type]
        if "".join(per_char) == out:  # decompositions, and compositions that stay within a character
            yield from ((d, i + k, i + k + 1) for k, d in enumerate(per_char))
            return
        # A composition ("e" + U+0301 -> "é"): like tokenizers, the composed character takes the
        # span of the character it starts from and swallows as many input characters as the
        # chunk lost; the characters after it take the spans of the input characters that follow.
        n = len(chunk)
        if len(out) < n:
            lost = n - len(out)
            yield out[0], i, i + 1
            for k in range(1, len(out)):
                src = i + k + lost
                yield out[k], src, src + 1
            return
        for k, c in enumerate(out):
            src = i + min(k, n - 1)
            yield c, src, src + 1


@register("normalizer", "NFC")
class NFC(_UnicodeForm):
    """Canonical composition. ``NFC().normalize_str("e\\u0301") == "é"``."""

    type_name = form = "NFC"


@register("normalizer", "NFD")
class NFD(_UnicodeForm):
    """Canonical decomposition. ``len(NFD().normalize_str("é")) == 2``."""

    type_name = form = "NFD"


@register("normalizer", "NFKC")
class NFKC(_UnicodeForm):
    """Compatibility composition. ``NFKC().normalize_str("ﬁ") == "fi"``."""

    type_name = form = "NFKC"


@register("normalizer", "NFKD")
class NFKD(_UnicodeForm):
    """Compatibility decomposition. ``NFKD().normalize_str("ﬁ") == "fi"``."""

    type_name = form = "NFKD"


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
