"""The Unicode normalization forms (NFC, NFD, NFKC, NFKD) as normalizers that keep the alignment to
the original text, as ``tokenizers`` aligns them: a composed character takes the span of the character
it starts from. A long text is looked at a line at a time, and only around the characters a form may
change (most of a big text holds none).

>>> ns = NFC().normalize("cafe\u0301 ok")
>>> ns.text, ns.original_span(3, 4)
('café ok', (3, 4))
>>> list(NFC().units("ab\\ne\u0301"))
[(None, 0, 3), ('é', 3, 4)]
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any, Optional, Union

import regex

from tokenizer_core.registry import register
from tokenizer_core.text.normalized import NormalizedString
from tokenizer_core.text.normalizer_base import Normalizer

__all__ = ["NFC", "NFD", "NFKC", "NFKD"]

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


# The characters a Unicode form may change, reorder or compose with what is before them: those whose
# quick check is No or Maybe, and combining marks (ccc not 0); a line without one is in the form (the
# quick check of UAX #15). The regex module's tables are at least as new as unicodedata's and a character's
# quick check never changes once it is assigned, so these find all that Python's tables would change
# (tests/core/text/test_unicode_forms.py checks every code point).
_SUSPECTS = {form: regex.compile(f"[\\p{{{form}_QC=N}}{maybe}\\P{{ccc=0}}]")
             for form, maybe in (("NFC", "\\p{NFC_QC=M}"), ("NFKC", "\\p{NFKC_QC=M}"), ("NFD", ""), ("NFKD", ""))}


def _suspect_regions(text: str, start: int, end: int, suspect: Any) -> list[tuple[int, int]]:
    """Spans of ``text[start:end]`` that hold every change a form makes: each suspect character's
    starter-led chunk, and the chunk before it when the suspect is a starter itself (a Hangul vowel
    or an Indic length mark composes with the starter before it); overlapping spans joined.

    >>> _suspect_regions("abe\u0301cd", 0, 6, _SUSPECTS["NFC"])
    [(2, 4)]
    """
    combining = unicodedata.combining
    out: list[list[int]] = []
    for m in suspect.finditer(text, start, end):
        p = a = m.start()
        while a > start and combining(text[a]):
            a -= 1
        if a == p and a > start:  # a starter: it may compose with the chunk before
            a -= 1
            while a > start and combining(text[a]):
                a -= 1
        b = p + 1
        while b < end and combining(text[b]):
            b += 1
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


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
        # Only the chunks around a character the form may change can change (or join a neighbour):
        # the rest of the line is kept as it is, without a look at each of its characters.
        kept = start
        for a, b in _suspect_regions(text, start, end, _SUSPECTS[self.form]):
            if a > kept:
                yield None, kept, a
            yield from self._region_units(text, a, b)
            kept = b
        if end > kept:
            yield None, kept, end

    def _region_units(self, text: str, start: int, end: int) -> Iterator[tuple[Optional[str], int, int]]:
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
