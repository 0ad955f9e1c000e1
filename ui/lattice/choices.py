"""What the Lattice page looks at: a Unigram tokenizer (the course's toy model, one trained here on
the corpus, or a Unigram from the shelf) and a word or sentence (also ``?text=``), cut into the
pieces the model sees.

Keys in ``st.session_state`` owned here start with ``lattice_``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import streamlit as st

from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.unigram.explain import COURSE_WORDS, course_model
from tokenizer_core.unigram.model import Unigram
from ui import session as state
from ui import url_state
from ui.lattice import PREFIX
from ui.shelf import state as shelf
from ui.tokenizers.add import Algorithm, TrainRequest, counts_fit_note, train_onto_shelf
from ui.widgets import shelf_picker
from ui.widgets.shelf_picker import Picked
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import visible_whitespace

TEXT, MODEL = PREFIX + "text", PREFIX + "model"
COURSE = "The course's toy model (hug, pug, pun, bun, hugs)"
MAX_TEXT_CHARS = 2000
DEFAULT_TEXT = "hugs"
#: Longest piece drawn as a lattice (arcs and the Viterbi table grow with it).
MAX_PIECE_CHARS = 60


@dataclass(frozen=True)
class Chosen:
    """The model picked and how to name it; ``tokenizer`` is None for the bare course model."""

    label: str
    model: Unigram
    tokenizer: Optional[Tokenizer]


#: The model picker and the Train panel in the address (named by their widget keys).
MODEL_PARAMS = (
    shelf_picker.param(MODEL, MODEL),
    # The Train panel is a form: the address shows the size last trained (or the link's).
    *url_state.form(url_state.integer(PREFIX + "vocab_size", PREFIX + "vocab_size", default=2000, lo=300, hi=100_000)),
)
TEXT_PARAMS = (
    url_state.text("text", TEXT, default=DEFAULT_TEXT, what="the text"),
    url_state.label(PREFIX + "piece", PREFIX + "piece", what="the piece"),
)


def _train_button() -> None:
    """Train a Unigram on the corpus and select it in the model picker (drawn after this)."""
    c1, c2 = st.columns([1, 2], vertical_alignment="bottom")
    vocab = c1.number_input("Vocabulary size", min_value=300, max_value=100_000, step=500, key=PREFIX + "vocab_size")
    note = counts_fit_note(state.active_corpus(), [Algorithm.UNIGRAM])
    if note:
        st.caption(escape_markdown(note))
    if not c2.button("Train Unigram", help="Train a Unigram tokenizer on the active corpus", key=PREFIX + "train", icon=":material/model_training:"):
        return
    url_state.commit(MODEL_PARAMS)
    trained = train_onto_shelf(TrainRequest(Algorithm.UNIGRAM, vocab_size=int(vocab)))
    if trained is None:
        return
    item, seconds = trained
    st.toast(escape_markdown(f"Unigram trained in {seconds:.1f} s and put on the shelf"))
    shelf_picker.select(MODEL, item)


def choose_model() -> Optional[Chosen]:
    """The model picker: the course's toy model, or a Unigram tokenizer of the user's on the shelf
    (the offline references are byte-level or SentencePiece BPE models, so they are not offered).
    None when the picked tokenizer cannot be loaded (the reason is on the page)."""
    _train_button()
    picked = shelf_picker.pick_one(
        key=MODEL, label="Unigram model", extra=[COURSE], offer=lambda item: item.kind != shelf.Kind.REFERENCE,
        accept=lambda item, tok: isinstance(tok.model, Unigram),
        help="Unigram tokenizers on the shelf: trained here or imported (SentencePiece .model, "
             "tokenizer.json with a Unigram model).")
    if picked is None:
        return None
    if picked == COURSE:
        return Chosen(COURSE, course_model(), None)
    if not isinstance(picked, Picked):
        return None
    return Chosen(picked.label, picked.tokenizer.model, picked.tokenizer)


def choose_text(chosen: Chosen) -> str:
    # "unhug" is the course's own Viterbi walk (chapter 6.7), replayed by the Viterbi table.
    hint = ", ".join([*COURSE_WORDS, "unhug"]) if chosen.tokenizer is None else "a word or a sentence"
    return st.text_input(f"Text ({hint})", key=TEXT, max_chars=MAX_TEXT_CHARS)


def model_pieces(chosen: Chosen, text: str) -> list[str]:
    """What the model is asked to segment: the pre-tokenized pieces (the course model takes the
    text's words as they are)."""
    if chosen.tokenizer is None:
        return text.split()
    return [p.text for p in chosen.tokenizer.explain(text).pieces]


def choose_piece(pieces: list[str]) -> Optional[str]:
    if not pieces:
        return None
    if len(pieces) == 1:
        return pieces[0]
    labels = [f"{i + 1}. {visible_whitespace(p[:40])}" for i, p in enumerate(pieces)]
    if st.session_state.get(PREFIX + "piece") not in labels:
        st.session_state[PREFIX + "piece"] = labels[0]  # a new text, or a link's piece this text lacks
    picked = st.selectbox("Piece to draw (the model segments each pre-tokenized piece on its own)", labels,
                          key=PREFIX + "piece")
    return pieces[labels.index(picked)] if picked in labels else pieces[0]
