"""Where a tokenizer cuts a user-perceived character: a family emoji joined by zero-width joiners,
a flag (two regional indicators), a letter with combining accents, a Hangul syllable in jamo.

A reader sees one character (a Unicode *extended grapheme cluster*, found with ``regex``'s ``\\X``);
a tokenizer may cut it into several tokens, at code points or inside one code point's bytes. This
module lists, for one tokenizer's tokens of a text, every grapheme that more than one token covers.

>>> from tokenizer_core.analysis.compare import Segment
>>> text = "e\\u0301!"          # e + combining acute accent, then "!": two graphemes
>>> [(g.start, g.end) for g in graphemes(text)]
[(0, 2), (2, 3)]
>>> cuts = cut_graphemes(text, [Segment(0, 1, "e", 1), Segment(1, 2, "\\u0301", 2), Segment(2, 3, "!", 3)])
>>> [(c.start, c.end, c.tokens) for c in cuts]
[(0, 2, 2)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import regex

from tokenizer_core.analysis.compare import Segment

_CLUSTER = regex.compile(r"\X")

#: Texts that show the kinds of cut (for the Compare page's examples and the tests).
EXAMPLES = {
    "family emoji (ZWJ sequence)": "\U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466",
    "flag (regional indicators)": "\U0001F1EF\U0001F1F5",
    "combining accents": "e\u0301te\u0301 n\u0303",
    "skin tone": "\U0001F44D\U0001F3FD",
    "Devanagari": "\u0915\u094D\u0937\u093F",
}


@dataclass(frozen=True)
class Grapheme:
    start: int  # character offsets in the text
    end: int
    text: str


@dataclass(frozen=True)
class GraphemeCut:
    """A grapheme covered by more than one token."""

    start: int
    end: int
    text: str
    tokens: int  # how many tokens cover some of it


def graphemes(text: str) -> list[Grapheme]:
    """The text's user-perceived characters, in order."""
    return [Grapheme(m.start(), m.end(), m.group()) for m in _CLUSTER.finditer(text)]


def cut_graphemes(text: str, segments: Sequence[Segment]) -> list[GraphemeCut]:
    """Every grapheme of ``text`` that two or more of ``segments`` (one tokenizer's tokens, with the
    character spans they cover) overlap; a zero-width token overlaps nothing."""
    spans = sorted((s.start, s.end) for s in segments if s.end > s.start)
    out: list[GraphemeCut] = []
    i = 0
    for g in graphemes(text):
        while i < len(spans) and spans[i][1] <= g.start:
            i += 1
        j, covering = i, 0
        while j < len(spans) and spans[j][0] < g.end:
            if spans[j][1] > g.start:
                covering += 1
            j += 1
        if covering > 1:
            out.append(GraphemeCut(g.start, g.end, g.text, covering))
    return out
