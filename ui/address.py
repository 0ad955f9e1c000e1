"""The browser's address: the one module that reads and writes ``st.query_params``.

:mod:`ui.url_state` keeps pages' settings in it through typed parameters; a page that reads a
parameter of its own (a corpus link, a class code) or a live class that moves a student's view
uses the functions here. A run's changes are gathered (:func:`one_entry`) and written in one
message, hence at most one browser history entry per run.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Optional

import streamlit as st

_BATCH = "url_batch"  # while a run's changes are gathered: parameter name -> its values ([] removes it)


def sent_all(name: str) -> list[str]:
    """Every value of ``?name=`` as the browser sent it."""
    return st.query_params.get_all(name)


def raw(name: str, default: Optional[str] = None) -> Optional[str]:
    """``?name=`` in the address as the browser sent it (None or ``default`` when absent): for
    parameters a page reads itself (a corpus link, a class code) rather than through a UrlParam."""
    return st.query_params.get(name, default)


def set_raw(name: str, value: Optional[str]) -> None:
    """Write ``?name=value`` into the address at once (None removes it); nothing when it holds that already."""
    if value is None:
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get(name) != value:
        st.query_params[name] = value


def address() -> dict[str, str]:
    """The address' parameters as the browser sent them (one value each)."""
    return st.query_params.to_dict()


def replace_address(params: Mapping[str, str]) -> None:
    """Make the address exactly ``params`` (a class's view arriving: the page restores from it)."""
    st.query_params.from_dict(params)


def get_all(name: str) -> list[str]:
    """The values ``?name=`` will have after this run (its gathered changes included)."""
    batch = st.session_state.get(_BATCH)
    if batch is not None and name in batch:
        return list(batch[name])
    return st.query_params.get_all(name)


def current_pairs() -> list[tuple[str, str]]:
    """The address' parameters as they will be after this run, in order (for the share link)."""
    batch = st.session_state.get(_BATCH) or {}
    names = list(st.query_params) + [n for n in batch if n not in st.query_params]
    return [(name, value) for name in names for value in get_all(name)]


def _apply(changes: Mapping[str, list[str]]) -> None:
    """Write ``changes`` (name -> values, [] removes) into the address with one message, hence at
    most one browser history entry."""
    current = {name: st.query_params.get_all(name) for name in st.query_params}
    target = dict(current)
    for name, values in changes.items():
        if values:
            target[name] = list(values)
        else:
            target.pop(name, None)
    if target != current:
        st.query_params.from_dict(target)


def write(changes: Mapping[str, list[str]]) -> None:
    """Set each ``name -> values`` ([] removes it): gathered until the run's end inside :func:`one_entry`."""
    batch = st.session_state.get(_BATCH)
    if batch is not None:
        batch.update(changes)
    else:
        _apply(changes)


@contextmanager
def one_entry() -> Iterator[None]:
    """Gather the address changes of the code inside and write them at its end (also when it fails
    or stops): one history entry for a run that changes the view, none for one that does not."""
    st.session_state[_BATCH] = {}
    try:
        yield
    finally:
        _apply(st.session_state.pop(_BATCH, None) or {})
