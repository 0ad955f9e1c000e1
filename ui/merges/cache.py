"""Training runs of the step-through page, cached per corpus and settings, with visible progress.

The cache is ``st.cache_resource`` keyed by ``(active_corpus_key(), settings)``;
runs are never mutated after creation, so sessions share them. Training happens
outside the cached function (which only stores what it is handed), so the
progress bar is drawn by the page itself and never replayed from the cache.
Stepping only reads a run back: it never retrains.
"""

from __future__ import annotations

import time
from typing import Optional

import streamlit as st

from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.errors import TokenizerError
from ui.merges import state as ms
from ui.merges.run import MergeRun
from ui.merges.settings import MergeSettings
from ui.merges.training import train_run
from ui.widgets.cancel import cancel_button
from ui.widgets.text import display_name, escape_markdown


class _NotCached(Exception):
    """Raised by the cached function on a miss, so nothing is stored."""


# A run of 30k merges on the default corpus holds tens of MB of trace: keep a few.
@st.cache_resource(max_entries=8, show_spinner=False)
def _stored(corpus_key: str, settings_key: str, _run: Optional[MergeRun] = None) -> MergeRun:
    # Called with _run=None to look up; with a run to store it. Exceptions are not cached.
    if _run is None:
        raise _NotCached
    return _run


def cached_run(corpus_key: str, settings: MergeSettings) -> Optional[MergeRun]:
    """The cached run for this corpus and settings, or None (never trains)."""
    try:
        return _stored(corpus_key, repr(settings.effective()))
    except _NotCached:
        return None


def _progress_bar(bar: "st.delta_generator.DeltaGenerator"):
    last = [0.0]

    def progress(done: int, total: int, message: str) -> None:
        now = time.monotonic()
        if now - last[0] < 0.1 and done < total:
            return  # a browser round trip per call would slow training down
        last[0] = now
        if total:
            bar.progress(min(1.0, 0.1 + 0.9 * done / total), text=f"Merging pairs: {done:,} of {total:,}")
        else:
            bar.progress(0.05, text="Counting the words of the corpus…")

    return progress


def get_run(corpus: Corpus, corpus_key: str, settings: MergeSettings) -> Optional[MergeRun]:
    """The run for these settings: from the cache, or trained now with a progress bar.

    Returns None (after showing the reason with ``st.error``) when the engine refuses the input.
    """
    run = cached_run(corpus_key, settings)
    if run is not None:
        return run
    settings = settings.effective()
    label = f"Training {settings.describe()} on “{display_name(corpus)}”…"
    slot = st.empty()  # emptied after a success: the page's caption then says what was trained
    with slot.status(escape_markdown(label), expanded=True) as status:
        bar = st.progress(0.0, text="Starting…")
        cancel_button(key="merges_cancel", what="Training", then=ms.open_settings)
        try:
            run = train_run(corpus, settings, progress=_progress_bar(bar))
        except TokenizerError as err:
            status.update(label="Training failed", state="error")
            st.error(escape_markdown(str(err)))
            return None
    slot.empty()
    return _stored(corpus_key, repr(settings), _run=run)
