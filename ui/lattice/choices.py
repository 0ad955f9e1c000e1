"""What the Lattice page looks at: a Unigram tokenizer (the course's toy model, one trained here on
the corpus, or a Unigram from the shelf) and a word or sentence (also ``?text=``), cut into the
pieces the model sees.

Keys in ``st.session_state`` owned here start with ``lattice_``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import streamlit as st

from tokenizer_core.errors import TokenizerError
from tokenizer_core.pipeline import Tokenizer
from tokenizer_core.unigram.explain import COURSE_WORDS, course_model
from tokenizer_core.unigram.model import Unigram
from ui.lattice import PREFIX
from ui.shelf import state as shelf
from ui.tokenizers.add import TrainRequest, shelf_label, train_onto_shelf
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import visible_whitespace
from ui.widgets.url_text import publish_text, seed_from_url

TEXT, MODEL = PREFIX + "text", PREFIX + "model"
COURSE = "The course's toy model (hug, pug, pun, bun, hugs)"
MAX_TEXT_CHARS = 2000
#: Longest piece drawn as a lattice (arcs and the Viterbi table grow with it).
MAX_PIECE_CHARS = 60


@dataclass(frozen=True)
class Chosen:
    """The model picked and how to name it; ``tokenizer`` is None for the bare course model."""

    label: str
    model: Unigram
    tokenizer: Optional[Tokenizer]


def _unigram_items() -> dict[str, shelf.ShelfItem]:
    out = {}
    for label, item in shelf.unique_labels(shelf.items()).items():
        if item.kind == "reference":
            continue  # the offline references are byte-level BPE or SentencePiece BPE models
        try:
            if isinstance(shelf.tokenizer(item.key).model, Unigram):
                out[label] = item
        except (KeyError, TokenizerError):
            continue
    return out


def _train_button() -> Optional[str]:
    """Train a Unigram on the corpus; returns the new shelf label."""
    c1, c2 = st.columns([1, 2], vertical_alignment="bottom")
    vocab = c1.number_input("Vocabulary size", min_value=300, max_value=100_000, value=2000, step=500,
                            key=PREFIX + "vocab_size", bind="query-params")
    if not c2.button("Train Unigram", help="Train a Unigram tokenizer on the active corpus", key=PREFIX + "train", icon=":material/model_training:"):
        return None
    trained = train_onto_shelf(TrainRequest(algorithm="unigram", vocab_size=int(vocab), lowercase=False))
    if trained is None:
        return None
    item, seconds = trained
    st.toast(escape_markdown(f"Unigram trained in {seconds:.1f} s and put on the shelf"))
    return shelf_label(item)


def choose_model() -> Chosen:
    trained = _train_button()
    items = _unigram_items()
    options = [COURSE, *items]
    if trained is not None:
        st.session_state[MODEL] = trained
    if st.session_state.get(MODEL) not in options:
        st.session_state[MODEL] = COURSE
    label = st.selectbox("Unigram model", options, key=MODEL, bind="query-params",
                         help="Unigram tokenizers on the shelf: trained here or imported (SentencePiece "
                              ".model, tokenizer.json with a Unigram model).")
    if label == COURSE:
        return Chosen(COURSE, course_model(), None)
    tok = shelf.tokenizer(items[label].key)
    return Chosen(label, tok.model, tok)


def choose_text(chosen: Chosen) -> str:
    seed_from_url(TEXT, limit=MAX_TEXT_CHARS)
    st.session_state.setdefault(TEXT, "hugs")
    # "unhug" is the course's own Viterbi walk (chapter 6.7), replayed by the Viterbi table.
    hint = ", ".join([*COURSE_WORDS, "unhug"]) if chosen.tokenizer is None else "a word or a sentence"
    text = st.text_input(f"Text ({hint})", key=TEXT, max_chars=MAX_TEXT_CHARS)
    publish_text(text if text != "hugs" else None)
    return text


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
    picked = st.selectbox("Piece to draw (the model segments each pre-tokenized piece on its own)", labels,
                          key=PREFIX + "piece", bind="query-params")
    return pieces[labels.index(picked)] if picked in labels else pieces[0]
