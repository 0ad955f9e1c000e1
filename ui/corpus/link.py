"""The active corpus in the address (``?corpus=``), on every page.

A bundled sample is named (``?corpus=tiny-shakespeare``). The user's own text (uploaded or pasted)
is named by its fingerprint (``?corpus=own-1a2b3c4d5e6f``) and kept in a small per-server store
while it is active somewhere, so a reload or a link opened by the same class finds it again. When
the server no longer holds it (restarted, or the store has dropped it), the page says so and stays
on the current corpus: nothing is guessed.

The default sample is left out of the address.
"""

from __future__ import annotations

from typing import Optional

import streamlit as st

from tokenizer_core.corpus import samples
from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.errors import CorpusError
from ui import cache, url_state
from ui import session as state
from ui.widgets.text import sample_name

PARAM = "corpus"
_OWN = "own-"
_MESSAGE = "corpus_link_message"


def link_value(corpus: Corpus) -> Optional[str]:
    """The ``?corpus=`` value naming ``corpus`` (None for the default sample).

    >>> link_value(Corpus("notes", ("a b",))).startswith("own-")
    True
    """
    name = sample_name(corpus)
    if name == state.DEFAULT_SAMPLE:
        return None
    return name if name is not None else _OWN + corpus.fingerprint()


def restore() -> None:
    """Make the corpus named in the address active, once per distinct value (call before the page)."""
    ss = st.session_state
    raw = st.query_params.get(PARAM)
    if not url_state.is_news(PARAM, raw):
        return  # absent, or written by this session itself (the browser may lag behind a change)
    url_state.note_seen(PARAM, raw)
    current = link_value(state.active_corpus())
    if raw == current:
        return
    if raw.startswith(_OWN):
        corpus = cache.LINKED_CORPORA.get((raw,))
        if corpus is None:
            ss[_MESSAGE] = ("This link names a corpus of your own that this server no longer holds (it keeps "
                            "uploaded and pasted text only for a while). Upload or paste it again on the Corpus "
                            "page; until then the current corpus is used.")
            return
    else:
        try:
            samples.get(raw)
        except CorpusError:
            ss[_MESSAGE] = f"The link names a sample corpus that does not exist ({raw[:60]!r}); using the current one."
            return
        corpus = state.load_sample_cached(raw)
    state.set_active_corpus(corpus)


def publish() -> None:
    """Write the active corpus into the address, and hold the user's own text for later links."""
    corpus = state.active_corpus()
    value = link_value(corpus)
    # Each held corpus can be up to the upload limit; the table keeps a few, for a reload or a shared
    # link. get() also marks it recently used, so a corpus in use is the last to be dropped.
    if value is not None and value.startswith(_OWN) and cache.LINKED_CORPORA.get((value,)) is None:
        cache.LINKED_CORPORA.put((value,), corpus)
    if value is not None:
        url_state.note_seen(PARAM, value)
    if value is None:
        if PARAM in st.query_params:
            del st.query_params[PARAM]
    elif st.query_params.get(PARAM) != value:
        st.query_params[PARAM] = value


def show_message() -> None:
    """The message :func:`restore` left, once (call where the page can show it)."""
    message = st.session_state.pop(_MESSAGE, None)
    if message:
        st.warning(message, icon=":material/link_off:")
