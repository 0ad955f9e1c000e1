"""Fertility per script: how many tokens a tokenizer spends on each writing system.

Each line gets the *dominant script* of its characters (scripts from the Unicode tables, as in
:func:`tokenizer_core.corpus.stats.script_of`). Characters of no particular script (digits,
punctuation, spaces, combining marks) do not vote; emoji and other symbols vote together as
``"Emoji/symbols"``; Hiragana and Katakana vote together, as Japanese mixes them. Votes are
weighted by UTF-8 bytes, which is what a byte-level tokenizer pays for: a line of a few emoji
among English words is mostly emoji to it.

Words are counted as in :mod:`tokenizer_core.corpus.stats`, so a Thai, Chinese or Japanese clause
without spaces is one "word": for those scripts tokens per character is the fairer measure.

>>> from tokenizer_core.analysis.compare import granularity_tokenizer
>>> tok = granularity_tokenizer("byte", [])
>>> [(r.script, r.tokens, r.fertility, r.tokens_per_char) for r in fertility_by_language(tok, ["hi you\\n", "мир\\n"])]
[('Latin', 6, 3.0, 1.0), ('Cyrillic', 6, 6.0, 2.0)]
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Optional

from tokenizer_core.analysis.metrics import compute_metrics, ratio
from tokenizer_core.corpus.stats import script_of
from tokenizer_core.pipeline import Tokenizer

__all__ = [
    "EMOJI",
    "KANA",
    "LanguageFertility",
    "LineFertility",
    "dominant_script",
    "fertility_by_language",
    "language_of",
    "line_fertility",
]

EMOJI = "Emoji/symbols"
KANA = "Hiragana/Katakana"
_NO_VOTE = {"Common", "Inherited", "Unknown", "Other"}
# Pieces of emoji sequences that Unicode files under other categories: zero-width joiner,
# variation selector 16, the combining keycap.
_EMOJI_PARTS = {"\u200d", "\ufe0f", "\u20e3"}

# The language of the bundled multilingual sample's lines that share a script with others, by
# their first two words; lines of a script only one language here uses fall back to _BY_SCRIPT.
_SAMPLE_LANGUAGES: dict[str, str] = {
    "Tokenizers cut": "English", "Le petit": "French", "Die Straßenbahn": "German",
    "¿Quién dejó": "Spanish", "A avó": "Portuguese", "Tiếng Việt": "Vietnamese",
    "İstanbul'da ılık": "Turkish", "Źdźbło trawy": "Polish", "Вечером мы": "Russian",
    "Їжак знайшов": "Ukrainian", "Weekend plans:": "Emoji", "Decomposed accents:": "English (combining marks)",
    "Compatibility forms:": "English (compatibility forms)", "Numbers and": "English (numbers, symbols)",
}
_BY_SCRIPT: dict[str, str] = {
    "Greek": "Greek", "Arabic": "Arabic", "Hebrew": "Hebrew", "Devanagari": "Hindi", "Bengali": "Bengali",
    "Tamil": "Tamil", "Thai": "Thai", "Han": "Chinese", KANA: "Japanese", "Hangul": "Korean",
    "Georgian": "Georgian", "Armenian": "Armenian", "Ethiopic": "Amharic", EMOJI: "Emoji",
}


def _group(ch: str) -> Optional[str]:
    """The script group a character votes for, or None."""
    if ch in _EMOJI_PARTS or unicodedata.category(ch) in ("So", "Sk"):
        return EMOJI
    script = script_of(ch)
    if script in _NO_VOTE:
        return None
    return KANA if script in ("Hiragana", "Katakana") else script


def dominant_script(line: str) -> str:
    """The script group with the most UTF-8 bytes in ``line`` (``"Common"`` when none votes).

    >>> dominant_script("東京の朝はコーヒー"), dominant_script("3.14 + 2"), dominant_script("ok 👍🏽👍🏽")
    ('Hiragana/Katakana', 'Common', 'Emoji/symbols')
    """
    votes: dict[str, int] = {}
    for ch in line:
        group = _group(ch)
        if group is not None:
            votes[group] = votes.get(group, 0) + len(ch.encode("utf-8", "surrogatepass"))
    # max keeps the first of equal votes: the script met first in the line.
    return max(votes, key=votes.__getitem__) if votes else "Common"


def language_of(line: str, script: Optional[str] = None) -> str:
    """A language label: the bundled sample's own for its lines, else the script's usual language,
    else the script name.

    >>> language_of("Le petit café"), language_of("한국어는"), language_of("Hello there")
    ('French', 'Korean', 'Latin')
    """
    key = " ".join(line.split()[:2])
    if key in _SAMPLE_LANGUAGES:
        return _SAMPLE_LANGUAGES[key]
    script = script or dominant_script(line)
    return _BY_SCRIPT.get(script, script)


@dataclass(frozen=True)
class LineFertility:
    """One line: its labels and what the tokenizer spent on it (newline excluded)."""

    text: str
    language: str
    script: str
    tokens: int
    words: int
    chars: int
    fertility: Optional[float]  # tokens per word
    tokens_per_char: Optional[float]


@dataclass(frozen=True)
class LanguageFertility:
    """All lines of one script together: ``languages`` lists their labels in order of appearance."""

    script: str
    languages: tuple[str, ...]
    lines: int
    tokens: int
    words: int
    chars: int
    fertility: Optional[float]  # tokens per word
    tokens_per_char: Optional[float]


def line_fertility(tok: Tokenizer, lines: Iterable[str]) -> list[LineFertility]:
    """Tokens per word and per character of each non-blank line (encoded without special tokens)."""
    out: list[LineFertility] = []
    for raw in lines:
        text = raw.rstrip("\r\n")
        if not text.strip():
            continue
        m = compute_metrics([tok.encode(text, add_special_tokens=False)], [text], unk_token=None)
        script = dominant_script(text)
        out.append(LineFertility(text, language_of(text, script), script, m.tokens, m.words, m.chars,
                                 m.fertility, ratio(m.tokens, m.chars)))
    return out


def fertility_by_language(tok: Tokenizer, lines: Iterable[str]) -> list[LanguageFertility]:
    """One row per script of ``lines`` (e.g. the bundled ``multilingual`` sample), in order of
    first appearance: tokens per word and tokens per character over that script's lines."""
    groups: dict[str, list[LineFertility]] = {}
    for row in line_fertility(tok, lines):
        groups.setdefault(row.script, []).append(row)
    out = []
    for script, rows in groups.items():
        tokens, words, chars = (sum(getattr(r, f) for r in rows) for f in ("tokens", "words", "chars"))
        out.append(LanguageFertility(script, tuple(dict.fromkeys(r.language for r in rows)), len(rows), tokens,
                                     words, chars, ratio(tokens, words), ratio(tokens, chars)))
    return out
