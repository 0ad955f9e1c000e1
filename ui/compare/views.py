"""The Compare page's first two views of the chosen tokenizers: aligned tokens and the metrics
tables (on the text, and on the corpus through :mod:`ui.compare.corpus_metrics`). Token text reaches
the browser only through escaping helpers (``ui.compare.align``) or as dataframe cell text.

>>> [p.name for p in URL_PARAMS]
['compare_d_model', 'compare_price', 'compare_baseline', 'compare_metrics_view']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Optional

import pandas as pd
import streamlit as st

from tokenizer_core.analysis.compare import CompareRow, compare_rows, segments
from tokenizer_core.analysis.vocabulary import token_bytes
from tokenizer_core.corpus.documents import Corpus
from tokenizer_core.wordpiece.trace import WordPieceTraining
from ui import url_state
from ui.compare import PREFIX, rules_view
from ui.compare.align import MAX_ALIGNED_CHARS, aligned_html
from ui.compare.choices import Compared
from ui.compare.corpus_metrics import CORPUS_METRIC_CHARS, corpus_rows
from ui.compare.graphemes_view import render_graphemes
from ui.compare.notes import wordpiece_note
from ui.corpus.counts import say_no_running_text
from ui.widgets import export
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import scheme_for

D_MODEL, PRICE, BASELINE, VIEW = PREFIX + "d_model", PREFIX + "price", PREFIX + "baseline", PREFIX + "metrics_view"
VIEWS = ("All metrics", "Strategy table")
URL_PARAMS = (
    url_state.integer(D_MODEL, D_MODEL, default=768, lo=1, hi=65_536),
    url_state.number(PRICE, PRICE, default=0.002, lo=0.0, hi=1000.0),
    url_state.label(BASELINE, BASELINE, default="char", what="the attention baseline"),
    url_state.choice(VIEW, VIEW, VIEWS, default=VIEWS[0]),
)
STRATEGY = {"name": "tokenizer", "vocab_size": "vocabulary", "chars_per_token": "avg. token length (chars)",
            "compression": "tokens per char", "char_coverage": "coverage"}
COLUMNS = {
    "name": st.column_config.TextColumn("tokenizer"),
    "vocab_size": st.column_config.NumberColumn("vocabulary", format="localized"),
    "tokens": st.column_config.NumberColumn("tokens", format="localized"),
    "chars_per_token": st.column_config.NumberColumn("chars/token", format="%.2f"),
    "bytes_per_token": st.column_config.NumberColumn("bytes/token", format="%.2f"),
    "compression": st.column_config.NumberColumn("tokens/char", format="%.3f",
                                                 help="Tokens per character: 1.0 is one token per character."),
    "fertility": st.column_config.NumberColumn("tokens/word", format="%.2f"),
    "unk_rate": st.column_config.NumberColumn("UNK rate", format="percent"),
    "char_coverage": st.column_config.NumberColumn("coverage", format="percent",
                                                   help="Share of characters not lost in an unknown or byte-fallback token."),
    "vocab_utilization": st.column_config.NumberColumn("vocab used", format="percent"),
    "embedding_params": st.column_config.NumberColumn("embedding params", format="localized",
                                                      help="vocabulary × d_model"),
    "attention_cost": st.column_config.NumberColumn("attention cost", format="%.2f",
                                                    help="Σ tokens² per text, relative to the baseline row."),
    "cost": st.column_config.NumberColumn("cost", format="$%.4f"),
}


def _frame(rows: Sequence[CompareRow]) -> pd.DataFrame:
    return pd.DataFrame([asdict(r) for r in rows]).drop(columns=["chars", "bytes", "words"])


def render_aligned(text: str, chosen: Sequence[Compared], *, translate: bool) -> None:
    if not text:
        st.info("Type a text to see how each tokenizer cuts it.")
        return
    rows = [(c.name, segments(c.tokenizer, text[:MAX_ALIGNED_CHARS])) for c in chosen]
    counts = " · ".join(f"**{escape_markdown(c.name)}** {len(segs):,}" for c, (_, segs) in zip(chosen, rows))
    st.markdown(f"Tokens: {counts}")
    render_html(aligned_html(text, rows, schemes=[scheme_for(c.tokenizer) for c in chosen], translate=translate,
                         describers=[(lambda t, tok=c.tokenizer: token_bytes(tok, t)) for c in chosen]))
    st.caption("Each row is one tokenizer; a token sits under the characters it covers. Thick dark-red edges "
               "(and a line in the text row): a boundary that only some tokenizers draw (character and byte rows, "
               "which cut everywhere, are left out of that count). Dashed: a boundary inside a character's bytes "
               "(the character is underlined with dashes in the text row), each token still drawn whole. "
               "Hover a token, or Tab to it, for its id and bytes."
               + (f" Only the first {MAX_ALIGNED_CHARS:,} characters are aligned." if len(text) > MAX_ALIGNED_CHARS else ""))
    _wordpiece_notes(text, chosen, [segs for _, segs in rows])
    render_graphemes(text[:MAX_ALIGNED_CHARS], chosen, [segs for _, segs in rows])
    rules_view.render_rules(chosen, text[:MAX_ALIGNED_CHARS], [segs for _, segs in rows])


def _wordpiece_notes(text: str, chosen: Sequence[Compared], rows: Optional[Sequence[list]] = None) -> None:
    """Under rows of a WordPiece trained here: why it splits common words (:mod:`ui.compare.notes`)."""
    for i, c in enumerate(chosen):
        training = getattr(c.tokenizer.model, "training", None)
        if not isinstance(training, WordPieceTraining):
            continue
        segs = rows[i] if rows is not None else segments(c.tokenizer, text[:MAX_ALIGNED_CHARS])
        note = wordpiece_note(c.name, training, text[:MAX_ALIGNED_CHARS], segs)
        if note:
            st.info(note, icon=":material/info:")


def _settings(names: Sequence[str]) -> tuple[int, float, str, list[str]]:
    c1, c2, c3, c4 = st.columns(4)
    d_model = int(c1.number_input("d_model", min_value=1, max_value=65_536, step=64, key=D_MODEL))
    price = float(c2.number_input("Price per 1k tokens ($)", min_value=0.0, max_value=1000.0, step=0.001,
                                  format="%.4f", key=PRICE))
    if st.session_state.get(BASELINE) not in names:  # not chosen yet, or no longer compared
        st.session_state[BASELINE] = "char" if "char" in names else names[0]
    baseline = c3.selectbox("Attention baseline", list(names), key=BASELINE)
    view = c4.radio("View", VIEWS, key=VIEW)
    return d_model, price, baseline, list(STRATEGY) if view == "Strategy table" else list(COLUMNS)


def render_metrics(text: str, chosen: Sequence[Compared], corpus: Corpus) -> None:
    d_model, price, baseline, columns = _settings([c.name for c in chosen])
    config = {k: COLUMNS[k] for k in columns}
    st.subheader("On this text")
    if text:
        rows = compare_rows([(c.name, c.tokenizer) for c in chosen], [text], d_model=d_model, price_per_1k=price,
                            baseline=baseline)
        export.table(_frame(rows)[columns], key=PREFIX + "metrics_text", name="metrics on the text", hide_index=True,
                     column_config=config)
    else:
        st.info("The text is empty.")
    st.subheader("On the corpus")
    if say_no_running_text(corpus, "Measuring on the corpus"):
        _wordpiece_notes(text, chosen)
        return
    rows = corpus_rows(chosen, corpus, d_model=d_model, price=price, baseline=baseline)
    export.table(_frame(rows)[columns], key=PREFIX + "metrics_corpus", name="metrics on the corpus", hide_index=True,
                 column_config=config)
    st.caption(f"The corpus metrics encode its first {CORPUS_METRIC_CHARS:,} characters, each line on its own, "
               "without special tokens.")
    _wordpiece_notes(text, chosen)
