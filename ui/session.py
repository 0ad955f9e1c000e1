"""Per-session state shared by every page: above all, the active corpus.

Every page reads the corpus with :func:`active_corpus`; only the Corpus page
changes it (:func:`set_active_corpus`). A new session starts with the default
sample. Keys in ``st.session_state`` owned here start with ``state_`` so they
cannot clash with page widget keys (which start with the page name).

Use :func:`active_corpus_key` in cache keys of anything derived from the corpus
(trained tokenizers, statistics): it is the corpus' content digest
(:func:`ui.cache.corpus_digest`), computed once when the corpus is set, so it changes
exactly when the content does and never depends on the corpus' name.
"""

from __future__ import annotations

import streamlit as st

from tokenizer_core.corpus.loading import Corpus, load_sample
from ui import cache

DEFAULT_SAMPLE = "default"

_ACTIVE = "state_active_corpus"
_KEY = "state_active_corpus_key"
_VERSION = "state_corpus_version"
_RUN = "state_run_number"
_LOADING = ("Loading the sample corpus (the first time, the default one is built from Python's documentation, "
            "which takes a few seconds)…")


def load_sample_cached(name: str) -> Corpus:
    """A bundled sample, loaded once per server process (a Corpus is immutable, so sharing is safe).

    Samples ship with the app and are the same for every user, so their name is their content.
    """
    return cache.SAMPLES.get_or_make((name,), lambda: load_sample(name), spinner=_LOADING)


def set_active_corpus(corpus: Corpus) -> None:
    """Make ``corpus`` the one every page of this session uses."""
    if not isinstance(corpus, Corpus):
        raise TypeError(f"set_active_corpus needs a Corpus, not {type(corpus).__name__}")
    st.session_state[_ACTIVE] = corpus
    st.session_state[_KEY] = cache.corpus_digest(corpus)
    st.session_state[_VERSION] = st.session_state.get(_VERSION, 0) + 1


def active_corpus() -> Corpus:
    """The session's corpus; the default sample when the session has not chosen one."""
    corpus = st.session_state.get(_ACTIVE)
    if corpus is None:
        corpus = load_sample_cached(DEFAULT_SAMPLE)
        set_active_corpus(corpus)
    return corpus


def active_corpus_key() -> str:
    """The active corpus' content digest (:func:`ui.cache.corpus_digest`), for cache keys.

    Kept in the session beside the corpus: a big corpus is digested once, not on every rerun.
    """
    corpus = active_corpus()
    key = st.session_state.get(_KEY)
    if key is None:  # a corpus put in the session by other means than set_active_corpus
        key = st.session_state[_KEY] = cache.corpus_digest(corpus)
    return key


def corpus_version() -> int:
    """How many times this session's corpus has been set (1 after the default is loaded)."""
    active_corpus()
    return st.session_state[_VERSION]


def begin_run() -> None:
    """Count a full run of the app (called by the router before the page runs)."""
    st.session_state[_RUN] = st.session_state.get(_RUN, 0) + 1


def run_number() -> int:
    """How many full runs of the app this session has made (fragment reruns not counted)."""
    return st.session_state.get(_RUN, 0)
