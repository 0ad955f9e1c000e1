"""A page's inputs kept in its address, so a reload or a shared link shows the same view.

Each page lists its inputs as :class:`UrlParam` (a short name in the address, the session-state
key of the widget, a default and a parser). Before its widgets are drawn the page calls
:func:`restore`, which copies every parameter the address carries into session state, once per
distinct value: a later edit by the user is not overwritten by the address on the next rerun.
After drawing, :func:`publish` writes the current values back; values equal to their default are
left out, so an untouched page keeps a clean address.

This is the app's one mechanism for the address (Streamlit's own ``bind="query-params"`` is not
used: it cannot restore values that are not widgets, such as the BPE page's step or the active
corpus, nor report a malformed value, nor seed a widget that code fills in first). A page declares
its parameters once; :func:`seed` restores them and gives every widget its default, so widgets are
drawn with a ``key`` and no ``value``/``index``/``default`` of their own.

One length policy: a text longer than :data:`MAX_URL_TEXT` characters is never cut. It is left out
of the address, and the sidebar says so (:func:`left_out`); a link carrying a longer one is
refused with a message.

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
#: Texts longer than this stay out of the address (browsers and proxies cut long addresses, and
#: non-ASCII text takes up to 12 characters per character once percent-encoded).
MAX_URL_TEXT = 1000
_LEFT_OUT = "url_left_out"  # parameter name -> why this run left its value out of the address
_SEP = "\x1f"  # joins the values of a list parameter into one "raw" value for the seen-list


@dataclass(frozen=True)
class UrlParam:
    """One input kept in the address: ``name`` there, ``key`` in session state."""

    name: str
    key: str
    default: Any
    parse: Callable[[str], Any]  # raises ValueError for a value it does not accept
    dump: Callable[[Any], str] = str
    #: A list parameter (a multiselect): repeated in the address (``?tok=a&tok=b``); parse and dump
    #: then take and give one item at a time.
    many: bool = False
    #: Longest dumped value kept in the address (texts); a longer one is left out and said.
    limit: Optional[int] = None
    #: What the sidebar calls it when it is left out, e.g. "the text".
    what: str = ""


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


def text(name: str, key: str, *, default: str = "", what: str = "the text", limit: int = MAX_URL_TEXT) -> UrlParam:
    """A free text, kept in the address up to ``limit`` characters (see the length policy above)."""
    def parse(raw: str) -> str:
        if len(raw) > limit:
            raise ValueError(f"it has {len(raw):,} characters, more than the {limit:,} a link carries")
        return raw

    return UrlParam(name, key, default, parse, limit=limit, what=what)


def many(name: str, key: str, *, default: Sequence[str] = (), what: str = "the selection",
         options: Optional[Iterable[str]] = None, limit: int = 200) -> UrlParam:
    """A list of choices (a multiselect). With ``options``, only those are accepted; without, any
    value up to ``limit`` characters (the widget's own check, say the shelf picker's, decides)."""
    allowed = None if options is None else tuple(options)

    def parse(raw: str) -> str:
        if allowed is not None and raw not in allowed:
            raise ValueError(f"{raw[:60]!r} is not one of {', '.join(allowed)}")
        if len(raw) > limit:
            raise ValueError(f"{raw[:40]!r}… is longer than {limit} characters")
        return raw

    return UrlParam(name, key, list(default), parse, many=True, what=what)


def label(name: str, key: str, *, default: Optional[str] = None, what: str = "the choice", limit: int = 200) -> UrlParam:
    """One choice among options only known while the page runs (a shelf label): any text up to
    ``limit`` characters is taken, and the widget drawing it says when it is not among its options."""
    def parse(raw: str) -> str:
        if len(raw) > limit:
            raise ValueError(f"{raw[:40]!r}… is longer than {limit} characters")
        return raw

    return UrlParam(name, key, default, parse, what=what)


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


def _raw_of(p: UrlParam) -> Optional[str]:
    if p.many:
        values = st.query_params.get_all(p.name)
        return _SEP.join(values) if values else None
    return st.query_params.get(p.name)


def restore(params: Sequence[UrlParam]) -> list[str]:
    """Copy the address' new values into session state; returns a message per value refused."""
    refused = []
    for p in params:
        raw = _raw_of(p)
        if not is_news(p.name, raw):
            continue
        note_seen(p.name, raw)
        try:
            st.session_state[p.key] = [p.parse(v) for v in raw.split(_SEP)] if p.many else p.parse(raw)
        except (ValueError, TypeError) as err:
            refused.append(f"?{p.name}= in the address was ignored: {err}.")
    return refused


def keep(params: Sequence[UrlParam]) -> None:
    """Make the page's current values the session's own: Streamlit forgets the value of a widget a
    run does not draw (a closed tab that runs lazily, a field shown only for one choice), and
    assigning each value to itself before the widgets are drawn makes it outlive that run."""
    for p in params:
        if p.key in st.session_state:
            st.session_state[p.key] = st.session_state[p.key]


def seed(params: Sequence[UrlParam]) -> None:
    """Keep the page's values (:func:`keep`), :func:`restore` its parameters from the address, say
    which were refused, and give every widget that has no value yet its default (call before the
    widgets are drawn; they then take no default of their own)."""
    keep(params)
    show_refusals(restore(params))
    for p in params:
        if p.key not in st.session_state and p.default is not None:
            st.session_state[p.key] = list(p.default) if p.many else p.default


def _dump(p: UrlParam, value: Any) -> Any:
    if p.many:
        return [p.dump(v) for v in value]
    return p.dump(value)


def publish(params: Sequence[UrlParam]) -> None:
    """Write the current values into the address (defaults and values absent from the session left
    out; a value over its parameter's length limit is left out too, and :func:`left_out` says so)."""
    notes = st.session_state.setdefault(_LEFT_OUT, {})
    for p in params:
        notes.pop(p.name, None)
        value = st.session_state.get(p.key, p.default)
        raw = _dump(p, value) if value is not None else ""
        too_long = p.limit is not None and isinstance(raw, str) and len(raw) > p.limit
        if too_long:
            notes[p.name] = f"{p.what} ({len(raw):,} characters; a link carries up to {p.limit:,})"
        if value == p.default or raw == "" or raw == [] or too_long:
            if p.name in st.query_params:
                del st.query_params[p.name]
            continue
        if p.many:
            if st.query_params.get_all(p.name) != raw:
                st.query_params[p.name] = raw
            note_seen(p.name, _SEP.join(raw))
        else:
            if st.query_params.get(p.name) != raw:
                st.query_params[p.name] = raw
            note_seen(p.name, raw)


def left_out() -> list[str]:
    """What the last :func:`publish` calls of this run left out of the address, for people."""
    return list(st.session_state.get(_LEFT_OUT, {}).values())


def clear_left_out() -> None:
    """Forget the notes of the previous run (the router calls this before the page runs)."""
    st.session_state[_LEFT_OUT] = {}


def forget(params: Sequence[UrlParam]) -> None:
    """Take these parameters out of the address (their input is not on show)."""
    for p in params:
        if p.name in st.query_params:
            del st.query_params[p.name]


def show_refusals(messages: Sequence[str]) -> None:
    """Say which address values were ignored (a hand-edited or truncated link)."""
    for message in messages:
        st.warning(message, icon=":material/link_off:")
