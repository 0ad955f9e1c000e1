"""The Unicode forms' alignment (tokenizer_core/text/unicode_forms.py) looks only around the characters a form
may change: the regular expression that finds them covers every code point Python's own tables would change,
and the units so found equal those of the chunk-by-chunk walk over whole lines (the alignment `tokenizers`
gives, checked by the parity tests), for texts dense in marks, Hangul jamo and compositions across starters."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tokenizer_core.text.unicode_forms import _SUSPECTS, NFC, NFD, NFKC, NFKD

FORMS = {"NFC": NFC, "NFD": NFD, "NFKC": NFKC, "NFKD": NFKD}
# Marks of several classes (reordered), Hangul L V T and an LV syllable (composed across starters), the
# Angstrom sign (NFC changes it), Kannada i + length mark (two starters that compose), a ligature and a
# full-width letter (the compatibility forms), a starter that blocks, and plain text.
ALPHABET = ["a", "e", " ", "\n", "\u0301", "\u0327", "\u0316", "\u05b0", "\u1100", "\u1161", "\u11a8", "\uac00",
            "\u212b", "\u0cbf", "\u0cd5", "\u0cc6", "\u0cc2", "\ufb01", "\uff21", "\u0915", "\u093c", "x"]


def _every_code_point() -> str:
    return "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)


@pytest.fixture(scope="module")
def composition_seconds() -> set[str]:
    """Characters that are the second of a canonical pair some character composes from (quick check
    "Maybe" in NFC and NFKC), from Python's own tables."""
    out = set()
    for c in map(chr, range(sys.maxunicode + 1)):
        parts = unicodedata.decomposition(c).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            a, b = (chr(int(h, 16)) for h in parts)
            if unicodedata.normalize("NFC", a + b) == c:
                out.add(b)
    return out


@pytest.mark.parametrize("form", FORMS)
def test_the_suspects_cover_what_pythons_tables_change(form, composition_seconds):
    every = _every_code_point()
    found = set(_SUSPECTS[form].findall(every))
    changed = {c for c in every if unicodedata.normalize(form, c) != c or unicodedata.combining(c)}
    if form in ("NFC", "NFKC"):
        changed |= composition_seconds
    assert not changed - found, sorted(changed - found)[:20]
    assert "a" not in found and "\n" not in found and "\u0301" in found


def _merged(units):
    """Units with neighbouring kept runs joined (two kept runs side by side keep the same text)."""
    out = []
    for unit in units:
        if unit[0] is None and out and out[-1][0] is None and out[-1][2] == unit[1]:
            out[-1] = (None, out[-1][1], unit[2])
        else:
            out.append(unit)
    return out


def _whole_line_walk(form, text: str):
    """The units of every line from the chunk-by-chunk walk over all of it (before the suspects)."""
    start = 0
    for end in [*(i + 1 for i, c in enumerate(text) if c == "\n"), len(text)]:
        if end > start:
            yield from form._region_units(text, start, end)
        start = end


@pytest.mark.parametrize("name", FORMS)
@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join))
@example(text="\u1100\u1161\u11a8 \u0cbf\u0cd5 e\u0316\u0301\n\u212b")
@example(text="\u0301\u0301a")  # marks at a line's start, with no starter before them
def test_units_around_suspects_equal_the_whole_line_walk(name, text):
    form = FORMS[name]()
    units = list(form.units(text))
    assert "".join(text[i:j] if out is None else out for out, i, j in units) == unicodedata.normalize(name, text)
    assert _merged(units) == _merged(_whole_line_walk(form, text))
    assert form.in_form(text) == unicodedata.is_normalized(name, text)
    long = (text + "\n") * (5_000 // (len(text) + 1) + 1)  # past the length checked a line at a time
    assert form.in_form(long) == unicodedata.is_normalized(name, long)
