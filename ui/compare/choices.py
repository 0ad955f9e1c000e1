"""Which tokenizers the Compare page compares: word/char/byte baselines built on the corpus, subword
tokenizers trained here (put on the shelf), and anything on the shelf (:mod:`ui.widgets.shelf_picker`).

Every :class:`Compared` carries a content digest, the key of every cache of results about it.

>>> baseline_digest("word", "corpus-ab12")
'baseline-word-corpus-ab12'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

import streamlit as st

from tokenizer_core.analysis.compare import GRANULARITIES, granularity_tokenizer
from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.pipeline import Tokenizer
from ui import cache, url_state
from ui.compare import PREFIX
from ui.corpus.counts import is_counts
from ui.shelf.state import Kind
from ui.tokenizers.add import Algorithm, TrainRequest, counts_fit_note, train_onto_shelf
from ui.widgets import shelf_picker
from ui.widgets.text import display_name, escape_markdown

SHELF, KINDS = PREFIX + "shelf", PREFIX + "granularities"
ALGORITHMS, VOCAB = PREFIX + "algorithms", PREFIX + "vocab_size"
DEFAULT_SHELF = ("gpt2", "cl100k_base")
DEFAULT_ALGORITHMS = (Algorithm.BPE_BYTES.value, Algorithm.WORDPIECE.value, Algorithm.UNIGRAM.value)
GRANULARITY_LABELS = {"word": "word", "char": "character", "byte": "byte"}
NO_BASELINES = ("The word, character and byte baselines are built from running text, and the active corpus is "
                "a counts file: they are left out. BPE, WordPiece and Unigram train from its counts.")

URL_PARAMS = (
    url_state.many(KINDS, KINDS, default=GRANULARITIES, options=GRANULARITIES, what="the baselines"),
    # The Train panel is a form: the address shows what was last trained (or the link's values).
    *url_state.form(url_state.many(ALGORITHMS, ALGORITHMS, default=DEFAULT_ALGORITHMS,
                                   options=[a.value for a in Algorithm], what="the algorithms"),
                    url_state.integer(VOCAB, VOCAB, default=4000, lo=300, hi=200_000)),
    shelf_picker.params_many(SHELF, SHELF),
)


@dataclass(frozen=True)
class Compared:
    """One tokenizer of the comparison: its row name, its content digest, and the tokenizer.

    ``digest`` keys the server-wide caches (:mod:`ui.cache`); ``name`` is only shown."""

    name: str
    digest: str
    tokenizer: Tokenizer


def baseline_digest(kind: str, corpus_digest: str) -> str:
    """The content identity of a baseline: it is a pure function of the corpus and its kind (hashing
    its JSON instead would cost a pass over a vocabulary of every word of a big corpus, each run)."""
    return f"baseline-{kind}-{corpus_digest}"


def baseline(kind: str, corpus: Corpus) -> Optional[Compared]:
    """The ``kind`` baseline of ``corpus``, built once per server and corpus content, under a progress
    bar with Cancel; None when this session cancelled it (the page offers to start it again)."""
    digest = cache.corpus_digest(corpus)
    tok = cache.BASELINES.get_or_run(
        (digest, kind), lambda progress: granularity_tokenizer(kind, corpus.lines(), progress=progress),
        job=f"baseline:{kind}:{digest}",
        what=f"Building the {GRANULARITY_LABELS[kind]} baseline on “{display_name(corpus)}” (once per corpus)")
    return None if tok is None else Compared(kind, baseline_digest(kind, digest), tok)


def _train_panel(corpus: Corpus) -> None:
    algorithms = st.multiselect("Train subword tokenizers on the corpus", [a.value for a in Algorithm],
                                format_func=lambda v: Algorithm(v).short, key=ALGORITHMS)
    c2, c3 = st.columns([1, 1.1], vertical_alignment="bottom")
    vocab = c2.number_input("Vocabulary size", min_value=300, max_value=200_000, step=500, key=VOCAB)
    note = counts_fit_note(corpus, Algorithm)
    if note:
        st.caption(escape_markdown(note))
    if not c3.button("Train", help="Train the chosen algorithms on the corpus and add them below", key=PREFIX + "train",
                     type="primary", disabled=not algorithms, icon=":material/model_training:"):
        return
    url_state.commit(URL_PARAMS)
    for algorithm in algorithms:
        trained = train_onto_shelf(TrainRequest(Algorithm(algorithm), int(vocab)))
        if trained is not None:
            item, seconds = trained
            shelf_picker.select(SHELF, item, many=True)  # the picker is drawn after this panel
            st.toast(escape_markdown(f"{item.name}: trained in {seconds:.1f} s"))


def _short(label: str) -> str:
    return label.replace(" · " + Kind.REFERENCE.label, "")


def choose_tokenizers(corpus: Corpus) -> list[Compared]:
    """The pickers, and the tokenizers they give, baselines first."""
    return choose(corpus)()


def choose(corpus: Corpus) -> Callable[[], list[Compared]]:
    """The pickers; returns what builds the tokenizers they give, baselines first. The page calls it
    where the result is shown, after drawing its tabs: a first visit builds the baselines (seconds
    on a big corpus) under their progress bars and loads the shelf's picks (the references, about
    a second the first time) with the rest of the page already on screen."""
    counted = is_counts(corpus)  # word, character and byte baselines are built from running text
    kinds = st.multiselect("Baselines (trained on the corpus)", list(GRANULARITIES),
                           format_func=GRANULARITY_LABELS.get, key=KINDS, disabled=counted,
                           help=NO_BASELINES if counted else None)
    if counted:
        st.caption(escape_markdown(NO_BASELINES))
        kinds = []
    _train_panel(corpus)
    # Only labels here: the tokenizers load in build(), inside the open tab, after the skeleton is drawn.
    picked = shelf_picker.choose_many(key=SHELF, label="From the shelf", prefer=DEFAULT_SHELF, short=_short,
                                      help="Everything on the shelf: references, and what you trained or imported.")

    def build() -> list[Compared]:
        out = [b for b in (baseline(kind, corpus) for kind in kinds) if b is not None]
        for p in shelf_picker.load_many(picked):
            # A reference's name is unique; the user's own tokenizers keep the label that tells them apart.
            out.append(Compared(p.name if p.item.kind == Kind.REFERENCE else p.label, p.digest, p.tokenizer))
        return out

    return build
