"""The one door to ``st.html``: markup built by the app's helpers, checked before it reaches the browser.

Token text comes from users' corpora and tokenizer files, so every helper that builds HTML escapes
it (``html.escape``). As a second line of defence every fragment goes through :func:`render_html`,
which parses it and refuses what those helpers never write: a tag outside :data:`ALLOWED_TAGS`, an
event-handler attribute (``on...``), or a ``javascript:`` URL in an attribute the browser follows. A refused fragment is shown as plain
text with a warning, never as markup. (tests/app/test_safe_html.py; tests/project/test_architecture.py checks
that no other module calls ``st.html``.)

>>> markup_problems('<span class="tok" title="a&lt;b">a&lt;b</span>')
[]
>>> markup_problems('<span>x</span><img src=x onerror=alert(1)>')
['tag <img>', 'attribute onerror on <img>']
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from html.parser import HTMLParser
from typing import Union

import streamlit as st

#: Every tag the app's HTML helpers write.
ALLOWED_TAGS = frozenset({
    "b", "br", "code", "div", "em", "i", "small", "span", "strong", "style", "sub", "sup",
    "table", "tbody", "td", "th", "thead", "tr",
})


# Attributes a browser follows or loads (text attributes such as title may hold any escaped text).
_URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href", "background", "style"})


def _tag_problems(tag: str, attrs: Sequence[tuple[str, Union[str, None]]]) -> list[str]:
    """What is wrong with one start tag (its attribute values with character references read)."""
    problems = [] if tag in ALLOWED_TAGS else [f"tag <{tag}>"]
    for name, value in attrs:
        if name.startswith("on"):
            problems.append(f"attribute {name} on <{tag}>")
        elif name in _URL_ATTRIBUTES and value and "javascript:" in "".join(value.split()).lower():
            problems.append(f"a javascript: URL in {name} on <{tag}>")
    return problems


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.problems += _tag_problems(tag, attrs)

    handle_startendtag = handle_starttag


def markup_problems(fragment: Union[str, Sequence[str]]) -> list[str]:
    """What in ``fragment`` the app's helpers never write (empty when it may be shown as HTML).

    ``fragment`` may come in parts (whole elements, joined as they are): each part is checked on
    its own, and when every part leaves the parser where a fresh one starts (no tag, comment or
    ``<style>`` left open) their answers are the answer for the whole; otherwise the joined text
    is checked.

    >>> markup_problems(["<table><tbody>", "<tr><td>a</td></tr>", "</tbody></table>"])
    []
    >>> markup_problems(['<span title="', '"><img src=x onerror=alert(1)>'])
    ['tag <img>', 'attribute onerror on <img>']
    """
    if isinstance(fragment, str):
        return list(_answer(fragment)[0])
    answers = [_answer(part) for part in fragment]
    if all(clean for _, clean in answers):
        return [p for problems, _ in answers for p in problems]
    return list(_answer("".join(fragment))[0])


#: Fragments up to this many characters have their answers kept (at most :data:`_KEPT` of them,
#: about 8 MB at worst): a server-wide cache must not hold on to a large tokenizer's pages.
_KEEP_CHARS = 16_000
_KEPT = 512


def _answer(fragment: str) -> tuple[tuple[str, ...], bool]:
    return _kept(fragment) if len(fragment) <= _KEEP_CHARS else _problems(fragment)


# The shape the helpers write: text without "<", and tags with double-quoted attribute values free of
# "<", ">" and quotes. A fragment made only of these parses the same in every HTML parser (no raw
# text, comments or open quotes), so its tags and attributes can be read with two regular
# expressions, several times faster than html.parser; anything else goes to the parser.
_PLAIN = re.compile(r'[^<]+|<(/?)([a-z][a-z0-9]*)((?:\s+[a-z][a-z0-9:-]*="[^"<>]*")*)\s*/?>')
_ATTRIBUTE = re.compile(r'([a-z][a-z0-9:-]*)="([^"]*)"')
# Elements whose content is not markup (raw text) or that the parser treats specially: the parser's.
_PARSER_ONLY = frozenset({"style", "script", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
                          "noscript", "plaintext", "template", "svg", "math", "select", "option"})


def _plain_problems(fragment: str) -> Union[tuple[str, ...], None]:
    """The problems of a fragment in the plain shape (see ``_PLAIN``), or None when it is not in it.

    >>> _plain_problems('<span class="a" title="&lt;b&gt;">x &amp; y</span>')
    ()
    >>> _plain_problems('<b onclick="x()">a</b><img src="x">')
    ('attribute onclick on <b>', 'tag <img>')
    >>> _plain_problems('<span title=x>a</span>') is None  # unquoted: the parser decides
    True
    """
    problems: list[str] = []
    at = 0
    for match in _PLAIN.finditer(fragment):
        if match.start() != at:
            return None
        at = match.end()
        tag = match.group(2)
        if tag is None:
            continue
        if tag in _PARSER_ONLY:
            return None
        if match.group(1):  # an end tag: nothing to check
            continue
        problems += _tag_problems(tag, [(name, html.unescape(value)) for name, value in
                                        _ATTRIBUTE.findall(match.group(3))])
    return tuple(problems) if at == len(fragment) else None


def _problems(fragment: str) -> tuple[tuple[str, ...], bool]:
    """The problems of ``fragment`` alone, and whether the parser ended it in its starting state."""
    plain = _plain_problems(fragment)
    if plain is not None:
        return plain, True
    checker = _Checker()
    checker.feed(fragment)
    clean = not checker.rawdata and checker.cdata_elem is None
    checker.close()
    return tuple(checker.problems), clean


# Keyed by the fragment itself (its content; equal text, equal answer, whoever asks): stepping a
# page redraws mostly the same fragments, and parsing them again took ~40 ms of a BPE step.
_kept = lru_cache(maxsize=_KEPT)(_problems)


def render_html(fragment: Union[str, Sequence[str]]) -> None:
    """``st.html(fragment)`` when :func:`markup_problems` finds nothing; otherwise the fragment as text.
    A fragment in parts (whole elements) is shown joined."""
    problems = markup_problems(fragment)
    if not isinstance(fragment, str):
        fragment = "".join(fragment)
    if not problems:
        st.html(fragment)
        return
    st.warning(f"Some of this view was not shown as formatting, because it held {problems[0]}; here it is as text.",
               icon=":material/shield:")
    st.html(f"<div style='white-space:pre-wrap'>{html.escape(fragment)}</div>")
