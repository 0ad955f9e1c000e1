"""The one way a page picks tokenizers from the shelf: the same labels, address binding and error
handling on every page.

A page declares its picker's address parameter (:func:`param` or :func:`params_many`) with its other
parameters, seeds them (:func:`ui.url_state.seed`), then draws :func:`pick_one` or
:func:`pick_many`. A label from a link that is not on this session's shelf is said, not guessed;
a tokenizer that cannot be loaded (a damaged reference file, a missing package) is said with
``st.error`` and left out, never a traceback.

>>> param("tok", "batch_tokenizer").name
'tok'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Optional

import streamlit as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer
from ui import url_state
from ui.shelf import link as shelf_link
from ui.shelf import state as shelf
from ui.widgets.text import escape_markdown

#: A filter on loaded shelf items: which ones the picker offers (say, Unigram models only).
Accept = Callable[[shelf.ShelfItem, Tokenizer], bool]
#: A filter on shelf items before anything is loaded (say, no references: loading each costs a second).
Offer = Callable[[shelf.ShelfItem], bool]


@dataclass(frozen=True)
class Picked:
    """A tokenizer picked from the shelf: the label shown, the item, and the loaded tokenizer.

    ``digest`` (the item's content identity) is what caches of results about it are keyed by."""

    label: str
    item: shelf.ShelfItem
    tokenizer: Tokenizer

    @property
    def digest(self) -> str:
        return self.item.digest

    @property
    def name(self) -> str:
        return self.item.name


def param(name: str, key: str) -> url_state.UrlParam:
    """The address parameter of a one-tokenizer picker (its default is chosen when drawn)."""
    return url_state.label(name, key, what="the tokenizer")


def params_many(name: str, key: str) -> url_state.UrlParam:
    """The address parameter of a several-tokenizers picker (no default: the picker's ``prefer``
    fills it the first time)."""
    return replace(url_state.many(name, key, what="the tokenizers"), default=None)


def load(item: shelf.ShelfItem) -> Optional[Tokenizer]:
    """The item's tokenizer, or None after saying why it cannot be loaded."""
    try:
        return shelf.tokenizer(item.key)
    except KeyError:
        st.warning(escape_markdown(f"“{item.name}” is no longer on the shelf."), icon=":material/inventory_2:")
    except (TokenizerError, OSError, MemoryError) as err:
        st.error(escape_markdown(f"Cannot load {item.name}: {err}"), icon=":material/error:")
    return None


def _offered(accept: Optional[Accept], offer: Optional[Offer] = None) -> dict[str, shelf.ShelfItem]:
    labels = shelf.unique_labels(shelf.items())
    if offer is not None:
        labels = {label: item for label, item in labels.items() if offer(item)}
    if accept is None:
        return labels
    out = {}
    for label, item in labels.items():
        try:
            tok = shelf.tokenizer(item.key)
        except (KeyError, TokenizerError, OSError, MemoryError):
            continue  # not offered; the picker of every item says why when it is picked
        if accept(item, tok):
            out[label] = item
    return out


def _unknown(label: str) -> None:
    st.info(escape_markdown(
        f"“{label}” (from the link) is not on your shelf: tokenizers you train or import stay in your "
        "browser session. Train or import it again on the Tokenizers page; until then another is shown."),
        icon=":material/link_off:")


def pick_one(*, key: str, label: str = "Tokenizer", prefer: Sequence[str] = (), accept: Optional[Accept] = None,
             offer: Optional[Offer] = None, extra: Sequence[str] = (), help: Optional[str] = None,
             where: object = st) -> Optional[Picked | str]:
    """A select box of the shelf (items ``offer`` and ``accept`` take; ``extra`` options first,
    returned as their own string when picked), drawn in ``where`` (say, a column). With nothing
    chosen yet, the first item named in ``prefer`` is selected. Returns None when the picked
    tokenizer cannot be loaded (the reason is on the page)."""
    offered = _offered(accept, offer)
    options = [*extra, *offered]
    if not options:
        st.info("Nothing on the shelf fits here yet: train or import a tokenizer on the Tokenizers page.")
        return None
    current = st.session_state.get(key)
    if current not in options:
        if current:
            _unknown(str(current))
        st.session_state[key] = next((lbl for lbl, item in offered.items() if item.name in prefer), options[0])
    picked = where.selectbox(label, options, key=key, help=help)  # type: ignore[attr-defined]
    if picked in extra:
        return picked
    item = offered[picked]
    tok = load(item)
    if tok is None:
        return None
    shelf_link.note_used(item)  # its store id goes into the page's address
    return Picked(picked, item, tok)


def choose_many(*, key: str, label: str, prefer: Sequence[str] = (), help: Optional[str] = None,
                short: Optional[Callable[[str], str]] = None) -> list[tuple[str, shelf.ShelfItem]]:
    """A multiselect of the shelf; the first time, the items named in ``prefer`` are selected.
    Returns the chosen labels and items without loading any tokenizer (a reference costs a
    second the first time): a page draws the rest of its skeleton first, then :func:`load_many`
    where the tokenizers are used."""
    offered = _offered(None)
    if key not in st.session_state:
        st.session_state[key] = [lbl for lbl, item in offered.items() if item.name in prefer]
    chosen = list(st.session_state[key])
    for lost in [c for c in chosen if c not in offered]:
        _unknown(lost)
    st.session_state[key] = [c for c in chosen if c in offered]
    labels = st.multiselect(label, list(offered), key=key, help=help, format_func=short or str)
    for lbl in labels:
        shelf_link.note_used(offered[lbl])  # its store id goes into the page's address, whichever tab is open
    return [(lbl, offered[lbl]) for lbl in labels]


def load_many(chosen: Sequence[tuple[str, shelf.ShelfItem]]) -> list[Picked]:
    """The tokenizers :func:`choose_many` gave; items that cannot be loaded are said and left out."""
    out = []
    for lbl, item in chosen:
        tok = load(item)
        if tok is not None:
            out.append(Picked(lbl, item, tok))
    return out


def pick_many(*, key: str, label: str, prefer: Sequence[str] = (), help: Optional[str] = None,
              short: Optional[Callable[[str], str]] = None) -> list[Picked]:
    """A multiselect of the shelf (:func:`choose_many`) and the tokenizers picked, loaded at once.
    Items that cannot be loaded are said and left out of the list returned."""
    return load_many(choose_many(key=key, label=label, prefer=prefer, help=help, short=short))


def select(key: str, item: shelf.ShelfItem, *, many: bool = False) -> None:
    """Make the picker under ``key`` show ``item`` next (call before the picker is drawn, or from a
    callback): it is selected, or for a several-tokenizers picker added last."""
    lbl = shelf.label_of(item)
    if many:
        st.session_state[key] = [c for c in st.session_state.get(key, []) if c != lbl] + [lbl]
    else:
        st.session_state[key] = lbl
