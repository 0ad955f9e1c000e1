"""A page's inputs kept in its address, so a reload or a shared link shows the same view.

Each page lists its inputs as :class:`UrlParam`: a short name in the address, the session-state key of the widget,
a default and a parser. Before its widgets are drawn the page calls :func:`restore`. It copies every parameter the
address carries into session state, once per distinct value, so the address does not overwrite a later edit by the
user on the next rerun. After drawing, :func:`publish` writes the current values back. Values equal to their default
are left out, so an untouched page keeps a clean address.

This is the app's one mechanism for the address. Streamlit's own ``bind="query-params"`` is not used: it cannot
restore values that are not widgets, such as the BPE page's step or the active corpus; it cannot report a malformed
value; it cannot seed a widget that code fills in first. A page declares its parameters once. :func:`seed` restores
them and gives every widget its default, so widgets are drawn with a ``key`` and no ``value``, ``index`` or
``default`` of their own.

One length policy: a text longer than :data:`MAX_URL_TEXT` characters is never cut. It is left out of the address,
and the sidebar says so (:func:`left_out`). A link carrying a longer one is refused with a message.

The address describes what is on screen. Some forms act only when a button is pressed (Train, Import); their inputs
are marked with :func:`form`. For them the address shows the values of the last press (:func:`commit`) or the link's,
never the ones being edited. So a link copied at any time names the run on show.

History: a run's address changes are written at once (:func:`one_entry`). A run that changes the view makes one
browser history entry; one that does not makes none. Back and Forward rerun the page with the address they go to
(:func:`history_navigation`). Every parameter is then read from it, and those absent go back to their defaults.

Visits: Streamlit forgets the widgets of a page not on show; :func:`recall` gives them back.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Optional

import streamlit as st

from ui import address

# The address itself (read as sent, written in one history entry a run) lives in ui/address.py;
# these names are the pages' way to it.
from ui.address import current_pairs, one_entry  # noqa: F401

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
_COMMITTED = "url_committed"  # parameter name -> the value of a form input the address shows
_MEMORY = "url_memory"  # session-state key of a page input -> the value its page last published


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
    #: A form input (see :func:`form`): the address shows its committed value, not the widget's.
    committed: bool = False
    #: Written even at its default: the address always names it (a lesson link names its lesson and
    #: step, and the address does not change under the user when the page fills in its defaults).
    explicit: bool = False


def form(*params: UrlParam) -> tuple[UrlParam, ...]:
    """Mark ``params`` as the inputs of a form acted on by a button (Train): :func:`publish` writes
    the values of the last :func:`commit` (or of the link that opened the page), so editing them
    leaves the address, which describes the run on show, alone until the button is pressed.

    >>> form(integer("n", "k", default=1, lo=1, hi=9))[0].committed
    True
    """
    return tuple(replace(p, committed=True) for p in params)


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


def history_navigation() -> bool:
    """Whether this run was started by the browser's Back or Forward (its address is then the view
    to show again, whoever wrote it)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and getattr(ctx, "is_history_navigation", False))


def _raw_of(p: UrlParam) -> Optional[str]:
    if p.many:
        values = address.sent_all(p.name)
        return _SEP.join(values) if values else None
    return address.raw(p.name)


def _committed() -> dict[str, Any]:
    return st.session_state.setdefault(_COMMITTED, {})


def _set(p: UrlParam, value: Any) -> None:
    st.session_state[p.key] = value
    if p.committed:
        _committed()[p.name] = value


def _reset(p: UrlParam) -> None:
    """Back to the default (the address went back to a view without this value)."""
    if p.default is None:
        st.session_state.pop(p.key, None)
    else:
        st.session_state[p.key] = list(p.default) if p.many else p.default
    if p.committed:
        _committed().pop(p.name, None)


