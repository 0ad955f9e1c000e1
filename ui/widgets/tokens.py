"""Token display used across the app: safe HTML chips for tokens.

Rules (the same on every page):

- a token's colour comes from its id (:func:`token_colour`), so a token keeps its colour across
  pages, runs and machines; the :data:`PALETTE` is six light colours that stay at least 16
  CIEDE2000 apart for normal, deuteranopic, protanopic and tritanopic vision (Machado et al. 2009
  simulation, tests/app/test_chip_colours.py), all under dark text; in a row of chips, a token whose
  colour is the one of the different token just before it takes its id's second colour
  (:func:`row_colours`), so two neighbouring tokens never share a colour;
- chips are separated by a gap and a dark outline, so tokens stay apart without colour too;
- whitespace is made visible: ``·`` for a space, ``⏎`` for a newline, ``→`` for a tab; other
  invisible characters (NUL, zero-width joiners, bidi controls, no-break spaces) as ``⟨U+200D⟩``,
  and a token starting with a combining mark gets a dotted circle (``◌́``) to sit on;
- very long tokens are cut for display (:data:`MAX_SHOWN` characters, then how many more:
  :func:`shown_text`);
- the markers ``Ġ`` (byte-level space), ``▁`` (metaspace), ``##`` (WordPiece continuation) and
  ``</w>`` (end of word) are shown as they are, or translated into what they mean, each in its own
  way: ``·`` for the space that ``Ġ`` and ``▁`` stand for, ``‿`` before a continuation, ``⟩`` after
  the last piece of a word;
- a token whose text runs from a word into the space after it (``of the``, ``the·``: a *superword*,
  as SuperBPE and SentencePiece without whitespace splitting learn) is underlined in
  :data:`EDGE_COLOUR` (:func:`spans_space`); no ordinary word-level tokenizer has one;
- byte-level tokens that are not valid UTF-8 on their own are shown as bytes (``<0xE2>``),
  never as a replacement character;
- every piece of token text is HTML-escaped; the id (and what else a view knows: bytes, offsets)
  appears on hover, and on keyboard focus (every chip is a Tab stop; :data:`CHIP_CSS` shows the
  same details under a focused chip).

>>> display_text("Ġhello", scheme="byte-level", translate=True)
'·hello'
>>> display_text("âĢ", scheme="byte-level", translate=True)
'<0xE2><0x80>'
>>> "<script>" in chips_html([(1, "<script>")], scheme="plain")
False
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Literal, Optional

from tokenizer_core.text.pre_tokenizers import unicode_to_bytes

Scheme = Literal["plain", "byte-level", "metaspace", "wordpiece", "suffix"]
_VISIBLE = {" ": "·", "\n": "⏎", "\t": "→", "\r": "↵"}
#: Chip backgrounds: light enough for dark text (contrast >= 7 with #111827) and at least 16
#: CIEDE2000 apart pairwise under simulated deuteranopia, protanopia and tritanopia.
PALETTE = ("#99EEFF", "#EEEE77", "#BB99FF", "#DDEEDD", "#DD9977", "#99AAAA")
#: Chips of pieces that have no id (pre-tokenizer pieces).
NO_ID_COLOUR = "#E5E7EB"
#: Chip text (every palette colour is light, in both themes).
CHIP_TEXT = "#111827"
#: The mark of a boundary that only some tokenizers draw: a deep red, dark enough to stand out
#: against every chip colour by lightness alone (36+ CIEDE2000 under every simulation).
EDGE_COLOUR = "#8B1A2B"
#: What every chip view adds once: focus shows a chip's details under it (the hover title's text),
#: so ids and bytes are reachable from the keyboard.
CHIP_CSS = f"""<style>
.tp-chip {{
  color: {CHIP_TEXT}; border: 1px solid rgba(17,24,39,0.45); font-weight: 400; border-radius: 4px;
  padding: 1px 4px; margin: 1px 2px 1px 0; display: inline-block; font-family: ui-monospace,monospace;
  white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%; unicode-bidi: isolate; line-height: 1.7;
}}
.tp-chip.tp-hl {{ border: 2px solid {EDGE_COLOUR}; font-weight: 700; }}
.tp-chip.tp-sw {{ text-decoration: underline wavy {EDGE_COLOUR}; text-decoration-thickness: 1.5px;
  text-underline-offset: 3px; }}
