r"""Patterns as ``tokenizers`` reads them: Oniguruma regexes and literal strings, found the way it finds them.

A ``tokenizer.json`` writes a pattern as ``{"String": s}`` (a literal) or ``{"Regex": r}``
(Oniguruma, Ruby syntax). Python's ``regex`` module reads almost all of these the same way;
:func:`python_pattern` rewrites the few spellings that differ and :func:`find_spans` reports
matches with Oniguruma's rule for empty matches (an empty match right where the previous
match ended is skipped, and the search moves on by one character).

>>> [m for m in find_spans(compile_pattern(r"a*", is_regex=True), "baab")]
[(0, 0), (1, 3), (4, 4)]
>>> python_pattern(r"\h+|\d{1,3}+")
'[0-9a-fA-F]+|\\d{1,}'
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import regex

from tokenizer_core.errors import TokenizerError

# Oniguruma's \h is a hex digit (Python's regex has no \h); inside a class the brackets go.
_HEX = "0-9a-fA-F"
# Oniguruma counts six Latin-1 numbers (superscripts, fractions) as word characters; Python does not.
_WORD_EXTRA = "\u00b2\u00b3\u00b9\u00bc\u00bd\u00be"
_WORD = f"[\\w{_WORD_EXTRA}]"
_OUTSIDE = {
    "w": _WORD,
    "W": f"[^\\w{_WORD_EXTRA}]",
    "b": f"(?:(?<={_WORD})(?!{_WORD})|(?<!{_WORD})(?={_WORD}))",
    "B": f"(?:(?<={_WORD})(?={_WORD})|(?<!{_WORD})(?!{_WORD}))",
}
_INTERVAL = regex.compile(r"\{(\d*)(,?)(\d*)\}\+")


def python_pattern(pattern: str) -> str:
    """The spelling of an Oniguruma (Ruby syntax) pattern that Python's ``regex`` reads alike.

    Handles ``\\w``/``\\b`` (Oniguruma's word characters include ``½``), ``\\h``/``\\H``
    (hex digits), ``(?m)`` (Ruby's "dot matches newline", Python's ``(?s)``) and an interval
    followed by ``+`` (not possessive in Ruby: ``X{1,3}+`` is ``(X{1,3})+``, which is
    ``X{1,}``); other interval repeats are refused. ``^``/``$`` are line anchors in Ruby:
    :func:`compile_pattern` compiles with ``MULTILINE``.
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    depth = 0  # inside [...] (nested classes count)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt in "hH":
                if depth:
                    if nxt == "H":
                        raise TokenizerError(f"pattern {pattern!r}: \\H inside a character class is not supported")
                    out.append(_HEX)
                else:
                    out.append(f"[{'^' if nxt == 'H' else ''}{_HEX}]")
            elif nxt in _OUTSIDE and not depth:  # inside a class Oniguruma's \w leaves "½" out, as Python's
                out.append(_OUTSIDE[nxt])
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        elif not depth and c == "(" and pattern.startswith("(?", i):
            j = i + 2
            while j < n and pattern[j].isalpha() or (j < n and pattern[j] == "-"):
                j += 1
            flags = pattern[i + 2:j]
            if "m" in flags and j < n and pattern[j] in ":)":
                out.append("(?" + flags.replace("m", "s"))
                i = j
                continue
        elif not depth and c == "{":
            m = _INTERVAL.match(pattern, i)
            if m and (m.group(1) or m.group(3)):
                low, comma, high = m.groups()
                # (X{lo,hi})+ reaches every count >= lo when lo <= 1 or hi is open.
                if not (comma and not high) and (low not in ("", "0", "1") or (not comma and low != "1")):
                    raise TokenizerError(
                        f"pattern {pattern!r} repeats an interval ({m.group()!r}); Oniguruma reads it as a "
                        "repeated group, which the playground does not translate")
                out.append("{%s,}" % (low or "0"))
                i = m.end()
                continue
        out.append(c)
        i += 1
    return "".join(out)


def has_line_anchors(pattern: str) -> bool:
    """True when ``^`` or ``$`` stands in ``pattern`` as an anchor (not escaped, not in a class).

    >>> has_line_anchors(r"[^a]\\$"), has_line_anchors(r"\\s+$")
    (False, True)
    """
    i, n, depth = 0, len(pattern), 0
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        elif c in "^$" and not depth:
            return True
        i += 1
    return False


#: Rust's ``char::is_whitespace`` (the Unicode White_Space property), what ``tokenizers`` strips;
#: ``str.isspace`` also counts U+001C..U+001F.
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


@lru_cache(maxsize=256)
def compile_pattern(pattern: str, *, is_regex: bool) -> Any:
    """Compile a ``tokenizers`` pattern (literal when ``is_regex`` is false)."""
    if not is_regex:
        return regex.compile(regex.escape(pattern))
    try:
        return regex.compile(python_pattern(pattern), regex.MULTILINE)
    except regex.error as err:
        raise TokenizerError(f"invalid pattern {pattern!r}: {err}") from None


def find_spans(compiled: Any, text: str) -> Iterator[tuple[int, int]]:
    """Match spans in ``text``, left to right, without overlaps, as Oniguruma reports them."""
    pos, last_end, n = 0, -1, len(text)
    while pos <= n:
        m = compiled.search(text, pos)
        if m is None:
            return
        s, e = m.span()
        if s == e and e == last_end:  # an empty match where the last one ended: step over a character
            pos = e + 1
            continue
        yield s, e
        pos = last_end = e


def match_runs(compiled: Any, text: str) -> list[tuple[int, int, bool]]:
    """``(start, end, is_match)`` pieces covering ``text``: the matches and the gaps between them.

    Empty matches are kept (they matter to the merging behaviours); empty gaps are not.

    >>> match_runs(compile_pattern("-", is_regex=False), "a-b")
    [(0, 1, False), (1, 2, True), (2, 3, False)]
    """
    out: list[tuple[int, int, bool]] = []
    prev = 0
    # The common case, no empty match, is finditer's; only patterns that can match nothing
    # take the slower search that follows Oniguruma's rule.
    spans = [m.span() for m in compiled.finditer(text)]
    if any(s == e for s, e in spans):
        spans = list(find_spans(compiled, text))
    for s, e in spans:
        if s > prev:
            out.append((prev, s, False))
        out.append((s, e, True))
        prev = e
    if prev < len(text):
        out.append((prev, len(text), False))
    return out