def restore(params: Sequence[UrlParam]) -> list[str]:
    """Copy the address' new values into session state; returns a message per value refused.

    After the browser's Back or Forward every value is read, and those the address lacks go back
    to their defaults: the page shows the view that address describes."""
    refused = []
    back = history_navigation()
    for p in params:
        raw = _raw_of(p)
        if back and raw is None:
            _reset(p)
            continue
        if not back and not is_news(p.name, raw):
            continue
        note_seen(p.name, raw)
        try:
            _set(p, [p.parse(v) for v in raw.split(_SEP)] if p.many else p.parse(raw))
        except (ValueError, TypeError) as err:
            refused.append(f"?{p.name}= in the address was ignored: {err}.")
    return refused


def commit(params: Sequence[UrlParam], values: Optional[Mapping[str, Any]] = None) -> None:
    """The form inputs among ``params`` now describe the view (call when its button acts): their
    current values, or those ``values`` gives by session-state key, go into the address."""
    store = _committed()
    for p in params:
        if not p.committed:
            continue
        if values is not None and p.key in values:
            store[p.name] = values[p.key]
        elif p.key in st.session_state:
            store[p.name] = st.session_state[p.key]


def keep(params: Sequence[UrlParam]) -> None:
    """Make the page's current values the session's own: Streamlit forgets the value of a widget a
    run does not draw (a closed tab that runs lazily, a field shown only for one choice), and
    assigning each value to itself before the widgets are drawn makes it outlive that run."""
    for p in params:
        if p.key in st.session_state:
            st.session_state[p.key] = st.session_state[p.key]


def recall(params: Sequence[UrlParam]) -> None:
    """Give back the value this session last published for each input Streamlit has forgotten since
    (the user visited another page). A link's or a reload's values still win (:func:`restore`)."""
    memory = st.session_state.get(_MEMORY) or {}
    for p in params:
        if p.key not in st.session_state and p.key in memory:
            value = memory[p.key]
            st.session_state[p.key] = list(value) if p.many else value


def seed(params: Sequence[UrlParam]) -> None:
    """Keep the page's values (:func:`keep`) or give back those of the user's last visit
    (:func:`recall`), :func:`restore` its parameters from the address, say which were refused, and
    give every widget that has no value yet its default (call before the widgets are drawn; they
    then take no default of their own)."""
    keep(params)
    recall(params)
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
    out; a value over its parameter's length limit is left out too, and :func:`left_out` says so).
    A form input (:func:`form`) is written with its committed value, not the widget's."""
    notes = st.session_state.setdefault(_LEFT_OUT, {})
    committed = _committed()
    memory = st.session_state.setdefault(_MEMORY, {})
    changes: dict[str, list[str]] = {}
    for p in params:
        notes.pop(p.name, None)
        if p.key in st.session_state:  # what the user set, for their next visit (see recall)
            kept = st.session_state[p.key]
            memory[p.key] = list(kept) if p.many and kept is not None else kept
        value = committed.get(p.name, p.default) if p.committed else st.session_state.get(p.key, p.default)
        raw = _dump(p, value) if value is not None else ""
        too_long = p.limit is not None and isinstance(raw, str) and len(raw) > p.limit
        if too_long:
            notes[p.name] = f"{p.what} ({len(raw):,} characters; a link carries up to {p.limit:,})"
        if (value == p.default and not p.explicit) or raw == "" or raw == [] or too_long:
            if address.get_all(p.name):
                changes[p.name] = []
            continue
        values = list(raw) if p.many else [raw]
        if address.get_all(p.name) != values:
            changes[p.name] = values
        note_seen(p.name, _SEP.join(values))
    address.write(changes)


def left_out() -> list[str]:
    """What the last :func:`publish` calls of this run left out of the address, for people."""
    return list(st.session_state.get(_LEFT_OUT, {}).values())


def clear_left_out() -> None:
    """Forget the notes of the previous run (the router calls this before the page runs)."""
    st.session_state[_LEFT_OUT] = {}


def forget(params: Sequence[UrlParam]) -> None:
    """Take these parameters out of the address (their input is not on show)."""
    address.write({p.name: [] for p in params if address.get_all(p.name)})


def show_refusals(messages: Sequence[str]) -> None:
    """Say which address values were ignored (a hand-edited or truncated link)."""
    for message in messages:
        st.warning(message, icon=":material/link_off:")