.tp-chip[data-tip] {{ position: relative; cursor: help; }}
.tp-chip[data-tip]:focus {{ outline: 2px solid #2563EB; outline-offset: 1px; z-index: 30; }}
.tp-chip[data-tip]:focus::after {{
  content: attr(data-tip); position: absolute; left: 0; top: 100%; margin-top: 3px; z-index: 31;
  white-space: pre-wrap; overflow-wrap: anywhere; width: max-content; max-width: min(32em, 70vw);
  background: {CHIP_TEXT}; color: #F9FAFB; font-size: 0.78rem; font-weight: 400; line-height: 1.4;
  padding: 3px 6px; border-radius: 4px; pointer-events: none; box-shadow: 0 2px 6px rgba(0,0,0,.35);
}}
</style>"""
# Control, format (ZWJ, bidi overrides, BOM), separator and surrogate characters: invisible, or able
# to reorder the text around them, so they are shown by code point.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp", "Zs"})
#: Token text longer than this is cut for display (a corpus can hold one 200,000-character word).
MAX_SHOWN = 40


def token_colour(token_id: Optional[int]) -> str:
    """Background colour for a token id, the same for the same id everywhere (consecutive ids,
    such as the byte tokens of one character, differ).

    >>> token_colour(7) == token_colour(7), token_colour(7) != token_colour(8), token_colour(None)
    (True, True, '#E5E7EB')
    """
    if token_id is None:
        return NO_ID_COLOUR
    return PALETTE[token_id % len(PALETTE)]


def second_colour(token_id: int) -> str:
    """The colour a token takes when its own is the one of the different token just before it.

    >>> second_colour(0) != token_colour(0)
    True
    """
    return PALETTE[(token_id + len(PALETTE) // 2) % len(PALETTE)]


def row_colours(ids: Iterable[Optional[int]]) -> list[str]:
    """Colours of a row of chips: each token's own, except that a token whose colour is the one of
    the different token before it takes :func:`second_colour` (the same token twice keeps its colour;
    the gap between chips parts them).

    >>> row_colours([0, 6, 6, 1]) == [token_colour(0), second_colour(6), second_colour(6), token_colour(1)]
    True
    """
    out: list[str] = []
    prev_id: Optional[int] = None
    for tid in ids:
        colour = token_colour(tid)
        if out and tid is not None and tid != prev_id and colour == out[-1]:
            colour = second_colour(tid)
        elif out and tid is not None and tid == prev_id:
            colour = out[-1]
        out.append(colour)
        prev_id = tid
    return out


def _visible_char(c: str) -> str:
    shown = _VISIBLE.get(c)
    if shown is not None:
        return shown
    if c.isprintable() and unicodedata.category(c) not in _HIDDEN_CATEGORIES:
        return c
    return f"⟨U+{ord(c):04X}⟩"


def visible_whitespace(text: str) -> str:
    """Replace spaces, newlines and tabs by visible marks, and other invisible characters by their
    code point. ``visible_whitespace("a b")`` is ``'a·b'``; ``visible_whitespace("a\\u200db")`` is
    ``'a⟨U+200D⟩b'``."""
    out = "".join(map(_visible_char, text))
    if out and unicodedata.category(out[0]).startswith("M"):
        out = "◌" + out  # a mark alone would sit on the chip's border (or the token before)
    return out


def shorten(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out.

    >>> shorten("x" * 50, 8)
    'xxxxxxxx… (+42 characters)'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (+{len(text) - limit:,} characters)"


def bytes_display(data: bytes) -> str:
    """Text for raw bytes: valid UTF-8 runs as text, every other byte as ``<0xNN>``.

    >>> bytes_display("é".encode() + b"\\xe2")
    'é<0xE2>'
    """
    out: list[str] = []
    i = 0
    while i < len(data):
        try:
            out.append(data[i:].decode("utf-8"))
            break
        except UnicodeDecodeError as err:
            if err.start > 0:
                out.append(data[i:i + err.start].decode("utf-8"))
            bad_end = i + max(err.end, err.start + 1)
            out.extend(f"<0x{b:02X}>" for b in data[i + err.start:bad_end])
            i = bad_end
    return "".join(out)


def display_text(token: str, *, scheme: Scheme = "plain", translate: bool = True) -> str:
    """How a token string is shown. ``translate=False`` keeps ``Ġ``/``▁``/``##`` as they are
    (whitespace is still made visible)."""
    if scheme == "byte-level":
        if not translate:
            return visible_whitespace(token)  # the byte symbols are printable; anything else is shown
        table = unicode_to_bytes()
        if all(c in table for c in token):
            return visible_whitespace(bytes_display(bytes(table[c] for c in token)))
        return visible_whitespace(token)
    if translate:
        if scheme == "metaspace":
            token = token.replace("▁", " ")
        elif scheme == "wordpiece" and token.startswith("##"):
            return "‿" + visible_whitespace(token[2:])  # joined to the piece before
        elif scheme == "suffix" and token.endswith("</w>"):
            return visible_whitespace(token[:-4]) + "⟩"  # the end of a word, not a space
    return visible_whitespace(token)


# Something other than whitespace, then a space or tab (never a newline alone: cl100k's tokens of
# punctuation and line breaks, such as ".\n", are not words joined across a space).
_SPANNING = re.compile(r"[^\s▁][ \t▁]")


def spans_space(token: str, *, scheme: Scheme = "plain") -> bool:
    """Whether a token's text runs on past a space between words (a *superword* token): a character
    that is not whitespace, then a space or tab (``▁`` is the space of metaspace tokens).

    >>> spans_space("ofĠthe", scheme="byte-level"), spans_space("Ġthe", scheme="byte-level")
    (True, False)
    >>> spans_space("▁of▁the", scheme="metaspace"), spans_space(".\\n", scheme="plain")
    (True, False)
    """
    if scheme == "byte-level":
        table = unicode_to_bytes()
        if all(c in table for c in token):
            token = bytes(table[c] for c in token).decode("utf-8", "replace")
    return _SPANNING.search(token) is not None


def shown_text(token: str, *, scheme: Scheme = "plain", translate: bool = True, limit: int = MAX_SHOWN) -> str:
    """:func:`display_text` of at most ``limit`` characters of the token, then how many were left out
    (cut before converting, so a 200,000-character token costs no more than a short one).

    >>> shown_text("ab" * 30, limit=4)
    'abab… (+56 more)'
    """
    if len(token) <= limit:
        return display_text(token, scheme=scheme, translate=translate)
    return f"{display_text(token[:limit], scheme=scheme, translate=translate)}… (+{len(token) - limit:,} more)"


def scheme_for(tokenizer: object) -> Scheme:
    """Guess the marker scheme of a tokenizer from its pre-tokenizer and decoder."""
    pre = type(getattr(tokenizer, "pre_tokenizer", None)).__name__
    dec = getattr(tokenizer, "decoder", None)
    dec_name = type(dec).__name__
    if "ByteLevel" in pre or "ByteLevel" in dec_name or pre == "Sequence" and "ByteLevel" in repr(
            getattr(tokenizer, "pre_tokenizer", "")):
        return "byte-level"
    if "Metaspace" in pre or "Metaspace" in dec_name:
        return "metaspace"
    if "WordPiece" in dec_name:
        return "wordpiece"
    if "BPESuffix" in dec_name:
        return "suffix"
    return "plain"


def chip_html(token_id: Optional[int], token: str, *, scheme: Scheme = "plain", translate: bool = True,
              highlight: bool = False, title_extra: str = "", limit: int = MAX_SHOWN,
              colour: Optional[str] = None) -> str:
    """One token as an escaped HTML chip (cut after ``limit`` characters, see :func:`shown_text`),
    a Tab stop whose details (id, string) show on hover and on focus; ``colour`` overrides the id's
    (:func:`row_colours`).

    >>> chip_html(5, "<b>") == chip_html(5, "<b>") and "&lt;b&gt;" in chip_html(5, "<b>")
    True
    """
    if len(token) <= _KEPT_CHARS and len(title_extra) <= _KEPT_CHARS:
        return _kept_chip(token_id, token, scheme, translate, highlight, title_extra, limit, colour)
    return _chip(token_id, token, scheme, translate, highlight, title_extra, limit, colour)


def _chip(token_id: Optional[int], token: str, scheme: Scheme, translate: bool, highlight: bool,
          title_extra: str, limit: int, colour: Optional[str]) -> str:
    shown = shown_text(token, scheme=scheme, translate=translate, limit=limit) or "∅"
    colour = colour or token_colour(token_id)
    title = f"id {token_id}" if token_id is not None else "no id"
    title += f" · {shorten(repr(token), 2 * MAX_SHOWN)}"
    if title_extra:
        title += f" · {title_extra}"
    tip = html.escape(title, quote=True)
    # The look is CHIP_CSS's class rule (every page adds it once): a sentence's merge strips are a
    # few hundred chips on every BPE step, and a style written into each one made them 400 KB.
    look = "tp-chip" + (" tp-hl" if highlight else "") + (" tp-sw" if spans_space(token, scheme=scheme) else "")
    return (f'<span class="{look}" tabindex="0" title="{tip}" data-tip="{tip}" '
            f'style="background:{colour}">{html.escape(shown)}</span>')


#: Short tokens' chips are kept (a pure function of its arguments, so one table serves every session):
#: a BPE step draws the same few hundred chips again in its strips and word tables.
_KEPT_CHARS = 64
_kept_chip = lru_cache(maxsize=16384)(_chip)


def chips_html(tokens: Iterable[tuple[Optional[int], str]], *, scheme: Scheme = "plain", translate: bool = True,
               highlight: Sequence[str] | frozenset[str] = frozenset()) -> str:
    """A row of token chips (:func:`row_colours`); tokens whose string is in ``highlight`` get a bold border."""
    hl = set(highlight)
    tokens = list(tokens)
    colours = row_colours(tid for tid, _ in tokens)
    body = "".join(chip_html(tid, tok, scheme=scheme, translate=translate, highlight=tok in hl, colour=colour)
                   for (tid, tok), colour in zip(tokens, colours))
    return f'{CHIP_CSS}<div class="tp-chips" style="line-height:2">{body}</div>'
