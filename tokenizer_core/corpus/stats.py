"""Corpus statistics: sizes, word frequencies and the character inventory.

A *word* here is a run of letters, combining marks, digits and connector
punctuation such as ``_`` (Unicode ``\\w`` without the zero-width joiners),
with inner apostrophes kept (``don't``, ``l'été``). Punctuation, symbols and
emoji are not words.
Scripts without spaces (Chinese, Japanese, Thai) therefore count a whole
clause as one word; the character inventory is the better view there.
The same definition is used by :mod:`tokenizer_core.analysis.metrics` for fertility.

>>> from tokenizer_core.corpus.loading import Corpus
>>> s = corpus_stats(Corpus("toy", ("the cat, the hat\\n",)))
>>> s.words, s.unique_words, s.word_freq[:2], s.lines
(4, 3, [('the', 2), ('cat', 1)], 1)
>>> [(c.char, c.category, c.script, c.count) for c in s.char_inventory[:2]]
[('t', 'Ll', 'Latin', 4), (' ', 'Zs', 'Common', 3)]
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import regex

from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.types import ProgressCallback, no_progress

__all__ = [
    "WORD_PATTERN",
    "CATEGORY_NAMES",
    "CharInfo",
    "CorpusStats",
    "corpus_stats",
    "count_words",
    "word_count",
    "char_info",
    "script_of",
]

# Unicode \w (letters, marks, digits, connector punctuation) without the
# joiners U+200C/U+200D, which glue emoji sequences and are not words.
_WORD_CHAR = r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}]"
WORD_PATTERN = rf"{_WORD_CHAR}+(?:['’]{_WORD_CHAR}+)*"
_WORD_RE = regex.compile(WORD_PATTERN)

#: Unicode general categories in words, for table headers and tooltips.
CATEGORY_NAMES: dict[str, str] = {
    "Lu": "uppercase letter", "Ll": "lowercase letter", "Lt": "titlecase letter",
    "Lm": "modifier letter", "Lo": "other letter", "Mn": "combining mark",
    "Mc": "spacing mark", "Me": "enclosing mark", "Nd": "decimal digit",
    "Nl": "letter number", "No": "other number", "Pc": "connector punctuation",
    "Pd": "dash", "Ps": "opening punctuation", "Pe": "closing punctuation",
    "Pi": "initial quote", "Pf": "final quote", "Po": "other punctuation",
    "Sm": "math symbol", "Sc": "currency symbol", "Sk": "modifier symbol",
    "So": "other symbol", "Zs": "space", "Zl": "line separator",
    "Zp": "paragraph separator", "Cc": "control", "Cf": "format",
    "Cs": "surrogate", "Co": "private use", "Cn": "unassigned",
}

# The scripts tested by name, most common first; rarer ones are named from the
# character name (e.g. "OL CHIKI LETTER ..." -> "Ol Chiki") below.
_SCRIPTS = (
    "Latin", "Common", "Inherited", "Han", "Cyrillic", "Arabic", "Greek", "Hebrew",
    "Devanagari", "Hiragana", "Katakana", "Hangul", "Thai", "Bengali", "Tamil",
    "Telugu", "Kannada", "Malayalam", "Gujarati", "Gurmukhi", "Oriya", "Sinhala",
    "Armenian", "Georgian", "Ethiopic", "Lao", "Khmer", "Myanmar", "Tibetan",
    "Mongolian", "Syriac", "Thaana", "Nko", "Tifinagh", "Cherokee",
    "Canadian_Aboriginal", "Bopomofo", "Yi", "Javanese", "Balinese", "Runic",
    "Ogham", "Coptic", "Braille", "Unknown",
)
_SCRIPT_RE = regex.compile("|".join(f"(?P<{s}>\\p{{Script={s}}})" for s in _SCRIPTS))

# Control characters have no Unicode name; these are the ones text files contain.
_CONTROL_NAMES = {
    "\t": "CHARACTER TABULATION (TAB)", "\n": "LINE FEED (LF)", "\r": "CARRIAGE RETURN (CR)",
    "\x0b": "LINE TABULATION (VT)", "\x0c": "FORM FEED (FF)", "\x1b": "ESCAPE",
    "\x00": "NULL", "\x7f": "DELETE", "\x85": "NEXT LINE (NEL)",
}


@dataclass(frozen=True)
class CharInfo:
    """One row of the character inventory.

    >>> char_info("é", 3)
    CharInfo(char='é', codepoint='U+00E9', name='LATIN SMALL LETTER E WITH ACUTE', category='Ll', script='Latin', count=3)
    """

    char: str
    codepoint: str
    name: str
    category: str
    script: str
    count: int


@dataclass(frozen=True)
class CorpusStats:
    """Statistics of a corpus.

    ``word_freq`` is sorted by count (descending), then by word; the character
    inventory by count (descending), then by code point.
    """

    documents: int
    lines: int
    chars: int
    bytes: int
    words: int
    unique_words: int
    word_freq: list[tuple[str, int]]
    char_inventory: list[CharInfo]

    @property
    def hapax(self) -> int:
        """How many distinct words occur exactly once."""
        return sum(1 for _, count in self.word_freq if count == 1)

    def top_words(self, n: int = 50) -> list[tuple[str, int]]:
        """The ``n`` most frequent words with their counts."""
        return self.word_freq[: max(n, 0)]


def count_words(texts: Iterable[str], *, progress: ProgressCallback = no_progress) -> Counter:
    """Count the words of ``texts`` (see the module docstring for what a word is); ``progress(done,
    total, message)`` after each piece of about a million characters (``total``: all characters).

    >>> sorted(count_words(["Don't stop", "don't stop"]).items())
    [("Don't", 1), ("don't", 1), ('stop', 2)]
    """
    texts = texts if isinstance(texts, (list, tuple)) else list(texts)
    total = sum(len(t) for t in texts)
    done = 0
    counts: Counter = Counter()
    for text in texts:
        for chunk in _chunks(text):
            counts.update(_WORD_RE.findall(chunk))
            done += len(chunk)
            progress(done, total, f"Counting words: {done / 1e6:,.0f} of {total / 1e6:,.0f} million characters")
    return counts


_CHUNK_CHARS = 1 << 20
# A word never contains one of these, so cutting the text just before one never splits a word.
_NOT_IN_WORDS = regex.compile(r"[^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}'’]")


def _chunks(text: str, size: int = _CHUNK_CHARS) -> Iterator[str]:
    """``text`` in pieces of about ``size`` characters, cut only where no word can span the cut:
    ``findall`` on a 200 MB text would otherwise hold all its 35 million words in one list (2 GB).

    >>> list(_chunks("one two three", size=2))
    ['one', ' two', ' three']
    """
    start = 0
    while len(text) - start > size:
        cut = _NOT_IN_WORDS.search(text, start + size)
        if cut is None:
            break
        yield text[start:cut.start()]
        start = cut.start()
    yield text[start:]


def word_count(text: str) -> int:
    """Number of words in ``text``.

    >>> word_count("naïve café — 3 emoji 🙂🙂")
    4
    """
    return sum(1 for _ in _WORD_RE.finditer(text))


@lru_cache(maxsize=65536)
def script_of(char: str) -> str:
    """The Unicode script of a character (``Common`` for punctuation/digits/emoji,
    ``Inherited`` for most combining marks).

    >>> script_of("a"), script_of("я"), script_of("中"), script_of("\\u0301"), script_of("🙂")
    ('Latin', 'Cyrillic', 'Han', 'Inherited', 'Common')
    """
    match = _SCRIPT_RE.match(char)
    if match is not None:
        return match.lastgroup.replace("_", " ")
    # Rarer scripts: try runs of words from the character's name ("OL CHIKI LETTER
    # LA" -> "Ol_Chiki") as script names, and keep one the regex module confirms.
    words = unicodedata.name(char, "").split()
    for start in range(min(len(words), 3)):
        for end in range(min(len(words), start + 3), start, -1):
            candidate = "_".join(words[start:end]).title()
            for name in (candidate, candidate + "s"):  # "Egyptian Hieroglyph" -> "..._Hieroglyphs"
                if _is_script_of(name, char):
                    return name.replace("_", " ")
    return "Other"


@lru_cache(maxsize=4096)
def _script_pattern(name: str):
    try:
        return regex.compile(rf"\p{{Script={name}}}")
    except regex.error:
        return None


def _is_script_of(name: str, char: str) -> bool:
    pattern = _script_pattern(name)
    return pattern is not None and pattern.match(char) is not None


@lru_cache(maxsize=65536)
def _describe(char: str) -> tuple[str, str, str, str]:
    category = unicodedata.category(char)
    name = unicodedata.name(char, "") or _CONTROL_NAMES.get(char, "")
    if not name:
        name = f"<{CATEGORY_NAMES.get(category, category)}>"
    return f"U+{ord(char):04X}", name, category, script_of(char)


def char_info(char: str, count: int = 0) -> CharInfo:
    """Describe one character (code point, name, general category, script)."""
    codepoint, name, category, script = _describe(char)
    return CharInfo(char, codepoint, name, category, script, count)


def _line_count(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def corpus_stats(corpus: Corpus, *, progress: ProgressCallback = no_progress) -> CorpusStats:
    """Compute the statistics of ``corpus`` (about half a second for 2 MB); ``progress`` is called as
    the words are counted (the longest part), so a caller can show it and stop there."""
    words = count_words(corpus.texts, progress=progress)
    chars: Counter = Counter()
    for text in corpus.texts:
        chars.update(text)
    separators = max(len(corpus.texts) - 1, 0)
    if separators:
        chars["\n"] += separators  # documents are joined by newlines in Corpus.text
    inventory = [char_info(c, n) for c, n in chars.items()]
    inventory.sort(key=lambda row: (-row.count, ord(row.char)))
    return CorpusStats(
        documents=len(corpus.texts),
        lines=sum(_line_count(t) for t in corpus.texts),
        chars=corpus.num_chars,
        bytes=corpus.size_bytes,
        words=sum(words.values()),
        unique_words=len(words),
        word_freq=sorted(words.items(), key=lambda kv: (-kv[1], kv[0])),
        char_inventory=inventory,
    )
