"""The Compare page's views of the chosen tokenizers: aligned tokens, the metrics table, robustness
probes and fertility per language. Token text reaches the browser only through escaping helpers
(``ui.compare.align`` and ``ui.widgets.tokens``) or as dataframe cell text."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import asdict

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from tokenizer_core.analysis.compare import CompareRow, compare_rows, robustness_examples, segments, unk_id
from tokenizer_core.analysis.languages import fertility_by_language
from tokenizer_core.analysis.vocabulary import token_bytes
from tokenizer_core.corpus.documents import Corpus
from ui import session as state
from ui.compare import PREFIX
from ui.compare.align import MAX_ALIGNED_CHARS, aligned_html
from ui.compare.choices import Compared
from ui.widgets.safe_html import render_html
from ui.widgets.text import escape_markdown
from ui.widgets.tokens import chips_html, scheme_for

#: How much of the corpus the corpus-wide metrics encode (characters, whole lines).
CORPUS_METRIC_CHARS = 200_000
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
    st.caption("Each row is one tokenizer; a token sits under the characters it covers. Red edges: a boundary "
               "that only some tokenizers draw (character and byte rows, which cut everywhere, are left out of "
               "that count). Hover a token for its id and bytes."
               + (f" Only the first {MAX_ALIGNED_CHARS:,} characters are aligned." if len(text) > MAX_ALIGNED_CHARS else ""))


@st.cache_data(max_entries=16, show_spinner="Measuring every tokenizer on the corpus…")
def _corpus_rows(corpus_key: str, keys: tuple[str, ...], d_model: int, price: float, baseline: str | None,
                 _chosen: Sequence[Compared], _corpus: Corpus) -> list[CompareRow]:
    lines, size = [], 0
    for line in _corpus.lines():
        if size >= CORPUS_METRIC_CHARS:
            break
        lines.append(line)
        size += len(line)
    return compare_rows([(c.name, c.tokenizer) for c in _chosen], lines, d_model=d_model, price_per_1k=price,
                        baseline=baseline)


def render_metrics(text: str, chosen: Sequence[Compared], corpus: Corpus) -> None:
    c1, c2, c3, c4 = st.columns(4)
    d_model = int(c1.number_input("d_model", min_value=1, max_value=65_536, value=768, step=64, key=PREFIX + "d_model", bind="query-params"))
    price = float(c2.number_input("Price per 1k tokens ($)", min_value=0.0, max_value=1000.0, value=0.002,
                                  step=0.001, format="%.4f", key=PREFIX + "price", bind="query-params"))
    names = [c.name for c in chosen]
    baseline = c3.selectbox("Attention baseline", names, index=names.index("char") if "char" in names else 0,
                            key=PREFIX + "baseline", bind="query-params")
    view = c4.radio("View", ["All metrics", "Strategy table"], key=PREFIX + "metrics_view", bind="query-params")
    columns = list(STRATEGY) if view == "Strategy table" else list(COLUMNS)
    config = {k: COLUMNS[k] for k in columns}
    st.subheader("On this text")
    if text:
        rows = compare_rows([(c.name, c.tokenizer) for c in chosen], [text], d_model=d_model, price_per_1k=price,
                            baseline=baseline)
        st.dataframe(_frame(rows)[columns], hide_index=True, width="stretch", column_config=config)
    else:
        st.info("The text is empty.")
    st.subheader("On the corpus")
    rows = _corpus_rows(state.active_corpus_key(), tuple(c.key for c in chosen), d_model, price, baseline,
                        chosen, corpus)
    st.dataframe(_frame(rows)[columns], hide_index=True, width="stretch", column_config=config)
    st.caption(f"The corpus metrics encode its first {CORPUS_METRIC_CHARS:,} characters, each line on its own, "
               "without special tokens.")


def _spent(tok, text: str) -> str:  # noqa: ANN001
    enc = tok.encode(text, add_special_tokens=False)
    unknown = unk_id(tok)
    lost = sum(1 for i in enc.ids if i == unknown) if unknown is not None else 0
    return f"{len(enc.ids)}" + (f" ({lost} unknown)" if lost else "")


def render_robustness(chosen: Sequence[Compared], *, translate: bool) -> None:
    examples = robustness_examples()
    counts = pd.DataFrame({"probe": [label for label, _ in examples],
                           **{c.name: [_spent(c.tokenizer, t) for _, t in examples] for c in chosen}})
    st.markdown("Tokens each tokenizer spends on text it may never have seen (and how many of them are the "
                "unknown token, which loses the text):")
    st.dataframe(counts, hide_index=True, width="stretch")
    for label, text in examples:
        with st.expander(f"{label}: {text[:60]}"):
            for c in chosen:
                enc = c.tokenizer.encode(text, add_special_tokens=False)
                st.markdown(f"**{escape_markdown(c.name)}** · {len(enc.ids)} tokens")
                render_html(chips_html(zip(enc.ids, enc.tokens), scheme=scheme_for(c.tokenizer), translate=translate))


def render_languages(chosen: Sequence[Compared]) -> None:
    lines = list(state.load_sample_cached("multilingual").lines())
    metric = st.radio("Measure", ["tokens per word", "tokens per character"], horizontal=True,
                      key=PREFIX + "language_metric", bind="query-params")
    field = "fertility" if metric == "tokens per word" else "tokens_per_char"
    fig, table = go.Figure(), []
    for c in chosen:
        rows = fertility_by_language(c.tokenizer, lines)
        fig.add_trace(go.Bar(name=html.escape(c.name), x=[r.script for r in rows], y=[getattr(r, field) for r in rows],
                             customdata=[", ".join(r.languages) for r in rows],
                             hovertemplate="%{x} (%{customdata})<br>%{y:.2f} " + metric + "<extra>"
                                           + html.escape(c.name) + "</extra>"))
        table += [{"tokenizer": c.name, "script": r.script, "languages": ", ".join(r.languages), "lines": r.lines,
                   "tokens": r.tokens, "tokens/word": r.fertility, "tokens/char": r.tokens_per_char} for r in rows]
    fig.update_layout(barmode="group", height=420, margin=dict(l=10, r=10, t=40, b=10), yaxis_title=metric,
                      title=f"{metric.capitalize()} by script, on the bundled multilingual sample",
                      legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1, xanchor="right"))
    st.plotly_chart(fig, width="stretch", config={"displayModeBar": False})
    st.caption("Scripts written without spaces (Chinese, Japanese, Thai) have few words per line by this count, "
               "so tokens per character is the fairer measure there.")
    with st.expander("The numbers"):
        st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch")
