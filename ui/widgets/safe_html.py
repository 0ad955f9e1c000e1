"""The one door to ``st.html``: markup built by the app's helpers, checked before it reaches the browser.

Token text comes from users' corpora and tokenizer files, so every helper that builds HTML escapes
it (``html.escape``). As a second line of defence every fragment goes through :func:`render_html`,
which parses it and refuses what those helpers never write: a tag outside :data:`ALLOWED_TAGS`, an
event-handler attribute (``on...``), or a ``javascript:`` URL in an attribute the browser follows. A refused fragment is shown as plain
text with a warning, never as markup. (tests/test_safe_html.py; tests/test_architecture.py checks
that no other module calls ``st.html``.)

>>> markup_problems('<span class="tok" title="a&lt;b">a&lt;b</span>')
[]
>>> markup_problems('<span>x</span><img src=x onerror=alert(1)>')
['tag <img>', 'attribute onerror on <img>']
"""

from __future__ import annotations

import html
from functools import lru_cache
from html.parser import HTMLParser

import streamlit as st

#: Every tag the app's HTML helpers write.
ALLOWED_TAGS = frozenset({
    "b", "br", "code", "div", "em", "i", "small", "span", "strong", "style", "sub", "sup",
    "table", "tbody", "td", "th", "thead", "tr",
})


# Attributes a browser follows or loads (text attributes such as title may hold any escaped text).
_URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href", "background", "style"})


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self.problems.append(f"tag <{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"attribute {name} on <{tag}>")
            elif name in _URL_ATTRIBUTES and value and "javascript:" in "".join(value.split()).lower():
                self.problems.append(f"a javascript: URL in {name} on <{tag}>")

    handle_startendtag = handle_starttag


def markup_problems(fragment: str) -> list[str]:
    """What in ``fragment`` the app's helpers never write (empty when it may be shown as HTML)."""
    return list(_problems(fragment))


# Keyed by the fragment itself (its content; equal text, equal answer, whoever asks): stepping a
# page redraws mostly the same fragments, and parsing them again took ~40 ms of a BPE step.
@lru_cache(maxsize=256)
def _problems(fragment: str) -> tuple[str, ...]:
    checker = _Checker()
    checker.feed(fragment)
    checker.close()
    return tuple(checker.problems)


def render_html(fragment: str) -> None:
    """``st.html(fragment)`` when :func:`markup_problems` finds nothing; otherwise the fragment as text."""
    problems = markup_problems(fragment)
    if not problems:
        st.html(fragment)
        return
    st.warning(f"Some of this view was not shown as formatting, because it held {problems[0]}; here it is as text.",
               icon=":material/shield:")
    st.html(f"<div style='white-space:pre-wrap'>{html.escape(fragment)}</div>")
