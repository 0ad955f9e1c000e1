"""The Batch page: rows of text through a shelf tokenizer and a template, padded and truncated into
a batch, then shown as grids, as the masks a model sees, as waste, and as files.

The tabs run lazily, as on the Compare page: only the open one is computed. The open tab is in the
address like every input.

>>> TABS[0], TAB
('Batch', 'batch_tab')
"""

from __future__ import annotations

import streamlit as st

from tokenizer_core.analysis.batch_templates import with_template
from tokenizer_core.errors import TokenizerError
from ui import session as state
from ui import url_state
from ui.batch import views
from ui.batch.controls import SOURCE, URL_PARAMS, choose_rows, choose_settings, choose_tokenizer
from ui.corpus.counts import is_counts
from ui.widgets import display
from ui.widgets.text import escape_markdown

TABS = ("Batch", "Masks", "Waste and throughput", "Export")
TAB = "batch_tab"  # the open tab, in the address like every input (?batch_tab=Masks)
PARAMS = (*URL_PARAMS, *views.URL_PARAMS, url_state.choice(TAB, TAB, TABS, default=TABS[0]))


def render_page() -> None:
    """The whole page (called by ``pages/batch.py``)."""
    url_state.seed(PARAMS)
    display.intro("A model takes rectangles: rows of the same length. Here short rows are **padded**, long "
                  "ones **truncated** (their overflow kept as windows), special tokens added by a **template**, "
                  "and the **attention mask** tells the model which positions are real.")
    with display.folded("Rows, tokenizer and settings"):
        left, right = st.columns([3, 2], gap="large")
        with left:
            texts, pairs = choose_rows(state.active_corpus())
        with right:
            picked = choose_tokenizer()
        settings = choose_settings(picked.tokenizer) if picked is not None else None
    if picked is None:
        url_state.publish(PARAMS)
        return
    base = picked.tokenizer
    url_state.publish(PARAMS)  # before the views: a failure below keeps the link
    if settings is None:
        return
    if not texts:
        if not (is_counts(state.active_corpus()) and st.session_state.get(SOURCE) == "corpus"):  # said above
            st.info("Give at least one row of text.")
        return
    try:
        tok = with_template(base, settings.template, single=settings.single or "$A", pair=settings.pair or "$A $B:1")
        batch = tok.encode_batch(texts, pairs=pairs, padding=settings.padding, truncation=settings.truncation,
                                 return_overflowing=settings.overflow)
    except TokenizerError as err:
        st.error(escape_markdown(str(err)))
        return
    # Only the open tab runs (Streamlit reruns the page when another is picked): the batch is
    # encoded once per run, and the grids, heatmaps, waste and files of the other tabs are not made.
    grid, masks, waste, export = st.tabs(TABS, key=TAB, on_change="rerun")
    if masks.open:
        with masks:
            views.render_masks(batch)
    elif waste.open:
        with waste:
            views.render_waste(batch)
    elif export.open:
        with export:
            views.render_export(batch, settings, tok, pairs=pairs is not None)
    else:
        with grid:
            views.render_grid(batch, tok)
    url_state.publish(PARAMS)  # again: what the open view filled in (one history entry all the same)
