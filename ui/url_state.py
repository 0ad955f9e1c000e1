"""A page's inputs kept in its address, so a reload or a shared link shows the same view.

Each page lists its inputs as :class:`UrlParam` (a short name in the address, the session-state
key of the widget, a default and a parser). Before its widgets are drawn the page calls
:func:`restore`, which copies every parameter the address carries into session state, once per
distinct value: a later edit by the user is not overwritten by the address on the next rerun.
After drawing, :func:`publish` writes the current values back; values equal to their default are
left out, so an untouched page keeps a clean address.

Streamlit's own ``bind="query-params"`` does the same for a single widget, but it cannot restore
values that are not widgets (the BPE page's current step, the active corpus), nor report a
malformed value, nor seed a widget that code fills in first; one mechanism for all is simpler.

>>> p = integer("budget", "merges_budget", default=1000, lo=1, hi=30_000)
>>> p.parse("2000"), p.dump(2000)
(2000, '2000')
>>> choice("algo", "k", ["bpe", "wordpiece"], default="bpe").parse("unigram")
Traceback (most recent call last):
...
ValueError: 'unigram' is not one of bpe, wordpiece
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import streamlit as st

_SEEN = "url_seen"  # parameter name -> the raw values this session has read from, or written to, the address
# The browser sends its address with every rerun, and it may not yet show what the previous run
# wrote: an address value this session wrote itself is therefore never read back as news (it would
# undo the user's latest edit). Only values from outside (a link, a reload) are restored.
_MAX_SEEN = 64
#: Texts longer than this stay out of the address (browsers and proxies cut long addresses).
MAX_URL_TEXT = 1000


@dataclass(frozen=True)
class UrlParam:
    """One input kept in the address: ``name`` there, ``key`` in session state."""

    name: str
    key: str
    default: Any
    parse: Callable[[str], Any]  # raises ValueError for a value it does not accept
    dump: Callable[[Any], str] = str


def choice(name: str, key: str, options: Iterable[str], *, default: str) -> UrlParam:
    allowed = tuple(options)

    def parse(raw: str) -> str:
        if raw not in allowed:
            raise ValueError(f"{raw!r} is not one of {', '.join(allowed)}")
        return raw

    return UrlParam(name, key, default, parse)


def _bounded(name: str, key: str, default: Any, lo: float, hi: float, convert: Callable[[str], Any],
             dump: Callable[[Any], str]) -> UrlParam:
    def parse(raw: str) -> Any:
        try:
            value = convert(raw)
        except ValueError:
            raise ValueError(f"{raw[:40]!r} is not a number") from None
        if not math.isfinite(value) or not lo <= value <= hi:
            raise ValueError(f"{raw} is not between {lo:,g} and {hi:,g}")
        return value

    return UrlParam(name, key, default, parse, dump=dump)


def integer(name: str, key: str, *, default: Optional[int], lo: int, hi: int) -> UrlParam:
    return _bounded(name, key, default, lo, hi, int, str)


def number(name: str, key: str, *, default: float, lo: float, hi: float) -> UrlParam:
    return _bounded(name, key, default, lo, hi, float, lambda v: f"{v:g}")


def flag(name: str, key: str, *, default: bool = False) -> UrlParam:
    def parse(raw: str) -> bool:
        if raw not in ("0", "1"):
            raise ValueError(f"{raw!r} is not 0 or 1")
        return raw == "1"

    return UrlParam(name, key, default, parse, dump=lambda v: "1" if v else "0")


def text(name: str, key: str, *, default: str = "", limit: int = MAX_URL_TEXT) -> UrlParam:
    """A free text; one longer than ``limit`` is cut when read and left out of the address when written."""
    return UrlParam(name, key, default, lambda raw: raw[:limit], dump=lambda v: v if len(v) <= limit else "")


def _seen() -> dict[str, list[str]]:
    return st.session_state.setdefault(_SEEN, {})


def note_seen(name: str, raw: str) -> None:
    """Remember that this session has read or written ``raw`` for ``?name=``."""
    values = _seen().setdefault(name, [])
    if raw not in values:
        values.append(raw)
        del values[:-_MAX_SEEN]


def is_news(name: str, raw: Optional[str]) -> bool:
    """Whether ``?name=raw`` came from outside this session (a link, a reload)."""
    return raw is not None and raw not in _seen().get(name, ())


def restore(params: Sequence[UrlParam]) -> list[str]:
    """Copy the address' new values into session state; returns a message per value refused."""
    refused = []
    for p in params:
        raw = st.query_params.get(p.name)
        if not is_news(p.name, raw):
            continue
        note_seen(p.name, raw)
        try:
            st.session_state[p.key] = p.parse(raw)
        except (ValueError, TypeError) as err:
            refused.append(f"?{p.name}= in the address was ignored: {err}.")
    return refused


def publish(params: Sequence[UrlParam]) -> None:
    """Write the current values into the address (defaults and values absent from the session left out)."""
    for p in params:
        value = st.session_state.get(p.key, p.default)
        raw = p.dump(value) if value is not None else ""
        if value == p.default or raw == "":
            if p.name in st.query_params:
                del st.query_params[p.name]
        else:
            if st.query_params.get(p.name) != raw:
                st.query_params[p.name] = raw
            note_seen(p.name, raw)


def forget(params: Sequence[UrlParam]) -> None:
    """Take these parameters out of the address (their input is not on show)."""
    for p in params:
        if p.name in st.query_params:
            del st.query_params[p.name]


def show_refusals(messages: Sequence[str]) -> None:
    """Say which address values were ignored (a hand-edited or truncated link)."""
    for message in messages:
        st.warning(message, icon=":material/link_off:")
