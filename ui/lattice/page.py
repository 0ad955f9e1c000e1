"""The Lattice page: pick a Unigram model and a text, then see the lattice of one of its pieces,
the Viterbi walk, the n-best list, the fewest-token path, sampling, BPE-dropout, and how the model was trained.

The tabs run lazily, as on the Compare page: only the open one is computed (the lattice itself is
built only for the four tabs that draw it). The open tab is in the address like every input.

>>> TABS[0], TAB
('Lattice', 'lattice_tab')
"""

from __future__ import annotations

import streamlit as st

from tokenizer_core.unigram.lattice import Lattice
from ui import url_state
from ui.lattice import PREFIX, views
from ui.lattice.choices import (
    MAX_PIECE_CHARS,
    MODEL_PARAMS,
    TEXT_PARAMS,
    choose_model,
    choose_piece,
    choose_text,
    model_pieces,
)
from ui.lattice.fewest import FEWEST_PARAMS, render_fewest
from ui.lattice.graph import VITERBI_COLOUR, lattice_figure
from ui.widgets import display
from ui.widgets.export import plotly_chart
from ui.widgets.text import escape_markdown

TABS = ("Lattice", "Viterbi table", "n-best and entropy", "Fewest tokens", "Subword sampling", "BPE-dropout",
        "Training")
TAB = PREFIX + "tab"  # the open tab, in the address like every input (?lattice_tab=Viterbi+table)
TAB_PARAM = url_state.choice(TAB, TAB, TABS, default=TABS[0])


def render_page() -> None:
    """The whole page (called by ``pages/lattice.py``)."""
    params = (*MODEL_PARAMS, *TEXT_PARAMS, *views.URL_PARAMS, *FEWEST_PARAMS, TAB_PARAM)
    url_state.seed(params)
    display.intro("A Unigram model scores every way to cut a piece of text into vocabulary pieces; the "
                  "**lattice** holds them all. Viterbi finds the best path; sampling draws others "
                  "(subword regularization).")
    with display.folded("Model and text"):
        left, right = st.columns([1, 1], gap="large")
        with right:
            chosen = choose_model()
        if chosen is not None:
            with left:
                text = choose_text(chosen)
                piece = choose_piece(model_pieces(chosen, text))
    if chosen is None:
        url_state.publish(params)
        return
    url_state.publish(params)  # before the tabs: a failure below keeps the link
    if piece is None:
        st.info("Type a word or a sentence.")
        return
    if len(piece) > MAX_PIECE_CHARS:
        st.warning(f"This piece has {len(piece):,} characters; the first {MAX_PIECE_CHARS} are drawn.")
        piece = piece[:MAX_PIECE_CHARS]
    # Only the open tab runs (Streamlit reruns the page when another is picked): a click costs the
    # view on show, not six of them.
    graph, viterbi, nbest, fewest, sampling, dropout, training = st.tabs(TABS, key=TAB, on_change="rerun")
    if dropout.open:
        with dropout:
            views.render_dropout()
    elif training.open:
        with training:
            views.render_training(chosen.model, is_course=chosen.tokenizer is None)
    else:
        lattice = chosen.model.lattice(piece)
        if viterbi.open:
            with viterbi:
                views.render_viterbi(lattice)
        elif nbest.open:
            with nbest:
                k = int(st.number_input("n", min_value=1, max_value=100, key=PREFIX + "nbest"))
                views.render_nbest(lattice, k=k)
        elif fewest.open:
            with fewest:
                render_fewest(lattice, chosen)
        elif sampling.open:
            with sampling:
                views.render_sampling(lattice)
        else:
            with graph:
                _render_graph(lattice, piece)
    url_state.publish(params)  # again: the open tab's pickers fill their values in (one history entry all the same)


def _render_graph(lattice: Lattice, piece: str) -> None:
    plotly_chart(lambda style: lattice_figure(lattice, style=style), key=PREFIX + "graph", name="lattice")
    best = lattice.viterbi()
    st.caption(escape_markdown(
        f"{len(lattice.edges):,} edges over {len(piece)} characters. Arc width: marginal probability "
        f"(how likely the piece is on the path); {VITERBI_COLOUR}: the Viterbi path ({' | '.join(best.pieces)}, "
        f"score {best.log_prob:.3f}). Hover an arc's label for its id and numbers."))
