"""Training runs of the step-through page, kept per corpus content and settings, with visible progress.

Runs live in :data:`ui.cache.MERGE_RUNS` under ``(corpus digest, effective settings)``; they are
never changed after they are made, so sessions share them. A corpus' word counts live in
:data:`ui.cache.WORD_COUNTS` under ``(corpus digest, counting key)``: trainings that differ only in
budget, ties or minimum frequency count the corpus once between them. Training runs in the page,
which draws its own progress bar and Cancel button (only the result is stored). Stepping only reads
a run back: it never retrains.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Optional

import streamlit as st

from tokenizer_core.corpus.loading import Corpus
from tokenizer_core.errors import TokenizerError
from ui import cache
from ui.corpus.counts import is_counts
from ui.merges import counts_file
from ui.merges import state as ms
from ui.merges.run import MergeRun
from ui.merges.settings import MergeSettings
from ui.merges.training import counting_for, train_run
from ui.widgets.cancel import cancel_button, throttled
from ui.widgets.text import display_name, escape_markdown

#: Why a run on show had to be trained again (said while it trains, and after).
DROPPED = ("The server had dropped this run from its memory to make room for newer ones (it keeps the "
           f"{cache.MERGE_RUNS.max_entries} most recent).")


def cached_run(corpus_key: str, settings: MergeSettings) -> Optional[MergeRun]:
    """The stored run for this corpus digest and settings, or None (never trains)."""
    return cache.MERGE_RUNS.get((corpus_key, settings.effective()))


def _progress_bar(bar: "st.delta_generator.DeltaGenerator"):
    def show(done: int, total: int, message: str) -> None:
        if total:
            bar.progress(min(1.0, 0.1 + 0.9 * done / total), text=f"Merging pairs: {done:,} of {total:,}")
        else:
            bar.progress(0.05, text="Counting the words of the corpus…")

    return throttled(show)


def get_run(corpus: Corpus, corpus_key: str, settings: MergeSettings, *, dropped: bool = False) -> Optional[MergeRun]:
    """The run for these settings: stored, or trained now with a progress bar and a Cancel button.

    ``corpus_key`` is the corpus' content digest (:func:`ui.session.active_corpus_key`). ``dropped``:
    the run was on show and the server dropped it; the status says so while it trains again, and
    Cancel then leaves the page without a run (it does not try again on the next click).
    Returns None (after showing the reason with ``st.error``) when the engine refuses the input.
    """
    run = cached_run(corpus_key, settings)
    if run is not None:
        return run
    settings = settings.effective()
    label = f"Training {settings.describe()} on “{display_name(corpus)}”…"
    slot = st.empty()  # emptied after a success: the page's caption then says what was trained
    with slot.status(escape_markdown(label), expanded=True) as status:
        if dropped:
            st.caption(DROPPED + " Training it again; Cancel leaves it.")
        bar = st.progress(0.0, text="Starting…")
        cancel_button(key="merges_cancel", what="Training", then=ms.forget_run if dropped else ms.open_settings)
        progress = _progress_bar(bar)
        try:
            counts, seconds = _word_counts(corpus, corpus_key, settings, progress)
            run = train_run(corpus, settings, counts=counts, counting_seconds=seconds, progress=progress)
        except TokenizerError as err:
            status.update(label="Training failed", state="error")
            st.error(escape_markdown(str(err)))
            return None
    slot.empty()
    cache.MERGE_RUNS.put((corpus_key, settings), run)
    return run


def _word_counts(corpus: Corpus, corpus_key: str, settings: MergeSettings, progress) -> tuple[Mapping[str, int], float]:
    """The corpus' words counted as the trainer of ``settings`` counts them (stored, or counted now),
    and the seconds spent counting now."""
    if is_counts(corpus):  # the counts file's pieces are the counts (its header checked against the settings)
        return counts_file.file_counts(corpus, settings), 0.0
    counting = counting_for(settings)
    key = (corpus_key, counting.key)
    counts = cache.WORD_COUNTS.get(key)
    if counts is not None:
        return counts, 0.0
    start = time.perf_counter()
    counts = counting.count(corpus.lines(), progress=progress)
    cache.WORD_COUNTS.put(key, counts)
    return counts, time.perf_counter() - start
